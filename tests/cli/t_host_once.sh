#!/bin/sh
# What a host load asks once per kind, not once per device or process
# seen in strace's lookups:
#  - the vfio driver of a GPU's functions: libkmod's variant lookup once per
#    modalias, /sys/module/<module> and the walk of the PCI drivers once per
#    module (many-gpus: 35 functions in GPU groups, 4 models, one module);
#  - a process's name only when it holds a GPU node (in-use: PID 1 holds
#    /dev/null only, 2817 and 40211 hold /dev/nvidia0 and /dev/nvidia1).
set -eu
. "$(dirname "$0")/lib.sh"
P=$(gp_profile h3c-r5350-g6)
# LeakSanitizer cannot run under ptrace
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
trace() { # trace HOST: check's file lookups in $d/trace
	strace -f -qq -e trace=%file,openat2 -o "$d/trace" "$G" -r "build/hosts/$1" -p "$P" check \
		>"$d/out" 2>&1 || true
}
count() { grep -c "$1" "$d/trace" || true; }

trace many-gpus
n=$(count '"/sys/bus/pci/devices/[^/"]*/driver_override"')
[ "$n" -ge 30 ] || fail "many-gpus: driver_override of $n functions, want 30 or more"
n=$(count '"/sys/module/vfio_pci"')
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "many-gpus: /sys/module/vfio_pci looked up $n times"
n=$(count '"/sys/bus/pci/drivers"')
[ "$n" -eq 1 ] || fail "many-gpus: the PCI drivers walked $n times, want 1"
# a fixed few per reader of the kernel's modules (the vfio module's, boot.claim's
# next kernel), never one per function: 35 functions would be 35 or more
n=$(count '/lib/modules/')
[ "$n" -le 24 ] || fail "many-gpus: $n lookups under /lib/modules (a libkmod context per function?)"
grep -q "^check against" "$d/out" || fail "many-gpus: no check: $(head -5 "$d/out")"

trace in-use
grep -q 'held open by PID 2817 (nvidia-persiste)' "$d/out" || fail "in-use: PID 2817 not named"
grep -q 'held open by PID 40211 (python3)' "$d/out" || fail "in-use: PID 40211 not named"
n=$(count '"/proc/1/comm"')
[ "$n" -eq 0 ] || fail "in-use: the name of PID 1 (no GPU node) read $n times"
n=$(count '"/proc/2817/comm"')
[ "$n" -eq 1 ] || fail "in-use: the name of PID 2817 read $n times, want 1"
exit 0
