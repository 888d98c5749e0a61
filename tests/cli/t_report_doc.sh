#!/bin/sh
# The report's Markdown says what a change request needs and nothing it
# cannot back: no P2P class without a GPU pair, the path matrix in topo's
# order with its affinities and ceilings, an unassigned BAR and a blocked
# plan marked as such.  (The HTML's layout: tests/report/check.py.)
set -eu
. "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1764460800
R5350=profiles/h3c-r5350-g6.ini
report() { # HOST PROFILE [ARGS]: the Markdown in $d/out.md, its exit status echoed
	h=$1 p=$2
	shift 2
	set +e
	$G -r "$(gp_host "$h")" -p "$p" "$@" report >"$d/out.md" 2>"$d/err"
	echo $?
	set -e
}

# no GPU, one GPU: no class of a pair that does not exist
for h in no-pci mixed-vendor; do
	report $h profiles/generic-2gpu.ini >/dev/null
	! grep -q "P2P class between the GPUs" "$d/out.md" || fail "$h: a P2P class without a GPU pair"
	grep -q "GPU found: no GPU pair, no P2P path" "$d/out.md" || fail "$h: does not say there is no pair"
done
report r5350-ready $R5350 >/dev/null
grep -q "P2P class between the GPUs: \*\*PHB\*\*" "$d/out.md" || fail "r5350: no P2P class"

# the matrix: topo's rows, in topo's order, with its CPU affinity
$G -r "$(gp_host r5350-ready)" -p $R5350 topo >"$d/topo"
awk -F'\t' '/^(GPU|NIC)[0-9]/ && NF > 6 { printf "%s", $1; for (i = 2; i <= NF; i++) if ($i != "") { gsub(/ /, "", $i); printf " %s", $i }; print "" }' "$d/topo" >"$d/topo.rows"
awk -F' [|] ' '/^[|] (GPU|NIC)[0-9]* [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:/ { sub(/^[|] /, ""); sub(/ [|]$/, ""); split($1, a, " "); printf "%s", a[1]; for (i = 2; i <= NF; i++) printf " %s", $i; print "" }' "$d/out.md" >"$d/md.rows"
[ -s "$d/topo.rows" ] && cmp -s "$d/topo.rows" "$d/md.rows" ||
	fail "the report's matrix is not topo's: $(diff "$d/topo.rows" "$d/md.rows" | head -5)"
grep -q "^| GPU0-GPU1 | PHB | 16 GT/s x16 | 31.5 GB/s |" "$d/out.md" || fail "r5350: no GPU0-GPU1 ceiling"

# a GO plan is not marked; a NO-GO plan is
! grep -q "BLOCKED" "$d/out.md" || fail "r5350: a GO plan marked BLOCKED"
[ "$(report bars $R5350)" = 2 ] || fail "bars: not a NO-GO"
grep -q "^\*\*BLOCKED\*\*: apply refuses these 15 steps" "$d/out.md" || fail "bars: the NO-GO plan is not marked blocked"
# the BAR the kernel left without an address
grep -q "^| 0000:41:00.0 | 1 | 128 GiB | \*\*UNASSIGNED\*\*" "$d/out.md" || fail "bars: the unassigned BAR is a plain row"
[ "$(grep -c UNASSIGNED "$d/out.md")" = 1 ] || fail "bars: an assigned BAR marked"
