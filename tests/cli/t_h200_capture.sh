#!/bin/sh
# The real two-H200 capture: scan lists both GPUs with their 16 MiB / 256 GiB /
# 32 MiB BARs and Gen5 x16 links, read through libpci from real sysfs bytes;
# the kernel says numa_node -1 on its single node, which is node 0 for us.
set -eu
. "$(dirname "$0")/lib.sh"
out=$("$G" -r build/hosts/h200x2-guest --json scan)
printf '%s' "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
gpus = [d for d in doc["devices"] if d["role"] == "gpu"]
assert [g["bdf"] for g in gpus] == ["0000:00:06.0", "0000:00:07.0"], gpus
for g in gpus:
    assert (g["vendor"], g["device"], g["class"]) == ("10de", "2335", "0302"), g
    sizes = [b["size"] for b in g["bars"]]
    assert sizes == [16 << 20, 256 << 30, 32 << 20], sizes
    assert [b["index"] for b in g["bars"]] == [0, 2, 4]
    assert all(b["is64"] and b["prefetchable"] for b in g["bars"])
    assert g["link"] == {"speed_gts": 32, "width": 16, "max_speed_gts": 32, "max_width": 16}, g["link"]
    assert g["driver"] == "nvidia" and g["numa_node"] == 0 and g["iommu_group"] is None
nic = [i for i in doc["interfaces"] if i["name"] == "eth0"][0]
assert nic["pci"] == "0000:00:03.0", nic   # behind virtioN
assert doc["host"]["phys_bits"] == 46
'
