#!/bin/sh
# apply --confirm-within and confirm, for real on this machine (root) with
# --only vm steps against libvirt's in-process QEMU driver (qemu:///embed),
# a deadline of a few seconds:
#  - confirmed in time, from another session: nothing is undone, the deadline
#    passes, the watcher leaves; a second confirm has nothing to confirm;
#  - not confirmed: the watcher rolls the run back by itself, the journal
#    says timed_out, its log says so, confirm then exits 6 ("too late");
#  - while a run waits, a second apply is refused (2); confirm from apply's
#    own session is refused (2); the watcher has its own session, no
#    terminal, and outlives SIGHUP; a watcher started by hand never acts on
#    a run that does not name it; a hostile confirm record is refused;
#  - the watcher killed: past the deadline the run still blocks apply (2),
#    confirm is too late (2), rollback by hand undoes it.
set -eu
. "$(dirname "$0")/lib.sh"
gp_own_state
mkdir -p "$d/out"
gp_embed_libvirt "$d"
X=$d/out/gp-test-vm.xml
gp_vm_profile "$d/p.ini" "$X" "$uri"
chmod 644 "$d/p.ini"
A="$G -p $d/p.ini --only vm --accept vm.kvm apply --yes"
status() { set +e; "$@" >"$d/out.txt" 2>"$d/err"; rc=$?; set -e; echo $rc; }
# the newest journal, its confirm record's FIELD
newest() { ls -t "$d"/journal/*.json | head -n1; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("confirm",{}).get(sys.argv[2]))' "$(newest)" "$1"; }
jstatus() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$(newest)"; }
# waits up to 30 s for process $1 to end
gone() { _i=0; while [ -e "/proc/$1" ] && [ $_i -lt 120 ]; do sleep 0.25; _i=$((_i + 1)); done; [ ! -e "/proc/$1" ]; }

# ---- a bad deadline is a usage error; other commands refuse the option ----
for bad in 0 -3 abc 86401 5s; do
	rc=$(status $G -p "$d/p.ini" --only vm apply --yes --confirm-within "$bad")
	[ "$rc" = 4 ] && grep -q "confirm-within" "$d/err" || { cat "$d/err"; fail "--confirm-within $bad: exit $rc"; }
done
rc=$(status $G -p "$d/p.ini" plan --confirm-within 5)
[ "$rc" = 4 ] || fail "plan --confirm-within: exit $rc, want 4"
[ ! -e "$X" ] || fail "a refused apply wrote the XML"

# ---- nothing pending: confirm refuses (2) ----
rc=$(status $G confirm)
[ "$rc" = 2 ] && grep -q "nothing to confirm" "$d/err" || { cat "$d/err"; fail "confirm, no run: exit $rc"; }

# ---- outcome 1: confirmed in time, nothing undone ----
# long enough for the checks below on a loaded machine (ASan, libvirt)
rc=$(status $A --confirm-within 600)
[ "$rc" = 0 ] && [ -e "$X" ] || { cat "$d/err"; fail "apply --confirm-within: exit $rc"; }
grep -q "is NOT confirmed: open a NEW connection" "$d/err" || { cat "$d/err"; fail "apply did not say what to do"; }
[ "$(field state)" = pending ] || fail "journal: confirm state $(field state), want pending"
w=$(field watcher)
[ -e "/proc/$w" ] || fail "no watcher process $w"
# detached: its own session, no controlling terminal, SIGHUP ignored
[ "$(ps -o sid= -p "$w" | tr -d ' ')" != "$(ps -o sid= -p $$ | tr -d ' ')" ] || fail "the watcher is in the test's session"
[ "$(ps -o tty= -p "$w" | tr -d ' ')" = "?" ] || fail "the watcher has a terminal"
kill -HUP "$w"
sleep 0.3
[ -e "/proc/$w" ] || fail "the watcher died of SIGHUP"
$G -q rollback --list | grep -q "$(printf '\tdone\t[0-9]*\t[0-9]*\tnext\tpending$')" || { $G -q rollback --list; fail "--list: not pending"; }
$G rollback --list | grep -q " unconfirmed " || { $G rollback --list; fail "--list: not unconfirmed"; }
$G --json rollback --list | grep -q '"state": "pending"' || fail "--list --json: no pending confirm"
# a second apply while one waits: refused, nothing changed
n=$(ls "$d"/journal/*.json | wc -l)
rc=$(status $A)
[ "$rc" = 2 ] && grep -q "waits for 'gpuprov confirm'" "$d/err" || { cat "$d/err"; fail "second apply: exit $rc, want 2"; }
[ "$(ls "$d"/journal/*.json | wc -l)" = "$n" ] || fail "the refused apply made a run"
# a watcher started by hand acts on no run that does not name it
run=$(basename "$(newest)" .json)
rc=$(status $G confirm watch "$run")
[ "$rc" = 0 ] && grep -q "does not name this watcher" "$d/err" || { cat "$d/err"; fail "confirm watch by hand: exit $rc"; }
[ "$(field state)" = pending ] && [ -e "$X" ] || fail "a watcher by hand acted"
# from apply's own session: refused; from a new one (setsid): confirmed
rc=$(status $G confirm)
[ "$rc" = 2 ] && grep -q "NEW connection" "$d/err" || { cat "$d/err"; fail "confirm from apply's session: exit $rc, want 2"; }
rc=$(status setsid -w $G confirm)
[ "$rc" = 0 ] && grep -q "confirmed run $run" "$d/err" || { cat "$d/err"; fail "confirm: exit $rc"; }
[ "$(field state)" = confirmed ] || fail "journal: $(field state), want confirmed"
gone "$w" || fail "the watcher stayed after confirm"
[ -e "$X" ] && [ "$(jstatus)" = done ] || fail "a confirmed run was undone"
$G rollback --list | grep -q " confirmed " || fail "--list: not confirmed"
rc=$(status setsid -w $G confirm)
[ "$rc" = 2 ] && grep -q "was confirmed at" "$d/err" || { cat "$d/err"; fail "confirm twice: exit $rc, want 2"; }
grep -q "run $run is done (confirmed)" "$d/journal/$run.confirm.log" || { cat "$d/journal/$run.confirm.log"; fail "the log does not say the watcher left"; }
rc=$(status $G rollback --yes)
[ "$rc" = 0 ] && [ ! -e "$X" ] || { cat "$d/err"; fail "rollback of the confirmed run: exit $rc"; }
# a short deadline, confirmed at once: it passes, nothing is undone
rc=$(status $A --confirm-within 10)
[ "$rc" = 0 ] || { cat "$d/err"; fail "apply --confirm-within 10: exit $rc"; }
rc=$(status setsid -w $G confirm)
[ "$rc" = 0 ] || { cat "$d/err"; fail "confirm at once: exit $rc"; }
dl=$(field deadline)
while [ "$(date +%s)" -le "$((dl + 1))" ]; do sleep 0.5; done
[ -e "$X" ] && [ "$(jstatus)" = done ] && [ "$(field state)" = confirmed ] || fail "a confirmed run was undone at its deadline"
rc=$(status $G rollback --yes)
[ "$rc" = 0 ] && [ ! -e "$X" ] || { cat "$d/err"; fail "rollback of the confirmed run: exit $rc"; }

# ---- outcome 2: not confirmed, rolled back by the watcher ----
rc=$(status $A --confirm-within 2)
[ "$rc" = 0 ] && [ -e "$X" ] || { cat "$d/err"; fail "second apply --confirm-within: exit $rc"; }
run=$(basename "$(newest)" .json)
w=$(field watcher)
gone "$w" || fail "the watcher did not end"
[ ! -e "$X" ] || fail "the unconfirmed run was not rolled back"
[ "$(jstatus)" = rolled_back ] && [ "$(field state)" = timed_out ] ||
	fail "journal: $(jstatus) $(field state), want rolled_back timed_out"
$G rollback --list | grep -q "$run *timed_out" || { $G rollback --list; fail "--list: not timed_out"; }
grep -q "was not confirmed by its deadline" "$d/journal/$run.confirm.log" &&
	grep -q "rolled back run $run" "$d/journal/$run.confirm.log" || { cat "$d/journal/$run.confirm.log"; fail "the watcher's log"; }
rc=$(status setsid -w $G confirm)
[ "$rc" = 6 ] && grep -q "too late" "$d/err" || { cat "$d/err"; fail "confirm too late: exit $rc, want 6"; }
# the host is free again
rc=$(status $A)
[ "$rc" = 0 ] && [ -e "$X" ] || { cat "$d/err"; fail "apply after the timeout: exit $rc"; }
rc=$(status $G rollback --yes)
[ "$rc" = 0 ] || fail "rollback: exit $rc"

# ---- the watcher killed (or the host rebooted): the run stays unconfirmed,
# apply refuses past the deadline, and rollback by hand undoes it ----
# (15 s: apply's exit under ASan and the journal's reading, on a loaded
# machine, once took more than 5 s, and the watcher acted before its kill)
rc=$(status $A --confirm-within 15)
[ "$rc" = 0 ] && [ -e "$X" ] || { cat "$d/err"; fail "apply, watcher to be killed: exit $rc"; }
[ "$(field state)" = pending ] ||
	fail "the watcher acted ($(field state)) before the test could kill it: raise the deadline"
kill -KILL "$(field watcher)"
dl=$(field deadline)
while [ "$(date +%s)" -le "$((dl + 1))" ]; do sleep 0.5; done
rc=$(status $A)
[ "$rc" = 2 ] && grep -q "its watcher did not act" "$d/err" || { cat "$d/err"; fail "apply past a deadline nobody acted on: exit $rc, want 2"; }
[ -e "$X" ] && [ "$(field state)" = pending ] || fail "a killed watcher acted"
rc=$(status setsid -w $G confirm)
[ "$rc" = 2 ] && grep -q "too late: the deadline" "$d/err" || { cat "$d/err"; fail "confirm past the deadline: exit $rc, want 2"; }
rc=$(status $G rollback --yes)
[ "$rc" = 0 ] && [ ! -e "$X" ] || { cat "$d/err"; fail "rollback of the unconfirmed run: exit $rc"; }
rc=$(status $A)
[ "$rc" = 0 ] || { cat "$d/err"; fail "apply after that rollback: exit $rc"; }
rc=$(status $G rollback --yes)
[ "$rc" = 0 ] || fail "rollback: exit $rc"

# ---- a hostile confirm record: the journal is refused ----
j=$(newest)
python3 - "$j" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
d["confirm"] = {"state": "pending", "watcher": "1; reboot", "deadline": 1}
json.dump(d, open(sys.argv[1], "w"))
EOP
$G -q rollback --list | grep -q "$(printf '\tinvalid\t')" || { $G -q rollback --list; fail "a bad confirm record was not refused"; }
gp_end
