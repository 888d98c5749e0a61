#!/bin/sh
# guest-config -o DIR writes the guest's three files for [nic] passthrough:
# network-config is cloud-init version 2 YAML whose ports are the host
# interfaces' MACs (with the bond and the host bond's LACP settings when
# asked), nccl.conf names the topology file and the settings the layout
# calls for, nccl-topo.xml is nccl-topo's; and a second run rewrites them.
# A -o DIR too long for its files' paths is refused (4).  plan's guest.write
# writes the same files in NAME.guest beside the VM's XML, is not planned once
# they are there, nor where they cannot be made (its note says why).
set -eu
. "$(dirname "$0")/lib.sh"
out=$d/seed
$G -r "$(gp_host roce-rails)" -p tests/cli/profiles/roce-pass.ini guest-config -o "$out" ||
	fail "guest-config -o"
for f in network-config nccl.conf nccl-topo.xml; do
	[ -s "$out/$f" ] || fail "no $f"
done
$G -r "$(gp_host roce-rails)" -p tests/cli/profiles/roce-pass.ini nccl-topo >"$d/topo"
cmp -s "$d/topo" "$out/nccl-topo.xml" || fail "nccl-topo.xml is not nccl-topo's file"
grep -qx 'NCCL_TOPO_FILE=/etc/nccl-topo.xml' "$out/nccl.conf" || fail "no NCCL_TOPO_FILE"
grep -q 'NCCL_IB_QPS_PER_CONNECTION' "$out/nccl.conf" && fail "QPs per connection without a bond"
grep -q 'NCCL_P2P_LEVEL' "$out/nccl.conf" && fail "NCCL_P2P_LEVEL on AMD CPUs"
python3 - "$out/network-config" "$(gp_host roce-rails)" <<'PY' || fail "network-config"
import sys, yaml
net = yaml.safe_load(open(sys.argv[1]))
assert net["version"] == 2, net
eth = net["ethernets"]
# the host's interfaces of the two ports (the fixture's ens4np0 and ens8np0)
mac = {b: open(f"{sys.argv[2]}/sys/class/net/{n}/address").read().strip()
       for b, n in (("0000:44:00.0", "ens4np0"), ("0000:86:00.0", "ens8np0"))}
assert eth["rdma0"]["match"]["macaddress"] == mac["0000:44:00.0"], eth
assert eth["rdma1"]["match"]["macaddress"] == mac["0000:86:00.0"], eth
assert eth["rdma0"]["set-name"] == "rdma0" and eth["rdma0"]["mtu"] == 4200, eth
assert eth["rdma1"]["addresses"] == ["10.11.0.5/24"], eth
assert "bonds" not in net, net
PY
# the bond inside the guest, on Intel CPUs with the GPUs on two nodes
$G -r "$(gp_host roce-intel)" -p tests/cli/profiles/roce-bond.ini guest-config -o "$out" ||
	fail "guest-config -o again"
grep -qx 'NCCL_IB_QPS_PER_CONNECTION=2' "$out/nccl.conf" || fail "no QPs per connection"
grep -qx 'NCCL_P2P_LEVEL=SYS' "$out/nccl.conf" || fail "no NCCL_P2P_LEVEL on Intel"
grep -qx 'NCCL_SOCKET_IFNAME=bond0' "$out/nccl.conf" || fail "NCCL_SOCKET_IFNAME"
python3 - "$out/network-config" <<'PY' || fail "bonded network-config"
import sys, yaml
net = yaml.safe_load(open(sys.argv[1]))
b = net["bonds"]["bond0"]
assert b["interfaces"] == ["rdma0", "rdma1"], b
assert b["addresses"] == ["10.10.0.5/24"] and b["mtu"] == 9000, b
p = b["parameters"]
assert p["mode"] == "802.3ad" and p["lacp-rate"] == "fast", p
assert p["transmit-hash-policy"] == "layer2+3", p
assert "addresses" not in net["ethernets"]["rdma0"], net
PY
# after apply the ports are vfio-pci's: no interface, no MAC
if $G -r "$(gp_host nccl-switch)" -p tests/cli/profiles/roce-pass.ini guest-config \
	>"$d/out" 2>"$d/err"; then
	fail "a port without an interface was accepted"
fi
grep -q "no interface" "$d/err" || fail "no reason: $(cat "$d/err")"
# no guest.write where the files cannot be made: the plan's note says why
$G -r "$(gp_host nccl-switch)" -p tests/cli/profiles/roce-pass.ini --json plan >"$d/plan.json" 2>&1 || :
grep -q '"kind": "guest.write"' "$d/plan.json" && fail "guest.write planned without MACs"
grep -q '"note": "guest.write: .*no interface' "$d/plan.json" || fail "no note: $(grep note "$d/plan.json")"

# -o DIR whose files' paths would be cut: refused (4), nothing made
long=$d/$(printf '%0250d' 0)
while [ ${#long} -lt 4085 ]; do long=$long/$(printf '%0250d' 0); done
long=$(printf '%.4085s' "$long")
set +e
$G -r "$(gp_host roce-rails)" -p tests/cli/profiles/roce-pass.ini guest-config -o "$long" \
	2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] || fail "a too long -o: exit $rc, want 4"
grep -q "too long" "$d/err" || fail "no reason: $(cat "$d/err")"
[ ! -e "$d/$(printf '%0250d' 0)" ] || fail "a too long -o made a directory"

# apply's guest.write: the same three files beside the VM's XML (plan --diff
# shows what it would write), and nothing to do once they are there
t=$d/tree
cp -a "$(gp_host roce-rails)" "$t"
$G -r "$t" -p tests/cli/profiles/roce-pass.ini plan --diff >"$d/diff" 2>&1 || :
grep -q '^ *[0-9]*  guest.write  *.*/var/lib/gpuprov/roce.guest absent' "$d/diff" ||
	fail "no guest.write step"
$G -r "$(gp_host roce-rails)" -p tests/cli/profiles/roce-pass.ini guest-config -o "$d/rails"
sed -n '/^guest.write .*roce.guest\/nccl.conf/,/^$/p' "$d/diff" | sed -n '/^+++/d; s/^+//p' |
	cmp -s - "$d/rails/nccl.conf" || fail "plan --diff's nccl.conf is not guest-config's"
mkdir -p "$t/var/lib/gpuprov"
cp -r "$d/rails" "$t/var/lib/gpuprov/roce.guest"
$G -r "$t" -p tests/cli/profiles/roce-pass.ini plan >"$d/plan2" 2>&1 || :
grep -q "guest.write" "$d/plan2" && fail "guest.write planned again: $(cat "$d/plan2")"
echo changed >>"$t/var/lib/gpuprov/roce.guest/network-config"
$G -r "$t" -p tests/cli/profiles/roce-pass.ini plan 2>&1 | grep -q "guest.write .*differs" ||
	fail "a changed network-config is not written again"
exit 0
