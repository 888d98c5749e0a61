# The messy host: every problem is found, and named as the kernel sees it.
. /tap.sh
P=/etc/gpuprov/lab-messy.ini

t_ok "scan --json" sh -c "gpuprov -p $P --json scan >/out/scan.json"
kernel_facts >/out/kernel.txt
gpuprov -p $P scan >/out/scan.txt
t_grep "scan: the 16 GiB 64-bit prefetchable BAR of ivshmem" /out/scan.txt \
	'^0000:82:00\.0 .*BAR2 16 GiB 64-bit pf'
t_grep "scan: the e1000e 'GPU' is bound to e1000e" /out/scan.txt \
	'^0000:47:00\.0 +gpu +8086:10d3 +0200 +e1000e '

t_ok "kernel: the bridged GPU and the e1000 share an IOMMU group" \
	test "$(readlink /sys/bus/pci/devices/0000:42:01.0/iommu_group)" = \
	"$(readlink /sys/bus/pci/devices/0000:42:02.0/iommu_group)"
t_exit "check: failures" 2 sh -c "gpuprov -v -p $P check >/out/check.wrapped"
unwrap /out/check.wrapped >/out/check.txt
gpuprov -p $P --json check >/out/check.json
t_grep "check: iommu.group_shared names the bridged endpoint" /out/check.txt \
	'^FAIL +iommu\.group_shared +0000:42:01\.0 .*0000:42:02\.0 \(8086:100e\)'
t_grep "check: the GPUs under the switch have groups of their own" /out/check.txt \
	'^ok +iommu\.group_shared +0000:45:00\.0'
t_grep "check: GPUs on both nodes" /out/check.txt '^FAIL +gpu\.numa_split .*0000:81:00\.0 on node 1'
t_grep "check: SYS across the nodes fails with p2p = required" /out/check.txt \
	'^FAIL +p2p\.path +0000:45:00\.0-0000:81:00\.0 +SYS'
t_grep "check: PIX under the switch" /out/check.txt '^ok +p2p\.path +0000:45:00\.0-0000:46:00\.0 +PIX'
t_grep "check: behind the switch is not CPU-direct" /out/check.txt \
	'^WARN +gpu\.slot +0000:45:00\.0 +below 0000:44:00\.0'

gpuprov -p $P topo >/out/topo.txt
gpuprov -p $P --json topo >/out/topo.json
t_grep "topo: PIX under the switch" /out/topo.txt 'GPU1-GPU2[[:space:]]+PIX'
t_grep "topo: SYS across nodes" /out/topo.txt 'GPU0-GPU4[[:space:]]+SYS'
t_grep "topo: PIX behind the PCIe-to-PCI bridge" /out/topo.txt 'GPU0-NIC0[[:space:]]+PIX'

t_ok "snapshot" gpuprov -q -o /out/snapshot.tar.gz snapshot


# ---- binding: plan, apply, lock, persistence, rollback (tests/lab/profiles/lab-bind.ini) ----
B=/etc/gpuprov/lab-bind.ini
drv() { basename "$(readlink /sys/bus/pci/devices/$1/driver 2>/dev/null)" 2>/dev/null; }
grp() { basename "$(readlink /sys/bus/pci/devices/$1/iommu_group)"; }
kernel_facts | grep -v -e '^0000:47:00.0 ' -e '^0000:81:00.0 ' >/tmp/others.before

t_exit "apply refuses a shared group with companions = refuse" 2 \
	gpuprov -p $P apply --yes
t_ok "... and wrote nothing: no override, no journal, no files" sh -c \
	'[ "$(cat /sys/bus/pci/devices/0000:42:01.0/driver_override)" = "(null)" ] &&
	 [ -z "$(ls /var/lib/gpuprov/journal 2>/dev/null)" ] && [ ! -e /etc/gpuprov/override.d ]'
t_exit "apply without --yes on a non-terminal asks nobody and does nothing" 4 \
	sh -c "gpuprov -p $B apply </dev/null"

gpuprov -p $B plan >/tmp/plan.wrapped
unwrap /tmp/plan.wrapped >/tmp/plan.txt
t_exit "plan: changes pending" 1 gpuprov -p $B plan
t_grep "plan: load vfio-pci" /tmp/plan.txt 'module\.load +vfio-pci +not loaded -> loaded'
t_grep "plan: unbind the e1000e from e1000e" /tmp/plan.txt 'device\.unbind +0000:47:00\.0 +bound to e1000e -> unbound'
t_grep "plan: bind the testdev (no driver)" /tmp/plan.txt 'device\.bind +0000:81:00\.0 +no driver -> vfio-pci'
t_grep "plan: persist" /tmp/plan.txt 'persist\.vfio +host +absent'

# a run that holds the lock while a second one starts
GPUPROV_STEP_DELAY=1 gpuprov -p $B apply --yes >/tmp/apply1.log 2>&1 &
first=$!
sleep 2
gpuprov -p $B apply --yes >/tmp/apply2.log 2>&1
t_exit "a second run while the first holds the lock exits 5" 5 sh -c "exit $?"
t_grep "... naming the holder's PID" /tmp/apply2.log "PID $first"
wait $first
t_exit "the first run succeeds" 0 sh -c "exit $?"
sed 's/^/# apply: /' /tmp/apply1.log

t_ok "kernel: the e1000e is on vfio-pci" test "$(drv 0000:47:00.0)" = vfio-pci
t_ok "kernel: the testdev is on vfio-pci" test "$(drv 0000:81:00.0)" = vfio-pci
t_ok "kernel: /dev/vfio/N exists for both groups" \
	test -c /dev/vfio/$(grp 0000:47:00.0) -a -c /dev/vfio/$(grp 0000:81:00.0)
kernel_facts | grep -v -e '^0000:47:00.0 ' -e '^0000:81:00.0 ' >/tmp/others.after
t_ok "kernel: devices not in the profile are untouched" cmp /tmp/others.before /tmp/others.after
t_exit "a second plan has nothing to do" 0 gpuprov -p $B plan
t_grep "persist: one override file per device" /etc/gpuprov/override.d/0000:47:00.0 '^vfio-pci$'
t_grep "persist: softdep before nvidia" /etc/modprobe.d/gpuprov-vfio.conf '^softdep nvidia pre: vfio-pci$'
t_grep "persist: vfio_virqfd listed on kernel 6.1" /etc/modules-load.d/gpuprov-vfio.conf '^vfio_virqfd$'
t_ok "persist: the boot unit is enabled" test -L /etc/systemd/system/basic.target.wants/gpuprov-vfio.service

# a "reboot": the devices lose their overrides and go back to their drivers;
# the boot script gpuprov installed hands them to vfio-pci again
for d in 0000:47:00.0 0000:81:00.0; do
	echo >/sys/bus/pci/devices/$d/driver_override
	echo $d >/sys/bus/pci/drivers/vfio-pci/unbind
	echo $d >/sys/bus/pci/drivers_probe
done
t_ok "after the 'reboot' the e1000e is back on e1000e" test "$(drv 0000:47:00.0)" = e1000e
sh /etc/gpuprov/vfio-rebind
t_ok "the persisted boot script binds both to vfio-pci again" \
	test "$(drv 0000:47:00.0)" = vfio-pci -a "$(drv 0000:81:00.0)" = vfio-pci

gpuprov rollback --yes >/tmp/rollback.log 2>&1
t_exit "rollback" 0 sh -c "exit $?"
sed 's/^/# rollback: /' /tmp/rollback.log
t_ok "rollback: the e1000e has its driver back" test "$(drv 0000:47:00.0)" = e1000e
t_ok "rollback: the testdev has no driver, as before" test -z "$(drv 0000:81:00.0)"
t_ok "rollback: overrides cleared" sh -c \
	'[ "$(cat /sys/bus/pci/devices/0000:47:00.0/driver_override)" = "(null)" ]'
t_ok "rollback: persistent files removed" sh -c \
	'[ ! -e /etc/gpuprov/override.d/0000:47:00.0 ] && [ ! -e /etc/modprobe.d/gpuprov-vfio.conf ] &&
	 [ ! -e /etc/systemd/system/basic.target.wants/gpuprov-vfio.service ]'
t_ok "rollback: vfio-pci unloaded again" test ! -e /sys/module/vfio_pci
t_exit "rollback twice does nothing harmful" 0 gpuprov rollback --yes
t_ok "... and the e1000e stays on e1000e" test "$(drv 0000:47:00.0)" = e1000e

# a step that fails in the middle: /etc/modprobe.d is a file, so persist.vfio fails
mv /etc/modprobe.d /tmp/modprobe.d.saved 2>/dev/null
touch /etc/modprobe.d
t_exit "apply with a failing step, all undone, exits 6" 6 gpuprov -p $B apply --yes
rm /etc/modprobe.d
t_ok "the steps before the failure were undone" \
	test "$(drv 0000:47:00.0)" = e1000e -a -z "$(drv 0000:81:00.0)"
j=$(ls -t /var/lib/gpuprov/journal/*.json | head -1)
t_grep "the journal says rolled_back" "$j" '"status": "rolled_back"'

# a run killed with SIGKILL mid-way, undone by rollback from its journal
GPUPROV_STEP_DELAY=1 gpuprov -p $B apply --yes >/tmp/apply3.log 2>&1 &
victim=$!
i=0
while [ "$(drv 0000:47:00.0)" = e1000e ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 $victim
wait $victim 2>/dev/null
j=$(ls -t /var/lib/gpuprov/journal/*.json | head -1)
t_ok "the killed run took the e1000e from its driver" test "$(drv 0000:47:00.0)" != e1000e
t_grep "... and its journal still says running" "$j" '"status": "running"'
t_exit "rollback of the killed run" 0 gpuprov rollback --yes
t_ok "... gives the e1000e back to e1000e" test "$(drv 0000:47:00.0)" = e1000e
t_ok "... and leaves the testdev without a driver" test -z "$(drv 0000:81:00.0)"


# companions = bind: the other endpoint of the group goes to vfio-pci too
C=/etc/gpuprov/lab-companions.ini
t_exit "companions = bind: apply" 0 gpuprov -p $C apply --yes
t_ok "... the bridged GPU is on vfio-pci" test "$(drv 0000:42:01.0)" = vfio-pci
t_ok "... and so is the e1000 in its group" test "$(drv 0000:42:02.0)" = vfio-pci
t_ok "... the group's /dev/vfio node exists" test -c /dev/vfio/$(grp 0000:42:01.0)
t_exit "companions = bind: rollback" 0 gpuprov rollback --yes
t_ok "... both have no driver again" test -z "$(drv 0000:42:01.0)$(drv 0000:42:02.0)"
t_done
