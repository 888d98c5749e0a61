#!/bin/sh
# check --baseline: each drift kind on a fixture host that differs from
# r5350-ready in that one way, against r5350-ready as the baseline (a tree,
# and the same tree through `gpuprov snapshot` and tar); exit status as check;
# a baseline that cannot be read, or --baseline on another command, is exit 4.
set -u
. "$(dirname "$0")/lib.sh"
P=$(gp_profile h3c-r5350-g6)
# the drift.* findings that are not ok, one "id severity subject" a line, sorted
drifts() {
	python3 -c '
import json, sys
doc = json.load(sys.stdin)
for f in sorted(doc["findings"], key=lambda f: (f["id"], f["subject"])):
    if f["id"].startswith("drift.") and f["severity"] != "ok":
        print(f["id"], f["severity"], f["subject"])
'
}

# HOST BASELINE WANT-EXIT, then the expected lines on stdin
expect() {
	case $1 in */*) host=$1 ;; *) host=build/hosts/$1 ;; esac
	$G -r "$host" -p $P --baseline "$2" --json check >"$d/out" 2>"$d/err"
	rc=$?
	drifts <"$d/out" >"$d/got" || { cat "$d/err"; gp_bad "$1: bad JSON"; return; }
	cat >"$d/want"
	if ! cmp -s "$d/want" "$d/got"; then
		diff "$d/want" "$d/got"; gp_bad "$1 against $2: drift differs"
	fi
	[ "$rc" -eq "$3" ] || gp_bad "$1: exit $rc, want $3"
}

B=build/hosts/r5350-ready
# the ready host against itself: no drift, check exits 0
expect r5350-ready $B 0 </dev/null
expect drift-added $B 1 <<'E'
drift.added warn 0000:80:03.1
drift.added warn 0000:82:00.0
E
expect drift-missing $B 2 <<'E'
drift.missing fail 0000:42:00.0
E
expect drift-moved $B 2 <<'E'
drift.added warn 0000:c0:09.1
drift.moved fail 0000:c4:00.0
E
expect drift-slot $B 2 <<'E'
drift.moved fail 0000:41:00.0
drift.moved fail 0000:42:00.0
E
# the link fixture is another tree: here it is this machine, its links retrained
cp -a build/hosts/link "$d/link"
echo r5350-ready >"$d/link/proc/sys/kernel/hostname"
expect "$d/link" $B 2 <<'E'
drift.link fail 0000:41:00.0
drift.link warn 0000:42:00.0
E
expect drift-acs $B 2 <<'E'
drift.acs fail 0000:40:01.1
drift.acs warn 0000:80:01.1
E
expect drift-group $B 2 <<'E'
drift.iommu_group fail 0000:41:00.0
E
expect drift-kernel $B 2 <<'E'
drift.bios warn host
drift.cmdline fail host
E
expect drift-driver $B 2 <<'E'
drift.driver fail 0000:01:00.1
drift.driver fail 0000:41:00.0
E

# every kind is reported, ok when it did not drift
n=$($G -r $B -p $P --baseline $B --json check |
	python3 -c 'import json,sys; print(sum(f["id"].startswith("drift.") and f["severity"] == "ok" for f in json.load(sys.stdin)["findings"]))')
[ "$n" = 10 ] || gp_bad "ready against itself: $n ok drift findings, want 10"

# the baseline as the operator has it: a snapshot, unpacked
mkdir "$d/snap"
$G -q -r $B -o "$d/s.tar.gz" snapshot && tar xzf "$d/s.tar.gz" -C "$d/snap" ||
	fail "snapshot failed"
expect r5350-ready "$d/snap" 0 </dev/null
expect drift-moved "$d/snap" 2 <<'E'
drift.added warn 0000:c0:09.1
drift.moved fail 0000:c4:00.0
E

# bad input
$G -r $B -p $P --baseline "$d/none" check >/dev/null 2>&1
[ $? -eq 4 ] || gp_bad "missing baseline: not exit 4"
$G -r $B -p $P --baseline "$d/s.tar.gz" check >/dev/null 2>&1
[ $? -eq 4 ] || gp_bad "a tarball as baseline: not exit 4"
$G -r $B -p $P --baseline $B plan >/dev/null 2>&1
[ $? -eq 4 ] || gp_bad "--baseline on plan: not exit 4"
out=$($G -r $B -p $P --baseline "$d/none" --json check 2>/dev/null)
printf '%s' "$out" | grep -q '"exit_status": 4' || gp_bad "--json: no error document"

# DIR RC BRIDGE CHILD: a copy of the ready host whose bus links make BRIDGE and
# CHILD (below it) each other's parent: CHILD's directory holds a link back to
# BRIDGE's, and BRIDGE's bus link goes through it
mkloop() {
	cp -a $B "$1"
	ln -s "../../$3" "$1/sys/devices/pci0000:$2/$3/$4/$3"
	rm "$1/sys/bus/pci/devices/$3"
	ln -s "../../../devices/pci0000:$2/$3/$4/$3" "$1/sys/bus/pci/devices/$3"
}
# Such a tree is refused, as a baseline (exit 4) and as -r (exit 3) alike, and
# no command walks round the loop (timeout: 124).  The loop of a bridge and a
# GPU hung check --baseline; that of two bridges above no GPU, report -r.
mkloop "$d/loop" 40 0000:40:01.1 0000:41:00.0
mkloop "$d/loop2" c0 0000:c0:08.1 0000:c2:00.0
timeout 30 $G -r $B -p $P --baseline "$d/loop" check >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 4 ] || gp_bad "a baseline whose parents loop: exit $rc, want 4"
grep -q "0000:40:01.1': the bus links make it its own ancestor" "$d/err" ||
	{ cat "$d/err"; gp_bad "a baseline whose parents loop: no message"; }
for t in loop loop2; do
	for c in check report topo; do
		timeout 30 $G -r "$d/$t" -p $P $c >/dev/null 2>&1
		rc=$?
		[ $rc -eq 3 ] || gp_bad "-r whose parents loop ($t): $c exit $rc, want 3"
	done
done
gp_end
