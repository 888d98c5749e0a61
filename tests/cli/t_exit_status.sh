#!/bin/sh
# gpuprov(8) EXIT STATUS, "By command", lists every status each command
# returns (bond's were missing, and the section was by status, not by
# command).  Here:
#  - every command of the table (and --help, --version) has an entry;
#  - every CLI case (tests/cli/cases) and every trigger below exits with a
#    status its command's entry lists;
#  - every status an entry lists is reached by a case or a trigger, or by the
#    test named in ELSEWHERE (the lab, GPUs, a bond, apply's outcomes).
set -eu
. "$(dirname "$0")/lib.sh"
gp_tables_read
H=$(gp_host r5350-ready)
P=$(gp_profile h3c-r5350-g6)

# "name status" for each .It of the subsection, each .Sy N in its entry
awk '/^\.Sh /{sh=substr($0,5)} /^\.Ss /{ss=substr($0,5)}
	sh != "EXIT STATUS" || ss != "By command" { next }
	/^\.It / { n = 0; for (i = 2; i <= NF; i++) if ($(i-1) == "Cm" || $(i-1) == "Fl")
		names[++n] = ($(i-1) == "Fl" ? "-" : "") $i; next }
	/^\.Sy [0-9]$/ { for (i = 1; i <= n; i++) print names[i], $2 }' man/gpuprov.8 |
	sort -u >"$d/doc"
[ -s "$d/doc" ] || fail "no EXIT STATUS, By command in man/gpuprov.8"
cmds=$(gp_commands)
valued=" $(gp_valued_options | tr '\n' ' ')"
for c in $cmds --help --version; do
	grep -q -e "^$c " "$d/doc" || fail "EXIT STATUS, By command: no entry for $c"
done

# the command of a case's arguments: the first word that is not an option
# or an option's value
command_of() {
	skip=0
	for w in "$@"; do
		[ $skip = 1 ] && { skip=0; continue; }
		case "$valued" in *" $w "*) skip=1; continue ;; esac
		case "$w" in
		-*) ;;
		*) echo "$w"; return ;;
		esac
	done
}
documented() { # COMMAND STATUS WHERE
	grep -qx -e "$1 $2" "$d/doc" || fail "$3: '$1' exits $2, not listed in gpuprov(8) EXIT STATUS, By command"
	echo "$1 $2" >>"$d/seen"
}

# ---- the CLI cases ----
while IFS='|' read -r name want args; do
	case "$name" in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086
	c=$(command_of $args)
	case " $(echo $cmds) " in *" $c "*) ;; *) c="" ;; esac
	case "$c: $args " in
	:*" --help "* | :*" -h "*) c=--help ;;
	:*" --version "* | :*" -V "*) c=--version ;;
	esac
	# no command, or an unknown one: a usage error of gpuprov itself
	[ -n "$c" ] || { [ "$want" = 4 ] || fail "case $name: exit $want without a command"; continue; }
	documented "$c" "$want" "case $name"
done <tests/cli/cases

# ---- triggers: WANT COMMAND ARGS... (run here, as root, in a scratch state) ----
gp_own_state
chmod 755 "$d"
printf '[gpus]\nmatch = 10de:20b5\ncount = 2\n' >"$d/p.ini"
chmod 644 "$d/p.ini"
mkdir "$d/empty"
trig() {
	want=$1 c=$2
	shift 2
	set +e
	"$G" "$@" >"$d/out" 2>"$d/err" </dev/null
	rc=$?
	set -e
	[ $rc = "$want" ] || fail "gpuprov $*: exit $rc, want $want: $(head -3 "$d/err")"
	documented "$c" "$want" "gpuprov $*"
}
trig 3 scan -r build/hosts/nonexistent scan
trig 4 topo -r "$H" topo extra
trig 3 check -r build/hosts/nonexistent -p "$P" check
trig 3 plan -r build/hosts/nonexistent -p "$P" plan
trig 0 plan -r "$H" -p "$d/p.ini" --only bond plan
trig 0 apply -p "$d/p.ini" --only bond apply --yes
trig 0 rollback rollback --list
trig 0 rollback rollback --yes
trig 4 rollback rollback no-such-run --yes
trig 3 domxml -r build/hosts/nonexistent -p "$P" domxml
trig 0 snapshot -r "$H" -o "$d/s.tgz" snapshot
trig 3 snapshot -r "$d/empty" -o "$d/s.tgz" snapshot
: >"$d/afile" # a file where -o needs a directory (a missing one is made)
trig 4 snapshot -r "$H" -o "$d/afile/s.tgz" snapshot
trig 3 profile -r build/hosts/nonexistent profile discover
trig 0 report -r build/hosts/vfio-applied -p tests/cli/profiles/bind.ini report
trig 1 report -r "$H" -p "$P" report
trig 2 report -r build/hosts/bars -p "$P" report
trig 3 report -r build/hosts/nonexistent -p "$P" report
trig 4 report -r "$H" -p "$P" -o "$d/report.txt" report
trig 0 nccl-topo -r "$H" -p "$P" nccl-topo
trig 0 nccl-topo -r "$H" --this-host nccl-topo
trig 3 nccl-topo -r build/hosts/nonexistent -p "$P" nccl-topo
trig 3 guest-config -r build/hosts/nonexistent -p tests/cli/profiles/roce-pass.ini guest-config
trig 4 nccl-topo -r "$H" nccl-topo
trig 3 verify verify --quick
trig 4 verify --size 1 verify
trig 0 --help --help
trig 0 --version --version
for o in --help --version; do # the output not written (t_output.sh: every command)
	set +e
	"$G" $o >/dev/full 2>/dev/null
	rc=$?
	set -e
	[ $rc = 4 ] || fail "gpuprov $o >/dev/full: exit $rc, want 4"
	documented $o 4 "gpuprov $o >/dev/full"
done
# a failed standard output write turns only 0 and 1 into 4: a failure found
# (2) is kept, as apply's 6 and 7 are (t_outcomes.sh) -- review2 F4
full() { # WANT ARGS...
	want=$1
	shift
	set +e
	"$G" "$@" >/dev/full 2>"$d/err"
	rc=$?
	set -e
	[ $rc = "$want" ] || fail "gpuprov $* >/dev/full: exit $rc, want $want"
	grep -q 'cannot write to standard output' "$d/err" || fail "gpuprov $* >/dev/full: no message"
}
full 2 -r build/hosts/bars -p "$P" check
full 2 -r build/hosts/bars -p "$P" --json check
full 4 -r build/hosts/vfio-applied -p tests/cli/profiles/bind.ini check
full 4 -r "$H" -p "$P" report
# the lock held (flock, as another gpuprov holds it): 5
mkdir -p -m 700 "$d/run"
[ -e "$d/run/lock" ] || : >"$d/run/lock"
chmod 600 "$d/run/lock"
flock "$d/run/lock" sleep 30 &
holder=$!
sleep 0.5
trig 5 apply -p "$d/p.ini" --only bond apply --yes
trig 5 rollback rollback --yes
trig 5 confirm confirm
kill $holder
wait $holder 2>/dev/null || true
# a link planted as the lock: refused, 3 (tests/cli/t_lock.sh: every case)
rm "$d/run/lock"
ln -s "$d/elsewhere" "$d/run/lock"
trig 3 apply -p "$d/p.ini" --only bond apply --yes
trig 3 rollback rollback --yes
trig 3 confirm confirm
rm "$d/run/lock"
# rollback cannot write its journal before the first undo: 2, nothing changed
# (a sound journal of one domain.write, as tests/cli/t_journal.sh makes them;
# no file may grow: ulimit -f 0, stderr through a pipe)
mkdir -p -m 700 "$d/journal"
printf '{"schema_version": 1, "run_id": "20990101T000000Z-1", "status": "done", "steps": [{"kind": "domain.write", "subject": "x", "state": "done", "undo": {"file": {"path": "%s", "type": "absent"}}}]}\n' \
	"$d/v.xml" >"$d/journal/20990101T000000Z-1.json"
chmod 600 "$d/journal/20990101T000000Z-1.json"
echo keep >"$d/v.xml"
out=$( (sh -c 'trap "" XFSZ; ulimit -f 0; exec "$0" rollback --yes' "$G" 2>&1 >/dev/null && echo rc=0 || echo "rc=$?") |
	cat)
rc=$(echo "$out" | sed -n 's/^rc=//p')
[ "$rc" = 2 ] && [ "$(cat "$d/v.xml")" = keep ] || fail "rollback, its journal not written: exit $rc, want 2: $out"
documented rollback 2 "rollback, its journal not written"

# confirm: a usage error, nothing to confirm (the newest run has no
# deadline), and runs its watcher rolled back, or failed to (journals as
# apply --confirm-within leaves them)
trig 4 confirm confirm extra
trig 2 confirm confirm
cf() { # STATUS: the newest run, timed out, its rollback ended so
	rm -f "$d"/journal/*.json
	printf '{"schema_version": 1, "run_id": "20990101T000000Z-2", "seq": 2, "status": "%s", "steps": [], "confirm": {"state": "timed_out", "within": 5, "deadline": 1, "watcher": 1, "session": 1, "at": 2}}\n' \
		"$1" >"$d/journal/20990101T000000Z-2.json"
	chmod 600 "$d/journal/20990101T000000Z-2.json"
}
cf rolled_back
trig 6 confirm confirm
cf rollback_failed
trig 7 confirm confirm

# ---- every documented status is reached here, or by the test named ----
ELSEWHERE="
apply 2 tests/cli/t_outcomes.sh
apply 6 tests/cli/t_outcomes.sh
apply 7 tests/cli/t_outcomes.sh
apply 8 tests/cli/t_outcomes.sh
rollback 7 tests/cli/t_outcomes.sh
rollback 8 tests/cli/t_outcomes.sh
confirm 0 tests/cli/t_confirm.sh
bond 0 tests/lab/scenarios/r5350.sh
bond 1 tests/lab/scenarios/r5350.sh
verify 0 tests/cli/t_verify.sh
verify 1 tests/cli/t_verify.sh
verify 2 tests/cli/t_verify.sh
"
# reached by no test: bond 3 (netlink itself failing)
UNTESTED="bond 3"
while read -r c s; do
	grep -qx -e "$c $s" "$d/seen" && continue
	echo "$UNTESTED" | grep -qx -e "$c $s" && continue
	where=$(echo "$ELSEWHERE" | awk -v c="$c" -v s="$s" '$1 == c && $2 == s { print $3 }')
	[ -n "$where" ] || fail "'$c' exit $s is documented but no test reaches it"
	[ -f "$where" ] && grep -q -e "$c" "$where" || fail "'$c' exit $s: $where does not test it"
done <"$d/doc"
exit 0
