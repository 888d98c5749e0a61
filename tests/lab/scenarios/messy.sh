# The messy host: every problem is found, and named as the kernel sees it.
. /tap.sh
P=/etc/gpuprov/lab-messy.ini

t_ok "scan --json" sh -c "gpuprov -p $P --json scan >/out/scan.json"
kernel_facts >/out/kernel.txt
gpuprov -p $P scan >/out/scan.txt
t_grep "scan: the 16 GiB 64-bit prefetchable BAR of ivshmem" /out/scan.txt \
	'^0000:82:00\.0 .* 2:16GiB\(64,pf\)'
t_grep "scan: the e1000e 'GPU' is bound to e1000e" /out/scan.txt \
	'^0000:47:00\.0 +gpu +8086:10d3 +0200 +e1000e '

t_ok "kernel: the bridged GPU and the e1000 share an IOMMU group" \
	test "$(readlink /sys/bus/pci/devices/0000:42:01.0/iommu_group)" = \
	"$(readlink /sys/bus/pci/devices/0000:42:02.0/iommu_group)"
t_exit "check: failures" 2 sh -c "gpuprov -p $P check >/out/check.txt"
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
t_done
