# The nested start, in the lab host (chroot, see scenarios/vmstart.sh):
# check, apply (vfio-pci, the domain defined through qemu:///embed), start
# paused (QEMU opens the VFIO groups), QMP (each alias's host device), a second apply and a
# rollback refused while it runs, the guest's firmware run (QMP query-pci: each
# device where gpuprov said, its NUMA node, its BARs), with GP_LAB_VMSTART_GUEST=1
# the guest kernel's own view (an init listing its PCI functions), stop, rollback.  Every prediction of
# gpuprov checked by predict.py.  usage: host.sh TOP
TOP=$1
V=$TOP/tests/lab/vmstart
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
. /tmp/tap.sh
G=$TOP/build/gpuprov
P=/etc/gpuprov/lab-vmstart.ini
W=/var/lib/gpuprov-lab
URI=qemu:///embed?root=/run/lab-embed
# the nested guest's OVMF and kernel under TCG in TCG: minutes
TIMEOUT=${GP_LAB_TIMEOUT:-240}
TIMEOUT=$((TIMEOUT * 3))
cp "$TOP/tests/lab/profiles/lab-vmstart.ini" "$P"
cp "$V/template.xml" /etc/gpuprov/lab-vmstart.xml
mkdir -p /run/lab-embed/etc /run/lock
chmod 700 /run/lab-embed
# no cgroups, no mount namespace, no virtlogd in the lab host
printf 'user = "root"\ngroup = "root"\nstdio_handler = "file"\nnamespaces = []\ncgroup_controllers = []\n' \
	>/run/lab-embed/etc/qemu.conf
drv() { basename "$(readlink /sys/bus/pci/devices/$1/driver 2>/dev/null)" 2>/dev/null; }
DEVS="0000:41:00.0 0000:42:00.0 0000:81:00.0"
t0=$(date +%s)
say() { echo "# vmstart: $* at $(( $(date +%s) - t0 )) s"; }

$G -v -p $P check >$W/check.wrapped 2>&1
unwrap $W/check.wrapped >$W/check.txt
cp $W/check.txt /out/check.txt
t_grep "check: no KVM here (vm.kvm)" $W/check.txt '^FAIL +vm\.kvm'
t_grep "check: no GPUDirect clique on the stand-ins (not NVIDIA)" $W/check.txt \
	'^ok +vm\.qemu_clique +0000:81:00\.0 +vendor 1af4 is not NVIDIA'
t_ok "apply: vfio-pci, the domain written and defined" sh -c "$G -p $P --accept vm.kvm apply --yes >$W/apply.txt 2>&1"
for d in $DEVS; do t_ok "$d is on vfio-pci" test "$(drv $d)" = vfio-pci; done
$G -p $P nccl-topo >$W/nccl.xml 2>/dev/null
say applied
# [nic] mode = passthrough: the second e1000e is the first "GPU"'s RoCE port,
# passed whole; guest.write left the guest's files beside the domain XML
GD=$W/lab-vm.guest
t_ok "guest.write: network-config, nccl.conf and nccl-topo.xml beside the XML" \
	test -f $GD/network-config -a -f $GD/nccl.conf -a -f $GD/nccl-topo.xml
t_grep "... the passed port matched by the MAC its driver had" $GD/network-config \
	'macaddress: "52:54:00:00:40:02"'
t_grep "... with the profile's MTU" $GD/network-config 'mtu: 9000'
t_grep "... and address" $GD/network-config 'addresses: \[10\.20\.0\.5/24\]'
t_grep "... nccl.conf points NCCL at the topology file" $GD/nccl.conf '^NCCL_TOPO_FILE=/etc/nccl-topo.xml$'
t_ok "... whose text is nccl-topo's" cmp $GD/nccl-topo.xml $W/nccl.xml
# the rail: the port under the same guest NUMA node as the GPU it serves
t_ok "nccl-topo puts the port beside its GPU (both e1000e under one <cpu>)" python3 -c '
import sys, xml.etree.ElementTree as ET
cpus = ET.parse(sys.argv[1]).getroot().iter("cpu")
sys.exit(not any(sum(p.get("vendor") == "0x8086" for p in c.iter("pci")) == 2 for c in cpus))
' $W/nccl.xml
cp -r $GD /out/guest-files
# the domain as gpuprov defined it, made to run here: TCG's CPU, and the guest
# booted from the lab kernel and an init that lists its PCI functions
mkdir -p $W/g/bin
cp /bin/busybox $W/g/bin/busybox
cp "$V/guest-init" $W/g/init
chmod +x $W/g/init
(cd $W/g && find . | cpio -o -H newc --quiet) >$W/guest.initrd
virsh -q -c "$URI" dumpxml --inactive lab-vm >$W/defined.xml
python3 - $W/defined.xml $W/tcg.xml $(cat /lab-cache-path)/root/boot/vmlinuz-$(uname -r) $W/guest.initrd $W/console.log <<'PY'
import sys
import xml.etree.ElementTree as ET
src, out, kernel, initrd, console = sys.argv[1:6]
ET.register_namespace("qemu", "http://libvirt.org/schemas/domain/qemu/1.0")
t = ET.parse(src)
d = t.getroot()
cpu = d.find("cpu")
cpu.set("mode", "maximum")
for m in cpu.findall("maxphysaddr"):
    cpu.remove(m)
os_ = d.find("os")
ET.SubElement(os_, "kernel").text = kernel
ET.SubElement(os_, "initrd").text = initrd
ET.SubElement(os_, "cmdline").text = "console=ttyS0 panic=-1 loglevel=4"
devs = d.find("devices")
ser = ET.SubElement(devs, "serial", type="file")
ET.SubElement(ser, "source", path=console)
t.write(out)
PY
t_ok "the TCG copy of the defined domain is defined" virsh -q -c "$URI" define $W/tcg.xml
virsh -q -c "$URI" start --paused lab-vm >$W/start.log 2>&1
st() { virsh -q -c "$URI" domstate lab-vm 2>/dev/null | head -1; }
t_ok "virsh start --paused: QEMU opened the VFIO groups" test "$(st)" = paused
say started
# QEMU's view of the paused domain, in one virsh (each starts the embedded
# driver anew: seconds under TCG; not -q, which drops echo's newlines): each
# alias's host device, each expander bus's number and NUMA node (what QEMU's
# ACPI tables give the guest), the vCPUs with their nodes.  Lines "KEY JSON".
mon_many() {
	cmds=
	while read -r key json; do
		cmds="$cmds echo $key; qemu-monitor-command lab-vm '$json';"
	done
	virsh -c "$URI" "$cmds" 2>/dev/null | awk '/^\{/ { print k, $0; next } NF { k = $0 }'
}
qget() { echo "$1:$2 {\"execute\":\"qom-get\",\"arguments\":{\"path\":\"/machine/peripheral/$2\",\"property\":\"$1\"}}"; }
{
	python3 "$V/predict.py" aliases 0 $W/defined.xml | while read -r alias bdf; do qget host "$alias"; done
	python3 "$V/predict.py" pxbs 0 $W/defined.xml | while read -r alias; do
		qget bus_nr "$alias"
		qget numa_node "$alias"
	done
	echo 'cpus {"execute":"query-cpus-fast"}'
} | mon_many >$W/paused.txt
sed -n 's/^host://p' $W/paused.txt >$W/qom.txt
cp $W/tcg.xml $W/defined.xml $W/nccl.xml $W/paused.txt /out/ 2>/dev/null
# predict.py prints TAP numbered on from T_N, then "COUNT N"
predict() {
	m=$1
	shift
	python3 "$V/predict.py" "$m" $((T_N + 1)) $W/defined.xml "$@" >/tmp/predict.tap 2>&1
	grep -v '^COUNT' /tmp/predict.tap
	n=$(sed -n 's/^COUNT //p' /tmp/predict.tap)
	[ -n "$n" ] || { n=$((T_N + 1)); echo "not ok $n - predict.py $m failed"; }
	T_N=$n
}
predict qom $W/qom.txt
t_exit "a second apply while the VM runs is refused (vm.running)" 2 $G -p $P --accept vm.kvm apply --yes
t_exit "rollback while the VM runs is refused" 2 $G rollback --yes
t_grep "... naming the running domain" /tmp/t.out "domain 'lab-vm' is running"
for d in $DEVS; do t_ok "... and $d stays on vfio-pci" test "$(drv $d)" = vfio-pci; done
# The guest's firmware (OVMF, as the XML says) numbers the buses behind the
# root ports and places the BARs; Linux keeps that, so QEMU's view of it
# (query-pci) is where the guest's kernel finds its devices.
virsh -q -c "$URI" resume lab-vm >/dev/null 2>&1
say "resumed: $(st)"
end=$(($(date +%s) + $(cat /lab-timeout)))
while [ "$(date +%s)" -lt $end ]; do
	virsh -q -c "$URI" qemu-monitor-command lab-vm '{"execute":"query-pci"}' >$W/qpci.json 2>/dev/null
	python3 "$V/predict.py" placed 0 $W/defined.xml $W/qpci.json && break
	sleep 5
done
say "the guest's firmware placed the devices"
t_ok "the guest's firmware placed every passed device's BARs" \
	python3 "$V/predict.py" placed 0 $W/defined.xml $W/qpci.json
cp $W/qpci.json /out/
predict firmware $W/nccl.xml $W/qpci.json $W/paused.txt
# The guest's kernel's own view: minutes more of TCG inside TCG; only with
# GP_LAB_VMSTART_GUEST=1 (lab.sh leaves /lab-guest-stage).
if [ -e /lab-guest-stage ]; then
	# lab.sh's GP_LAB_TIMEOUT, which this host's environment does not carry
	TIMEOUT=$(($(cat /lab-guest-stage) * 3))
	i=0
	end=$(($(date +%s) + TIMEOUT))
	while [ "$(date +%s)" -lt $end ] && ! grep -q GPUPROV-GUEST-END $W/console.log 2>/dev/null; do
		sleep 2
		i=$((i + 2))
		[ $((i % 60)) -ne 0 ] || say "the guest: $(st), $(wc -c <$W/console.log 2>/dev/null) bytes of console"
	done
	say "the guest ran"
	t_grep "the nested guest ran OVMF, the kernel and its init" $W/console.log GPUPROV-GUEST-END
	grep -q GPUPROV-GUEST-END $W/console.log 2>/dev/null || {
		tail -c 1500 $W/console.log | tr -d '\r' | sed 's/^/# guest: /'
		tail -20 /run/lab-embed/log/qemu/lab-vm.log 2>/dev/null | sed 's/^/# qemu: /'
	}
	tr -d '\r' <$W/console.log >/out/guest-console.txt
	predict guest $W/nccl.xml /out/guest-console.txt
fi
i=0
while [ "$(st)" = running ] || [ "$(st)" = paused ]; do
	virsh -q -c "$URI" destroy lab-vm >/dev/null 2>&1 || sleep 1
	i=$((i + 1))
	[ $i -lt 20 ] || break
done
t_ok "the domain is stopped" test "$(st)" = "shut off"
t_ok "rollback, the VM stopped" $G rollback --yes
t_exit "... the domain is gone" 1 sh -c "virsh -q -c '$URI' domstate lab-vm"
for d in 0000:41:00.0 0000:42:00.0; do t_ok "$d is back on e1000e" test "$(drv $d)" = e1000e; done
t_ok "0000:81:00.0 has no driver again" test -z "$(drv 0000:81:00.0)"
t_ok "... and the guest's files are gone" test ! -e $GD
say done
t_done
