#!/bin/sh
# On the GPU machine (`run`, see /work/.library/device): NCCL with the
# topology file gpuprov writes for that machine (`nccl-topo --this-host`),
# with a variant whose switch has a bus ID no guest device has (what a VM's
# file holds), and without a file: NCCL_DEBUG=INFO logs, NCCL's own dump of
# the topology it resolved, all-reduce bus bandwidth at 256 MiB and 1 GiB.
# usage: nccl-run.sh DIR OUT   (DIR holds device-bundle.tar.xz and allreduce.py);
# everything lands in OUT/nccl-device.tar.gz (the device returns 8 files at most).
set -u
D=$1 RES=$2
OUT=/tmp/nccl-device
rm -rf "$OUT" && mkdir -p "$OUT"
PY=/opt/torch/.venv/bin/python
tar xJf "$D/device-bundle.tar.xz" -C /tmp
GP=/tmp/gpuprov-bundle/gp
$GP --this-host nccl-topo -o "$OUT/topo.xml"; echo "nccl-topo exit $?"
$GP --json topo >"$OUT/gp-topo.json"; echo "topo exit $?"
cat "$OUT/topo.xml"
# the VM case: the GPUs under a switch that exists only in the file
python3 - "$OUT/topo.xml" "$OUT/topo-switch.xml" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
gpus = [l for l in lines if 'class="0x0302' in l]
rest = [l for l in lines if l not in gpus]
i = next(k for k, l in enumerate(rest) if l.startswith("  <cpu"))
sw = ['    <pci busid="ffff:00:00.0" class="0x060400" vendor="0x1000" device="0xc030" '
      'subsystem_vendor="0x1000" subsystem_device="0x0000" link_speed="32.0 GT/s PCIe" '
      'link_width="16">'] + ["  " + g for g in gpus] + ["    </pci>"]
open(sys.argv[2], "w").write("\n".join(rest[:i + 1] + sw + rest[i + 1:]) + "\n")
PY
nvidia-smi topo -m >"$OUT/nvidia-smi-topo.txt" 2>&1
port=29600
for case in none file switch; do
	port=$((port + 1))
	case $case in
	none) unset NCCL_TOPO_FILE ;;
	file) export NCCL_TOPO_FILE=$OUT/topo.xml ;;
	switch) export NCCL_TOPO_FILE=$OUT/topo-switch.xml ;;
	esac
	NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,GRAPH NCCL_TOPO_DUMP_FILE=$OUT/dump-$case.xml \
		timeout 150 $PY "$D/allreduce.py" $port 256 1024 >"$OUT/log-$case.txt" 2>&1
	echo "== $case: exit $?; $(grep -c 'NCCL WARN' "$OUT/log-$case.txt") NCCL WARN lines"
	grep -h "RESULT\|NCCL_TOPO_FILE\|Loading topology\|Could not\|NCCL WARN\|NCCL version" "$OUT/log-$case.txt" | sort -u | head -12
	grep -h "GPU/0.*:GPU/0\|Pattern 4, crossNic\|P2P/CUMEM\|via P2P" "$OUT/log-$case.txt" | sort -u | head -4
done
tar czf "$RES/nccl-device.tar.gz" -C /tmp nccl-device
