#!/bin/sh
# make demo: gpuprov on the bundled sample host, an H3C UniServer R5350 G6
# with two A100 PCIe cards (tests/fixtures/hosts/r5350-ready.host), and on the
# same server with its second card moved to the other socket's slot.
set -u
cd "$(dirname "$0")/.."
G=build/gpuprov
HOST=build/hosts/r5350-ready
P=profiles/h3c-r5350-g6.ini

step() { printf '\n$ %s\n' "$*"; "$@"; echo "(exit status $?)"; }

step $G -r $HOST -p $P check
step $G -r $HOST -p $P topo
step $G -r $HOST -p $P plan
echo
echo "The VM definition apply would write (first lines and the parts gpuprov owns):"
$G -r $HOST -p $P domxml | grep -E '<name>|<memory unit|<vcpu |maxphysaddr|<cell |pcie-expander|<node>|hostdev mode|bus=.0x4[12].|ua-gpu[0-9]|gpudirect|X-PciMmio64Mb'
step $G -r $HOST -p $P scan
echo
echo "The same server with the second A100 in a slot of the other socket:"
step $G -r build/hosts/numa-split -p $P check
exit 0
