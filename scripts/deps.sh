#!/bin/sh
# Installs the Debian packages gpuprov builds and tests with, when missing:
#
#   sh scripts/deps.sh build     what `make` and `make demo` need
#   sh scripts/deps.sh           ... and what `make check` needs
#   sh scripts/deps.sh --lab     ... and the lab's (tests/lab/lab.sh)
#
# A no-op when everything is there.  Only Debian's packages, and what
# their maintainer scripts would create (the libvirt-qemu user).
set -eu

# build, and the fixture hosts the demo reads (tests/fixtures/mkhost.py)
pkgs="gcc make pkg-config libc6-dev libpci-dev libkmod-dev libnl-3-dev libnl-route-3-dev
libinih-dev libvirt-dev libxml2-dev libjson-c-dev python3"
if [ "${1:-}" != build ]; then
	# unit tests, CLI tests, benchmark, fuzzing, man page lint
	pkgs="$pkgs libcmocka-dev pciutils kmod clang libclang-rt-14-dev clang-format mandoc strace"
	# the Debian package (tests/cli/t_deb.sh: built from a copy made by cpio) and its
	# bash completion
	pkgs="$pkgs dpkg-dev debhelper lintian bash-completion cpio"
	# the report, rendered in a real browser (tests/report/check.py); patch(1) for plan --diff
	pkgs="$pkgs chromium libxml2-utils patch"
	# the Ansible collection (ansible/): ansible-core, and what ansible-test
	# sanity and the module unit tests run offline with (tests/cli/t_ansible_*.sh)
	pkgs="$pkgs ansible-core pylint yamllint python3-pycodestyle python3-voluptuous
python3-pytest python3-venv"
	# libvirt's own QEMU driver, in-process, to prove the domain XML
	pkgs="$pkgs libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86 ovmf"
	# private mount namespaces for the tests that stand in for the host's
	# /dev/kvm, huge pages, lock and state (unshare, setpriv, mount)
	pkgs="$pkgs util-linux mount passwd"
	# busybox's timeout, as a minimal host has it (the Ansible module's tests)
	pkgs="$pkgs busybox-static"
fi
# the lab; its Debian host for the reboot scenario: debootstrap, mkfs.ext4 -d
[ "${1:-}" = "--lab" ] && pkgs="$pkgs iproute2 debootstrap e2fsprogs"

# libvirt's QEMU driver, even embedded (qemu:///embed), resolves its
# default user before it reads qemu.conf: "Failed to parse user
# 'libvirt-qemu'" without it.  libvirt-daemon-system's postinst creates that
# user; the tests need only the driver, so create the same system user and
# group here rather than install (and start) the daemon.
need_user=
[ "${1:-}" = build ] || getent passwd libvirt-qemu >/dev/null || need_user=libvirt-qemu

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing$need_user" ] && exit 0

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "deps: run as root, or install:$missing${need_user:+ (and the system user $need_user)}" >&2
		exit 1
	}
	SUDO=sudo
fi
if [ -n "$missing" ]; then
	echo "deps: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[ -n "$need_user" ] || exit 0
echo "deps: creating the system user libvirt-qemu (as libvirt-daemon-system does)" >&2
getent group libvirt-qemu >/dev/null || $SUDO groupadd --system libvirt-qemu
getent group kvm >/dev/null || $SUDO groupadd --system kvm
$SUDO useradd --system --gid libvirt-qemu --groups kvm --home-dir /var/lib/libvirt \
	--no-create-home --shell /usr/sbin/nologin --comment "Libvirt Qemu" libvirt-qemu
