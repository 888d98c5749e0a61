#!/bin/sh
# The report's Markdown says what a change request needs and nothing it
# cannot back: the change's fields (--change-id, --owner, --approver), the
# host's serial number and asset tag, the devices' pci.ids names, the
# impact (who loses which device, which ports flap, whether the SSH path is
# at risk, whether a reboot is needed), the expected duration, the checks
# afterwards with verify's expected figures, when to roll back, and "slot
# map not verified" first of all; no P2P class without a GPU pair, the path
# matrix in topo's order with its affinities and ceilings, an unassigned
# BAR and a blocked plan marked as such.  (The HTML: tests/report/check.py.)
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

# ---- the change request ----
report r5350-ready $R5350 --change-id CHG-4711 --owner "Ann O'Hara" --approver 'Bo|b' >/dev/null
grep -q "^| Change ID | CHG-4711 |$" "$d/out.md" || fail "no change ID"
grep -q "^| Owner | Ann O'Hara |$" "$d/out.md" || fail "no owner"
grep -q '^| Approver | Bo\\|b |$' "$d/out.md" || fail "the approver is not escaped: $(grep Approver "$d/out.md")"
report r5350-ready $R5350 >/dev/null
[ "$(grep -c '^| \(Change ID\|Owner\|Approver\) | \*not given\* |$' "$d/out.md")" = 3 ] ||
	fail "fields not given are not blanks to fill in"
# the slot map's warning comes before anything else, and only when it is guessed
[ "$(sed -n 3p "$d/out.md")" = '> **⚠ slot map not verified**: the profile'"'"'s slot map is not verified on hardware (verified = no); gpu.slot compared the GPUs'"'"' places with it as written.' ] ||
	fail "slot map not verified is not the first thing said: $(sed -n 3p "$d/out.md")"
report r5350-ready profiles/generic-2gpu.ini >/dev/null
! grep -q "slot map not verified" "$d/out.md" || fail "a profile without a slot map: slot map not verified"
# names as lspci gives them from the system's pci.ids, under -r too
report r5350-ready $R5350 >/dev/null
name=$(python3 -c '
import sys
v = d = None
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if line.startswith("10de"):
        v = True
    elif v and line.startswith("\t20b5"):
        print(line.split("  ", 1)[1].strip()); break
    elif v and line[:1] not in ("\t", "#", "\n"):
        break' "$(pkg-config --variable=idsdir libpci 2>/dev/null || echo /usr/share/misc)/pci.ids")
[ -n "$name" ] || fail "10de:20b5 is not in the system's pci.ids"
mdname=$(printf '%s' "$name" | sed 's/\[/\\[/g; s/\]/\\]/g')
grep -qF "| GPU0 | 0000:41:00.0 | 10de:20b5 | $mdname |" "$d/out.md" || fail "GPU0 is not named '$mdname'"
grep -qF "| 0000:41:00.0 | $mdname | nvidia | vfio-pci, for a100-vm |" "$d/out.md" || fail "the impact does not name GPU0"
# the serial number and asset tag; nothing holds the GPUs; the SSH path is not at risk
grep -q "^| Serial number | unknown" "$d/out.md" || fail "r5350: a serial number it does not have"
grep -q "^| 0000:42:00.0 | .* | nothing holds it now" "$d/out.md" || fail "r5350: a GPU is held"
grep -q "^Not at risk by what was read" "$d/out.md" || fail "r5350: the SSH path at risk"
grep -q "^No reboot" "$d/out.md" || fail "r5350: a reboot"
grep -q "^- ens1f0np0: goes down and up as it joins bond0, and loses its own configuration" "$d/out.md" ||
	fail "r5350: ens1f0np0 does not flap"
grep -q "^apply: about [0-9]* s for the 15 steps, at most [0-9]* s" "$d/out.md" || fail "no duration"
grep -q "^virsh -c qemu:///system start a100-vm$" "$d/out.md" || fail "no virsh start"
grep -q "^gpuprov -p profiles/h3c-r5350-g6.ini plan " "$d/out.md" || fail "no plan afterwards"
grep -q "^- GPU0-GPU1 (PHB): P2P read and write, read-back ok; at least 15.8 GB/s one way" "$d/out.md" ||
	fail "no expected verify figures"
grep -q "^- the VM does not start, or verify in it exits 2" "$d/out.md" || fail "no rollback criteria"
report report-change $R5350 >/dev/null
grep -q "^| Serial number | 210235A3Y7H22B000042 |$" "$d/out.md" || fail "no serial number"
grep -q "^| Asset tag | DC1-R12-U07 |$" "$d/out.md" || fail "no asset tag"
grep -q "^| 0000:42:00.0 | .* | python3 (pid 40211) on /dev/nvidia1 |$" "$d/out.md" || fail "who loses GPU1"
grep -q "^\*\*AT RISK\*\*: bond0 ens1f1np1 carries the default route" "$d/out.md" || fail "the SSH path is not at risk"
report iommu-off $R5350 >/dev/null
grep -q "^\*\*Reboot needed\*\* before apply: .*(iommu.off)" "$d/out.md" || fail "iommu.off: no reboot"
# a profile path the shell would split is quoted
cp $R5350 "$d/it's here.ini"
report r5350-ready "$d/it's here.ini" >/dev/null
grep -qF "gpuprov -p '$d/it'\\''s here.ini' plan" "$d/out.md" || fail "the profile's path is not quoted"
# hugepages.reserve's files in the file list: a node's count, the boot unit, its wants link
report hugepages-unit tests/cli/profiles/vm-huge.ini >/dev/null
for f in hugepages.d/node0-2048kB hugepages.d/node1-2048kB hugepages-reserve; do
	grep -qx "### /etc/gpuprov/$f" "$d/out.md" || fail "hugepages: no $f in the file list"
done
grep -qx "### /etc/systemd/system/gpuprov-hugepages.service" "$d/out.md" || fail "hugepages: no unit"
grep -qx "hugepages.reserve, a link to ../gpuprov-hugepages.service: changed, now a link to /dev/null." \
	"$d/out.md" || fail "hugepages: the wants link not said"
