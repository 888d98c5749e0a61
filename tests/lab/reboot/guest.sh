#!/bin/sh
# The reboot scenario, inside the lab's Debian 12 host: run by
# gpuprov-lab.service at the end of every boot, one phase per boot, the phase
# and the TAP counter kept on the disk.
#   boot 1: apply (devices to vfio-pci, the 802.3ad bond, persistence, the
#           VM's huge pages), reboot
#   boot 2: systemd, udev and networkd alone brought it all back, each device
#           on the module check's boot.claim predicted; plan has nothing to
#           do; rollback, reboot
#   boot 3: the devices are on their drivers, as boot.claim predicted after
#           the rollback, no bond, no gpuprov file; power off
L=/usr/local/share/gpuprov-lab
. $L/tap.sh
P=$L/lab-reboot.ini
S=/var/lib/gpuprov-lab
E1=0000:41:00.0
E2=0000:42:00.0
TD=0000:43:00.0
mkdir -p $S /out
mountpoint -q /out || mount -t 9p -o trans=virtio,version=9p2000.L out /out
phase=$(cat $S/phase 2>/dev/null || echo 0)
T_N=$(cat $S/tn 2>/dev/null || echo 0)
boot=$((phase + 1))

drv() { basename "$(readlink /sys/bus/pci/devices/$1/driver 2>/dev/null)" 2>/dev/null; }
grp() { basename "$(readlink /sys/bus/pci/devices/$1/iommu_group)"; }
# a virtio NIC's netdev by its PCI function (its "device" is virtioN)
netdev() { ls /sys/bus/pci/devices/$1/virtio*/net; }
master() { basename "$(readlink /sys/class/net/$1/master 2>/dev/null)" 2>/dev/null; }
# every file gpuprov could have left in the system's configuration
gpfiles() {
	find /etc /usr/local/lib/systemd /run/systemd/system /run/udev/rules.d \
		-name '*gpuprov*' 2>/dev/null | grep -v -e '^/etc/gpuprov$' -e gpuprov-lab
	find /etc/gpuprov -mindepth 1 2>/dev/null
}
secs() { cut -d' ' -f1 /proc/uptime; }
# each device's module now ("none" without a driver), and what boot.claim
# predicted for the next boot: "BDF MODULE" lines, sorted
module() {
	m=$(readlink /sys/bus/pci/devices/$1/driver/module 2>/dev/null)
	echo "$1 $(basename "${m:-none}")"
}
modules_now() { for d in $E1 $E2 $TD; do module $d; done | sort; }
predicted() {
	gpuprov -p $P --json check >/out/check$boot.json 2>/dev/null
	python3 -c 'import json, re, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    m = re.match(r"next boot: ([^ ,]+)( \(|,|$)", f["message"])
    if f["id"] == "boot.claim" and f["subject"] in sys.argv[2:]:
        print(f["subject"], m.group(1) if m and f["severity"] == "ok" else f["message"])' \
		/out/check$boot.json $E1 $E2 $TD | sort >$S/predicted
	sed "s/^/# boot $boot: boot.claim predicts /" $S/predicted
}

# the partner card bonded in a network namespace: the switch's side of the LAG
switch_up() {
	q0=$(netdev 0000:81:00.0)
	q1=$(netdev 0000:81:00.1)
	ip netns add sw
	ip link set "$q0" netns sw
	ip link set "$q1" netns sw
	ip -n sw link add swbond type bond mode 802.3ad lacp_rate fast miimon 100
	for q in $q0 $q1; do
		ip -n sw link set "$q" down
		ip -n sw link set "$q" master swbond
	done
	ip -n sw link set swbond up
	swmac=$(ip -n sw link show swbond | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
}

# how long this boot took: the initramfs (busybox, as in the other lab
# topologies) until switch_root, systemd until multi-user.target
boot_times() {
	mu=$(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target)
	echo "# boot $boot: initramfs done at $(cat $S/initramfs-uptime) s," \
		"multi-user.target at $((mu / 1000)) ms, scenario at $(secs) s (uptime, TCG)"
	systemctl show -P GeneratorsStartTimestampMonotonic -P GeneratorsFinishTimestampMonotonic \
		-P UnitsLoadStartTimestampMonotonic -P UnitsLoadFinishTimestampMonotonic |
		tr '\n' ' ' | sed 's/^/# boot '$boot': generators start, end, units load start, end (us): /'
	echo
	echo "boot$boot $(cat $S/initramfs-uptime) $((mu / 1000)) $(secs)" >>/out/boot-times
}

# ==== fabric.mask: NVIDIA Fabric Manager stopped and disabled for real ====
# A stand-in nvidia-fabricmanager.service (tests/lab/reboot.sh: a real unit
# in /lib/systemd/system, enabled by its multi-user.target wants link, its
# process /usr/bin/nv-fabricmanager, a copy of sleep) runs from boot 1.
# gpuprov plans fabric.mask only on a host whose PCI tree shows an NVSwitch,
# and QEMU 7.2 cannot give an emulated device NVIDIA's IDs, so one thing is
# staged: in a private mount namespace (unshare -m), the vendor, device and
# class files of the scenario's three real functions are bind-mounted over
# with an HGX H200 board's values (both e1000e 10de:2335 class 0x030200, the
# pci-testdev 10de:22a3 class 0x068000).  Their config space, modalias,
# driver, IOMMU group and the unit are the real ones; `plan` and `apply` of
# lab-fabric.ini run inside that namespace, the rollback outside it.  The
# board shows 2 of 8 GPUs and 1 of 4 switches, so apply accepts
# fabric.partial (the step under test does not depend on the board's size).
#   boot 1: after the main apply, fabric.mask alone is planned, applied:
#           the unit stopped, its wants link gone, the journal holding both
#   boot 2: the unit stayed off; rollback of that run (the newest) starts
#           and enables it again
#   boot 3: systemd started it at boot again
F=$L/lab-fabric.ini
FM=nvidia-fabricmanager.service
FM_WANTS=/etc/systemd/system/multi-user.target.wants/$FM
# gpuprov CMD... in the namespace where the three functions read as an HGX board
staged() {
	unshare -m sh -c '
		set -e
		ids() {
			mkdir -p /run/gpuprov-lab-ids/$1
			echo $2 >/run/gpuprov-lab-ids/$1/vendor
			echo $3 >/run/gpuprov-lab-ids/$1/device
			echo $4 >/run/gpuprov-lab-ids/$1/class
			for f in vendor device class; do
				mount --bind /run/gpuprov-lab-ids/$1/$f /sys/bus/pci/devices/$1/$f
			done
		}
		ids '$E1' 0x10de 0x2335 0x030200
		ids '$E2' 0x10de 0x2335 0x030200
		ids '$TD' 0x10de 0x22a3 0x068000
		exec gpuprov "$@"' sh "$@"
}
# "ACTIVE ENABLED N": systemd's view of the unit (is-enabled reads
# the disk, as after a link removed by hand), and N, the processes named as
# Fabric Manager's (/proc/PID/comm keeps 15 characters; read without a fork
# per process: under TCG a fork costs tens of ms)
fm_state() {
	n=0
	for c in /proc/[0-9]*/comm; do
		{ read -r name <"$c"; } 2>/dev/null && [ "$name" = nv-fabricmanage ] && n=$((n + 1))
	done
	echo "$(systemctl is-active $FM) $(systemctl is-enabled $FM) $n"
}
# seconds from $1 to $2 (default: now), uptime: what the block costs under TCG
span() { awk "BEGIN { print ${2:-$(secs)} - $1 }"; }
fabric_apply() {
	fab_t0=$(secs)
	t_ok "boot 1: the stand-in Fabric Manager runs, enabled (active, enabled, one process)" \
		test "$(fm_state)" = "active enabled 1"
	fab_a=$(secs)
	staged -p $F apply --yes --accept fabric.partial >/out/fabric-apply.txt 2>&1
	t_exit "boot 1: fabric: apply" 0 sh -c "exit $?"
	fab_b=$(secs)
	sed 's/^/# fabric apply: /' /out/fabric-apply.txt
	t_grep "boot 1: fabric: the staged IDs stayed in their namespace" \
		/sys/bus/pci/devices/$TD/vendor '^0x1b36$'
	t_ok "boot 1: fabric: the unit is stopped, disabled, its process gone" \
		test "$(fm_state)" = "inactive disabled 0"
	t_ok "boot 1: fabric: the wants link is removed" test ! -e $FM_WANTS -a ! -L $FM_WANTS
	journalctl -b -u $FM --no-pager -o cat >/tmp/fm.journal 2>&1
	tail -2 /tmp/fm.journal | sed 's/^/# fabric unit: /'
	t_grep "boot 1: fabric: systemd's journal says the unit stopped" /tmp/fm.journal '^Stopped '
	# gpuprov's journal: fabric.mask the run's one step, done, with the link and
	# the service as they were
	t_ok "boot 1: fabric: the run was fabric.mask alone; its journal records the link and the service" \
		python3 -c '
import glob, json, sys
for j in glob.glob("/var/lib/gpuprov/journal/*.json"):
    steps = json.load(open(j))["steps"]
    if any(s["kind"] == "fabric.mask" for s in steps):
        u = steps[0]["undo"]
        print([s["kind"] for s in steps], steps[0]["state"], u)
        sys.exit(not (len(steps) == 1 and steps[0]["state"] == "done" and
                      u["running"] is True and u["file"]["path"] == sys.argv[1] and
                      u["file"]["type"] == "link" and
                      u["file"]["target"] == "/lib/systemd/system/" + sys.argv[2]))
sys.exit(1)' $FM_WANTS $FM
	echo "# boot 1: fabric.mask's block took $(span $fab_t0) s (TCG), its apply $(span $fab_a $fab_b) s"
}
fabric_rollback() {
	fab_t0=$(secs)
	t_ok "boot 2: fabric: Fabric Manager stayed off (inactive, disabled, no process)" \
		test "$(fm_state)" = "inactive disabled 0"
	fab_a=$(secs)
	t_exit "boot 2: fabric: the HGX view's plan has nothing to do" 0 staged -p $F plan --accept fabric.partial
	fab_b=$(secs)
	gpuprov rollback --yes >/out/fabric-rollback.txt 2>&1
	t_exit "boot 2: fabric: rollback (the newest run, fabric.mask's)" 0 sh -c "exit $?"
	fab_c=$(secs)
	sed 's/^/# fabric rollback: /' /out/fabric-rollback.txt
	t_ok "boot 2: fabric: rollback started and enabled it again (active, enabled, one process)" \
		test "$(fm_state)" = "active enabled 1"
	t_ok "boot 2: fabric: the wants link is back as it was" \
		test "$(readlink $FM_WANTS)" = /lib/systemd/system/$FM
	echo "# boot 2: fabric.mask's block took $(span $fab_t0) s (TCG), its plan $(span $fab_a $fab_b) s," \
		"rollback $(span $fab_b $fab_c) s"
}
fabric_back() {
	t_ok "boot 3: fabric: systemd started Fabric Manager at boot (active, enabled, one process)" \
		test "$(fm_state)" = "active enabled 1"
}
# ==== end of fabric.mask ====

# ---- huge pages (hugepages.reserve): the VM's 2 MiB pages on node 0 ----
# apply raises node 0's pool by the VM's 32 pages (64 MiB), the boot unit
# reserves them again before basic.target (libvirtd and virtqemud come after
# it), rollback writes the old count back, and the next boot has none.  The
# lab has no KVM nor OVMF: vm.kvm and vm.firmware fail, accepted (A) where the
# plan would block on them (the VM is written, never started).
A="--accept vm.kvm,vm.firmware"
HP=/sys/devices/system/node/node0/hugepages/hugepages-2048kB
HUNIT=gpuprov-hugepages.service
huge_count() { cat $HP/nr_hugepages; }
# what this block adds to a boot under TCG: since $1 (an uptime), said as $2
huge_took() { echo "# huge pages: $2 took $(awk "BEGIN { print $(secs) - $1 }") s (TCG)"; }
huge_before() { # boot 1, before apply
	ht=$(secs)
	huge_count >$S/huge-before
	echo "# boot 1: node0 nr_hugepages $(huge_count), $(cat $HP/free_hugepages) free before apply"
	t_grep "boot 1: plan reserves 2 MiB pages on node0" /out/plan1.txt 'hugepages\.reserve node0'
	huge_took $ht "boot 1, before apply"
}
huge_applied() { # boot 1, after apply
	ht=$(secs)
	huge_count >$S/huge-applied
	echo "# boot 1: node0 nr_hugepages $(huge_count), $(cat $HP/free_hugepages) free after apply"
	t_ok "boot 1: apply reserved the VM's 32 pages on node0 (free_hugepages read back)" \
		test "$(cat $HP/free_hugepages)" -ge 32 -a "$(huge_count)" -gt "$(cat $S/huge-before)"
	t_grep "boot 1: node0's count persisted for the boot unit" \
		/etc/gpuprov/hugepages.d/node0-2048kB "^$(huge_count)\$"
	t_ok "boot 1: $HUNIT enabled" test -L /etc/systemd/system/basic.target.wants/$HUNIT
	huge_took $ht "boot 1, after apply"
}
# the unit's properties in one query (each systemctl costs about a second
# under TCG), and one of them by name
huge_prop() { echo "$hprops" | sed -n "s/^$1=//p"; }
huge_rebooted() { # boot 2, before rollback
	ht=$(secs)
	hprops=$(systemctl show -p InactiveExitTimestampMonotonic -p ActiveEnterTimestampMonotonic \
		-p Result -p ExecMainStatus -p ActiveState -p Before $HUNIT)
	# monotonic us: left inactive (started), became active (its oneshot done)
	hon=$(huge_prop InactiveExitTimestampMonotonic)
	hup=$(huge_prop ActiveEnterTimestampMonotonic)
	hbasic=$(systemctl show -P ActiveEnterTimestampMonotonic basic.target)
	echo "# boot 2: $HUNIT ran from $((hon / 1000)) to $((hup / 1000)) ms ($(((hup - hon) / 1000))" \
		"ms under TCG), basic.target at $((hbasic / 1000)) ms"
	journalctl -b -u $HUNIT --no-pager | sed 's/^/# gpuprov-hugepages: /'
	t_ok "boot 2: $HUNIT ran and succeeded" test "$(huge_prop Result)" = success \
		-a "$(huge_prop ExecMainStatus)" = 0 -a "$(huge_prop ActiveState)" = active -a "$hon" -gt 0
	t_ok "boot 2: ... and was done before basic.target, which libvirt's units follow" \
		test "$hup" -le "$hbasic"
	t_ok "boot 2: it is ordered before libvirtd.service and virtqemud.service" sh -c \
		"echo '$(huge_prop Before)' | grep -q libvirtd.service &&
		echo '$(huge_prop Before)' | grep -q virtqemud.service"
	t_ok "boot 2: node0 has the count apply reserved, the VM's pages free" \
		test "$(huge_count)" = "$(cat $S/huge-applied)" -a "$(cat $HP/free_hugepages)" -ge 32
	huge_took $ht "boot 2, before rollback"
}
huge_rolled_back() { # boot 2, after rollback
	ht=$(secs)
	t_ok "boot 2: rollback wrote node0's old count back" \
		test "$(huge_count)" = "$(cat $S/huge-before)"
	huge_took $ht "boot 2, after rollback"
}
huge_gone() { # boot 3
	ht=$(secs)
	t_ok "boot 3: no 2 MiB page reserved on node0" test "$(huge_count)" = 0
	t_ok "boot 3: no $HUNIT" sh -c "! systemctl cat $HUNIT >/dev/null 2>&1"
	huge_took $ht "boot 3"
}
# ---- end of huge pages ----

next() {
	echo "$1" >$S/phase
	echo "$T_N" >$S/tn
	dmesg >/out/boot$boot.dmesg
	journalctl -b --no-pager >/out/boot$boot.journal 2>&1
	sync
}

phase0() {
	echo "GPUPROV-LAB-START"
	boot_times
	t_ok "boot 1: systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
	t_ok "boot 1: udev gave both e1000e to e1000e" \
		test "$(drv $E1)" = e1000e -a "$(drv $E2)" = e1000e
	t_ok "boot 1: networkd runs" systemctl is-active --quiet systemd-networkd
	find /etc | sort >$S/etc.before
	switch_up
	gpuprov -p $P $A plan >/out/plan1.txt 2>&1
	t_exit "boot 1: plan has changes" 1 sh -c "exit $?"
	huge_before
	gpuprov -p $P $A apply --yes >/out/apply.txt 2>&1
	t_exit "boot 1: apply" 0 sh -c "exit $?"
	sed 's/^/# apply: /' /out/apply.txt
	t_ok "boot 1: the three devices are on vfio-pci" test \
		"$(drv $E1) $(drv $E2) $(drv $TD)" = "vfio-pci vfio-pci vfio-pci"
	t_grep "boot 1: LACP formed with the partner" /sys/class/net/bond0/bonding/ad_partner_mac "^$swmac\$"
	gpfiles | sort >/out/files-applied
	sed 's/^/# persisted: /' /out/files-applied
	t_grep "boot 1: the networkd netdev is written" /out/files-applied '60-gpuprov-bond0\.netdev$'
	t_grep "boot 1: the udev rule is written" /out/files-applied '60-gpuprov-vfio\.rules$'
	huge_applied
	predicted
	t_ok "boot 1: boot.claim predicts vfio_pci for the three, certain (ok)" test \
		"$(cut -d' ' -f2 $S/predicted | tr '\n' ' ')" = "vfio_pci vfio_pci vfio_pci "
	fabric_apply # fabric.mask
	next 1
	systemctl reboot
}

phase1() {
	boot_times
	# e1000e logs "e1000e 0000:41:00.0 ..." from its probe; nothing else names the device
	dmesg >/tmp/dmesg
	t_ok "boot 2: udev loaded the e1000e module (its devices were there to take)" \
		test -d /sys/module/e1000e
	for d in $E1 $E2; do
		t_ok "boot 2: e1000e never bound $d (kernel log)" sh -c "! grep 'e1000e $d' /tmp/dmesg"
	done
	t_ok "boot 2: the three devices are on vfio-pci" test \
		"$(drv $E1) $(drv $E2) $(drv $TD)" = "vfio-pci vfio-pci vfio-pci"
	for d in $E1 $E2 $TD; do
		t_ok "boot 2: /dev/vfio/$(grp $d) exists for $d" test -c /dev/vfio/"$(grp $d)"
	done
	modules_now >/tmp/modules
	t_ok "boot 2: what took each device is what boot.claim predicted before the reboot" \
		cmp $S/predicted /tmp/modules
	t_ok "boot 2: gpuprov-vfio.service ran" systemctl is-active --quiet gpuprov-vfio.service
	journalctl -b -u gpuprov-vfio.service --no-pager | sed 's/^/# gpuprov-vfio: /'
	huge_rebooted

	# the bond: built by networkd from gpuprov's files; LACP needs the partner up
	switch_up
	B=/sys/class/net/bond0/bonding
	t=$(secs)
	while [ "$(cat $B/ad_partner_mac $B/ad_num_ports 2>/dev/null)" != "$swmac
2" ] && [ "$(cut -d. -f1 /proc/uptime)" -lt $((${t%.*} + 60)) ]; do
		sleep 0.2
	done
	echo "# boot 2: the partner came up at $t s, both ports saw it at $(secs) s (uptime)"
	t_ok "boot 2: networkd made bond0" test -d $B
	t_grep "boot 2: bond0 is 802.3ad" $B/mode '^802\.3ad 4$'
	t_grep "boot 2: lacp_rate fast" $B/lacp_rate '^fast 1$'
	t_grep "boot 2: xmit_hash_policy layer3+4" $B/xmit_hash_policy '^layer3\+4 1$'
	t_grep "boot 2: the partner MAC is the partner bond's" $B/ad_partner_mac "^$swmac\$"
	# by PCI address: in an 802.3ad bond the ports carry the bond's MAC
	p0=$(netdev 0000:44:00.0)
	p1=$(netdev 0000:44:00.1)
	a0=$(cat /sys/class/net/$p0/bonding_slave/ad_aggregator_id 2>/dev/null)
	a1=$(cat /sys/class/net/$p1/bonding_slave/ad_aggregator_id 2>/dev/null)
	echo "# boot 2: $p0 in '$(master $p0)' aggregator $a0, $p1 in '$(master $p1)' aggregator $a1"
	t_ok "boot 2: both ports in bond0, one aggregator" \
		test "$(master $p0) $(master $p1) $a0" = "bond0 bond0 $a1" -a -n "$a0"
	t_grep "boot 2: bond0 mtu 9000" /sys/class/net/bond0/mtu '^9000$'
	t_ok "boot 2: bond0 is up with 192.0.2.10/24" sh -c \
		'ip -4 addr show bond0 | grep -q "inet 192.0.2.10/24" && grep -qx up /sys/class/net/bond0/operstate'
	fabric_rollback # fabric.mask: its run is the newest, rolled back first
	gpuprov -p $P $A plan >/out/plan2.txt 2>&1
	t_exit "boot 2: plan has nothing to do" 0 sh -c "exit $?"
	sed 's/^/# plan: /' /out/plan2.txt
	gpuprov rollback --yes >/out/rollback.txt 2>&1
	t_exit "boot 2: rollback" 0 sh -c "exit $?"
	sed 's/^/# rollback: /' /out/rollback.txt
	huge_rolled_back
	predicted
	t_ok "boot 2: after rollback boot.claim predicts e1000e, e1000e, no driver" test \
		"$(cut -d' ' -f2 $S/predicted | tr '\n' ' ')" = "e1000e e1000e none "
	next 2
	systemctl reboot
}

phase2() {
	boot_times
	t_ok "boot 3: both e1000e are back on e1000e" \
		test "$(drv $E1) $(drv $E2)" = "e1000e e1000e"
	dmesg >/tmp/dmesg
	for d in $E1 $E2; do # the pattern boot 2 must not find, found where e1000e did bind
		t_ok "boot 3: the kernel log shows e1000e binding $d" grep -q "e1000e $d" /tmp/dmesg
	done
	t_ok "boot 3: the testdev has no driver, as before" test -z "$(drv $TD)"
	modules_now >/tmp/modules
	t_ok "boot 3: what took each device is what boot.claim predicted after rollback" \
		cmp $S/predicted /tmp/modules
	t_ok "boot 3: no driver_override left" sh -c "for d in $E1 $E2 $TD; do
		[ \"\$(cat /sys/bus/pci/devices/\$d/driver_override)\" = '(null)' ] || exit 1; done"
	t_ok "boot 3: no bond" test ! -e /sys/class/net/bond0
	t_ok "boot 3: vfio-pci not loaded" test ! -e /sys/module/vfio_pci
	huge_gone
	gpfiles >/out/files-left
	t_ok "boot 3: no gpuprov file left" test ! -s /out/files-left
	sed 's/^/# left: /' /out/files-left
	find /etc | sort | diff $S/etc.before - >/out/etc.diff
	t_ok "boot 3: /etc holds the same paths as before apply (no directory left)" \
		test ! -s /out/etc.diff
	sed 's/^/# etc: /' /out/etc.diff
	t_exit "boot 3: plan has changes again" 1 gpuprov -p $P $A plan
	fabric_back # fabric.mask
	t_done
	next 3
	echo "GPUPROV-LAB-END rc=0"
	systemctl poweroff
}

case $phase in
0) phase0 ;;
1) phase1 ;;
2) phase2 ;;
*) systemctl poweroff ;;
esac
