#!/bin/sh
# rollback --list only reads: it takes no lock (a completion or the prerm
# never waits on a running apply), needs no root where the journals are
# readable, says "no runs" when there are none, and says plainly why it
# cannot read them or why -r does not apply.
set -eu
. "$(dirname "$0")/lib.sh"
gp_own_state

# hold_lock / free_lock: another run's lock, as apply holds it (the process
# that holds it is $holder itself, so that killing it frees the lock)
hold_lock() {
	(
		exec 9<"$d/run/lock"
		flock 9
		exec sleep 30
	) &
	holder=$!
	sleep 0.5
}
free_lock() {
	kill "$holder" 2>/dev/null || true
	wait "$holder" 2>/dev/null || true
}

# none yet: said, not a bare header; -q (the prerm's form) prints nothing
$G rollback --list >"$d/out" || fail "--list without runs: exit $?"
grep -q "^no runs: nothing gpuprov applied is journaled in '$d/journal'" "$d/out" ||
	fail "no runs: $(cat "$d/out")"
grep -q SEQ "$d/out" && fail "a bare header"
[ -z "$($G -q rollback --list)" ] || fail "-q --list without runs printed something"
$G --json rollback --list | python3 -c 'import json,sys; assert json.load(sys.stdin)["runs"] == []' ||
	fail "--json --list without runs"

# a run journaled, and the lock held by someone else (an apply running):
# --list answers at once; a real rollback still waits for the lock
mkdir -m 0700 "$d/journal" "$d/run"
printf '{"schema_version": 1, "run_id": "20261201T000000Z-1", "seq": 1, "status": "done", "profile": "/etc/gpuprov/p.ini", "steps": [{"kind": "module.load", "subject": "vfio_pci", "state": "done", "undo": {}}]}\n' \
	>"$d/journal/20261201T000000Z-1.json"
chmod 0600 "$d/journal/20261201T000000Z-1.json"
: >"$d/run/lock"
chmod 0600 "$d/run/lock"
hold_lock
start=$(date +%s)
$G rollback --list >"$d/out" 2>"$d/err" || fail "--list while locked: exit $? $(cat "$d/err")"
[ $(($(date +%s) - start)) -lt 5 ] || fail "--list waited for the lock"
grep -q '20261201T000000Z-1 *done' "$d/out" || fail "--list: $(cat "$d/out")"
set +e
timeout 30 $G rollback --yes 20261201T000000Z-1 2>"$d/err"
rc=$?
set -e
free_lock
[ $rc -eq 5 ] || fail "rollback while locked: exit $rc, want 5 $(cat "$d/err")"

# a journal that says running while a run holds the lock: that run, in
# progress, not an interrupted one; once the lock is free, interrupted
printf '{"schema_version": 1, "run_id": "20261201T000001Z-2", "seq": 2, "status": "running", "profile": "/etc/gpuprov/p.ini", "steps": [{"kind": "module.load", "subject": "vfio_pci", "state": "doing", "undo": {}}]}\n' \
	>"$d/journal/20261201T000001Z-2.json"
chmod 0600 "$d/journal/20261201T000001Z-2.json"
hold_lock
$G -q rollback --list >"$d/out" || fail "--list while a run holds the lock: exit $?"
free_lock
grep -q '^20261201T000001Z-2	running	' "$d/out" || fail "a live run: $(cat "$d/out")"
$G -q rollback --list >"$d/out" || fail "--list: exit $?"
grep -q '^20261201T000001Z-2	interrupted	' "$d/out" || fail "a dead run: $(cat "$d/out")"
rm "$d/journal/20261201T000001Z-2.json"

# -r names a tree to read, which has no runs of gpuprov's: said so, exit 4
set +e
$G -r build/hosts/r5350-ready rollback --list 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] || fail "-r --list: exit $rc, want 4"
grep -q "lists this host's runs.*-r does not apply" "$d/err" || fail "-r --list: $(cat "$d/err")"
grep -q 'changes the' "$d/err" && fail "-r --list called a change"

# not root: listed where readable, a clear message where not
[ "$(id -u)" = 0 ] || { gp_not_exercised "another user's view (not root)"; exit 0; }
gp_user_copy "$d/u" "$G"
chmod 0755 "$d" "$d/journal"
chmod 0644 "$d/journal/20261201T000000Z-1.json"
setpriv --reuid 65534 --regid 65534 --clear-groups "$d/u/gpuprov" rollback --list >"$d/out" 2>"$d/err" ||
	fail "--list as a user, readable journals: exit $? $(cat "$d/err")"
grep -q '20261201T000000Z-1' "$d/out" || fail "--list as a user: $(cat "$d/out")"
grep -q 'changes the host' "$d/err" && fail "--list as a user called a change"
chmod 0700 "$d/journal"
set +e
setpriv --reuid 65534 --regid 65534 --clear-groups "$d/u/gpuprov" rollback --list 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] || fail "--list as a user, root's journals: exit $rc, want 4"
grep -q "cannot read the journals in '$d/journal'.*sudo gpuprov rollback --list" "$d/err" ||
	fail "--list as a user: $(cat "$d/err")"
