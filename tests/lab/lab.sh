#!/bin/sh
# The lab: a real Debian kernel under QEMU (TCG) with an emulated IOMMU, NUMA
# nodes, PCIe switches and NICs, running gpuprov inside.
#
#   tests/lab/lab.sh [TOPOLOGY ...]      default: vmstart, every other tests/lab/topo/*.qemu, then ovmf, reboot
#
# "ovmf" is not a topology: tests/lab/ovmf.sh boots gpuprov's domain XML on
# OVMF under libvirt's embedded QEMU driver and checks the 64-bit window.
# "reboot" is not one either: tests/lab/reboot.sh boots a Debian 12 system
# (systemd, udev, networkd; its root file system built once by debootstrap
# into the cache, tests/lab/debian-image.sh), applies, reboots it for real,
# checks what came back, rolls back and reboots again.
#
# "vmstart" is a topology whose lab host runs this machine's own userland
# (its root over 9p under an overlay: libvirt, QEMU, OVMF) and starts the VM
# gpuprov defines with the devices it bound (tests/lab/vmstart/host.sh), runs
# its firmware (OVMF) until it has numbered the buses and placed the BARs, and
# compares QEMU's view of that with gpuprov's predictions;
# GP_LAB_VMSTART_GUEST=1 also runs the nested guest's kernel and compares its
# own view of its PCI functions (far slower: raise GP_LAB_TIMEOUT, e.g. 900).
#
# For each topology: build an initramfs (busybox, iproute2, build/gpuprov and
# its libraries, the kernel modules with depmod, the lab profiles, the
# scenario), boot it, read TAP from the serial console, then run the host-side
# checks (tests/lab/verify.py) on what the guest left in a 9p share.  Fails on
# any "not ok", a missing or short plan, or a boot that does not finish.
# Prints one line per test ("ok"/"not ok") and "lab: N passed, N failed".
set -eu
cd "$(dirname "$0")/../.."
TOP=$(pwd)
LAB=$TOP/tests/lab
CACHE=${GP_LAB_CACHE:-/var/cache/gpuprov-lab}
WORK=$TOP/build/lab
BOOT_TIMEOUT=${GP_LAB_TIMEOUT:-480}

log() { echo "lab: $*" >&2; }

# ---- the kernel: Debian's, unpacked into a cache, never installed ----
kernel() {
	[ -f "$CACHE/release" ] && [ -d "$CACHE/root/lib/modules/$(cat "$CACHE/release")" ] && return 0
	mkdir -p "$CACHE"
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1)
	[ -n "$pkg" ] || { apt-get update -qq && pkg=$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1); }
	log "fetching $pkg"
	(cd "$CACHE" && rm -f linux-image-*.deb && apt-get download "$pkg" >/dev/null 2>&1) ||
		(cd "$CACHE" && chmod 777 . && apt-get download "$pkg" >/dev/null)
	rm -rf "$CACHE/root"
	dpkg-deb -x "$CACHE"/linux-image-*.deb "$CACHE/root"
	release=${pkg#linux-image-}
	depmod -b "$CACHE/root" "$release"
	echo "$release" >"$CACHE/release"
}

# ---- copy a binary and the libraries it needs ----
copy_bin() {
	bin=$1
	dest=$2
	mkdir -p "$ROOTFS$(dirname "$dest")"
	cp -L "$bin" "$ROOTFS$dest"
	ldd "$bin" | awk '/=>/ { print $3 } /^[ \t]*\// { print $1 }' | while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$ROOTFS$(dirname "$lib")"
		[ -f "$ROOTFS$lib" ] || cp -L "$lib" "$ROOTFS$lib"
	done
}

# Python, Ansible's module_utils and the collection's modules, for the
# ansible scenario: the module gpuprov.fleet.gpuprov run in the guest as
# Ansible runs a module on a managed host (python3 MODULE ARGS-FILE)
python_rootfs() {
	copy_bin /usr/bin/python3.11 /usr/bin/python3
	mkdir -p "$ROOTFS/usr/lib/python3/dist-packages/ansible" \
		"$ROOTFS/usr/lib/python3/dist-packages/ansible_collections/gpuprov/fleet"
	(cd /usr/lib && tar cf - --exclude=test --exclude=tests --exclude=idlelib \
		--exclude=tkinter --exclude=ensurepip --exclude=lib2to3 --exclude='config-3*' \
		python3.11) | tar xf - -C "$ROOTFS/usr/lib"
	for so in /usr/lib/python3.11/lib-dynload/*.so; do
		ldd "$so" | awk '/=>/ { print $3 }' | while read -r lib; do
			[ -f "$ROOTFS$lib" ] || { mkdir -p "$ROOTFS$(dirname "$lib")" && cp -L "$lib" "$ROOTFS$lib"; }
		done
	done
	a=/usr/lib/python3/dist-packages/ansible
	cp -r "$a/__init__.py" "$a/release.py" "$a/_vendor" "$a/module_utils" "$ROOTFS$a/"
	cp -r "$TOP/ansible/plugins" "$ROOTFS/usr/lib/python3/dist-packages/ansible_collections/gpuprov/fleet/"
}

MODULES="virtio_pci virtio_net virtio_blk e1000e vfio-pci vfio_iommu_type1 bonding bridge veth ext4 crc32c_generic 9pnet_virtio 9p overlay"

initramfs() {
	topo=$1
	ROOTFS=$WORK/$topo/rootfs
	rm -rf "$ROOTFS"
	mkdir -p "$ROOTFS"/bin "$ROOTFS"/sbin "$ROOTFS"/etc/gpuprov "$ROOTFS"/proc "$ROOTFS"/sys \
		"$ROOTFS"/dev "$ROOTFS"/tmp "$ROOTFS"/run "$ROOTFS"/out "$ROOTFS"/var/lib \
		"$ROOTFS"/lib/modules
	cp /bin/busybox "$ROOTFS/bin/busybox"
	# iproute2 in /usr/sbin, ahead of busybox's own ip applet in PATH
	copy_bin "$(command -v ip)" /usr/sbin/ip
	copy_bin "$TOP/build/gpuprov" /usr/sbin/gpuprov
	# script(1): a terminal for what gpuprov shows only on one (progress)
	copy_bin "$(command -v script)" /usr/sbin/script
	mkdir -p "$ROOTFS/lib64"
	cp -L /lib64/ld-linux-x86-64.so.2 "$ROOTFS/lib64/"
	# the modules gpuprov and the scenarios need, and what they depend on
	rel=$(cat "$CACHE/release")
	# shellcheck disable=SC2086
	modprobe -a -d "$CACHE/root" -S "$rel" --show-depends $MODULES |
		awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
		relpath=${ko#*/lib/modules/$rel/}
		mkdir -p "$ROOTFS/lib/modules/$rel/$(dirname "$relpath")"
		cp "$CACHE/root/lib/modules/$rel/$relpath" "$ROOTFS/lib/modules/$rel/$relpath"
	done
	cp "$CACHE/root/lib/modules/$rel"/modules.builtin* "$CACHE/root/lib/modules/$rel"/modules.order \
		"$ROOTFS/lib/modules/$rel/"
	depmod -b "$ROOTFS" "$rel"
	cp "$LAB"/profiles/*.ini "$TOP"/profiles/*.ini "$ROOTFS/etc/gpuprov/"
	mkdir -p "$ROOTFS/usr/local/share/gpuprov/templates"
	cp "$TOP"/templates/* "$ROOTFS/usr/local/share/gpuprov/templates/"
	if [ "$topo" = ansible ]; then python_rootfs; fi
	cp "$LAB/tap.sh" "$ROOTFS/tap.sh"
	# where the tree and the kernel cache are, for a scenario that reads them
	# through the host's root (vmstart)
	echo "$TOP" >"$ROOTFS/lab-top"
	echo "$CACHE" >"$ROOTFS/lab-cache"
	# the boot deadline, for a scenario's own waits (vmstart's guest firmware)
	echo "$BOOT_TIMEOUT" >"$ROOTFS/lab-timeout"
	# vmstart's nested guest run (tests/lab/vmstart/host.sh), when asked for
	[ -z "${GP_LAB_VMSTART_GUEST:-}" ] || echo "$BOOT_TIMEOUT" >"$ROOTFS/lab-guest-stage"
	cp "$LAB/scenarios/$topo.sh" "$ROOTFS/scenario.sh"
	cp "$LAB/init" "$ROOTFS/init"
	chmod +x "$ROOTFS/init"
	(cd "$ROOTFS" && find . | cpio -o -H newc --quiet) >"$WORK/$topo/initrd"
}

# QEMU arguments of a topology: one per line, $PORT0.. replaced by free UDP
# ports, $DISK by a fresh 16 MiB scratch image
qemu_args() {
	base=$(( 20000 + ($$ % 20000) ))
	sed -e '/^#/d' -e '/^$/d' -e "s|\$DISK|$WORK/$1/disk.img|g" \
		-e "s/\$PORT0/$base/g" -e "s/\$PORT1/$((base + 1))/g" \
		-e "s/\$PORT2/$((base + 2))/g" -e "s/\$PORT3/$((base + 3))/g" "$LAB/topo/$1.qemu"
}

PASS=0
FAIL=0

count_tap() {
	# shellcheck disable=SC2016
	out=$(awk -v topo="$2" '
		/^1\.\.[0-9]+/ { split($0, a, "."); plan = a[3] + 0 }
		/^ok [0-9]+/ { pass++; print topo ": " $0 }
		/^not ok [0-9]+/ { fail++; print topo ": " $0 }
		END { printf "COUNT %d %d %d\n", pass, fail, plan }' "$1")
	printf '%s\n' "$out" | grep -v '^COUNT'
	set -- $(printf '%s\n' "$out" | sed -n 's/^COUNT //p')
	PASS=$((PASS + $1))
	FAIL=$((FAIL + $2))
	if [ "$3" -eq 0 ]; then
		echo "not ok - $topo: no TAP plan"
		FAIL=$((FAIL + 1))
	elif [ $(($1 + $2)) -ne "$3" ]; then
		echo "not ok - $topo: plan 1..$3, ran $(($1 + $2))"
		FAIL=$((FAIL + 1))
	fi
}

run() {
	topo=$1
	mkdir -p "$WORK/$topo"
	rm -rf "$WORK/$topo/out"
	mkdir -p "$WORK/$topo/out"
	initramfs "$topo"
	rm -f "$WORK/$topo/disk.img"
	truncate -s 16M "$WORK/$topo/disk.img"
	rel=$(cat "$CACHE/release")
	log "booting $topo"
	start=$(date +%s)
	# a topology's "#timeout N" line: N times the boot timeout (a nested VM)
	mult=$(sed -n 's/^#timeout \([0-9]*\)$/\1/p' "$LAB/topo/$topo.qemu")
	# no_timer_check: under TCG on a loaded machine the kernel's check of the
	# timer through the emulated interrupt remapping can miss its ticks and
	# panic ("timer doesn't work through Interrupt-remapped IO-APIC")
	# shellcheck disable=SC2046
	set +e
	timeout $((BOOT_TIMEOUT * ${mult:-1})) qemu-system-x86_64 -accel tcg -cpu max -m 2048 -smp 4 \
		-display none -no-reboot -nodefaults -serial stdio -monitor none \
		-kernel "$CACHE/root/boot/vmlinuz-$rel" -initrd "$WORK/$topo/initrd" \
		-append "console=ttyS0 intel_iommu=on iommu=pt no_timer_check quiet panic=-1" \
		-virtfs local,path="$WORK/$topo/out",mount_tag=out,security_model=none \
		$(qemu_args "$topo") >"$WORK/$topo/console.log" 2>&1 </dev/null
	rc=$?
	set -e
	log "$topo: QEMU exited $rc after $(( $(date +%s) - start )) s"
	if ! grep -q '^GPUPROV-LAB-END' "$WORK/$topo/console.log"; then
		echo "not ok - $topo: the scenario did not finish (QEMU exit $rc); tail of the console:"
		tail -25 "$WORK/$topo/console.log" | sed 's/^/# /'
		FAIL=$((FAIL + 1))
		return
	fi
	tr -d '\r' <"$WORK/$topo/console.log" | sed -n '/^GPUPROV-LAB-START/,/^GPUPROV-LAB-END/p' >"$WORK/$topo/tap"
	count_tap "$WORK/$topo/tap" "$topo"
	python3 "$LAB/verify.py" "$topo" "$WORK/$topo/out" >"$WORK/$topo/verify.tap" 2>&1 || true
	count_tap "$WORK/$topo/verify.tap" "$topo host-side"
}

sh "$TOP/scripts/deps.sh" --lab
kernel
[ -x "$TOP/build/gpuprov" ] || make -C "$TOP" -s all
if [ $# -eq 0 ]; then
	# vmstart first: the test suite's second lane waits for it (tests/run.sh)
	set -- vmstart $(cd "$LAB/topo" && ls *.qemu | sed 's/\.qemu$//' | grep -vx vmstart) ovmf reboot
fi
for t in "$@"; do
	if [ "$t" = reboot ]; then
		# persistence through real reboots of a Debian system (tests/lab/reboot.sh)
		log "booting reboot (Debian 12, systemd; three boots)"
		mkdir -p "$WORK"
		sh "$LAB/reboot.sh" >"$WORK/reboot.tap" 2>"$WORK/reboot.log" ||
			echo "not ok - reboot: reboot.sh failed (see $WORK/reboot.log)" >>"$WORK/reboot.tap"
		sed 's/^/lab: /' "$WORK/reboot.log" >&2
		count_tap "$WORK/reboot.tap" reboot
		continue
	fi
	if [ "$t" = ovmf ]; then
		# the 64-bit MMIO window booted on OVMF (tests/lab/ovmf.sh)
		log "booting ovmf"
		mkdir -p "$WORK"
		sh "$LAB/ovmf.sh" >"$WORK/ovmf.tap" 2>"$WORK/ovmf.log"
		count_tap "$WORK/ovmf.tap" ovmf
		continue
	fi
	run "$t"
done
echo "lab: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
