#!/bin/sh
# Persistence proven by real reboots: the lab's Debian 12 host (systemd, udev,
# networkd; tests/lab/debian-image.sh) booted under QEMU/TCG on the reboot
# topology (tests/lab/reboot/reboot.qemu) from a disk image that it keeps
# across its reboots.  tests/lab/reboot/guest.sh runs one phase per boot:
# apply, `systemctl reboot`, check what systemd/udev/networkd brought back,
# rollback, `systemctl reboot`, check that nothing is left, power off.
# Prints TAP on stdout, its progress and timings on stderr.  Run by lab.sh
# (`tests/lab/lab.sh reboot`), which has fetched the kernel into the cache.
set -eu
cd "$(dirname "$0")/../.."
TOP=$(pwd)
LAB=$TOP/tests/lab
R=$LAB/reboot
CACHE=${GP_LAB_CACHE:-/var/cache/gpuprov-lab}
W=$TOP/build/lab/reboot
# each of the three boots of systemd under TCG
BOOT_TIMEOUT=${GP_LAB_TIMEOUT:-480}
rel=$(cat "$CACHE/release")

log() { echo "reboot: $*" >&2; }

t0=$(date +%s)
base=$(sh "$LAB/debian-image.sh")
rm -rf "$W"
mkdir -p "$W/out"
ROOT=$W/root
cp -a "$base" "$ROOT"

# ---- the host's own configuration (a copy: the cached tree stays as built) ----
echo "/dev/vda / ext4 rw,noatime 0 0" >"$ROOT/etc/fstab"
echo gpuprov-lab >"$ROOT/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 gpuprov-lab\n' >"$ROOT/etc/hosts"
echo 6770707270766c6162000000000000a1 >"$ROOT/etc/machine-id"
U=$ROOT/etc/systemd/system
mkdir -p "$U/multi-user.target.wants" "$U/sockets.target.wants" "$ROOT/etc/systemd/network"
ln -s /lib/systemd/system/systemd-networkd.service "$U/multi-user.target.wants/"
ln -s /lib/systemd/system/systemd-networkd.socket "$U/sockets.target.wants/"
# nothing that waits, nothing on the serial line but the kernel and the scenario
for u in systemd-networkd-wait-online.service serial-getty@ttyS0.service getty@tty1.service \
	getty-static.service e2scrub_reap.service apt-daily.timer apt-daily-upgrade.timer \
	dpkg-db-backup.timer e2scrub_all.timer fstrim.timer; do
	find "$U" -name "$u" -type l -delete
	ln -s /dev/null "$U/$u"
done
ln -sf /lib/systemd/system/multi-user.target "$U/default.target"
cp "$R/10-mgmt.network" "$ROOT/etc/systemd/network/"
# bonding loaded before networkd asks for a bond: under TCG on a loaded
# machine the kernel's own module load inside RTM_NEWLINK took longer than
# networkd's 25 s netlink timeout ("bond0: netdev could not be created:
# Connection timed out") and networkd then never enslaved the ports.  On real
# hardware that load takes milliseconds; gpuprov's files do not depend on it.
echo bonding >"$ROOT/etc/modules-load.d/gpuprov-lab.conf"
cp "$R/gpuprov-lab.service" "$U/"
ln -s /etc/systemd/system/gpuprov-lab.service "$U/multi-user.target.wants/"

# ---- fabric.mask: a stand-in for NVIDIA Fabric Manager (guest.sh's fabric block) ----
# Its unit where the nvidia-fabricmanager package puts it, enabled by the
# wants link `systemctl enable` makes; its process named as the real daemon
# (a copy of the guest's sleep).
cp "$ROOT/usr/bin/sleep" "$ROOT/usr/bin/nv-fabricmanager"
cp "$R/nvidia-fabricmanager.service" "$ROOT/usr/lib/systemd/system/"
ln -s /lib/systemd/system/nvidia-fabricmanager.service "$U/multi-user.target.wants/"
# ---- end of fabric.mask's stand-in ----

# ---- gpuprov, as `make install` puts it, with the libraries it was built with ----
cp "$TOP/build/gpuprov" "$ROOT/usr/local/sbin/gpuprov"
ldd "$TOP/build/gpuprov" | awk '/=>/ { print $3 }' | while read -r lib; do
	[ -f "$ROOT$lib" ] || cp -L "$lib" "$ROOT$lib"
done
# ---- huge pages: the VM's XML (hugepages.reserve's [vm]) is made through
# libxml2, which gpuprov loads at run time: ldd does not name it ----
xml=$(ldconfig -p | awk '$1 == "libxml2.so.2" && /x86-64/ { print $NF; exit }')
for lib in "$xml" $(ldd "$xml" | awk '/=>/ { print $3 }'); do
	[ -f "$ROOT$lib" ] || cp -L "$lib" "$ROOT$lib"
done
# ---- end of huge pages ----
mkdir -p "$ROOT/usr/local/share/gpuprov/templates" "$ROOT/usr/local/share/gpuprov-lab"
cp "$TOP"/templates/* "$ROOT/usr/local/share/gpuprov/templates/"
cp "$LAB/tap.sh" "$R/guest.sh" "$LAB/profiles/lab-reboot.ini" "$LAB/profiles/lab-fabric.ini" \
	"$ROOT/usr/local/share/gpuprov-lab/"
cp "$R/vm.xml" "$ROOT/usr/local/share/gpuprov-lab/" # huge pages: the VM's template

# ---- the disk, made without mounting anything ----
mkfs.ext4 -q -F -L gpuprov-lab -d "$ROOT" "$W/disk.img" 1G >/dev/null
rm -rf "$ROOT"

# ---- the initramfs: busybox, the disk's drivers ----
I=$W/initramfs
mkdir -p "$I/bin" "$I/proc" "$I/sys" "$I/dev"
cp /bin/busybox "$I/bin/busybox"
modprobe -a -d "$CACHE/root" -S "$rel" --show-depends virtio_pci virtio_blk ext4 crc32c_generic |
	awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
	p=${ko#*/lib/modules/$rel/}
	mkdir -p "$I/lib/modules/$rel/$(dirname "$p")"
	cp "$CACHE/root/lib/modules/$rel/$p" "$I/lib/modules/$rel/$p"
done
cp "$CACHE/root/lib/modules/$rel"/modules.builtin* "$CACHE/root/lib/modules/$rel"/modules.order \
	"$I/lib/modules/$rel/"
depmod -b "$I" "$rel"
cp "$R/init" "$I/init"
chmod +x "$I/init"
(cd "$I" && find . | cpio -o -H newc --quiet) >"$W/initrd"
t1=$(date +%s)
log "image and initramfs ready in $((t1 - t0)) s (Debian tree: $base)"

# ---- three boots, each a QEMU started on the same disk ----
# The guest reboots for real (`systemctl reboot`: systemd's whole shutdown, then
# the kernel's reboot); -no-reboot turns the reset into QEMU's exit, and the
# next boot is a fresh QEMU on the same disk, the hardware reset as at power-on.
# (Reset inside one TCG QEMU, the first boot after it ran systemd's start
# ~100 s slower here, generators starting at 87 s instead of 9 s.)
# no_timer_check: on a loaded machine the kernel's early check of the timer
# interrupt through the remapped IO-APIC timed out once and panicked (KVM
# guests skip that check too).
port=$((20000 + ($$ % 20000)))
: >"$W/console.log"
boot=0
rc=0
while [ $boot -lt 3 ]; do
	boot=$((boot + 1))
	b0=$(date +%s)
	set +e
	# shellcheck disable=SC2046
	timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 2048 -smp 1 \
		-display none -nodefaults -serial stdio -monitor none -no-reboot \
		-kernel "$CACHE/root/boot/vmlinuz-$rel" -initrd "$W/initrd" \
		-append "console=ttyS0 root=/dev/vda intel_iommu=on iommu=pt no_timer_check quiet panic=-1 ${GP_LAB_APPEND:-}" \
		-virtfs local,path="$W/out",mount_tag=out,security_model=none \
		$(sed -e '/^#/d' -e '/^$/d' -e "s|\$DISK|$W/disk.img|g" \
			-e "s/\$PORT0/$port/g" -e "s/\$PORT1/$((port + 1))/g" \
			-e "s/\$PORT2/$((port + 2))/g" -e "s/\$PORT3/$((port + 3))/g" "$R/reboot.qemu") \
		>>"$W/console.log" 2>&1 </dev/null
	rc=$?
	set -e
	log "boot $boot: QEMU exited $rc after $(($(date +%s) - b0)) s"
	[ $rc -eq 0 ] || break
	tr -d '\r' <"$W/console.log" | grep -q '^GPUPROV-LAB-END' && break
	tr -d '\r' <"$W/console.log" | tail -3 | grep -q 'reboot: Restarting system' || break
done
t2=$(date +%s)
log "$boot boots in $((t2 - t1)) s"
[ -f "$W/out/boot-times" ] && sed 's/^/reboot: uptime at initramfs end, ms at multi-user, s at scenario: /' \
	"$W/out/boot-times" >&2
if ! tr -d '\r' <"$W/console.log" | grep -q '^GPUPROV-LAB-END'; then
	echo "not ok - reboot: the scenario did not finish (QEMU exit $rc); tail of the console:"
	tr -d '\r' <"$W/console.log" | tail -30 | sed 's/^/# /'
	exit 0
fi
tr -d '\r' <"$W/console.log" | sed -n '/^GPUPROV-LAB-START/,/^GPUPROV-LAB-END/p'
