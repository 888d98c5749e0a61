#!/bin/sh
# What reading one PCI function costs the safe reader, counted
# with strace -y, which names each descriptor's file.  In a directory nobody
# but root may change, each attribute is looked up once by fstatat (type
# check) and opened once, never reopened through /proc/self/fd, and a
# regular file read whole takes no second read to see its end; on sysfs (the
# live host) an attribute is opened at once, and the device's directory is
# opened from the devices directory (one component, not the whole path).
# t_devnodes.sh shows that no node or FIFO is opened on the way.
set -u
. "$(dirname "$0")/lib.sh"
chmod 0755 "$d"
# uid 65534 runs a copy it can reach, GU (gp_user_copy)
gp_user_copy "$d/bin" "$G"
GU=$d/bin/gpuprov

[ "$(id -u)" -eq 0 ] || fail "runs as root (strace -u, to skip the tree walk as root)"

R=$d/tree
cp -a build/hosts/r5350-ready "$R"
bdf=0000:41:00.0
dev=$(readlink -f "$R/sys/bus/pci/devices/$bdf")
# the GPU's files: reset_method is read for a GPU alone
for f in vendor device class config numa_node resource reset_method; do
	[ -f "$dev/$f" ] || fail "the fixture has no $f for $bdf"
done

# as uid 65534: the tree walk (root's alone) stays out of the count
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -y -f -qq -u "$(id -nu 65534)" \
	-o "$d/trace" "$GU" -r "$R" scan >"$d/out" 2>&1 || fail "scan: $(cat "$d/out")"
grep -q "$bdf" "$d/out" || fail "scan shows no $bdf: $(cat "$d/out")"
# the device's syscalls: its directory or a file in it, or its name in a path
grep -F -e "<$dev>" -e "<$dev/" -e "$bdf" "$d/trace" >"$d/dev"
[ -s "$d/dev" ] || fail "no syscall on $bdf: $(head "$d/trace")"

for f in vendor device class config numa_node resource reset_method; do
	n=$(grep -E ' openat\(' "$d/dev" | grep -v O_PATH | grep -cF "$dev>, \"$f\"")
	[ "$n" -eq 1 ] || fail "$f opened $n times by name in its directory, want 1: $(grep -F "\"$f\"" "$d/dev")"
	n=$(grep -F '"/proc/self/fd/' "$d/dev" | grep -cF "<$dev/$f>")
	[ "$n" -eq 0 ] || fail "$f reopened through /proc/self/fd"
	# one type check: for what lspci reads, the guard of -r (host/pci.c's
	# guard_dev) makes it in the trusted directory, and the reader takes it
	n=$(grep -cF "$dev>, \"$f\", {st_mode" "$d/dev")
	[ "$n" -eq 1 ] || fail "$f stat'ed $n times, want 1"
done
# the directory itself: fstat'ed once (trust check; the guard takes its id)
n=$(grep -cF "<$dev>, \"\", {st_mode" "$d/dev")
[ "$n" -eq 1 ] || fail "$bdf's directory fstat'ed $n times, want 1"
n=$(grep -E ' read\(' "$d/dev" | grep -c ' = 0$')
[ "$n" -eq 0 ] || fail "$n reads to see the end of a file whose size was known"
# all of it, the libpci guard of -r and the iommu_group link included
n=$(wc -l <"$d/dev")
[ "$n" -le 38 ] || fail "$n syscalls for $bdf, more than 38 (70 before the reader worked in each device's directory; 44 after)"

# the live host's sysfs: the first device's vendor, opened at once from its
# directory, itself opened from the devices directory
live=$(ls /sys/bus/pci/devices | head -1)
[ -n "$live" ] || fail "this host has no PCI device"
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -y -f -qq -o "$d/trace" "$G" scan \
	>"$d/out" 2>&1 || fail "live scan: $(cat "$d/out")"
grep -E ' openat\(' "$d/trace" | grep -F "</sys/bus/pci/devices>, \"$live\", O_RDONLY|O_CLOEXEC|O_PATH|O_DIRECTORY" \
	>/dev/null || fail "live: $live not opened from the devices directory: $(grep -F "$live\"" "$d/trace")"
ldev=$(readlink -f "/sys/bus/pci/devices/$live")
grep -E ' openat\(' "$d/trace" | grep -v O_PATH | grep -F "<$ldev>, \"vendor\"" >/dev/null ||
	fail "live: $live's vendor not opened at once: $(grep -F "$ldev/vendor" "$d/trace")"
! grep -F "<$ldev>, \"vendor\", {" "$d/trace" >/dev/null || fail "live: vendor stat'ed on sysfs"
! grep -F '"/proc/self/fd/' "$d/trace" | grep -F "<$ldev/vendor>" >/dev/null ||
	fail "live: $live's vendor reopened through /proc/self/fd"
exit 0
