#!/bin/sh
# What the read commands open (strace): scan and topo read the topology
# only, not the sockets, the packages, the modprobe files and the processes
# check weighs (on a live host QEMU's version alone runs a program); none
# of them opens a file of the tree twice.
set -u
. "$(dirname "$0")/lib.sh"
tree=build/hosts/r5350-ready
real=$(readlink -f "$tree")

trace() { # trace NAME ARGS...: the opens of one run in $d/NAME
	name=$1
	shift
	strace -f -qq -y -e trace=openat,openat2,execve -o "$d/$name" "$G" -r "$tree" "$@" \
		>/dev/null 2>&1
}
# the files a run opened to be read, as the kernel resolved them; one line each time
read_files() {
	grep -E '^[0-9]+ +openat2?\(' "$1" | grep -v -e O_PATH -e O_DIRECTORY |
		sed -n 's/.* = [0-9][0-9]*<\(.*\)>$/\1/p' | grep "^$real/"
}

trace check -p profiles/h3c-r5350-g6.ini check
for f in /proc/net/tcp /var/lib/dpkg/status /etc/modprobe.d; do
	grep -q "\"$f\"" "$d/check" || fail "check did not open $f: the trace misses it"
done
for cmd in scan "--json scan" topo "--json topo"; do
	# shellcheck disable=SC2086
	trace run $cmd
	for f in /proc/net/tcp /var/lib/dpkg/status /etc/modprobe.d /proc/iomem; do
		! grep -q "\"$f\"" "$d/run" || fail "$cmd opened $f, which it does not show"
	done
	! grep -q execve "$d/run" || grep -c execve "$d/run" | grep -qx 1 ||
		fail "$cmd ran a program"
	[ "$(read_files "$d/run" | wc -l)" -gt 100 ] || fail "$cmd: too few files seen to count"
	twice=$(read_files "$d/run" | sort | uniq -d)
	[ -z "$twice" ] || fail "$cmd opened twice: $twice"
done
exit 0
