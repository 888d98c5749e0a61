#!/bin/sh
# -r or --baseline naming the wrong thing says what to name instead: a
# snapshot's tarball is unpacked first (then that directory is named, for
# either option), and a directory one level above a tree names the tree.
set -eu
. "$(dirname "$0")/lib.sh"
P=$(gp_profile h3c-r5350-g6)
run() { set +e; "$G" "$@" >"$d/out" 2>&1; rc=$?; set -e; }

mkdir "$d/up" "$d/up/snap"
cp -a build/hosts/r5350-ready/. "$d/up/snap/"
run -r "$d/up" scan
[ $rc -eq 3 ] || fail "-r one level up: exit $rc, want 3"
grep -qF "'$d/up' is not a snapshot or root tree (it has no sys/bus/pci/devices); '$d/up/snap' is one: name that" "$d/out" ||
	fail "-r one level up: $(cat "$d/out")"
run -p "$P" --baseline "$d/up" check
[ $rc -eq 4 ] && grep -qF "'$d/up/snap' is one" "$d/out" || fail "--baseline one level up: exit $rc: $(cat "$d/out")"
# two trees inside: none is guessed
mkdir "$d/up/snap2" && cp -a build/hosts/r5350-ready/. "$d/up/snap2/"
run -r "$d/up" scan
[ $rc -eq 3 ] && grep -q "is not a snapshot or root tree (it has no sys/bus/pci/devices)$" "$d/out" ||
	fail "two trees: exit $rc: $(cat "$d/out")"

# the tarball itself: unpack it, then name the directory (not "-r" for --baseline)
: >"$d/snap.tar.gz"
run -p "$P" --baseline "$d/snap.tar.gz" check
[ $rc -eq 4 ] && grep -q "tar xzf '$d/snap.tar.gz' -C DIR, then name DIR" "$d/out" &&
	! grep -q -- "-r DIR" "$d/out" || fail "--baseline FILE: exit $rc: $(cat "$d/out")"
