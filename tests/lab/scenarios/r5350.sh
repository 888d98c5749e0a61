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
	'^0000:41:00\.0 +gpu +1b36:0005 .* 0 +[0-9]+ +- +1$'
t_grep "scan: GPU0's 4 KiB BAR0" /out/scan.txt '^0000:41:00\.0 +BAR0 4 KiB 32-bit'
t_grep "scan: the RoCE port's netdev is its PCI function (through virtioN)" /out/scan.txt \
	'^eth[0-9] +0000:43:00\.0 +52:54:00:00:10:00'
t_grep "scan: the partner card sits on node 1" /out/scan.txt '^0000:81:00\.0 +nic .* 1 +[0-9]+ '

t_exit "check: warnings only (pci-testdev has no PCIe link)" 1 \
	sh -c "gpuprov -v -p $P check >/out/check.wrapped"
unwrap /out/check.wrapped >/out/check.txt
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

# ---- the RoCE bond (tests/lab/profiles/lab-bond.ini) ----
B=/etc/gpuprov/lab-bond.ini
byaddr() { basename "$(dirname "$(grep -l "$1" /sys/class/net/*/address)")"; }
p0=$(byaddr 52:54:00:00:10:00)
p1=$(byaddr 52:54:00:00:10:01)
master() { basename "$(readlink /sys/class/net/$1/master 2>/dev/null)" 2>/dev/null; }

gpuprov -p $B --only bond plan >/tmp/bplan.wrapped
unwrap /tmp/bplan.wrapped >/tmp/bplan.txt
t_exit "bond plan: changes pending" 1 gpuprov -p $B --only bond plan
t_grep "bond plan: create bond0" /tmp/bplan.txt 'bond\.create +bond0 +absent -> 802\.3ad, miimon 100, lacp_rate fast, layer3\+4'
t_grep "bond plan: ports named by PCI address become their netdevs" /tmp/bplan.txt "bond\.enslave +$p0 +no master -> in bond0"
t_grep "bond plan: up with LACP verified" /tmp/bplan.txt 'link\.up +bond0 +absent -> up, mtu 9000, 192\.0\.2\.10/24, LACP verified'
t_grep "bond plan: persisted for networkd" /tmp/bplan.txt 'persist\.bond +bond0 +absent -> networkd: 4 files'

t_exit "the management port is refused" 2 gpuprov -p /etc/gpuprov/lab-bond-mgmt.ini --only bond apply --yes
t_ok "... and nothing was made" test ! -e /sys/class/net/bond1
t_exit "--force-mgmt lifts the refusal (plan)" 1 gpuprov -p /etc/gpuprov/lab-bond-mgmt.ini --only bond --force-mgmt plan

# no LACP partner yet: the bond comes up but never forms; apply must undo it all
# on a terminal (script(1)), as an operator sees the wait
TERM=xterm script -qec "gpuprov -p $B --only bond apply --yes" /dev/null >/tmp/bapply0.tty 2>&1
rc=$?
tr -d '\r' </tmp/bapply0.tty >/tmp/bapply0.log
t_exit "without a partner, apply fails its LACP verification, all undone (6)" 6 sh -c "exit $rc"
sed 's/^/# apply: /' /tmp/bapply0.log
t_grep "... saying each port sits in its own aggregator" /tmp/bapply0.log 'LACP did not form on .bond0.'
t_grep "on a terminal: each step has a line when it starts" /tmp/bapply0.log 'start \[1/[0-9]+\] bond\.create bond0: absent -> '
t_grep "... the LACP wait names each port's aggregator and partner" /tmp/bapply0.log \
	"bond0: port $p0 in aggregator [0-9]+, partner none \([0-9]+ s\)"
t_grep "... and counts the seconds of its limit (lacp_timeout 10)" /tmp/bapply0.log \
	'bond0: LACP wait [1-9][0-9]*/10 s, aggregator -?[0-9]+ has [0-9]/2 ports'
t_grep "... the step that failed ends with its duration" /tmp/bapply0.log 'FAIL .*link\.up bond0: failed in 1[0-9]\.[0-9]{2} s'
t_grep "... undoing, each step undone with its duration" /tmp/bapply0.log 'bond\.create bond0: undone in [0-9]+\.[0-9]{2} s'
t_ok "... and leaves no bond behind" test ! -e /sys/class/net/bond0
t_ok "... the ports have no master" test -z "$(master $p0)$(master $p1)"
t_ok "... no persistent files" test ! -e /etc/systemd/network/60-gpuprov-bond0.netdev

# gpuprov bond's exit status 1 (gpuprov(8) EXIT STATUS): 802.3ad, LACP not formed
ip link add gpnolacp type bond mode 802.3ad miimon 100
ip link set "$p0" down
ip link set "$p0" master gpnolacp
ip link set gpnolacp up
t_exit "bond: 802.3ad without a partner, LACP not formed: exit 1" 1 gpuprov bond gpnolacp
ip link del gpnolacp
ip link set "$p0" up
t_ok "... the port is free again" test -z "$(master $p0)"

# the "switch": the partner card, bonded in a network namespace
q0=$(byaddr 52:54:00:00:20:00)
q1=$(byaddr 52:54:00:00:20:01)
ip netns add sw
ip link set "$q0" netns sw
ip link set "$q1" netns sw
ip -n sw link add swbond type bond mode 802.3ad lacp_rate fast miimon 100
for q in $q0 $q1; do ip -n sw link set "$q" down; ip -n sw link set "$q" master swbond; done
ip -n sw link set swbond up
swmac=$(ip -n sw link show swbond | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')

gpuprov -p $B --only bond apply --yes >/tmp/bapply.log 2>&1
t_exit "with the partner, apply succeeds" 0 sh -c "exit $?"
sed 's/^/# apply: /' /tmp/bapply.log
S=/sys/class/net/bond0/bonding
t_grep "sysfs: mode 802.3ad" $S/mode '^802\.3ad 4$'
t_grep "sysfs: lacp_rate fast" $S/lacp_rate '^fast 1$'
t_grep "sysfs: miimon 100" $S/miimon '^100$'
t_grep "sysfs: xmit_hash_policy layer3+4" $S/xmit_hash_policy '^layer3\+4 1$'
t_grep "sysfs: ad_select stable" $S/ad_select '^stable 0$'
t_grep "sysfs: mtu 9000" /sys/class/net/bond0/mtu '^9000$'
t_ok "both ports in one aggregator" test "$(cat /sys/class/net/$p0/bonding_slave/ad_aggregator_id)" = \
	"$(cat /sys/class/net/$p1/bonding_slave/ad_aggregator_id)"
t_grep "the partner MAC is the partner bond's" $S/ad_partner_mac "^$swmac\$"
t_ok "the address is on the bond" sh -c 'ip -4 addr show bond0 | grep -q "inet 192.0.2.10/24"'
gpuprov -p $B --json bond >/out/bond.json
gpuprov -p $B bond >/tmp/bond.txt
t_exit "gpuprov bond: LACP formed: exit 0" 0 gpuprov -p $B bond
t_grep "gpuprov bond: LACP formed, partner named" /tmp/bond.txt "LACP: formed; active aggregator [0-9]+ with 2 ports; partner $swmac"
t_ok "gpuprov bond: every line within 80 columns" awk 'length($0) > 80 { print; bad = 1 } END { exit bad }' /tmp/bond.txt
for f in $S/mode $S/miimon $S/lacp_rate $S/xmit_hash_policy $S/ad_select $S/min_links \
	$S/ad_aggregator $S/ad_num_ports $S/ad_partner_mac /sys/class/net/bond0/mtu; do
	echo "${f##*/} $(cat $f)"
done >/out/bond-sysfs.txt
for q in $p0 $p1; do echo "port $q $(cat /sys/class/net/$q/bonding_slave/ad_aggregator_id)"; done >>/out/bond-sysfs.txt
t_grep "persisted: the networkd netdev" /etc/systemd/network/60-gpuprov-bond0.netdev '^Kind=bond$'
t_grep "persisted: each port's network file" /etc/systemd/network/60-gpuprov-$p0.network '^Bond=bond0$'
t_exit "a second bond plan has nothing to do" 0 gpuprov -p $B --only bond plan

gpuprov rollback --yes >/tmp/brb.log 2>&1
t_exit "rollback of the bond" 0 sh -c "exit $?"
t_ok "... removes the bond" test ! -e /sys/class/net/bond0
t_ok "... and frees the ports" test -z "$(master $p0)$(master $p1)"
t_ok "... and its files" test ! -e /etc/systemd/network/60-gpuprov-bond0.netdev

# a bond that already existed and was up: undoing link.up puts back its state
ip link add bond0 type bond mode 802.3ad lacp_rate fast miimon 100 xmit_hash_policy layer3+4 ad_select stable
for q in $p0 $p1; do ip link set "$q" down; ip link set "$q" master bond0; done
ip link set bond0 mtu 1500 up
ip addr add 198.51.100.1/24 dev bond0
state() { echo "$(ip -o link show bond0 2>/dev/null | sed 's/[^<]*<\([^>]*\)>.*/\1/' | tr , '\n' | grep -x UP) $(cat /sys/class/net/bond0/mtu 2>/dev/null) $(ip -o addr show dev bond0 2>/dev/null | awk '{print $4}' | sort | tr '\n' ' ')"; }
sleep 3
ip link show bond0 | grep -q '<.*UP' && before=$(state)
gpuprov -p $B --only bond apply --yes >/tmp/bapply2.log 2>&1
t_exit "apply on the existing bond" 0 sh -c "exit $?"
sed 's/^/# apply: /' /tmp/bapply2.log
t_ok "... it has mtu 9000 and the profile's address" sh -c \
	'[ "$(cat /sys/class/net/bond0/mtu)" = 9000 ] && ip addr show bond0 | grep -q 192.0.2.10/24'
gpuprov rollback --yes >/tmp/brb2.log 2>&1
t_exit "rollback on the existing bond" 0 sh -c "exit $?"
sed 's/^/# rollback: /' /tmp/brb2.log
t_ok "... leaves it up, at mtu 1500, with its own address only" test "$(state)" = "$before"
echo "# before: $before; after: $(state)"
t_ok "... and its ports in it" test "$(master $p0)$(master $p1)" = bond0bond0

# ---- apply --confirm-within: a change that cuts the management path ----
# The management address lives on a RoCE port that the bond takes over.  On
# a host that answers ARP only for the addresses of the interface it came in
# on (arp_ignore=1), the address left on the enslaved port is answered by
# nobody: seen from the switch's side (the namespace sw, arping through the
# partner port), the path is cut, nobody can confirm, and the watcher must
# restore it by itself.  Then the other outcome: confirmed in time, kept.
ip link del bond0
ip link set "$p0" up
ip link set "$p1" up
echo 1 >/proc/sys/net/ipv4/conf/all/arp_ignore
ip addr add 203.0.113.10/24 dev "$p0"
ip -n sw addr add 203.0.113.1/24 dev swbond
printf '#!/bin/sh\nexec /usr/sbin/ip netns exec sw busybox arping -c 2 -w 3 -I %s -s 203.0.113.1 203.0.113.10\n' "$q0" >/tmp/reach
chmod +x /tmp/reach
t_ok "confirm: the management address answers before the change" /tmp/reach
t_exit "confirm: nothing pending, nothing to confirm (2)" 2 gpuprov confirm

gpuprov -p $B --only bond --confirm-within 12 apply --yes >/tmp/capply.log 2>&1
t_exit "apply --confirm-within 12: the bond is made, the run waits (0)" 0 sh -c "exit $?"
sed 's/^/# apply: /' /tmp/capply.log
t_grep "... it says to confirm from a NEW connection" /tmp/capply.log 'is NOT confirmed: open a NEW connection'
t_ok "... the bond took the management port" test "$(master $p0)" = bond0
t_ok "... and the management address is cut off" sh -c '! /tmp/reach'
gpuprov rollback --list >/tmp/clist.txt 2>&1
t_grep "... rollback --list: unconfirmed" /tmp/clist.txt ' unconfirmed '
tab=$(printf '\t')
i=0
# until the watcher has finished its rollback, not only marked the run timed out
while [ $i -lt 120 ] && ! gpuprov -q rollback --list |
	grep -q "${tab}rolled_back${tab}0${tab}.*${tab}timed_out\$"; do
	sleep 1
	i=$((i + 1))
done
t_ok "nobody confirmed: the watcher rolled the run back by itself (after ${i} s)" \
	sh -c "gpuprov -q rollback --list | grep -q '${tab}rolled_back${tab}0${tab}.*${tab}timed_out\$'"
run=$(gpuprov -q rollback --list | tail -n1 | cut -f1)
cp "/var/lib/gpuprov/journal/$run.json" /out/confirm-timeout.json
cp "/var/lib/gpuprov/journal/$run.confirm.log" /out/confirm-timeout.log
sed 's/^/# watcher: /' /out/confirm-timeout.log
t_ok "... the bond is gone" test ! -e /sys/class/net/bond0
t_ok "... the port is free" test -z "$(master $p0)$(master $p1)"
t_ok "... the management address answers again" /tmp/reach
t_grep "... its log says so" /out/confirm-timeout.log "rolled back run $run"
t_exit "... a confirm now is too late (6)" 6 script -qec "gpuprov confirm" /dev/null

gpuprov -p $B --only bond --confirm-within 15 apply --yes >/tmp/capply2.log 2>&1
t_exit "apply --confirm-within 15: the run waits (0)" 0 sh -c "exit $?"
t_exit "confirm from the session that applied: refused (2)" 2 gpuprov confirm
# script(1): a new session on a terminal of its own, as a new SSH login has
t_exit "confirm from a new session: confirmed (0)" 0 script -qec "gpuprov confirm" /dev/null
run=$(gpuprov -q rollback --list | tail -n1 | cut -f1)
deadline=$(sed -n 's/.*"deadline": \([0-9]*\).*/\1/p' "/var/lib/gpuprov/journal/$run.json")
while [ "$(date +%s)" -le "$deadline" ]; do sleep 1; done
sleep 2
t_ok "past the deadline, the confirmed bond stays" test "$(master $p0)$(master $p1)" = bond0bond0
t_ok "... rollback --list: confirmed" sh -c "gpuprov -q rollback --list | grep -q '${tab}done${tab}.*${tab}confirmed\$'"
t_ok "... the watcher left" sh -c "! ps | grep -v grep | grep -q 'confirm watch'"
gpuprov rollback --yes >/tmp/crb.log 2>&1
t_exit "rollback of the confirmed run" 0 sh -c "exit $?"
t_done
