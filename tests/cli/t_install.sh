#!/bin/sh
# make install honours PREFIX and DESTDIR; uninstall removes what it put there.
set -eu
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
make -s install DESTDIR="$d" PREFIX=/usr >/dev/null
for f in usr/sbin/gpuprov usr/share/man/man8/gpuprov.8 usr/share/man/man5/gpuprov.ini.5 \
	usr/share/gpuprov/profiles/h3c-r5350-g6.ini usr/share/bash-completion/completions/gpuprov; do
	[ -f "$d/$f" ] || { echo "missing $f"; exit 1; }
done
"$d/usr/sbin/gpuprov" --version | grep -q '^gpuprov '
make -s uninstall DESTDIR="$d" PREFIX=/usr >/dev/null
left=$(find "$d" -type f)
[ -z "$left" ] || { echo "left behind: $left"; exit 1; }
