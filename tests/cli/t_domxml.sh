#!/bin/sh
# The generated domain XML means what we think: it passes libvirt's schema,
# libvirt's own QEMU driver (in-process, qemu:///embed) defines it, and the
# QEMU command line it makes has each GPU as vfio-pci at its host address
# with the clique, on a pcie-root-port of a pxb-pcie on the right NUMA node,
# host phys-bits, and an OVMF 64-bit window that holds the real BARs as OVMF
# lays them out (modelled here from the QEMU command line and the fixture's
# BARs; tests/lab/ovmf.sh boots it).
#
# On a host without /dev/kvm (libvirt refuses a 'kvm' domain there) or
# without 1 GiB pages, the same XML goes through libvirt as a TCG domain
# ('qemu', CPU 'maximum') or on 2 MiB pages: every device, expander bus,
# clique and window assertion holds as it is; what that leaves out is said
# on a "not exercised:" line, which tests/run.sh prints in its summary.
set -eu
# hugetlbfs mounts in a mount namespace of the test's own: gone when it ends
[ -n "${GP_PRIVATE_NS:-}" ] || GP_PRIVATE_NS=1 exec unshare -m --propagation private sh "$0" "$@"
. "$(dirname "$0")/lib.sh"
gp_embed_libvirt "$d"
root=$d/embed
gp_on_exit 'umount "$root/hp1g" 2>/dev/null; umount "$root/hp2m" 2>/dev/null'
mkdir -p "$root/hp1g" "$root/hp2m"
# hugepage backing needs a hugetlbfs of that page size for libvirt to accept it
mount -t hugetlbfs -o pagesize=2M none "$root/hp2m"
pages=1G
mounts="\"$root/hp1g\", \"$root/hp2m\""
if ! mount -t hugetlbfs -o pagesize=1G none "$root/hp1g" 2>/dev/null; then
	pages=2M
	mounts="\"$root/hp2m\""
	gp_not_exercised "1 GiB huge page backing (the CPU has no 1 GiB pages; 2 MiB instead)"
fi
kvm=yes
if [ ! -c /dev/kvm ]; then
	kvm=no
	gp_not_exercised "the KVM domain's -cpu host (no /dev/kvm; TCG and -cpu max instead)"
fi
printf 'hugetlbfs_mount = [%s]\n' "$mounts" >>"$root/etc/qemu.conf"
virsh_() { virsh -q -c "$uri" "$@"; }

# what this host's libvirt can take of FILE, in FILE.libvirt: TCG for KVM, 2
# MiB for 1 GiB pages; gpuprov's own output stays as it is in FILE
for_libvirt() {
	python3 - "$1" "$kvm" "$pages" <<'PY'
import sys
import xml.etree.ElementTree as ET
ET.register_namespace("qemu", "http://libvirt.org/schemas/domain/qemu/1.0")
path, kvm, pages = sys.argv[1:]
t = ET.parse(path)
dom = t.getroot()
if kvm == "no":
    dom.set("type", "qemu")
    cpu = dom.find("cpu")
    if cpu is not None and cpu.get("mode") == "host-passthrough":
        cpu.set("mode", "maximum")
if pages == "2M":
    for page in dom.iter("page"):
        if page.get("size") == "1048576" and page.get("unit") == "KiB":
            page.set("size", "2048")
t.write(path + ".libvirt")
PY
}

argv() { # host profile name -> the QEMU argv, one word per line
	$G -r "build/hosts/$1" -p "$2" domxml -o "$d/$3.xml" 2>/dev/null
	virt-xml-validate "$d/$3.xml" domain >/dev/null
	for_libvirt "$d/$3.xml"
	virsh_ define "$d/$3.xml.libvirt" >/dev/null
	virsh_ domxml-to-native qemu-argv --domain "$3" >"$d/$3.raw" 2>"$d/$3.err" ||
		{ cat "$d/$3.err"; exit 1; }
	tr ' ' '\n' <"$d/$3.raw" >"$d/$3.argv"
}

argv r5350-ready profiles/h3c-r5350-g6.ini a100-vm
argv h200x2-guest tests/cli/profiles/vm-h200.ini h200-vm
argv lab-messy tests/cli/profiles/vm-lab.ini lab-vm
argv r5350-ready tests/cli/profiles/vm-operator.ini a100-train
argv group-shared tests/cli/profiles/vm-bind.ini bind-vm
argv qemu72 tests/cli/profiles/vm-preferred.ini pref-vm
# one vCPU for two guest cells: the second cell is a CPU-less (memory) node
sed 's/^vcpus = 4/vcpus = 1/; s/^name = lab-vm/name = lab-vm1/' tests/cli/profiles/vm-lab.ini \
	>"$d/vm-lab1.ini"
argv lab-messy "$d/vm-lab1.ini" lab-vm1
argv h200-2node tests/cli/profiles/vm-h200-2n.ini h200-2n
argv h200x8 tests/cli/profiles/vm-h200x8.ini h200x8-vm
argv mixed-vendor tests/cli/profiles/vm-mixed.ini mixed-vm
argv roce-rails tests/cli/profiles/roce-pass.ini roce
# [nic] mode = vf: each port's first VF as an SR-IOV interface (managed='yes'),
# defined; libvirt 9.0's domxml-to-native crashes on a hostdev interface whose
# VF this host lacks, so the defined domain is read back instead
sed 's/^name = roce/name = roce-vf/' tests/cli/profiles/roce-vf.ini >"$d/roce-vf.ini"
$G -r build/hosts/roce-vf -p "$d/roce-vf.ini" domxml -o "$d/roce-vf.xml" 2>/dev/null
virt-xml-validate "$d/roce-vf.xml" domain >/dev/null
for_libvirt "$d/roce-vf.xml"
virsh_ define "$d/roce-vf.xml.libvirt" >/dev/null
virsh_ dumpxml --inactive roce-vf >"$d/roce-vf.defined"
$G -r build/hosts/roce-vf -p "$d/roce-vf.ini" guest-config -o "$d/roce-vf.guest" >/dev/null
python3 - "$d" <<'PY'
import sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
devs = ET.parse(f"{d}/roce-vf.defined").getroot().find("devices")
ctl = {int(c.get("index")): c for c in devs.findall("controller")}
def bus(el):
    return int(el.find("address").get("bus"), 16)
def upstream(port):  # the controller a downstream port sits on
    return bus(ctl[port])
gpus = {h.find("alias").get("name"): h for h in devs.findall("hostdev")}
vfs = [i for i in devs.findall("interface") if i.get("type") == "hostdev"]
net = open(f"{d}/roce-vf.guest/network-config").read()
want = (("ua-gpuprov-vf0", "0x44", "0x2", "ua-gpu0"), ("ua-gpuprov-vf1", "0x86", "0x1", "ua-gpu1"))
assert len(vfs) == 2, ET.tostring(devs)
for vf, (alias, host_bus, host_fn, gpu) in zip(vfs, want):
    assert vf.get("managed") == "yes" and vf.find("driver").get("name") == "vfio", vf
    assert vf.find("alias").get("name") == alias, alias
    src = vf.find("source/address")
    assert src.get("type") == "pci" and src.get("bus") == host_bus, ET.tostring(vf)
    assert src.get("slot") == "0x00" and src.get("function") == host_fn, ET.tostring(vf)
    mac = vf.find("mac").get("address")
    assert mac.startswith("52:54:00:") and f'macaddress: "{mac}"' in net, (mac, net)
    # its own downstream port, on the switch its GPU's port is on
    port, gport = ctl[bus(vf)], ctl[bus(gpus[gpu])]
    assert port.get("model") == gport.get("model") == "pcie-switch-downstream-port", port
    assert upstream(bus(vf)) == upstream(bus(gpus[gpu])) and port is not gport
print("libvirt defines the VFs' interfaces")
PY

python3 - "$d" "$kvm" <<'PY'
import json, re, sys
d, kvm = sys.argv[1], sys.argv[2] == "yes"

def devices(name):
    args = open(f"{d}/{name}.argv").read().split("\n")
    out = [json.loads(args[i + 1].strip("'")) for i, a in enumerate(args)
           if a == "-device" and args[i + 1].startswith("'{")]
    return args, {x["id"]: x for x in out}

def bars64(host, bdf):  # the device's 64-bit memory BARs, from the fixture's sysfs
    out = []
    for line in open(f"build/hosts/{host}/sys/bus/pci/devices/{bdf}/resource"):
        s, e, f = (int(x, 16) for x in line.split())
        if f & 0x100000 and f & 0x200 and e > s:
            size = 1
            while size < e - s + 1:
                size <<= 1
            out.append(size)
    return sorted(out, reverse=True)

def align(v, a):
    return (v + a - 1) // a * a

def ovmf_need(devs, host):
    """Where OVMF's layout ends, from the window's start: pcie.0 first (some
    use), then the expander buses by bus number, each aligned to its largest
    BAR; behind one, root port windows by alignment, each its BARs packed."""
    off = 1
    for pxb in sorted((d for d in devs.values() if d["driver"] == "pxb-pcie"),
                      key=lambda d: d["bus_nr"]):
        wins = []
        for port in (d for d in devs.values() if d.get("bus") == pxb["id"]):
            # every function behind the port: one card's BARs share its window
            b = sorted((x for v in devs.values() if v.get("bus") == port["id"]
                        and v["driver"] == "vfio-pci" for x in bars64(host, v["host"])),
                       reverse=True)
            if b:
                size = 0
                for x in b:
                    size = align(size, x) + x
                wins.append((b[0], align(size, 1 << 20)))
        for a, size in sorted(wins, reverse=True):
            off = align(off, a) + size
    return off

def check(name, gpus, clique, numa, window):
    args, devs = devices(name)
    for alias, host in gpus.items():
        v = devs[alias]
        assert v["driver"] == "vfio-pci" and v["host"] == host, v
        if clique is None:
            assert "x-nv-gpudirect-clique" not in v, v
        else:
            assert v["x-nv-gpudirect-clique"] == clique, v
        port = devs[v["bus"]]
        assert port["driver"] == "pcie-root-port", port
        pxb = devs[port["bus"]]
        assert pxb["driver"] == "pxb-pcie" and pxb["numa_node"] == numa[alias], pxb
    cpu = args[args.index("-cpu") + 1]
    # TCG has no -cpu host: libvirt's 'maximum' mode, the same phys-bits
    assert "host-phys-bits=on" in cpu and cpu.startswith("host" if kvm else "max"), cpu
    xml = open(f"{d}/{name}.xml").read()
    assert re.search(r'<cpu mode="host-passthrough"', xml), name
    fw = [args[i + 1] for i, a in enumerate(args) if a == "-fw_cfg"]
    if window is None:
        assert not fw, fw
    else:
        mib = int(re.search(r"X-PciMmio64Mb,string=(\d+)", fw[0]).group(1))
        need = ovmf_need(devs, window)
        # enough for OVMF's layout, in whole GiB, and not more
        assert need <= mib << 20 == align(need, 1 << 30), (name, mib, need)
    return args

# two A100s (128 GiB BAR each) on node 0, clique 0
check("a100-vm", {"ua-gpu0": "0000:41:00.0", "ua-gpu1": "0000:42:00.0"}, 0,
      {"ua-gpu0": 0, "ua-gpu1": 0}, "r5350-ready")
# the real H200 capture: two 256 GiB BARs, one expander bus
check("h200-vm", {"ua-gpu0": "0000:00:06.0", "ua-gpu1": "0000:00:07.0"}, 3,
      {"ua-gpu0": 0, "ua-gpu1": 0}, "h200x2-guest")
# H200s on two nodes (two expander buses, two gaps), and eight of them
check("h200-2n", {"ua-gpu0": "0000:01:00.0", "ua-gpu1": "0000:81:00.0"}, None,
      {"ua-gpu0": 0, "ua-gpu1": 1}, "h200-2node")
check("h200x8-vm", {f"ua-gpu{i}": f"0000:{b}:00.0" for i, b in
                 enumerate(["01", "02", "03", "04", "81", "82", "83", "84"])}, None,
      {f"ua-gpu{i}": i // 4 for i in range(8)}, "h200x8")
# a real kernel's tree: GPUs on both nodes, one guest cell each; no clique
args = check("lab-vm", {"ua-gpu0": "0000:42:01.0", "ua-gpu3": "0000:81:00.0"}, None,
             {"ua-gpu0": 0, "ua-gpu3": 1}, None)
_, devs = devices("lab-vm")
assert devs["ua-gpuprov-dev1"]["host"] == "0000:42:02.0"  # the group companion
numa = [args[i + 1] for i, a in enumerate(args) if a == "-numa"]
assert any("node,nodeid=1" in n for n in numa), numa
# QEMU 7.2 and A100s (MSI-X at 0xC8) with p2p = preferred: no clique, so the VM starts
check("pref-vm", {"ua-gpu0": "0000:41:00.0", "ua-gpu1": "0000:42:00.0"}, None,
      {"ua-gpu0": 0, "ua-gpu1": 0}, "qemu72")
# fewer vCPUs than cells: every vCPU in a cell, the cell left without one has none
args, _ = devices("lab-vm1")
numa = sorted(args[i + 1] for i, a in enumerate(args) if a == "-numa")
assert numa[0].startswith("node,nodeid=0,cpus=0,") and "cpus" not in numa[1], numa
# a card's two functions (GPU and its audio function) in one guest slot, as on
# the host: one root port, function 0 multifunction, function 1 beside it
_, devs = devices("bind-vm")
gpu, audio, other = devs["ua-gpu0"], devs["ua-gpuprov-dev1"], devs["ua-gpu1"]
assert audio["host"] == "0000:41:00.1", audio
assert gpu["bus"] == audio["bus"] != other["bus"], (gpu, audio, other)
assert gpu["addr"] == "0x0" and gpu.get("multifunction") is True, gpu
assert audio["addr"] == "0x0.0x1" and "multifunction" not in audio, audio
assert other["addr"] == "0x0" and "multifunction" not in other, other
assert sum(d["driver"] == "pcie-root-port" and d["id"].startswith("ua-gpuprov-rp")
           for d in devs.values()) == 2, devs
# and the window counts both functions' BARs in their one root port's window
check("bind-vm", {"ua-gpu0": "0000:41:00.0", "ua-gpu1": "0000:42:00.0"}, 0,
      {"ua-gpu0": 0, "ua-gpu1": 0}, "group-shared")
# an A100 and an AMD MI210: QEMU refuses x-nv-gpudirect-clique on a device
# that is not NVIDIA ("invalid device vendor"), so only the A100 has it
_, devs = devices("mixed-vm")
assert devs["ua-gpu0"]["host"] == "0000:41:00.0" and devs["ua-gpu0"]["x-nv-gpudirect-clique"] == 0
assert devs["ua-gpu1"]["host"] == "0000:42:00.0", devs["ua-gpu1"]
assert "x-nv-gpudirect-clique" not in devs["ua-gpu1"], devs["ua-gpu1"]
# [nic] passthrough: each RoCE port shares an emulated switch (x3130 upstream,
# xio3130 downstream ports) with the GPU it shares a switch with on the host,
# behind a root port of its node's expander bus
_, devs = devices("roce")
for gpu, nic, host_gpu, host_nic, node in (("ua-gpu0", "ua-gpuprov-nic0", "0000:43:00.0",
                                             "0000:44:00.0", 0),
                                            ("ua-gpu1", "ua-gpuprov-nic1", "0000:85:00.0",
                                             "0000:86:00.0", 1)):
    g, n = devs[gpu], devs[nic]
    assert g["host"] == host_gpu and n["host"] == host_nic, (g, n)
    assert "x-nv-gpudirect-clique" not in n, n
    gd, nd = devs[g["bus"]], devs[n["bus"]]
    assert gd["driver"] == nd["driver"] == "xio3130-downstream", (gd, nd)
    assert gd["bus"] == nd["bus"] and gd["id"] != nd["id"], (gd, nd)
    up = devs[gd["bus"]]
    assert up["driver"] == "x3130-upstream", up
    rp = devs[up["bus"]]
    assert rp["driver"] == "pcie-root-port", rp
    assert devs[rp["bus"]]["driver"] == "pxb-pcie" and devs[rp["bus"]]["numa_node"] == node
print("libvirt accepts and means it")
PY
# the operator's template keeps its own disk, NIC and title
t=$d/a100-train.xml
grep -q "/dev/vg0/train-root" "$t"
grep -q "br-mgmt" "$t"
grep -q "52:54:00:12:34:56" "$t"
grep -q "<title>Training VM, team ML</title>" "$t"
grep -q 'machine="pc-q35-7.2"' "$t"
grep -q 'vfio-pci' "$d/a100-train.argv"
# generating again from the output changes nothing (what gpuprov owns is replaced)
sed "s|domain-operator.xml|$t|" tests/cli/profiles/vm-operator.ini >"$d/again.ini"
$G -r build/hosts/r5350-ready -p "$d/again.ini" domxml | sed 's/ profile="[^"]*"//' >"$d/again.xml"
sed 's/ profile="[^"]*"//' "$t" | cmp - "$d/again.xml"
