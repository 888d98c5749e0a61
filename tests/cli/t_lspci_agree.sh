#!/bin/sh
# On every fixture host, what gpuprov reads agrees with lspci (pciutils) on the
# same tree: the devices, their IDs and class, NUMA node (lspci's none is the
# node of a single-node host), IOMMU group,
# physical slot, and the parent bridge from lspci's tree.
set -eu
. "$(dirname "$0")/lib.sh"
for root in build/hosts/*/; do
	root=${root%/}
	"$G" -r "$root" --json scan >"$d/agree.json"
	lspci -O sysfs.path="$root/sys/bus/pci" -D -vmm -nn >"$d/agree.vmm" 2>/dev/null
	python3 - "$root" "$d/agree.json" "$d/agree.vmm" <<'PY'
import json, os, re, sys
root, ours, vmm = sys.argv[1:4]
scan = json.load(open(ours))
doc = {d["bdf"]: d for d in scan["devices"]}
nodes = [n["id"] for n in scan["numa_nodes"]]
theirs = {}
for block in filter(None, open(vmm).read().strip().split("\n\n")):  # a host may have none
    f = dict(l.split(":\t", 1) for l in block.splitlines())
    theirs[f["Slot"]] = f
assert set(doc) == set(theirs), (root, set(doc) ^ set(theirs))
for bdf, f in theirs.items():
    d = doc[bdf]
    ids = lambda s: re.search(r"\[([0-9a-f]{4})\]$", s).group(1)
    assert ids(f["Vendor"]) == d["vendor"], (root, bdf)
    assert ids(f["Device"]) == d["device"], (root, bdf)
    assert ids(f["Class"]) == d["class"], (root, bdf)
    # where sysfs holds garbage lspci reads a number (0, or the link's name);
    # gpuprov reads nothing and reports it (check): compare readable facts only
    dev = f"{root}/sys/bus/pci/devices/{bdf}"
    raw = open(f"{dev}/numa_node").read().strip() if os.path.exists(f"{dev}/numa_node") else "-1"
    group = f"{dev}/iommu_group"
    node = int(f.get("NUMANode", -1))
    if node < 0 and len(nodes) == 1:
        node = nodes[0]  # the kernel's -1 on a host of one node means that node
    if not re.fullmatch(r"-?[0-9]+", raw):
        assert d["numa_node"] is None, (root, bdf, raw)
    else:
        assert node == (d["numa_node"] if d["numa_node"] is not None else -1), (root, bdf, f.get("NUMANode"))
    if os.path.islink(group) and not os.path.isdir(group):
        assert d["iommu_group"] is None, (root, bdf)
    elif "IOMMUGroup" in f:
        assert int(f["IOMMUGroup"]) == d["iommu_group"], (root, bdf)
    else:
        assert d["iommu_group"] is None, (root, bdf)
    assert f.get("PhySlot") == d["slot"], (root, bdf, f.get("PhySlot"), d["slot"])
PY
done
