#!/bin/sh
# apply's and rollback's outcomes are told apart by exit status and message
# for real on this machine (root) with --only vm steps
# against libvirt's in-process QEMU driver (qemu:///embed):
#  - not root: a usage error, exit 4 (not 3, "host unreadable");
#  - a step fails and every change is undone: exit 6, "failed and rolled back";
#  - a step fails and an undo fails too: exit 7, "ROLLBACK FAILED", the step
#    left changed named with what to do by hand; rollback then exits 7 while
#    the cause stays, apply refuses (2), and once it is gone rollback ends it (0).
set -eu
. "$(dirname "$0")/lib.sh"
# --accept vm.kvm: these steps are the subject, not KVM; on a host without
# /dev/kvm (a cloud VM, TCG) vm.kvm fails, rightly, and would block them
gp_own_state
mkdir -p "$d/out"
gp_embed_libvirt "$d"
X=$d/out/gp-test-vm.xml
gp_vm_profile "$d/p.ini" "$X" "$uri"
chmod 644 "$d/p.ini"
chmod 755 "$d"
# uid 65534 runs a copy it can reach, GU (gp_user_copy)
gp_user_copy "$d/bin" "$G"
GU=$d/bin/gpuprov
# exit status of a command, its stderr in $d/err
status() { set +e; "$@" >"$d/out.txt" 2>"$d/err"; rc=$?; set -e; echo $rc; }

# ---- not root: a usage error ----
rc=$(status setpriv --reuid=65534 --regid=65534 --clear-groups $GU -p "$d/p.ini" --only vm --accept vm.kvm apply --yes)
[ "$rc" = 4 ] && grep -q "run it as root" "$d/err" || { cat "$d/err"; fail "apply as non-root: exit $rc, want 4"; }
rc=$(status setpriv --reuid=65534 --regid=65534 --clear-groups $GU rollback --yes)
[ "$rc" = 4 ] || { cat "$d/err"; fail "rollback as non-root: exit $rc, want 4"; }

# ---- the operator answers no at the prompt (a terminal: script(1)): 8, nothing changed ----
prompt() { # ANSWER COMMAND...: the answer typed at apply's or rollback's question
	_a=$1
	shift
	set +e
	printf '%s\n' "$_a" | script -qec "$*" /dev/null >"$d/tty" 2>&1
	rc=$?
	set -e
}
prompt n "$G -p $d/p.ini --only vm --accept vm.kvm apply"
[ "$rc" = 8 ] && grep -q "declined: nothing was changed" "$d/tty" ||
	{ cat "$d/tty"; fail "apply, answered no: exit $rc, want 8"; }
[ ! -e "$X" ] && [ -z "$(ls "$d/journal" 2>/dev/null)" ] || fail "8: apply changed something"
rc=$(status $G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes)
[ "$rc" = 0 ] || { cat "$d/err"; fail "apply: exit $rc"; }
prompt no "$G rollback"
[ "$rc" = 8 ] && grep -q "declined: nothing was changed" "$d/tty" && [ -e "$X" ] ||
	{ cat "$d/tty"; fail "rollback, answered no: exit $rc, want 8, the XML kept"; }
rc=$(status $G rollback --yes)
[ "$rc" = 0 ] && [ ! -e "$X" ] || { cat "$d/err"; fail "rollback: exit $rc"; }
rm -f "$d"/journal/*.json

# ---- domain.define fails (a domain of that name with another UUID): undone, exit 6 ----
cat >"$d/other.xml" <<EOX
<domain type='qemu'><name>gp-test-vm</name><uuid>11111111-2222-3333-4444-555555555555</uuid>
<memory>131072</memory><vcpu>1</vcpu><os><type arch='x86_64' machine='q35'>hvm</type></os></domain>
EOX
virsh -q -c "$uri" define "$d/other.xml" >/dev/null
rc=$(status $G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes)
[ "$rc" = 6 ] || { cat "$d/err"; fail "a failed step, all undone: exit $rc, want 6"; }
grep -q "failed and rolled back: run .*the host is as before" "$d/err" || fail "6: no message"
[ ! -e "$X" ] || fail "6: the XML was not removed"
j=$(ls "$d"/journal/*.json)
grep -q '"status": "rolled_back"' "$j" || fail "6: journal not rolled_back"
rm "$j"
# ... and standard output cannot be written: still 6, not 4 (review2 F4)
set +e
$G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes >/dev/full 2>"$d/err"
rc=$?
set -e
[ "$rc" = 6 ] || { cat "$d/err"; fail "all undone, stdout failing: exit $rc, want 6"; }
grep -q "failed and rolled back" "$d/err" && grep -q "cannot write to standard output" "$d/err" ||
	{ cat "$d/err"; fail "6 to /dev/full: messages"; }
rm "$d"/journal/*.json

# ---- ... and the undo of domain.write fails (a directory took the file's place) ----
GPUPROV_STEP_DELAY=3 $G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes 2>"$d/err7" &
pid=$!
i=0
while ! grep -q '"state": "done"' "$d"/journal/*.json 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 300 ] && kill -0 $pid 2>/dev/null || { cat "$d/err7"; fail "step 1 never done"; }
	sleep 0.1
done
rm "$X"
mkdir "$X"
touch "$X/keep"
set +e
wait $pid
rc=$?
set -e
[ "$rc" = 7 ] || { cat "$d/err7"; fail "an undo failed: exit $rc, want 7"; }
grep -q "ROLLBACK FAILED: run .* left the host changed" "$d/err7" || fail "7: no message"
grep -q "left changed: step 1 domain.write $X (was: absent); by hand: rm -f -- '$X';" "$d/err7" ||
	{ cat "$d/err7"; fail "7: the step left changed is not named"; }
grep -q "gpuprov rollback " "$d/err7" || fail "7: no way to finish"
run=$(basename "$(ls "$d"/journal/*.json)" .json)
rc=$(status $G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes)
[ "$rc" = 2 ] && grep -q "could not be rolled back completely" "$d/err" ||
	{ cat "$d/err"; fail "apply after a failed undo: exit $rc, want 2"; }
rc=$(status $G rollback --yes)
[ "$rc" = 7 ] && grep -q "ROLLBACK FAILED: run $run" "$d/err" ||
	{ cat "$d/err"; fail "rollback while the cause stays: exit $rc, want 7"; }
set +e # standard output cannot be written: still 7, not 4 (review2 F4)
$G --json rollback --yes >/dev/full 2>"$d/err"
rc=$?
set -e
[ "$rc" = 7 ] && grep -q "ROLLBACK FAILED: run $run" "$d/err" &&
	grep -q "cannot write to standard output" "$d/err" ||
	{ cat "$d/err"; fail "rollback while the cause stays, stdout failing: exit $rc, want 7"; }
rm -r "$X"
rc=$(status $G rollback --yes)
[ "$rc" = 0 ] && grep -q "rolled back run $run" "$d/err" ||
	{ cat "$d/err"; fail "rollback once the cause is gone: exit $rc, want 0"; }
exit 0
