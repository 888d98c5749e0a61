#!/bin/sh
# The man pages list every command, finding id and profile key the code has,
# and mandoc finds nothing wrong in them.
set -eu
missing=""
for id in $(grep -o '"[a-z0-9]*\.[a-z_0-9]*", GP_' src/checks.c | cut -d'"' -f2 | sort -u); do
	grep -q "^\\.It Sy $id\$\\|^\\.It Sy $id " man/gpuprov.8 || missing="$missing finding:$id"
done
for cmd in $(sed -n 's/^	{ "\([a-z]*\)", gp_cmd_.*/\1/p' src/main.c); do
	grep -q "^\\.It Cm $cmd" man/gpuprov.8 || missing="$missing command:$cmd"
done
for key in $(sed -n 's/^	{ "[a-z]*", "\([a-z_0-9]*\)", v_.*/\1/p' src/profile.c) root_port numa_node cpu_direct; do
	grep -q "^\\.It Cm $key" man/gpuprov.ini.5 || missing="$missing key:$key"
done
for opt in profile root output json verbose quiet help version yes only force-mgmt; do
	grep -q "Fl \\(.*\\)\\?-$opt\\|Fl -$opt" man/gpuprov.8 || missing="$missing option:--$opt"
done
for kind in $(grep -oh 'gp_plan_add(plan, "[a-z.]*"' src/*.c | cut -d'"' -f2 | sort -u); do
	grep -q "^\\.It Sy $kind\$" man/gpuprov.8 || missing="$missing step:$kind"
done
[ -z "$missing" ] || { echo "not documented:$missing"; exit 1; }
mandoc -T lint -W warning man/gpuprov.8 man/gpuprov.ini.5
