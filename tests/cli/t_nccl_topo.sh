#!/bin/sh
# gpuprov nccl-topo: NCCL's topology file, checked by tests/cli/nccl_topo.py,
# NCCL's parser and path rules written from NCCL's source (not from
# gpuprov's topo code).  On every fixture host and captured tree, for the
# profile's VM and for --this-host: xmllint parses it, NCCL's parser reads
# it without a warning, every attribute is one NCCL reads with a value it
# understands, every GPU and NIC is there once at the address the domain XML
# gives it in the guest, and NCCL's path type for every pair is the class
# `topo` gives that pair on the host.  Then the checker is shown to catch a
# file that lost a switch, and the command's bad-input answers.
set -eu
. "$(dirname "$0")/lib.sh"
P=$(gp_profile vm-nccl)

python3 tests/cli/nccl_topo.py all "$G" build/hosts "$P" >"$d/all" || { cat "$d/all"; exit 1; }
tail -1 "$d/all"

# the checker fails a file whose switch was dropped (its GPUs then meet at the CPU: PHB)
$G -r build/hosts/switch -p "$P" --json topo >"$d/t.json"
$G -r build/hosts/switch -p "$P" domxml -o "$d/dom.xml"
$G -r build/hosts/switch -p "$P" nccl-topo -o "$d/f.xml"
python3 tests/cli/nccl_topo.py vm "$d/t.json" "$d/dom.xml" "$d/f.xml" >/dev/null
grep -v 'class="0x060400"\|^    </pci>' "$d/f.xml" | sed 's/^  //' >"$d/noswitch.xml"
if python3 tests/cli/nccl_topo.py vm "$d/t.json" "$d/dom.xml" "$d/noswitch.xml" >"$d/out"; then
	echo "the checker passed a file without the host's switch"
	exit 1
fi
grep -q "topo PIX, NCCL from the file PHB" "$d/out"
# ... and one NCCL's parser would warn about: an XML declaration, a tab
{ echo '<?xml version="1.0"?>'; cat "$d/f.xml"; } >"$d/decl.xml"
! python3 tests/cli/nccl_topo.py vm "$d/t.json" "$d/dom.xml" "$d/decl.xml" >/dev/null
sed 's/^  <cpu/\t<cpu/' "$d/f.xml" >"$d/tab.xml"
! python3 tests/cli/nccl_topo.py vm "$d/t.json" "$d/dom.xml" "$d/tab.xml" >/dev/null

# the host's CPU, as NCCL numbers it: family 0x19 (25) is 0xf + (0xa << 4) = 175
$G -r build/hosts/h200x2-guest --this-host nccl-topo | grep -q \
	'<cpu numaid="0" affinity="ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207">'
$G -r build/hosts/switch -p "$P" nccl-topo | grep -q \
	'<cpu numaid="0" affinity="000000ff" arch="x86_64" vendor="AuthenticAMD" familyid="175" modelid="17">'

# bad input: exit 4 with a reason; --json: one document with the text
rc=0
$G -r build/hosts/switch nccl-topo 2>"$d/err" || rc=$?
[ "$rc" -eq 4 ] && grep -q "needs a profile with a \[vm\] section" "$d/err"
rc=0
$G -r build/hosts/switch -p tests/cli/profiles/h200.ini nccl-topo 2>"$d/err" || rc=$?
[ "$rc" -eq 4 ] && grep -q "has no \[vm\] section" "$d/err"
$G -r build/hosts/switch -p "$P" --json nccl-topo | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["command"] == "nccl-topo" and d["text"].startswith("<system version=\"1\">"), d'

# ---- what NCCL made of it on the real two-H200 VM (tests/fixtures/captured/h200x2-nccl) ----
C=tests/fixtures/captured/h200x2-nccl
# the file gpuprov wrote there is the one it writes from that machine's captured tree
$G -r build/hosts/h200x2-guest --this-host nccl-topo | cmp -s - $C/topo.xml
# NCCL loaded both files, without a warning, and an all-reduce ran with each
for c in file switch; do
	grep -q "NCCL INFO Loading topology file /tmp/nccl-device/topo.*xml" $C/log-$c.txt
done
! grep -q "NCCL WARN" $C/log-none.txt $C/log-file.txt $C/log-switch.txt
[ "$(grep -c '^RESULT' $C/log-none.txt $C/log-file.txt $C/log-switch.txt | grep -c ':1$')" = 3 ]
# it kept the file's values: NUMA node and link width, where alone it found -1 and 0
grep -q '<cpu host_hash="[0-9a-fx]*" numaid="-1"' $C/dump-none.xml
grep -q 'busid="0000:00:06.0" .* link_width="0"' $C/dump-none.xml
grep -q '<cpu numaid="0" affinity="ffffffff"' $C/dump-file.xml
grep -q 'busid="0000:00:06.0" .* link_width="16"' $C/dump-file.xml
# the VM case: the switch with no guest device is in NCCL's own tree, GPUs below it
grep -q 'NCCL INFO + PCI\[48.0\] - PCI/0-ffff00000' $C/log-switch.txt
python3 - $C <<'PY'
import sys
sys.path.insert(0, "tests/cli")
import nccl_topo
c = sys.argv[1]
for name in ("dump-none", "dump-file", "dump-switch"):  # NCCL's own dumps read as NCCL reads them
    nccl_topo.parse(open("%s/%s.xml" % (c, name)).read())
ends = {"0000:00:06.0": "GPU", "0000:00:07.0": "GPU"}
assert nccl_topo.nccl_paths(open(c + "/topo.xml").read(), ends)[("0000:00:06.0", "0000:00:07.0")] == "PHB"
assert nccl_topo.nccl_paths(open(c + "/topo-switch.xml").read(), ends)[("0000:00:06.0", "0000:00:07.0")] == "PIX"
PY

# more than NCCL's 256 XML nodes (the file's and those NCCL adds): refused, exit 4
{
	echo "include $(pwd)/tests/fixtures/hosts/r5350-ready.host"
	i=0
	while [ $i -lt 80 ]; do
		printf 'nic 0000:%02x:00.0 parent=0000:80:01.1 id=8086:1521 driver=igb bars=0:1M\n' $((0x90 + i))
		i=$((i + 1))
	done
} >"$d/big.host"
python3 tests/fixtures/mkhost.py "$d/big.host" "$d/big" >/dev/null
rc=0
$G -r "$d/big" --this-host nccl-topo >/dev/null 2>"$d/err" || rc=$?
[ "$rc" -eq 4 ] && grep -q "NCCL reads at most 256" "$d/err" || { cat "$d/err"; exit 1; }
