# The miniature R5350 G6: gpuprov's view agrees with the kernel's.
. /tap.sh
P=/etc/gpuprov/lab-r5350.ini

# the management NIC carries the default route, as on the real server
mgmt=$(grep -l 52:54:00:00:00:01 /sys/class/net/*/address | cut -d/ -f5)
ip link set "$mgmt" up && ip addr add 10.0.2.15/24 dev "$mgmt" && ip route add default via 10.0.2.2
t_ok "the management NIC $mgmt carries the default route" sh -c "ip route | grep -q 'default via 10.0.2.2 dev $mgmt'"

t_ok "scan --json" sh -c "gpuprov -p $P --json scan >/out/scan.json"
kernel_facts >/out/kernel.txt
gpuprov -p $P scan >/out/scan.txt
t_grep "scan: GPU0 (pci-testdev) on node 0 in physical slot 1" /out/scan.txt \
	'^0000:41:00\.0 +gpu +1b36:0005 .* 0 +[0-9]+ .* 1 +0:4KiB'
t_grep "scan: the RoCE port's netdev is its PCI function (through virtioN)" /out/scan.txt \
	'^eth[0-9] +0000:43:00\.0 +52:54:00:00:10:00'
t_grep "scan: the partner card sits on node 1" /out/scan.txt '^0000:81:00\.0 +nic .* 1 +[0-9]+ '

t_exit "check: warnings only (pci-testdev has no PCIe link)" 1 \
	sh -c "gpuprov -p $P check >/out/check.txt"
gpuprov -p $P --json check >/out/check.json
t_grep "check: IOMMU on" /out/check.txt '^ok +iommu\.off +host +IOMMU on'
t_grep "check: the GPUs are in their own groups" /out/check.txt \
	'^ok +iommu\.group_shared +0000:42:00\.0'
t_grep "check: PHB between the two GPUs" /out/check.txt \
	'^ok +p2p\.path +0000:41:00\.0-0000:42:00\.0 +PHB'
t_grep "check: GPU0 CPU-direct in slot 1" /out/check.txt \
	'^ok +gpu\.slot +0000:41:00\.0 .*root port 0000:40:00\.0, physical slot 1'
t_grep "check: vfio-pci found by libkmod, not loaded" /out/check.txt \
	'^ok +vfio\.module .*available for kernel'
t_grep "check: a conventional PCI GPU has no link to train" /out/check.txt \
	'^WARN +gpu\.link +0000:41:00\.0 +conventional PCI'

gpuprov -p $P topo >/out/topo.txt
gpuprov -p $P --json topo >/out/topo.json
t_grep "topo: GPU0-GPU1 PHB" /out/topo.txt 'GPU0-GPU1[[:space:]]+PHB'
t_grep "topo: GPU0 to the node-0 RoCE port is PHB" /out/topo.txt 'GPU0-NIC[0-9][[:space:]]+PHB'
t_grep "topo: GPU0 to the node-1 partner card is SYS" /out/topo.txt 'GPU0-NIC[0-9][[:space:]]+SYS'
t_grep "topo: the two ports of one card are PIX" /out/topo.txt 'NIC[0-9]-NIC[0-9][[:space:]]+PIX'

t_ok "snapshot" gpuprov -q -o /out/snapshot.tar.gz snapshot
t_done
