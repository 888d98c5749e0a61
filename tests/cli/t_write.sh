#!/bin/sh
# -o outputs go through the one writer: a full disk or a file size limit is
# an error (exit 4) that leaves the old file whole and no temp file behind; a
# link planted at the output is replaced, never written through.
set -eu
. "$(dirname "$0")/lib.sh"
gp_on_exit 'umount "$d/full" 2>/dev/null'
H="-r build/hosts/r5350-ready"
P=$(gp_profile h3c-r5350-g6)

# a link planted where the output goes: replaced, the victim untouched
echo precious >"$d/victim"
ln -s victim "$d/vm.xml"
$G $H -p $P -o "$d/vm.xml" domxml
[ "$(cat "$d/victim")" = precious ]
[ ! -L "$d/vm.xml" ] && grep -q '<domain' "$d/vm.xml"

# a full file system (a 16 KiB tmpfs): exit 4, the old file intact (discover
# replaces a file only with --force, which keeps it as p.ini.bak first)
mkdir "$d/full"
mount -t tmpfs -o size=16k tmpfs "$d/full"
echo old >"$d/full/p.ini"
head -c 12000 /dev/zero >"$d/full/filler" 2>/dev/null || true
set +e
$G $H -o "$d/full/p.ini" --force profile discover 2>"$d/err"
rc=$?
$G $H -p $P -o "$d/full/vm.xml" domxml 2>>"$d/err"
rc2=$?
set -e
[ $rc -eq 4 ] && [ $rc2 -eq 4 ] || { cat "$d/err"; echo "exit $rc, $rc2 (want 4, 4)"; exit 1; }
grep -q "cannot write '$d/full/p.ini': No space left on device" "$d/err"
[ "$(cat "$d/full/p.ini")" = old ]
[ "$(ls -A "$d/full" | tr '\n' ' ')" = "filler p.ini p.ini.bak " ]
[ "$(cat "$d/full/p.ini.bak")" = old ]

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

# -o into directories that do not exist yet: the writer makes them itself,
# one name at a time, root's and 0755 (in a sticky directory anyone could
# make them first, or a link by their name, between the start-up check and
# the write, and have root's file land in theirs: it did, with snapshot -o)
mkdir "$d/sticky"
chmod 1777 "$d/sticky"
$G $H -o "$d/sticky/new/sub/snap.tar.gz" snapshot 2>"$d/err" || { cat "$d/err"; exit 1; }
for p in new new/sub; do
	[ "$(stat -c '%u %a' "$d/sticky/$p")" = "0 755" ] || { ls -la "$d/sticky/$p"; exit 1; }
done
[ "$(stat -c '%u %a' "$d/sticky/new/sub/snap.tar.gz")" = "0 600" ]
$G $H -p $P -o "$d/sticky/new/vm/vm.xml" domxml
[ "$(stat -c '%u %a' "$d/sticky/new/vm")" = "0 755" ]
grep -q '<domain' "$d/sticky/new/vm/vm.xml"
# one that is there already and another user's, or a link of theirs in its
# place, is refused: nothing written there, nor where the link leads
mkdir "$d/sticky/theirs" "$d/elsewhere"
chown 65534 "$d/sticky/theirs"
ln -s "$d/elsewhere" "$d/sticky/ln"
chown -h 65534 "$d/sticky/ln"
for p in theirs/vm.xml ln/vm.xml ln/sub/vm.xml; do
	set +e
	$G $H -p $P -o "$d/sticky/$p" domxml 2>"$d/err"
	rc=$?
	set -e
	[ $rc -eq 4 ] && grep -q "uid 65534" "$d/err" || { cat "$d/err"; echo "$p: exit $rc"; exit 1; }
done
[ -z "$(ls -A "$d/elsewhere")$(ls -A "$d/sticky/theirs")" ] || { ls -la "$d/elsewhere"; exit 1; }
# not root: the same rule, the caller's own directories beside root's (no
# start-up check runs then): another user's directory, open to all, is
# refused, where the file would be theirs to swap.  uid 65534 runs a copy of
# the binary and of the host tree it can reach (tests/cli/lib.sh)
gp_user_copy "$d/bin" "$G"
cp -a build/hosts/r5350-ready "$d/bin/host"
chmod -R a+rX "$d/bin/host"
chmod 755 "$d"
as_nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$d/bin/gpuprov" -r "$d/bin/host" "$@"; }
mkdir "$d/sticky/open"
chmod 777 "$d/sticky/open"
chown 1 "$d/sticky/open"
set +e
as_nobody -o "$d/sticky/open/p.ini" profile discover 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] && grep -q "'$d/sticky/open' is owned by uid 1, not root or you" "$d/err" ||
	{ cat "$d/err"; echo "not root, another user's directory: exit $rc"; exit 1; }
[ ! -e "$d/sticky/open/p.ini" ]
as_nobody -o "$d/sticky/mine/p.ini" profile discover
[ "$(stat -c '%u %a' "$d/sticky/mine")" = "65534 755" ]
