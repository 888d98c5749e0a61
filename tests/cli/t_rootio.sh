#!/bin/sh
# A hostile tree under -r: its links resolve inside it, a FIFO or /dev/zero
# neither hangs nor loops, a path libpci would follow out of the tree is
# refused (exit 3); a FIFO or /dev/zero as the profile is exit 4 at once.
# Every run has a deadline: a hang is a failure, not a stuck test.
set -u
. "$(dirname "$0")/lib.sh"

fresh() {
	rm -rf "$d/tree" && cp -a build/hosts/r5350-ready "$d/tree"
}
run() { # run SECONDS ARGS...: output in $d/out, status in $rc
	t=$1
	shift
	timeout "$t" "$G" "$@" >"$d/out" 2>&1
	rc=$?
	[ $rc -ne 124 ] || fail "'$*' hung (killed after ${t}s)"
}
# the reader's own answer, as a user to whom the walk of the library paths
# (below) does not apply
as_user() { # as_user SECONDS ARGS...: run, as uid 65534 when root
	if [ "$(id -u)" -ne 0 ]; then
		run "$@"
		return
	fi
	t=$1
	shift
	setpriv --reuid 65534 --regid 65534 --clear-groups timeout "$t" "$GU" "$@" >"$d/out" 2>&1
	rc=$?
	[ $rc -ne 124 ] || fail "'$*' hung (killed after ${t}s)"
}
chmod 0755 "$d"
# uid 65534 runs a copy it can reach, GU (gp_user_copy)
gp_user_copy "$d/bin" "$G"
GU=$d/bin/gpuprov

echo OUTSIDE-SECRET-BIOS >"$d/outside"

# an absolute link inside the tree resolves inside the tree, not on this machine
fresh
ln -sf "$d/outside" "$d/tree/sys/class/dmi/id/bios_version"
run 20 -r "$d/tree" scan
[ $rc -eq 0 ] || fail "absolute link: exit $rc"
! grep -q OUTSIDE-SECRET "$d/out" || fail "absolute link: read the file outside the tree"
# so does a relative one that climbs above the root
fresh
ln -sf "../../../../../../../../../../../../../../../../../..$d/outside" \
	"$d/tree/sys/class/dmi/id/bios_version"
run 20 -r "$d/tree" scan
! grep -q OUTSIDE-SECRET "$d/out" || fail "../ link: read the file outside the tree"

# a FIFO is refused, not waited on; /dev/zero is not read forever
fresh
rm "$d/tree/proc/cmdline" && mkfifo "$d/tree/proc/cmdline"
as_user 20 -r "$d/tree" scan
[ $rc -eq 0 ] || fail "FIFO /proc/cmdline: exit $rc"
if [ "$(id -u)" -eq 0 ]; then # no library opens it: as root too the reader alone reads it
	run 20 -r "$d/tree" scan
	[ $rc -eq 0 ] || fail "root, FIFO /proc/cmdline: exit $rc, want 0: $(cat "$d/out")"
fi
fresh
ln -sf /dev/zero "$d/tree/proc/cpuinfo"
run 20 -r "$d/tree" scan
[ $rc -eq 0 ] || fail "/proc/cpuinfo -> /dev/zero: exit $rc"

# libpci reads ROOT/sys/bus/pci itself: a device link leading out of the tree,
# or a FIFO as its config space, is refused before libpci runs
fresh
mkdir -p "$d/fake" && printf '0x1234\n' >"$d/fake/vendor"
cp "$d/tree/sys/bus/pci/devices/0000:41:00.0/"* "$d/fake/" 2>/dev/null
printf '0x1234\n' >"$d/fake/vendor"
ln -sfn "$d/fake" "$d/tree/sys/bus/pci/devices/0000:41:00.0"
run 20 -r "$d/tree" scan
[ $rc -eq 3 ] || fail "device link outside the tree: exit $rc, want 3"
grep -q "outside the root" "$d/out" || fail "device link outside the tree: $(cat "$d/out")"
fresh
cfg=$(readlink -f "$d/tree/sys/bus/pci/devices/0000:41:00.0")/config
rm "$cfg" && mkfifo "$cfg"
as_user 20 -r "$d/tree" scan
[ $rc -eq 3 ] || fail "FIFO as config space: exit $rc, want 3"

# a device's IDs and class are read as libpci reads them, with its messages:
# missing or unreadable they stop the scan (exit 3), garbage reads as 0
fresh
dev=$(readlink -f "$d/tree/sys/bus/pci/devices/0000:41:00.0")
rm "$dev/vendor"
run 20 -r "$d/tree" scan
[ $rc -eq 3 ] || fail "no vendor file: exit $rc, want 3"
grep -q "Cannot open $d/tree/sys/bus/pci/devices/0000:41:00.0/vendor: No such file" "$d/out" ||
	fail "no vendor file: $(cat "$d/out")"
fresh
rm "$dev/device" && mkdir "$dev/device"
run 20 -r "$d/tree" scan
[ $rc -eq 3 ] || fail "device as a directory: exit $rc, want 3"
grep -q "Error reading $d/tree/sys/bus/pci/devices/0000:41:00.0/device: Is a directory" \
	"$d/out" || fail "device as a directory: $(cat "$d/out")"
fresh
head -c 1024 /dev/zero | tr '\0' 0 >"$dev/class"
run 20 -r "$d/tree" scan
[ $rc -eq 3 ] || fail "class of 1024 bytes: exit $rc, want 3"
grep -q "Value in $d/tree/sys/bus/pci/devices/0000:41:00.0/class too long" "$d/out" ||
	fail "class of 1024 bytes: $(cat "$d/out")"
# libpci's limit on a path it names (OBJNAMELEN, 1024): ROOT/sys/bus/pci/
# devices/BDF/vendor of 1023 bytes is read, of 1024 stops the scan
long_root() { # long_root LEN: a copy of the tree at a root path of LEN bytes
	rm -rf "$d/long"
	r=$d/long
	while [ $((${#r} + 200)) -lt "$1" ]; do
		r=$r/$(printf '%0199d' 0)
	done
	r=$r/$(printf "%0$(($1 - ${#r} - 1))d" 0)
	mkdir -p "$(dirname "$r")"
	cp -a build/hosts/r5350-ready "$r"
	[ ${#r} -eq "$1" ] || fail "long_root: ${#r} bytes, want $1"
}
tail=/sys/bus/pci/devices/0000:41:00.0/vendor
long_root $((1023 - ${#tail}))
run 20 -r "$r" scan
[ $rc -eq 0 ] || fail "a path of 1023 bytes: exit $rc: $(head -3 "$d/out")"
long_root $((1024 - ${#tail}))
run 20 -r "$r" scan
[ $rc -eq 3 ] || fail "a path of 1024 bytes: exit $rc, want 3"
grep -q "cannot read the PCI devices: File name too long" "$d/out" ||
	fail "a path of 1024 bytes: $(head -3 "$d/out")"
rm -rf "$d/long"
# as strtol(text, NULL, 0) reads it, whatever the spelling (sysfs's is read
# without strtol): no newline, blanks, octal, digits past an int
for spelling in '0x030200|0302' ' 0x030200\n|0302' '01402000\n|0604' '0x7f030200\n|0302' \
	'0x123030200\n|0302' '0x\n|0000'; do
	fresh
	printf "${spelling%|*}" >"$dev/class"
	run 20 -r "$d/tree" --json scan
	[ $rc -eq 0 ] || fail "class '${spelling%|*}': exit $rc"
	grep -A3 '"bdf": "0000:41:00.0"' "$d/out" | grep -q "\"class\": \"${spelling#*|}\"" ||
		fail "class '${spelling%|*}': $(grep -A3 '"bdf": "0000:41:00.0"' "$d/out")"
done
fresh
printf 'garbage\n' >"$dev/class"
run 20 -r "$d/tree" --json scan
[ $rc -eq 0 ] || fail "garbage class: exit $rc"
grep -A3 '"bdf": "0000:41:00.0"' "$d/out" | grep -q '"class": "0000"' ||
	fail "garbage class: $(grep -A3 '"bdf": "0000:41:00.0"' "$d/out")"

# the profile itself: a FIFO or a device is bad input, at once
mkfifo "$d/fifo.ini"
for p in "$d/fifo.ini" /dev/zero; do
	run 2 -p "$p" check
	[ $rc -eq 4 ] || fail "profile $p: exit $rc, want 4"
	grep -q "not a regular file" "$d/out" || fail "profile $p: $(cat "$d/out")"
done

# as root, a tree where someone else can change a path libpci or libkmod
# opens by itself is refused before the library runs (the guard-then-open
# race needs a writer other than root); the rest of the tree is the safe
# reader's alone
if [ "$(id -u)" -eq 0 ]; then
	fresh
	chown 65534 "$d/tree/sys/bus/pci/devices"
	run 20 -r "$d/tree" scan
	[ $rc -eq 3 ] || fail "tree dir of uid 65534: exit $rc, want 3"
	grep -q "owned by uid 65534" "$d/out" || fail "tree dir of uid 65534: $(cat "$d/out")"
	# the same tree named through a link: the walk goes where the link leads
	ln -sfn tree "$d/tree-link"
	run 20 -r "$d/tree-link" scan
	[ $rc -eq 3 ] || fail "link to a tree dir of uid 65534: exit $rc, want 3"
	grep -q "tree-link/sys/bus/pci/devices' is owned by uid 65534" "$d/out" ||
		fail "link to a tree dir of uid 65534: $(cat "$d/out")"
	fresh
	chmod 1777 "$d/tree/sys/bus/pci/devices"
	run 20 -r "$d/tree" scan
	[ $rc -eq 3 ] || fail "sticky world-writable tree dir: exit $rc, want 3"
	# libpci opens each slot's address: a FIFO there, a slot of another
	# user's, a slot leading into a directory another user can write
	# (nothing there yet: the guard sees nothing either way) are refused
	fresh
	addr="$d/tree/sys/bus/pci/slots/1/address"
	rm "$addr" && mkfifo "$addr"
	run 20 -r "$d/tree" scan
	[ $rc -eq 3 ] || fail "FIFO as a slot's address: exit $rc, want 3"
	grep -q "slots/1/address' is a device node, a FIFO or a socket" "$d/out" ||
		fail "FIFO as a slot's address: $(cat "$d/out")"
	fresh
	chown 65534 "$d/tree/sys/bus/pci/slots/1"
	run 20 -r "$d/tree" scan
	[ $rc -eq 3 ] || fail "slot of uid 65534: exit $rc, want 3"
	grep -q "slots/1' is owned by uid 65534" "$d/out" || fail "slot of uid 65534: $(cat "$d/out")"
	fresh
	mkdir "$d/theirs" && chown 65534 "$d/theirs"
	rm -r "$d/tree/sys/bus/pci/slots/1"
	ln -s ../../../../../theirs "$d/tree/sys/bus/pci/slots/1"
	run 20 -r "$d/tree" scan
	[ $rc -eq 3 ] || fail "slot link into uid 65534's directory: exit $rc, want 3"
	grep -q "slots/1' leads out of the tree" "$d/out" ||
		fail "slot link into uid 65534's directory: $(cat "$d/out")"
	rmdir "$d/theirs"
	# libkmod opens lib/modules/RELEASE/modules.* and every modprobe.d entry,
	# for check and plan (scan and topo do not run it)
	fresh
	mkdir -p "$d/tree/etc/modprobe.d" && mkfifo "$d/tree/etc/modprobe.d/x.conf"
	run 20 -r "$d/tree" scan
	[ $rc -eq 0 ] || fail "modprobe.d FIFO, scan (no libkmod): exit $rc, want 0"
	run 20 -r "$d/tree" -p profiles/h3c-r5350-g6.ini check
	[ $rc -eq 3 ] || fail "modprobe.d FIFO, check: exit $rc, want 3"
	grep -q "etc/modprobe.d/x.conf' is a device node, a FIFO or a socket" "$d/out" ||
		fail "modprobe.d FIFO, check: $(cat "$d/out")"
	# root's group writing modprobe.d: a member could race that FIFO in
	fresh
	mkdir -p "$d/tree/etc/modprobe.d" && chmod 775 "$d/tree/etc/modprobe.d"
	run 20 -r "$d/tree" -p profiles/h3c-r5350-g6.ini check
	[ $rc -eq 3 ] || fail "modprobe.d 0775 root:root, check: exit $rc, want 3"
	grep -q "etc/modprobe.d' is writable by group 0 (mode 775)" "$d/out" ||
		fail "modprobe.d 0775 root:root, check: $(cat "$d/out")"
	fresh
	m="$d/tree/lib/modules/$(cat "$d/tree/proc/sys/kernel/osrelease")"
	mkdir -p "$m" && : >"$m/modules.dep" && chown 65534 "$m/modules.dep"
	run 20 -r "$d/tree" -p profiles/h3c-r5350-g6.ini check
	[ $rc -eq 3 ] || fail "modules.dep of uid 65534: exit $rc, want 3"
	grep -q "modules.dep' is owned by uid 65534" "$d/out" ||
		fail "modules.dep of uid 65534: $(cat "$d/out")"
	# what no library opens is read as hostile by the safe reader alone: a
	# tree another user writes there is read, as root too
	fresh
	f=$(find "$d/tree/sys/devices" -name config | head -1)
	chgrp 65534 "$f" && chmod g+w "$f"
	echo THEIRS-BIOS >"$d/tree/sys/class/dmi/id/bios_version"
	chown -R 65534 "$d/tree/sys/class/dmi" "$d/tree/proc"
	chmod -R o+w "$d/tree/sys/class/dmi" "$d/tree/proc"
	run 20 -r "$d/tree" scan
	[ $rc -eq 0 ] || fail "uid 65534's files off the library paths: exit $rc, want 0: $(cat "$d/out")"
	grep -q THEIRS-BIOS "$d/out" || fail "uid 65534's bios_version was not read: $(cat "$d/out")"
	run 20 -r "$d/tree" -p profiles/h3c-r5350-g6.ini check
	[ $rc -le 2 ] || fail "uid 65534's files off the library paths, check: exit $rc: $(cat "$d/out")"
	# a link on a library path stays in the tree: out of it (to root's own
	# directory too) it is refused, even when nothing is there
	fresh
	mkdir "$d/rootdir"
	rm -r "$d/tree/sys/bus/pci/slots/1"
	ln -s ../../../../../rootdir "$d/tree/sys/bus/pci/slots/1"
	run 20 -r "$d/tree" scan
	[ $rc -eq 3 ] || fail "slot link to a directory out of the tree: exit $rc, want 3"
	grep -q "slots/1' leads out of the tree" "$d/out" ||
		fail "slot link to a directory out of the tree: $(cat "$d/out")"
	rmdir "$d/rootdir"
	# /proc links (cwd, root, fd/N) lead where the kernel says, maybe into
	# another mount namespace, not where their text says: never followed
	rm "$d/tree/sys/bus/pci/slots/1"
	ln -s "/proc/self/cwd/$d/none" "$d/tree/sys/bus/pci/slots/1"
	run 20 -r "$d/tree" scan
	[ $rc -eq 3 ] || fail "slot link through /proc/self/cwd: exit $rc, want 3"
	# -r /proc/PID/cwd of a process in its own mount namespace, whose tree
	# (a tmpfs there, an empty root's directory here) has a slot of uid
	# 65534: the walk must not check the empty directory and pass
	fresh
	chown -R 65534 "$d/tree/sys/bus/pci/slots/1"
	mkdir "$d/ns" && mkfifo "$d/ready"
	unshare -m --propagation private sh -c 'mount -t tmpfs -o mode=755 tmpfs "$1" &&
		cp -a "$2/." "$1/" && cd "$1" && echo >"$3" && exec sleep 60' \
		- "$d/ns" "$d/tree" "$d/ready" &
	pid=$!
	read -r _ <"$d/ready"
	run 20 -r "/proc/$pid/cwd" scan
	kill "$pid"
	wait "$pid" 2>/dev/null
	[ $rc -eq 3 ] || fail "-r /proc/PID/cwd of another mount namespace: exit $rc, want 3"
	grep -q "/proc/$pid/cwd' is a link in /proc" "$d/out" ||
		fail "-r /proc/PID/cwd of another mount namespace: $(cat "$d/out")"
	fresh
	run 20 -r "$d/tree" scan
	[ $rc -eq 0 ] || fail "root's own tree: exit $rc"
fi

# snapshot -r: links copied into the staging tree are never written through
fresh
mkdir -p "$d/victim/net/eth9"
echo precious >"$d/victim/net/eth9/address"
ln -sfn "$d/victim" "$d/tree/sys/bus/pci/devices/0000:ff:00.0"
ln -sfn ../../bus/pci/devices/0000:ff:00.0/net/eth9 "$d/tree/sys/class/net/eth9"
run 60 -q -r "$d/tree" -o "$d/s.tar.gz" snapshot
[ "$(cat "$d/victim/net/eth9/address")" = precious ] ||
	fail "snapshot wrote outside its staging directory"
[ "$(find "$d/victim" | wc -l)" -eq 4 ] || fail "snapshot created files outside its staging tree"
exit 0
