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
# the man page's examples: every command and option exists, every installed
# file they name is there after make install with the PREFIX they say
make -s install DESTDIR="$d" PREFIX=/usr/local >/dev/null
sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' man/gpuprov.8 | grep -E '^[#$] gpuprov' >"$d/ex"
[ -s "$d/ex" ] || { echo "no examples"; exit 1; }
while read -r _ line; do
	for w in $line; do
		case "$w" in
		--*) grep -q "{ \"${w#--}\"," src/cli/main.c || { echo "example: no option $w"; exit 1; } ;;
		/usr/local/*) [ -e "$d$w" ] || { echo "example: $w not installed"; exit 1; } ;;
		esac
	done
	cmd=$(echo "$line" | sed -E 's/^gpuprov( -[a-z] [^ ]+| --[a-z-]+( [a-z.,_]+)?)* ([a-z-]+).*/\3/')
	grep -q "	{ \"$cmd\", gp_cmd_" src/cli/main.c || { echo "example: no command '$cmd' in: $line"; exit 1; }
done <"$d/ex"
make -s uninstall DESTDIR="$d" PREFIX=/usr/local >/dev/null
