#!/bin/sh
# The guest's 64-bit MMIO window, proven on real firmware: gpuprov's domain
# XML booted under libvirt's in-process QEMU driver (qemu:///embed) with
# Debian's OVMF, the GPUs replaced by ivshmem-plain stand-ins with the BAR
# sizes of a real H200 (256 GiB + 16 MiB + 32 MiB, tests/lab/standin.py) on
# the same guest root ports, a Debian kernel reading back what was assigned.
# OVMF honours X-PciMmio64Mb only where its own window, 2^(bits-3), is
# smaller: <maxphysaddr mode='emulate' bits='42'/> (44 for eight GPUs);
# Debian 11's OVMF (edk2 2020.11) too, which always honours it.
# Every 256 GiB BAR must get an address; main's old value (BARs packed,
# +25 %, a power of two) is booted too and must leave one without.  The
# GPUs' bus IDs in `gpuprov nccl-topo` must be where the guest kernel finds
# the stand-ins (function 0 of each), as NCCL in the guest would look them up.
# Prints TAP.  Needs build/gpuprov, the fixtures and lab.sh's kernel cache.
set -u
cd "$(dirname "$0")/../.."
TOP=$(pwd)
CACHE=${GP_LAB_CACHE:-/var/cache/gpuprov-lab}
TIMEOUT=${GP_LAB_TIMEOUT:-300}
D12=/usr/share/OVMF
D11=$CACHE/ovmf-bullseye/usr/share/OVMF
W=$TOP/build/lab/ovmf
SHM=gpuprov-mmio-$$
BARS=262144,16,32 # MiB, one H200 (tests/fixtures/captured/h200x2-guest-sysfs.tgz)
rel=$(cat "$CACHE/release")
KERNEL=$CACHE/root/boot/vmlinuz-$rel
root=$W/embed

cleanup() { rm -f /dev/shm/"$SHM"-*; }
trap cleanup EXIT
rm -rf "$W"
mkdir -p "$W/rootfs/bin" "$root/etc"
cp /bin/busybox "$W/rootfs/bin/busybox"
cp tests/lab/ovmf-init "$W/rootfs/init"
(cd "$W/rootfs" && find . | cpio -o -H newc --quiet) >"$W/initrd"
# the driver resolves its default user first (scripts/deps.sh creates it)
id libvirt-qemu >/dev/null 2>&1 || { echo "no system user libvirt-qemu: run sh scripts/deps.sh" >&2; exit 1; }
# without stdio_handler = "file" the embedded driver wants virtlogd to start a domain
printf 'user = "root"\ngroup = "root"\nstdio_handler = "file"\n' >"$root/etc/qemu.conf"
[ -d build/hosts/h200x8 ] || make -s fixtures

# Debian 11's OVMF (edk2 2020.11), fetched once into the cache with a private
# sources list: it honours X-PciMmio64Mb at any address width
bullseye_ovmf() {
	[ -f "$D11/OVMF_CODE_4M.fd" ] && return 0
	apt=$CACHE/apt-bullseye
	rm -rf "$apt" "$CACHE/ovmf-bullseye"
	mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial"
	# the archive this machine's apt uses (tests/lab/mirror.py), for bullseye
	mirror=$(python3 tests/lab/mirror.py) || return 1
	printf 'Types: deb\nURIs: %s\nSuites: bullseye\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$mirror" >"$apt/parts/bullseye.sources"
	set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt/parts" \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
	apt-get "$@" update >/dev/null 2>&1 || return 1
	v=$(apt-cache "$@" madison ovmf | awk '/bullseye/ { print $3; exit }')
	(cd "$apt" && apt-get "$@" download "ovmf=$v" >/dev/null 2>&1) || return 1
	dpkg-deb -x "$apt"/ovmf_*.deb "$CACHE/ovmf-bullseye"
}

# main's formula before the fix: every device's BARs packed, +25 %, a power of two
old_window() { # GPUS -> MiB
	python3 - "$1" "$BARS" <<'PY'
import sys
n, bars = int(sys.argv[1]), [int(b) << 20 for b in sys.argv[2].split(",")]
def p2(v):
    p = 1
    while p < v:
        p <<= 1
    return p
size, align = sum(p2(b) for b in bars), max(p2(b) for b in bars)
addr = 0
for _ in range(n):
    addr = (addr + align - 1) // align * align + size
print(max(p2(addr + addr // 4), 32 << 30) >> 20)
PY
}

# boot NAME XML BITS [WINDOW_MIB] -> $W/NAME.console; prints the window booted
boot() {
	bn=$1
	con=$W/$bn.console
	python3 tests/lab/standin.py "$2" "$W/$bn.xml" "$BARS" "$FW/OVMF_CODE_4M.fd" \
		"$FW/OVMF_VARS_4M.fd" "$W/$bn.nvram" \
		"$KERNEL" "$W/initrd" "$con" "$3" "$SHM-$bn" ${4:-} || return 1
	sed -i "s|<name>[^<]*</name>|<name>$bn</name>|" "$W/$bn.xml"
	truncate -s 1M "$W/$bn.nvram.disk"
	{
		echo "define $W/$bn.xml"
		echo "start $bn"
		i=0
		while [ $i -lt "$TIMEOUT" ] && ! grep -q GPUPROV-MMIO-END "$con" 2>/dev/null; do
			sleep 1
			i=$((i + 1))
		done
		echo "destroy $bn"
		echo "undefine --nvram $bn"
	} | virsh -q -c "qemu:///embed?root=$root" >"$W/$bn.virsh" 2>&1
	rm -f /dev/shm/"$SHM-$bn"-*
	sed -n 's/.*X-PciMmio64Mb,string=\([0-9]*\).*/\1/p' "$W/$bn.xml"
}

# assigned NAME -> "A D": 256 GiB BARs with an address, ivshmem functions seen
assigned() {
	python3 - "$W/$1.console" <<'PY'
import sys
a = d = 0
for line in open(sys.argv[1], errors="replace"):
    f = line.split()
    if f[:1] == ["dev"] and f[2:3] == ["0x1af4:0x1110"]:
        d += 1
    if f[:1] == ["res"] and len(f) == 5:
        s, e = int(f[2], 16), int(f[3], 16)
        a += s != 0 and e - s + 1 == 256 << 30
print(a, d)
PY
}

T=0
tap() { T=$((T + 1)); echo "$1 $T - $2"; }

# case NAME HOST PROFILE BITS GPUS OLD(yes|no)
case_() {
	name=$1 host=$2 prof=$3 bits=$4 gpus=$5 old=$6
	"$TOP/build/gpuprov" -r "build/hosts/$host" -p "$prof" domxml -o "$W/$name.gen.xml" 2>/dev/null
	win=$(boot "$name" "$W/$name.gen.xml" "$bits")
	[ -f "$W/$name.console" ] || : >"$W/$name.console"
	set -- $(assigned "$name")
	if [ "$1" -eq "$gpus" ] && [ "$2" -eq $((3 * gpus)) ]; then
		tap ok "$name: gpuprov's X-PciMmio64Mb=$win at $bits bits: $1 of $gpus 256 GiB BARs assigned"
	else
		tap "not ok" "$name: gpuprov's X-PciMmio64Mb=$win at $bits bits: $1 of $gpus 256 GiB BARs assigned ($2 stand-in functions seen)"
		cat "$W/$name.virsh" "$W/$name.console" 2>/dev/null | grep -a "dmesg\|error" | tail -8 | sed 's/^/# /'
	fi
	"$TOP/build/gpuprov" -r "build/hosts/$host" -p "$prof" nccl-topo 2>/dev/null |
		sed -n 's/.*<pci busid="\([^"]*\)" class="0x03.*/\1/p' | sort >"$W/$name.nccl"
	tr -d '\r' <"$W/$name.console" | sed -n 's/^dev \([0-9a-f:]*\.0\) 0x1af4:0x1110$/\1/p' |
		sort >"$W/$name.seen"
	if [ -s "$W/$name.nccl" ] && cmp -s "$W/$name.nccl" "$W/$name.seen"; then
		tap ok "$name: nccl-topo's GPU bus IDs are the guest's: $(echo $(cat "$W/$name.nccl"))"
	else
		tap "not ok" "$name: nccl-topo's GPU bus IDs $(echo $(cat "$W/$name.nccl")), the guest's $(echo $(cat "$W/$name.seen"))"
	fi
	[ "$old" = yes ] || return 0
	old=$(old_window "$gpus")
	boot "$name-old" "$W/$name.gen.xml" "$bits" "$old" >/dev/null
	[ -f "$W/$name-old.console" ] || : >"$W/$name-old.console"
	set -- $(assigned "$name-old")
	if [ "$2" -eq $((3 * gpus)) ] && [ "$1" -lt "$gpus" ]; then
		tap ok "$name: main's old X-PciMmio64Mb=$old fails there: $1 of $gpus assigned"
	else
		tap "not ok" "$name: main's old X-PciMmio64Mb=$old: $1 of $gpus assigned, $2 stand-ins seen (expected fewer)"
	fi
}

echo "1..11"
FW=$D12 # Debian 12's OVMF, edk2 2022.11
case_ h200x2-1node h200x2-guest tests/cli/profiles/vm-h200.ini 42 2 yes
case_ h200x2-2nodes h200-2node tests/cli/profiles/vm-h200-2n.ini 42 2 yes
case_ h200x8 h200x8 tests/cli/profiles/vm-h200x8.ini 44 8 no
FW=$D11
if bullseye_ovmf; then
	case_ deb11-h200x2-2nodes h200-2node tests/cli/profiles/vm-h200-2n.ini 42 2 yes
else
	tap "not ok" "Debian 11's OVMF: cannot fetch it from bullseye"
	tap "not ok" "Debian 11's OVMF: cannot fetch it from bullseye"
fi
