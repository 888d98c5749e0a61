#!/bin/sh
# The two-H200 VM captured with NVML (tests/fixtures/captured/h200x2-nvlink-sysfs.tgz, a
# gpuprov snapshot taken there, and h200x2-nvml/ beside it): topo on the snapshot gives
# nvidia-smi topo -m's GPU cells, NV18, cell for cell, said to be remembered and from when;
# its JSON has nvlink[][] beside the PCIe matrix; scan lists each GPU's links; p2p.path
# takes the NVLinks for the path.  The capture made before (h200x2-guest) says why none.
set -eu
. "$(dirname "$0")/lib.sh"
C=tests/fixtures/captured/h200x2-nvml
H=$(gp_host h200x2-nvlink)
"$G" -r $H topo >"$d/topo"
python3 - "$d/topo" $C/nvidia-smi-topo-m.txt $C/gp-topo.txt <<'PY'
import re, sys

def cells(path):
    rows = {}
    for line in open(path):
        line = re.sub(r'\x1b\[[0-9;]*m', '', line.rstrip('\n'))
        f = [c.strip() for c in line.split('\t')]
        if re.fullmatch(r'GPU\d+', f[0]):
            rows[f[0]] = f[1:]
    return rows

ours, smi, live = (cells(p) for p in sys.argv[1:])
gpus = sorted(smi)
assert gpus == ['GPU0', 'GPU1'], smi
for name, got in (('snapshot', ours), ('live', live)):
    for g in gpus:
        # the GPU columns, then CPU Affinity and NUMA Affinity
        assert got[g][:len(gpus)] == smi[g][:len(gpus)], (name, g, got[g], smi[g])
        assert [c for c in got[g][len(gpus) + 1:] if c][:2] == [c for c in smi[g][len(gpus):] if c][:2], (name, g, got[g], smi[g])
assert smi['GPU0'][1] == 'NV18'
PY
grep -q '^NVLink: remembered, as NVML saw it at 2026-11-30T21:18:30Z' "$d/topo"
grep -q '^  NV#  = Connection traversing a bonded set of # NVLinks$' "$d/topo"
grep -A1 "^  GPU0-GPU1	NV18  18 NVLinks  478.1 / 380.0 GB/s;$" "$d/topo" | grep -q "^	      PCIe PHB"
"$G" -r $H --json topo | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["matrix"][0][:2] == ["X", "PHB"], d["matrix"]
assert d["nvlink"] == [[0, 18, None], [18, 0, None], [None, None, None]], d["nvlink"]
assert d["nvlink_source"] == {"source": "remembered", "seen_at": "2026-11-30T21:18:30Z", "why": None}
assert d["links"][0][1]["nvlink_bytes_per_second"] == 478125000000, d["links"][0][1]
'
"$G" -r $H scan | grep -q '^  0000:00:06.0  18 of 18 links up, 26.562 GB/s each: 18 to NVSwitch$'
"$G" -r $H --json scan | python3 -c '
import json, sys
n = json.load(sys.stdin)["nvlink"]
assert n["source"] == "remembered" and len(n["gpus"]) == 2, n
g = n["gpus"][0]
assert g["links_up"] == 18 and g["version"] == 6 and g["link_gbps"] == 26.5625, g
assert all(l["up"] and l["remote_type"] == "switch" and l["remote"] is None for l in g["links"])
'
"$G" -v -r $H -p tests/cli/profiles/h200.ini check 2>/dev/null | awk -f tests/cli/unwrap.awk | grep -q 'p2p.path .*NV18: 18 NVLinks through NVSwitch, 478.1 GB/s per direction, remembered from 2026-11-30T21:18:30Z; PCIe PHB'
"$G" -r build/hosts/h200x2-guest topo | grep -q '^NVLink not readable: NVML is read on the live host only; no record of earlier$'
