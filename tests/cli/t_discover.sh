#!/bin/sh
# profile discover writes a profile that validates and that the same host
# passes; the BMC's VGA (ASPEED) is not taken for a GPU.
set -eu
. "$(dirname "$0")/lib.sh"
$G -r build/hosts/r5350-ready -o "$d/p.ini" profile discover
$G profile validate "$d/p.ini" >/dev/null
grep -q '^match = 10de:20b5$' "$d/p.ini"
! grep -q 1a03 "$d/p.ini"
$G -v -r build/hosts/r5350-ready -p "$d/p.ini" check >"$d/check" 2>/dev/null
# a complete skeleton: a [vm] the host passes (vm.* all ok),
# and the RoCE ports it found with their NUMA node for a [bond] left commented
grep -q '^\[vm\]$' "$d/p.ini" && grep -q '^ok    vm.memory' "$d/check" && grep -q '^ok    vm.vcpus' "$d/check"
grep -q '^;   ens1f0np0  0000:01:00.0  NUMA node 0  mlx5_core' "$d/p.ini"
grep -q '^; \[bond\]$' "$d/p.ini" && grep -q '^; slaves = ens1f0np0 ens1f1np1$' "$d/p.ini"
! grep -q 'eno1' "$d/p.ini" # an igb port with the default route is no RoCE port
# uncommented, that [bond] is a profile the host passes too
sed 's/^; \(\[bond\]\|name\|slaves\|mode\|lacp_rate\|xmit_hash_policy\|mtu\|address\|persist\)/\1/' \
	"$d/p.ini" >"$d/b.ini"
$G -v -r build/hosts/r5350-ready -p "$d/b.ini" check >"$d/checkb" 2>/dev/null
grep -q '^ok    bond.roce_lag' "$d/checkb"
# a host whose second card sits on the other socket: its discovered profile
# describes it, and check still says the NUMA split is wrong
$G -r build/hosts/numa-split -o "$d/q.ini" profile discover
set +e
$G -r build/hosts/numa-split -p "$d/q.ini" check >"$d/out"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q '^FAIL  gpu.numa_split' "$d/out"
# On every fixture host and real capture: discover takes exactly the GPUs that
# scan and topo call GPUs without a profile (one rule: no BMC VGA), and the
# host passes its own discovered profile's count and slot map.
for root in build/hosts/*/; do
	root=${root%/}
	$G -r "$root" -o "$d/h.ini" profile discover 2>/dev/null || continue
	want=$(sed -n 's/^count = //p' "$d/h.ini")
	scan=$($G -r "$root" --json scan | python3 -c '
import json, sys
print(sum(d["role"] == "gpu" for d in json.load(sys.stdin)["devices"]))')
	topo=$($G -r "$root" topo | grep -c '^  GPU[0-9]* ')
	[ "$scan" = "$want" ] && [ "$topo" = "$want" ] ||
		fail "$root: discover $want GPUs, scan $scan, topo $topo"
	set +e
	$G -r "$root" -p "$d/h.ini" --json check >"$d/check.json"
	set -e
	python3 - "$root" "$d/check.json" <<'PY'
import json, sys
root, path = sys.argv[1:3]
bad = [f for f in json.load(open(path))["findings"]
       if f["id"] in ("gpu.count", "gpu.slot") and f["severity"] == "fail"]
assert not bad, (root, bad)
PY
done

# an interface name is text anyone who may rename a link chooses: one that is
# not a valid name is left out of the skeleton, never written into the INI
T=$d/hostile
mkdir "$T"
cp -a build/hosts/r5350-ready "$T/tree"
bad=$(printf 'z\n[server]\nmin_bios=99')
ln -s "$(readlink "$T/tree/sys/class/net/ens1f1np1" | sed 's|net/ens1f1np1$|net/|')$bad" \
	"$T/tree/sys/class/net/$bad"
mkdir "$T/tree/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.1/net/$bad"
cp -a "$T/tree/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.1/net/ens1f1np1/." \
	"$T/tree/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.1/net/$bad/"
rm -rf "$T/tree/sys/class/net/ens1f1np1" "$T/tree/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.1/net/ens1f1np1"
$G -r "$T/tree" profile discover >"$T/out.ini" 2>/dev/null || fail "discover failed"
if grep -q '^\[server\]' "$T/out.ini" && [ "$(grep -c '^\[server\]' "$T/out.ini")" != 1 ] ||
	grep -q '^min_bios=99' "$T/out.ini"; then
	fail "discover wrote a hostile interface name into the profile"
fi
grep -q 'ens1f0np0' "$T/out.ini" || fail "the valid port is gone"
