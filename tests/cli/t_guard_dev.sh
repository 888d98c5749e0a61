#!/bin/sh
# Under -r, what lspci reads of a device (its link, vendor, device, class,
# numa_node, config) must lead where the safe reader's lookup does (gpuprov(8),
# --root).  A device named as libpci's numbers print it is guarded where it is
# read, on the directory already opened: no second lookup of its whole path
# (two resolutions of ROOT/sys/bus/pci/devices/BDF per device were
# a quarter of a -r scan).  Any other entry is guarded before libpci runs.
# As uid 65534 too, where the ownership walk does not apply.
set -u
. "$(dirname "$0")/lib.sh"
chmod 0755 "$d"
# uid 65534 runs a copy it can reach, GU (gp_user_copy)
gp_user_copy "$d/bin" "$G"
GU=$d/bin/gpuprov

# LeakSanitizer cannot run under ptrace
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

fresh() {
	rm -rf "$d/tree" && cp -a build/hosts/r5350-ready "$d/tree"
	dev=$(readlink -f "$d/tree/sys/bus/pci/devices/0000:41:00.0")
}
both() { # both WANT ARGS...: as root and as uid 65534, exit status WANT each time
	want=$1
	shift
	for who in root nobody; do
		if [ $who = root ]; then
			timeout 20 "$G" "$@" >"$d/out" 2>&1
		else
			setpriv --reuid 65534 --regid 65534 --clear-groups timeout 20 "$GU" "$@" \
				>"$d/out" 2>&1
		fi
		rc=$?
		[ $rc -eq "$want" ] || fail "$who: '$*': exit $rc, want $want: $(head -3 "$d/out")"
	done
}

echo 0xdead >"$d/outside"
chmod 0644 "$d/outside"

# vendor as a link out of the tree: lspci would read this machine's file
fresh
ln -sf "$d/outside" "$dev/vendor"
both 3 -r "$d/tree" scan
grep -q "cannot read host state: '$d/tree/sys/bus/pci/devices/0000:41:00.0/vendor'" \
	"$d/out" || fail "vendor out of the tree: $(cat "$d/out")"

# numa_node as an absolute link inside the tree's own path: still two places
fresh
ln -sf /sys/bus/pci/devices/0000:42:00.0/numa_node "$dev/numa_node"
both 3 -r "$d/tree" scan
grep -q "0000:41:00.0/numa_node'" "$d/out" || fail "absolute numa_node: $(cat "$d/out")"

# a relative link that stays in the tree leads to one place for both: read
fresh
mv "$dev/class" "$dev/class.real"
ln -s class.real "$dev/class"
both 0 -r "$d/tree" scan

# an entry not named as libpci prints it: guarded before libpci runs
fresh
ln -sfn "$d" "$d/tree/sys/bus/pci/devices/0000:4A:00.0"
both 3 -r "$d/tree" scan
grep -q "cannot read host state: '$d/tree/sys/bus/pci/devices/0000:4A:00.0'" "$d/out" ||
	fail "uppercase entry out of the tree: $(cat "$d/out")"

# no lookup of a device's whole path: each device's directory is opened from
# the directory above it, kept open (each such directory looked up once,
# link-free, RESOLVE_NO_SYMLINKS)
fresh
n=$(ls "$d/tree/sys/bus/pci/devices" | wc -l)
strace -f -qq -e trace=open,openat,openat2 -o "$d/trace" \
	setpriv --reuid 65534 --regid 65534 --clear-groups "$GU" -r "$d/tree" scan >"$d/out" 2>&1 ||
	fail "scan: $(head -3 "$d/out")"
k=$(grep -c '"[^"]*/sys/bus/pci/devices/[0-9a-f:.]*"' "$d/trace")
[ "$n" -ge 8 ] || fail "only $n devices in the tree"
[ "$k" -eq 0 ] || fail "$k lookups of the whole path of $n devices, want 0"
above=$(for e in "$d/tree/sys/bus/pci/devices"/*; do dirname "$(readlink "$e")"; done |
	sed 's,^\.\./\.\./\.\.,/sys,' | sort -u)
kept=$(sed -n 's/^[0-9]* *openat2([0-9]*, "\(\/sys\/devices\/[^"]*\)".*RESOLVE_NO_SYMLINKS.*/\1/p' \
	"$d/trace" | sort)
[ "$kept" = "$above" ] || fail "directories above the devices opened: $kept; want each once: $above"

# a link among the directories above a device: that device takes the safe
# path (one lookup of its whole path), and reads the same
fresh
up=$(dirname "$dev")
mv "$up" "$up.real"
ln -s "$(basename "$up").real" "$up"
"$G" -r "$d/tree" --json scan >"$d/linked.json" 2>&1 || fail "scan: $(head -3 "$d/linked.json")"
fresh
"$G" -r "$d/tree" --json scan >"$d/plain.json" 2>&1 || fail "scan: $(head -3 "$d/plain.json")"
cmp -s "$d/linked.json" "$d/plain.json" || fail "a link above a device changed the scan"
exit 0
