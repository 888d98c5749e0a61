#!/bin/sh
# vm.bar_mmap through the whole command: a domain template whose
# <qemu:commandline> or <qemu:override> turns vfio-pci's BAR mmap off on a
# passed GPU (x-no-mmap) makes check fail (exit 2) and names the GPU; one on
# another device, or turned off again, does not; the shipped template passes.
set -eu
. "$(dirname "$0")/lib.sh"
host=build/hosts/h200x2-guest
qns='xmlns:qemu="http://libvirt.org/schemas/domain/qemu/1.0"'
n=0
# the template's extra element | the severity of vm.bar_mmap | its subject
while IFS='|' read -r extra want subject; do
	n=$((n + 1))
	sed "s#</domain>#$extra</domain>#" templates/domain-q35-ovmf.xml >"$d/t$n.xml"
	printf '[gpus]\nmatch = 10de:2335\ncount = 2\n[vm]\nname = v\ntemplate = %s\noutput = %s/o/v.xml\ndefine = no\n' \
		"$d/t$n.xml" "$d" >"$d/p$n.ini"
	rc=0
	$G -r "$host" -p "$d/p$n.ini" -v check >"$d/raw" 2>/dev/null || rc=$?
	awk -f tests/cli/unwrap.awk "$d/raw" >"$d/c$n"
	got=$(sed -n 's/^\([A-Za-z]*\) *vm\.bar_mmap *\([^ ]*\) .*/\1 \2/p' "$d/c$n")
	[ "$got" = "$want $subject" ] || { cat "$d/c$n"; fail "case $n: '$got', want '$want $subject'"; }
	[ "$want" != FAIL ] || [ "$rc" = 2 ] || fail "case $n: exit $rc, want 2"
done <<EOC
|ok|v
<qemu:commandline $qns><qemu:arg value="-set"/><qemu:arg value="device.ua-gpu1.x-no-mmap=on"/></qemu:commandline>|FAIL|0000:00:07.0
<qemu:commandline $qns><qemu:arg value="-global"/><qemu:arg value="vfio-pci.x-no-mmap=true"/></qemu:commandline>|FAIL|v
<qemu:commandline $qns><qemu:arg value="-global"/><qemu:arg value="vfio-pci.x-no-mmap=off"/></qemu:commandline>|ok|v
<qemu:commandline $qns><qemu:arg value="-set"/><qemu:arg value="device.net0.x-no-mmap=on"/></qemu:commandline>|ok|v
<qemu:override $qns><qemu:device alias="hostdev9"><qemu:frontend><qemu:property name="x-no-mmap" type="bool" value="true"/></qemu:frontend></qemu:device></qemu:override>|ok|v
EOC
grep -q "^FAIL *vm.bar_mmap .*'-set device.ua-gpu1.x-no-mmap=on' turns BAR mmap off" "$d/c2" ||
	{ cat "$d/c2"; fail "the failure does not quote the template's words"; }
# --json: the finding with its id
sed "s#</domain>#<qemu:commandline $qns><qemu:arg value=\"-global\"/><qemu:arg value=\"vfio-pci.x-no-mmap=on\"/></qemu:commandline></domain>#" \
	templates/domain-q35-ovmf.xml >"$d/tj.xml"
sed "s#$d/t1.xml#$d/tj.xml#" "$d/p1.ini" >"$d/pj.ini"
$G -r "$host" -p "$d/pj.ini" --json check 2>/dev/null >"$d/j" || true
python3 -c 'import json,sys; f=[x for x in json.load(open(sys.argv[1]))["findings"] if x["id"]=="vm.bar_mmap"]; sys.exit(0 if f and f[0]["severity"]=="fail" else 1)' "$d/j" ||
	fail "--json check has no failing vm.bar_mmap"
exit 0
