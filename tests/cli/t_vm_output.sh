#!/bin/sh
# [vm] output, written by apply --only vm (define = no: libvirt is not
# needed) with the journal and the lock in a scratch directory:
# - a VM XML made from a template only root may read (a VNC password) is
#   written 0600 by domain.write and by domxml -o, as plan --diff keeps it
#   secret; one left readable by all is written again; a public one is 0644
# - what the profile accepts as output is what the journal accepts: a name
#   not ending in .xml or a path under /dev is refused at validation
#   (file:line, exit 4), never written and then left without an undo
# - a long output path is never cut: apply, the plan's subjects and rollback
#   take it whole (nccl.write's subject was cut at 63 characters)
# - the directories apply makes for it are root's and 0755; one that is
#   another user's is refused
set -eu
. "$(dirname "$0")/lib.sh"
export GPUPROV_STATE_DIR=$d/state/journal
export GPUPROV_RUN_DIR=$d/run
# no /dev/kvm where the tests run: vm.kvm fails, and is not what is tested
A="--accept vm.kvm"
mode() { stat -c '%u %a' "$1"; }

# profile FILE OUTPUT [TEMPLATE]: the shared VM profile, not defined in
# libvirt; its template's copy (FILE.xml) keeps the template's mode
profile() {
	gp_vm_profile "$1" "$2" "qemu:///system" "${3:-}" >/dev/null
	chmod "$(stat -c %a "${3:-templates/domain-q35-ovmf.xml}")" "$1.xml"
	printf 'define = no\n' >>"$1"
	chmod 644 "$1"
}

sed "s|<devices>|<devices><graphics type='vnc' port='-1' passwd='VNC-PASS'/>|" \
	templates/domain-q35-ovmf.xml >"$d/private.xml"
chmod 0600 "$d/private.xml"
profile "$d/secret.ini" "$d/out/vm.xml" "$d/private.xml"
$G -p "$d/secret.ini" --only vm plan --diff >"$d/plan" 2>&1 || true
grep -q "holds a secret" "$d/plan" || { cat "$d/plan"; fail "plan --diff: no secret"; }
$G -p "$d/secret.ini" --only vm $A apply --yes >"$d/log" 2>&1 || { cat "$d/log"; fail "apply"; }
[ "$(mode "$d/out/vm.xml")" = "0 600" ] || fail "secret XML: $(mode "$d/out/vm.xml")"
[ "$(mode "$d/out")" = "0 755" ] || fail "its directory: $(mode "$d/out")"
[ "$(mode "$d/state")" = "0 755" ] && [ "$(mode "$d/state/journal")" = "0 700" ] ||
	fail "state: $(mode "$d/state"), journal: $(mode "$d/state/journal")"
grep -q VNC-PASS "$d/out/vm.xml" || fail "the XML lacks the template's graphics"
[ "$(mode "$d/out/vm.nccl-topo.xml")" = "0 644" ] || fail "NCCL file: $(mode "$d/out/vm.nccl-topo.xml")"
$G -p "$d/secret.ini" -o "$d/dx/vm.xml" domxml
[ "$(mode "$d/dx/vm.xml")" = "0 600" ] || fail "domxml -o: $(mode "$d/dx/vm.xml")"
# an XML written readable by all before (as earlier versions did): written again
chmod 644 "$d/out/vm.xml"
set +e
$G -p "$d/secret.ini" --only vm $A plan >"$d/plan" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] && tr '\n' ' ' <"$d/plan" | tr -s ' ' | grep -q "domain.write [^ ]* holds a secret, readable by all" ||
	{ cat "$d/plan"; fail "plan: a secret XML readable by all is not rewritten"; }
$G -p "$d/secret.ini" --only vm $A apply --yes >"$d/log" 2>&1 || { cat "$d/log"; fail "apply 2"; }
[ "$(mode "$d/out/vm.xml")" = "0 600" ] || fail "rewritten: $(mode "$d/out/vm.xml")"
$G rollback --yes >"$d/log" 2>&1 || { cat "$d/log"; fail "rollback 2"; }
[ "$(mode "$d/out/vm.xml")" = "0 644" ] || fail "rollback: $(mode "$d/out/vm.xml")"
$G rollback --yes >"$d/log" 2>&1 || { cat "$d/log"; fail "rollback 1"; }
[ ! -e "$d/out/vm.xml" ] || fail "rollback left the XML"
# a template everyone may read: 0644, as before
profile "$d/public.ini" "$d/pub/vm.xml"
$G -p "$d/public.ini" --only vm $A apply --yes >"$d/log" 2>&1 || { cat "$d/log"; fail "apply public"; }
[ "$(mode "$d/pub/vm.xml")" = "0 644" ] || fail "public XML: $(mode "$d/pub/vm.xml")"
$G rollback --yes >"$d/log" 2>&1 || { cat "$d/log"; fail "rollback public"; }

# outputs the journal could not undo: refused where the profile names them
for out in "$d/out/gpu-vm.conf" "/dev/shm/gpuprov-test-$$.xml" "$d//vm.xml" "$d/./vm.xml"; do
	profile "$d/bad.ini" "$out"
	line=$(grep -n '^output = ' "$d/bad.ini" | cut -d: -f1)
	for cmd in "profile validate $d/bad.ini" "-p $d/bad.ini --only vm $A apply --yes"; do
		set +e
		# shellcheck disable=SC2086
		$G $cmd >"$d/out.txt" 2>&1
		rc=$?
		set -e
		[ $rc -eq 4 ] && grep -qF "$d/bad.ini:$line: bad value for output" "$d/out.txt" ||
			{ cat "$d/out.txt"; fail "output $out, $cmd: exit $rc, want 4 naming the line"; }
	done
	[ ! -e "$out" ] || { rm -f "$out"; fail "$out was written"; }
done

# a long output path: every step, the journal and rollback take it whole
long=$d/a-directory-with-a-rather-long-name-for-the-vm-files/and-one-more-level-below
out=$long/gp-test-vm-with-a-long-name.xml
[ ${#out} -gt 120 ] || fail "not long: $out"
profile "$d/long.ini" "$out"
$G -p "$d/long.ini" --only vm $A --json plan >"$d/plan.json" 2>"$d/log" || [ $? -eq 1 ] ||
	{ cat "$d/log"; fail "plan long"; }
python3 - "$d/plan.json" "$out" <<'PY'
import json, sys
steps = {s["kind"]: s["subject"] for s in json.load(open(sys.argv[1]))["steps"]}
out = sys.argv[2]
assert steps["domain.write"] == out, steps
assert steps["nccl.write"] == out[:-4] + ".nccl-topo.xml", steps
PY
$G -p "$d/long.ini" --only vm $A apply --yes >"$d/log" 2>&1 || { cat "$d/log"; fail "apply long"; }
[ -f "$out" ] && [ -f "${out%.xml}.nccl-topo.xml" ] || fail "long: not written"
$G rollback --yes >"$d/log" 2>&1 || { cat "$d/log"; fail "rollback long"; }
[ ! -e "$out" ] && [ ! -e "$long" ] || fail "rollback long: left $(ls -R "$d/a-"*)"

# a directory on the way that is another user's: refused before anything
mkdir -m 1777 "$d/tmp"
mkdir "$d/tmp/theirs"
chown 65534 "$d/tmp/theirs"
profile "$d/theirs.ini" "$d/tmp/theirs/sub/vm.xml"
set +e
$G -p "$d/theirs.ini" --only vm $A apply --yes >"$d/log" 2>&1
rc=$?
set -e
[ $rc -eq 4 ] && grep -q "theirs' is owned by uid 65534" "$d/log" || { cat "$d/log"; fail "theirs: exit $rc"; }
[ ! -e "$d/tmp/theirs/sub" ] || fail "theirs: written"
exit 0
