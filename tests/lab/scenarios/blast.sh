# Blast radius, on a real kernel: what the host lives
# on is never unbound, and bond ports that belong elsewhere are refused.
. /tap.sh
P=/etc/gpuprov/lab-blast.ini
G0=/etc/gpuprov/lab-blast-gpu0.ini
B=/etc/gpuprov/lab-blast-bond.ini
GPU0=0000:02:01.0 NIC=0000:02:02.0 DISK=0000:02:03.0
GPU1=0000:03:00.0 AUDIO=0000:03:00.1 USB=0000:03:00.2 VGA=0000:03:00.3
modprobe virtio_blk
modprobe crc32c_generic # ext4's softdep: no udev here to load it on demand
modprobe ext4
modprobe bridge
modprobe bonding max_bonds=0
sleep 1
drv() { basename "$(readlink /sys/bus/pci/devices/$1/driver 2>/dev/null)" 2>/dev/null; }
grp() { basename "$(readlink /sys/bus/pci/devices/$1/iommu_group)"; }
byaddr() { basename "$(dirname "$(grep -l "$1" /sys/class/net/*/address)")"; }
master() { basename "$(readlink /sys/class/net/$1/master 2>/dev/null)" 2>/dev/null; }

t_ok "kernel: GPU0, the NIC and the disk share one IOMMU group" sh -c \
	"[ $(grp $GPU0) = $(grp $NIC) ] && [ $(grp $GPU0) = $(grp $DISK) ]"
t_ok "kernel: GPU1's audio, USB and VGA functions share its group" sh -c \
	"[ $(grp $GPU1) = $(grp $AUDIO) ] && [ $(grp $GPU1) = $(grp $USB) ] && [ $(grp $GPU1) = $(grp $VGA) ]"

# the host lives on the NIC and the disk
mgmt=$(byaddr 52:54:00:00:40:01)
ip link set lo up
ip link set "$mgmt" up && ip addr add 10.0.2.15/24 dev "$mgmt" && ip route add default via 10.0.2.2
sleep 3600 | nc -l -p 2222 >/dev/null &
server=$!
sleep 1
sleep 3600 | nc 10.0.2.15 2222 &
client=$!
disk=$(ls /sys/bus/pci/devices/$DISK/virtio*/block)
mke2fs -q "/dev/$disk" && mkdir -p /mnt/data && mount -t ext4 "/dev/$disk" /mnt/data
sleep 1
t_ok "the management NIC $mgmt carries the default route" sh -c "ip route | grep -q 'default via 10.0.2.2 dev $mgmt'"
t_ok "a TCP connection from 10.0.2.15 is established" grep -q ' 0F02000A:[0-9A-F]* [0-9A-F:]* 01 ' /proc/net/tcp
t_ok "the disk $disk is mounted" grep -q "^/dev/$disk /mnt/data " /proc/mounts

kernel_facts >/tmp/before
t_exit "check: fails" 2 sh -c "gpuprov -v -p $P check >/out/check.wrapped"
unwrap /out/check.wrapped >/out/check.txt
gpuprov -p $P --json check >/out/check.json
t_ok "scan --json" sh -c "gpuprov -p $P --json scan >/out/scan.json"
gpuprov -p $P --json topo >/out/topo.json
kernel_facts >/out/kernel.txt
t_ok "snapshot" gpuprov -q -o /out/snapshot.tar.gz snapshot
t_grep "companion.unsafe: the NIC's default route" /out/check.txt \
	"^FAIL +companion\.unsafe +$NIC .*$mgmt carries the default route"
t_grep "... its address" /out/check.txt "^FAIL +companion\.unsafe +$NIC .*$mgmt has address 10\.0\.2\.15"
t_grep "... its TCP connection, read from the sockets" /out/check.txt \
	"^FAIL +companion\.unsafe +$NIC .*$mgmt holds [0-9]+ established TCP connection"
t_grep "companion.unsafe: the mounted disk" /out/check.txt \
	"^FAIL +companion\.unsafe +$DISK .*$disk is mounted on /mnt/data"
if [ "$(cat /sys/bus/pci/devices/$VGA/boot_vga)" = 1 ]; then
	t_grep "companion.unsafe: the boot VGA (the kernel's boot_vga)" /out/check.txt \
		"^FAIL +companion\.unsafe +$VGA .*the boot VGA device"
else
	t_grep "companion.unsafe: a VGA that is not the boot VGA binds" /out/check.txt \
		"^ok +companion\.unsafe +$VGA "
fi
t_grep "the card's own audio function binds" /out/check.txt "^ok +companion\.unsafe +$AUDIO "
t_grep "... and its USB function" /out/check.txt "^ok +companion\.unsafe +$USB "

t_exit "apply refuses (exit 2)" 2 gpuprov -p $P apply --yes
t_exit "... also for GPU0 alone" 2 sh -c "gpuprov -p $G0 apply --yes >/tmp/apply0.log 2>&1"
unwrap /tmp/apply0.log >/tmp/apply0.txt
t_grep "... naming the device and why" /tmp/apply0.txt "companion\.unsafe $DISK: .*mounted on /mnt/data"
kernel_facts >/tmp/after
t_ok "nothing was unbound" cmp /tmp/before /tmp/after
t_ok "the disk is still mounted" grep -q "^/dev/$disk /mnt/data " /proc/mounts
t_ok "the default route is still there" sh -c "ip route | grep -q 'default via 10.0.2.2 dev $mgmt'"
t_ok "the connection still stands" kill -0 $client

# once the host no longer uses them, they go with GPU0, and come back
kill $client $server 2>/dev/null
umount /mnt/data
ip route del default via 10.0.2.2
ip addr flush dev "$mgmt"
ip link set "$mgmt" down
sleep 1
t_exit "freed: GPU0's plan is no longer blocked" 1 gpuprov -p $G0 plan
t_exit "freed: apply" 0 gpuprov -p $G0 apply --yes
t_ok "... the NIC and the disk are on vfio-pci" test "$(drv $NIC)$(drv $DISK)" = vfio-pcivfio-pci
t_exit "rollback" 0 gpuprov rollback --yes
t_ok "... gives them back to virtio-pci" test "$(drv $NIC)$(drv $DISK)" = virtio-pcivirtio-pci

# ---- bond ports that belong elsewhere (item 4) ----
p0=$(byaddr 52:54:00:00:50:00)
p1=$(byaddr 52:54:00:00:50:01)
ip link add br0 type bridge
ip link set "$p0" master br0
ip link set br0 up
ip addr add 192.0.2.1/24 dev br0
ip route add default via 192.0.2.254 dev br0 metric 200
ip link add bond9 type bond mode active-backup
ip link set "$p1" down
ip link set "$p1" master bond9
t_ok "kernel: $p0 is a port of br0, $p1 of bond9" test "$(master $p0) $(master $p1)" = "br0 bond9"
gpuprov -p $B check >/tmp/bcheck.wrapped
unwrap /tmp/bcheck.wrapped >/tmp/bcheck.txt
t_grep "bond.mgmt: the port's bridge carries the default route" /tmp/bcheck.txt \
	"^FAIL +bond\.mgmt +bond0 +$p0 is a port of br0, which carries the default route"
t_grep "bond.port_master: a bridge port" /tmp/bcheck.txt "^FAIL +bond\.port_master +$p0 +already a port of br0"
t_grep "bond.port_master: a port of another bond" /tmp/bcheck.txt \
	"^FAIL +bond\.port_master +$p1 +already a port of bond9 \(a bond\)"
t_exit "bond apply refuses" 2 gpuprov -p $B --only bond apply --yes
t_exit "... with --force-mgmt too" 2 gpuprov -p $B --only bond --force-mgmt apply --yes
t_ok "... and both ports stay where they were" test "$(master $p0) $(master $p1)" = "br0 bond9"
t_ok "... no bond0 was made" test ! -e /sys/class/net/bond0
ip link set "$p0" nomaster
ip link set "$p1" nomaster
t_exit "ports freed: the bond plan is no longer blocked" 1 gpuprov -p $B --only bond plan
t_done
