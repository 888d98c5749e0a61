#!/bin/sh
# Progress and colour, on a pseudo-terminal (script(1)) as a person sees it:
#  - check colours ok, WARN and FAIL; not with NO_COLOR, TERM=dumb, a pipe or --json;
#  - snapshot shows how far its copy is;
#  - apply and rollback (--only vm, libvirt's in-process QEMU driver, as in
#    t_journal.sh) print a line when each step starts and one when it is
#    verified or undone, with its duration; nothing of that through a pipe,
#    with -q or --json, where the lines are today's.
set -eu
. "$(dirname "$0")/lib.sh"
# --accept vm.kvm: these steps are the subject, not KVM; on a host without
# /dev/kvm (a cloud VM, TCG) vm.kvm fails, rightly, and would block them
H=$(gp_host link)
P=$(gp_profile h3c-r5350-g6)
ESC=$(printf '\033')
# on a terminal: stdout and stderr both go to script's typescript
tty() { TERM=${T:-xterm} script -qec "$*" /dev/null >"$d/tty" 2>&1 || true; tr -d '\r' <"$d/tty" >"$d/out"; }

tty "$G -v -r $H -p $P check" # -v: the ok findings too
grep -q "^${ESC}\[32mok  ${ESC}\[0m  iommu.off " "$d/out" || fail "check: ok not green"
grep -q "^${ESC}\[33mWARN${ESC}\[0m  gpu.link " "$d/out" || fail "check: WARN not yellow"
grep -q "^${ESC}\[1;31mFAIL${ESC}\[0m  gpu.link " "$d/out" || fail "check: FAIL not red"
NO_COLOR=1 tty "$G -r $H -p $P check"
! grep -q "$ESC" "$d/out" || fail "check: colour with NO_COLOR"
grep -q "^FAIL  gpu.link " "$d/out" || fail "check: no FAIL with NO_COLOR"
T=dumb tty "$G -r $H -p $P check"
! grep -q "$ESC" "$d/out" || fail "check: colour with TERM=dumb"
tty "$G -r $H -p $P --json check"
! grep -q "$ESC" "$d/out" || fail "check --json: colour"
TERM=xterm $G -r $H -p $P check >"$d/pipe" 2>&1 || true
! grep -q "$ESC" "$d/pipe" || fail "check into a pipe: colour"

# ---- apply and rollback: one line when a step starts, one when verified ----
gp_own_state
mkdir -p "$d/out.d"
gp_embed_libvirt "$d"
sed "s|<name>gpu-vm</name>|<name>gpu-vm</name><uuid>9c1e0c5a-5f57-4d52-9f3a-6b1f3f0a7e12</uuid>|" \
	templates/domain-q35-ovmf.xml >"$d/template.in"
gp_host_template "$d/template.in" "$d/template.xml"
cat >"$d/p.ini" <<EOP
[gpus]
match = 10de:20b5
count = 2
[vm]
name = gp-progress-vm
vcpus = 1
memory = 256MiB
numa = none
template = $d/template.xml
output = $d/out.d/vm.xml
uri = $uri
EOP
chmod 644 "$d/p.ini"
x=$d/out.d/vm.xml
tty "$G -p $d/p.ini --only vm --accept vm.kvm apply --yes"
grep -Eq "^start \[1/3\] domain.write $x: absent -> written" "$d/out" || { cat "$d/out"; fail "apply: no start line"; }
grep -Eq "^${ESC}\[32mok   ${ESC}\[0m \[1/3\] domain.write $x: verified in [0-9]+\.[0-9]{2} s$" "$d/out" ||
	{ cat "$d/out"; fail "apply: no verified line with its duration"; }
grep -Eq "^start \[3/3\] domain.define gp-progress-vm: " "$d/out" || fail "apply: step 3 not started"
grep -Eq "^${ESC}\[32mok   ${ESC}\[0m \[3/3\] domain.define gp-progress-vm: verified in [0-9.]+ s$" "$d/out" ||
	fail "apply: step 3 not verified"
[ "$(grep -c '^start ' "$d/out")" = 3 ] || fail "apply: a step line twice"
grep -q '^gpuprov: \[1\]' "$d/out" && fail "apply: the log's step line too on a terminal"
tty "$G rollback --yes"
grep -Eq "^undo  \[3/3\] domain.define gp-progress-vm: " "$d/out" || { cat "$d/out"; fail "rollback: no undo line"; }
grep -Eq "^${ESC}\[32mok   ${ESC}\[0m \[1/3\] domain.write $x: undone in [0-9.]+ s$" "$d/out" ||
	fail "rollback: no undone line"
[ ! -e "$x" ] || fail "rollback left the XML"

# through a pipe, with -q, with --json: the lines of a log, or none
$G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes >"$d/pipe" 2>&1 || fail "apply into a pipe"
grep -q "^gpuprov: \[1\] domain.write $x: absent -> written" "$d/pipe" || fail "apply into a pipe: log line"
! grep -q "^start \|verified in\|$ESC" "$d/pipe" || fail "apply into a pipe: progress"
$G rollback --yes >"$d/pipe" 2>&1 || fail "rollback into a pipe"
grep -q "^gpuprov: undo domain.define gp-progress-vm" "$d/pipe" || fail "rollback into a pipe: log line"
tty "$G -q -p $d/p.ini --only vm --accept vm.kvm apply --yes"
! grep -q "^start \|verified in\|$ESC" "$d/out" || fail "apply -q: progress"
tty "$G -q rollback --yes"
tty "$G --json -p $d/p.ini --only vm --accept vm.kvm apply --yes"
! grep -q "^start \|verified in\|$ESC" "$d/out" || fail "apply --json: progress"
tty "$G --json rollback --yes"
! grep -q "^undo \|undone in\|$ESC" "$d/out" || fail "rollback --json: progress"
[ ! -e "$x" ] || fail "the last rollback left the XML"

# snapshot: how far the copy is, on the status line; nothing of it into a pipe
tty "$G -r build/hosts/r5350-ready -o $d/snap.tar.gz snapshot"
grep -q "snapshot: 0 files, /sys/bus/pci/devices" "$d/out" || { cat -A "$d/out" | head; fail "snapshot: no progress"; }
grep -q "snapshot: [0-9]* files, writing $d/snap.tar.gz" "$d/out" || fail "snapshot: no word of the archive"
grep -q "wrote $d/snap.tar.gz: [0-9]* files" "$d/out" || fail "snapshot: no summary"
$G -r build/hosts/r5350-ready -o "$d/snap2.tar.gz" snapshot >"$d/pipe" 2>&1 || fail "snapshot into a pipe"
! grep -q "snapshot: " "$d/pipe" || fail "snapshot into a pipe: progress"
