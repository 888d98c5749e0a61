#!/bin/sh
# The root file system of the lab's Debian 12 host (tests/lab/reboot.sh), made
# by Debian's own tools and cached beside the lab's kernel:
#
#   sh tests/lab/debian-image.sh       prints the cached tree's path
#
# debootstrap --variant=minbase with systemd as init, udev, kmod, iproute2
# (systemd-networkd is part of bookworm's systemd) and python3 (so that an
# apply through the Ansible module can run in it), then the modules of the
# lab's kernel (lab.sh fetched it into $CACHE) that the reboot scenario needs,
# with depmod.  The cache directory is named after a hash of this script and
# the kernel release: a change to either builds a new tree.  Built under a
# lock into a temporary directory, renamed when complete: a build that dies
# leaves nothing that looks finished.  Needs root (debootstrap) and the
# Debian archive this machine's apt uses (tests/lab/mirror.py; GP_LAB_MIRROR
# overrides it).
set -eu
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
CACHE=${GP_LAB_CACHE:-/var/cache/gpuprov-lab}
MIRROR=$(python3 "$(dirname "$SELF")/mirror.py")
SUITE=bookworm
PACKAGES=systemd-sysv,udev,kmod,iproute2,python3
# the drivers of the reboot topology and what gpuprov loads (vfio_virqfd:
# the kernel is 6.1, gpuprov's modules-load.d file names it)
MODULES="virtio_pci virtio_net virtio_blk e1000e vfio-pci vfio_iommu_type1 vfio_virqfd
bonding ext4 crc32c_generic 9pnet_virtio 9p"

log() { echo "debian-image: $*" >&2; }

rel=$(cat "$CACHE/release")
key=$({ cat "$SELF"; echo "$rel"; } | sha256sum | cut -c1-16)
D=$CACHE/debian-$key
[ -f "$D/done" ] && { echo "$D/root"; exit 0; }

mkdir -p "$CACHE"
exec 9>"$CACHE/debian.lock"
flock 9
[ -f "$D/done" ] && { echo "$D/root"; exit 0; }
T=$CACHE/debian-tmp.$$
rm -rf "$T"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T"
start=$(date +%s)
log "debootstrap $SUITE ($PACKAGES) into $D, once"
if ! debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$T/root" "$MIRROR" \
	>"$T/debootstrap.log" 2>&1; then
	tail -20 "$T/debootstrap.log" >&2
	exit 1
fi
rm -f "$T"/root/var/cache/apt/archives/*.deb "$T"/root/var/lib/apt/lists/*_*

# the lab kernel's modules: only those the scenario needs and their dependencies
# shellcheck disable=SC2086
modprobe -a -d "$CACHE/root" -S "$rel" --show-depends $MODULES |
	awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
	p=${ko#*/lib/modules/$rel/}
	mkdir -p "$T/root/lib/modules/$rel/$(dirname "$p")"
	cp "$CACHE/root/lib/modules/$rel/$p" "$T/root/lib/modules/$rel/$p"
done
cp "$CACHE/root/lib/modules/$rel"/modules.builtin* "$CACHE/root/lib/modules/$rel"/modules.order \
	"$T/root/lib/modules/$rel/"
depmod -b "$T/root" "$rel"

echo $(($(date +%s) - start)) >"$T/build-seconds"
log "built in $(cat "$T/build-seconds") s"
touch "$T/done"
rm -rf "$D"
mv "$T" "$D"
trap - EXIT
echo "$D/root"
