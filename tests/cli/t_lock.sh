#!/bin/sh
# The lock lives in a directory only root can write (/run/gpuprov, 0700):
# a link planted as the lock is never followed, a lock or a directory that is
# not root's is refused (exit 3), and another user cannot hold it.  Uses
# GPUPROV_RUN_DIR (the lock's directory) and an empty journal directory, so
# that rollback reaches the lock and then has nothing to do.
set -eu
. "$(dirname "$0")/lib.sh"
gp_own_state

rollback_rc() { # expected exit, words of the message
	set +e
	$G rollback --yes 2>"$d/err"
	rc=$?
	set -e
	[ $rc -eq "$1" ] || fail "exit $rc, want $1: $(cat "$d/err")"
	[ -z "$2" ] || grep -q "$2" "$d/err" || fail "no '$2' in: $(cat "$d/err")"
}

# made on first use: root's, 0700, the lock 0600
rollback_rc 0 ""
[ "$(stat -c '%u %a %F' "$d/run")" = "0 700 directory" ] || fail "run dir: $(stat -c '%u %a' "$d/run")"
[ "$(stat -c '%u %a %F' "$d/run/lock")" = "0 600 regular file" ] || fail "lock: $(ls -l "$d/run")"

# a link planted where the lock goes: refused, its target untouched
rm "$d/run/lock"
echo precious >"$d/victim"
ln -s "$d/victim" "$d/run/lock"
rollback_rc 3 "cannot open the lock"
[ "$(cat "$d/victim")" = precious ] || fail "the lock's link was followed"
rm "$d/run/lock"

# a lock that is not root's, or is a FIFO, or has another name too
: >"$d/run/lock"
chown 65534 "$d/run/lock"
rollback_rc 3 "refusing the lock '$d/run/lock'"
rm "$d/run/lock"
mkfifo "$d/run/lock"
rollback_rc 3 "refusing the lock"
rm "$d/run/lock"
: >"$d/run/lock"
ln "$d/run/lock" "$d/hardlink"
rollback_rc 3 "refusing the lock"
rm "$d/run/lock" "$d/hardlink"

# a directory that others own or may write
chown 65534 "$d/run"
rollback_rc 3 "refusing the lock directory"
chown 0 "$d/run"
chmod 1777 "$d/run"
rollback_rc 3 "refusing the lock directory"
rm -rf "$d/run"
ln -s "$d" "$d/run"
rollback_rc 3 "refusing the lock directory"
rm "$d/run"

# held by another run: apply (which does not wait) exits 5 naming the holder
printf '[gpus]\nmatch = 10de:20b5\ncount = 2\n' >"$d/p.ini"
rollback_rc 0 ""
flock "$d/run/lock" sleep 2 &
sleep 0.5
set +e
$G -p "$d/p.ini" apply --yes 2>"$d/err" </dev/null
rc=$?
set -e
wait
[ $rc -eq 5 ] && grep -q "holds '$d/run/lock'" "$d/err" || fail "held lock: exit $rc: $(cat "$d/err")"

# without the variable: /run/gpuprov, documented in gpuprov(8) FILES; in a
# private mount namespace with its own /run, so that the test neither takes
# nor waits for the lock of a gpuprov that runs on this machine
grep -q '^\.It Pa /run/gpuprov/lock' man/gpuprov.8 || fail "the lock is not in FILES"
unset GPUPROV_RUN_DIR
out=$(unshare -m --propagation private sh -eu -c '
	mount -t tmpfs -o mode=0755 gp-test-run /run
	"$1" rollback --yes 2>/dev/null
	stat -c "%u %a" /run/gpuprov
	[ -f /run/gpuprov/lock ] && [ ! -L /run/gpuprov/lock ] && echo lock' sh "$G" 2>&1) ||
	fail "default lock: $out"
[ "$out" = "0 700
lock" ] || fail "/run/gpuprov in a private /run: $out"
