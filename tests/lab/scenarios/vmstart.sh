# The VM starts: the lab host's own userland is this machine's root file
# system (read-only over 9p, under a tmpfs overlay: libvirt, QEMU, OVMF,
# python3), with the lab kernel's modules; tests/lab/vmstart/host.sh runs in
# it (chroot) and prints the TAP.
TOP=$(cat /lab-top)
fail_setup() { echo "not ok 1 - vmstart: $1"; echo "1..1"; exit 0; }
modprobe overlay || fail_setup "no overlay module"
mkdir -p /lower /upper /h
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose hostroot /lower || fail_setup "no 9p root"
mount -t tmpfs -o mode=0755 tmpfs /upper
mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /h ||
	fail_setup "no overlay over the host's root"
mount -t proc proc /h/proc || fail_setup "no /proc in the overlay"
for m in sys dev dev/pts; do mount --bind /$m /h/$m || fail_setup "no /$m in the overlay"; done
# nothing of this machine's state: the lab host's own, empty
for t in run tmp var/lib/gpuprov var/lib/gpuprov-lab etc/gpuprov; do
	mkdir -p /h/$t && mount -t tmpfs -o mode=0755 tmpfs /h/$t || fail_setup "no tmpfs at /$t"
done
# a tree under one of those (a clone in /tmp, as CI makes): shown again, read-only
if [ ! -e "/h$TOP/tests/lab/vmstart/host.sh" ]; then
	mkdir -p "/h$TOP" && mount --bind "/lower$TOP" "/h$TOP" || fail_setup "no $TOP in the overlay"
fi
mkdir -p /h/lib/modules && mount --bind /lib/modules /h/lib/modules
mkdir -p /h/out && mount --bind /out /h/out
cp /tap.sh /h/tmp/tap.sh
cp /lab-cache /h/lab-cache-path
cp /lab-timeout /h/lab-timeout
[ ! -e /lab-guest-stage ] || cp /lab-guest-stage /h/lab-guest-stage
chroot /h /bin/sh "$TOP/tests/lab/vmstart/host.sh" "$TOP"
