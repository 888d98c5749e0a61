#!/bin/sh
# -o outputs go through the one writer: a full disk or a file size limit is
# an error (exit 4) that leaves the old file whole and no temp file behind; a
# link planted at the output is replaced, never written through.
set -eu
G=$(pwd)/build/test/gpuprov
d=$(mktemp -d)
cleanup() { umount "$d/full" 2>/dev/null || true; rm -rf "$d"; }
trap cleanup EXIT
H="-r build/hosts/r5350-ready"
P=profiles/h3c-r5350-g6.ini

# a link planted where the output goes: replaced, the victim untouched
echo precious >"$d/victim"
ln -s victim "$d/vm.xml"
$G $H -p $P -o "$d/vm.xml" domxml
[ "$(cat "$d/victim")" = precious ]
[ ! -L "$d/vm.xml" ] && grep -q '<domain' "$d/vm.xml"

# a full file system (a 16 KiB tmpfs): exit 4, the old file intact
mkdir "$d/full"
mount -t tmpfs -o size=16k tmpfs "$d/full"
echo old >"$d/full/p.ini"
head -c 12000 /dev/zero >"$d/full/filler" 2>/dev/null || true
set +e
$G $H -o "$d/full/p.ini" profile discover 2>"$d/err"
rc=$?
$G $H -p $P -o "$d/full/vm.xml" domxml 2>>"$d/err"
rc2=$?
set -e
[ $rc -eq 4 ] && [ $rc2 -eq 4 ] || { cat "$d/err"; echo "exit $rc, $rc2 (want 4, 4)"; exit 1; }
grep -q "cannot write '$d/full/p.ini': No space left on device" "$d/err"
[ "$(cat "$d/full/p.ini")" = old ]
[ "$(ls -A "$d/full" | tr '\n' ' ')" = "filler p.ini " ]

# a file size limit: the write stops short, and that is an error too
echo old >"$d/p.xml"
set +e
(trap '' XFSZ; ulimit -f 2; exec $G $H -p $P -o "$d/p.xml" domxml) 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] || { cat "$d/err"; echo "exit $rc (want 4)"; exit 1; }
grep -q "cannot write '$d/p.xml': File too large" "$d/err"
[ "$(cat "$d/p.xml")" = old ]
[ -z "$(ls -A "$d" | grep gpuprov-)" ]
