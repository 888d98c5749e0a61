#!/bin/sh
# profile discover writes a profile that validates and that the same host
# passes; the BMC's VGA (ASPEED) is not taken for a GPU.
set -eu
G=build/test/gpuprov
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
$G -r build/hosts/r5350-ready -o "$d/p.ini" profile discover
$G profile validate "$d/p.ini" >/dev/null
grep -q '^match = 10de:20b5$' "$d/p.ini"
! grep -q 1a03 "$d/p.ini"
$G -r build/hosts/r5350-ready -p "$d/p.ini" check >/dev/null
# a host whose second card sits on the other socket: its discovered profile
# describes it, and check still says the NUMA split is wrong
$G -r build/hosts/numa-split -o "$d/q.ini" profile discover
set +e
$G -r build/hosts/numa-split -p "$d/q.ini" check >"$d/out"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q '^FAIL  gpu.numa_split' "$d/out"
