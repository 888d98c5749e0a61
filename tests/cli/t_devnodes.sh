#!/bin/sh
# A device node is never opened for reading: the safe reader looks a path up
# with O_PATH, checks the type, and only then opens a regular file or a
# directory.  Opening a node runs its driver's open() as root (a watchdog
# arms and reboots the host) -- from a hostile snapshot tarball that tar as
# root unpacked, or from a profile's [vm] output on the live host (review2
# F1).  strace shows every open: the node's path never appears without
# O_PATH.  As root a node, a FIFO or a socket where libpci or libkmod opens
# by path refuses the -r tree at once (no snapshot holds one); anywhere else
# the reader passes it over, for root as for uid 65534.
set -u
. "$(dirname "$0")/lib.sh"
chmod 0755 "$d"
# uid 65534 runs a copy it can reach, GU (gp_user_copy)
gp_user_copy "$d/bin" "$G" profiles/h3c-r5350-g6.ini
GU=$d/bin/gpuprov
P=$d/bin/h3c-r5350-g6.ini

[ "$(id -u)" -eq 0 ] || fail "runs as root (mknod, and the library paths' walk root alone takes)"

R=$d/tree
cp -a build/hosts/r5350-ready "$R"
dev=$(readlink -f "$R/sys/bus/pci/devices/0000:41:00.0")
rm "$dev/resource" && mknod "$dev/resource" c 1 3

# opens NAME: the opens (not O_PATH lookups) of $dev/NAME by any route.  strace
# -y names each descriptor's file: the directory an openat starts from, and
# the file an open returned (a reopen through /proc/self/fd included).
opens() {
	grep -E '(^| )open(at2?)?\(' "$d/trace" | grep -v O_PATH |
		grep -F -e "$dev/$1\"" -e "$dev>, \"$1\"" -e "<$dev/$1>"
}
# NAME opened with one lookup in its directory / reopened through /proc/self/fd
direct() { opens "$1" | grep -F "$dev>, \"$1\""; }
reopened() { opens "$1" | grep -F '"/proc/self/fd/' | grep -F "<$dev/$1>"; }
# LeakSanitizer cannot run under ptrace: the untraced runs below look for leaks
traced() { # traced ARGS...: as uid 65534, every file syscall in $d/trace, status in $rc
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 120 \
		strace -y -u "$(id -nu 65534)" -f -qq -e trace=%file,openat2 -o "$d/trace" \
		"$GU" "$@" >"$d/out" 2>&1
	rc=$?
	[ $rc -ne 124 ] || fail "'$*' blocked"
	[ -s "$d/trace" ] || fail "'$*': no trace"
}

for how in scan "--json scan" "-p $P check"; do
	# shellcheck disable=SC2086
	traced -r "$R" $how
	grep -Eq '["/]resource"' "$d/trace" || fail "$how: resource was not looked up: the trace misses it"
	[ -z "$(opens resource)" ] || fail "$how opened the device node: $(opens resource)"
done
# the other files are still read
traced -r "$R" scan
[ $rc -le 1 ] || fail "scan as uid 65534: exit $rc: $(cat "$d/out")"
grep -q '0000:41:00.0' "$d/out" || fail "scan as uid 65534 shows no device: $(cat "$d/out")"

# The one-lookup reads (rootfs.c): in a directory nobody but root may change
# (root's, 0755, on a local filesystem) an attribute is opened at once, a
# FIFO named like one is refused, never opened (opened, it could block); in
# one that another user may change (group-writable, or someone else's) each
# read takes the O_PATH lookup, the type check and the reopen.
rm "$dev/resource" && mkfifo -m 0644 "$dev/resource"
for trust in root g+w other; do
	case $trust in
	g+w) chmod g+w "$dev" ;;
	other) chmod g-w "$dev" && chown 12345 "$dev" ;;
	esac
	traced -r "$R" scan
	[ $rc -le 1 ] || fail "$trust: scan as uid 65534: exit $rc: $(cat "$d/out")"
	grep -Eq '["/]resource"' "$d/trace" || fail "$trust: resource was not looked up"
	[ -z "$(opens resource)" ] || fail "$trust: the FIFO was opened: $(opens resource)"
	if [ $trust = root ]; then
		[ -n "$(direct vendor)" ] || fail "$trust: vendor not opened at once: $(opens vendor)"
		[ -z "$(reopened vendor)" ] || fail "$trust: vendor reopened: $(reopened vendor)"
	else
		[ -n "$(reopened vendor)" ] || fail "$trust: vendor not reopened: $(opens vendor)"
		[ -z "$(direct vendor)" ] || fail "$trust: vendor opened at once: $(direct vendor)"
	fi
done
chown 0 "$dev"

# as root too: the node off the library paths is the reader's, looked up
# and never opened, and the tree is read
rm "$dev/resource" && mknod "$dev/resource" c 1 3
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 120 \
	strace -y -f -qq -e trace=%file,openat2 -o "$d/trace" "$G" -r "$R" scan >"$d/out" 2>&1
rc=$?
[ $rc -le 1 ] || fail "scan as root, a node as resource: exit $rc: $(cat "$d/out")"
grep -q '0000:41:00.0' "$d/out" || fail "scan as root shows no device: $(cat "$d/out")"
grep -Eq '["/]resource"' "$d/trace" || fail "root: resource was not looked up: the trace misses it"
[ -z "$(opens resource)" ] || fail "scan as root opened the device node: $(opens resource)"

# as root, one where libpci opens by path (a slot's address) refuses the
# tree before libpci runs
addr=$R/sys/bus/pci/slots/1/address
for kind in node fifo sock; do
	rm -f "$addr"
	case $kind in
	node) mknod "$addr" c 1 3 ;;
	fifo) mkfifo "$addr" ;;
	sock) python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
		"$addr" ;;
	esac
	timeout 20 "$G" -r "$R" scan >"$d/out" 2>&1
	rc=$?
	[ $rc -eq 3 ] || fail "root, a $kind as a slot's address: exit $rc, want 3: $(cat "$d/out")"
	grep -q "slots/1/address' is a device node, a FIFO or a socket" "$d/out" ||
		fail "root, a $kind as a slot's address: $(cat "$d/out")"
done

# the live host: a profile's [vm] output naming a device node is looked up,
# never opened, and said to be no regular file
mknod "$d/watchdog.xml" c 1 3
dev=$d # where opens looks
sed "s|^output = .*|output = $d/watchdog.xml|" "$P" >"$d/dev.ini"
grep -q "^output = $d/watchdog.xml$" "$d/dev.ini" || fail "the profile names no output"
for how in check "plan --diff" "--json plan"; do
	# shellcheck disable=SC2086
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
		strace -y -f -qq -e trace=%file,openat2 -o "$d/trace" "$G" -p "$d/dev.ini" $how \
		>"$d/out" 2>&1
	grep -q "/watchdog.xml\"" "$d/trace" || fail "live $how: the output was not looked up"
	[ -z "$(opens watchdog)" ] || fail "live $how opened the device node: $(opens watchdog)"
done
"$G" -p "$d/dev.ini" plan --diff >"$d/out" 2>&1
grep -q "watchdog.*not a regular file" "$d/out" || fail "plan --diff: $(cat "$d/out")"
exit 0
