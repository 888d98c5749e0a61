#!/bin/sh
# Installs the Debian packages gpuprov builds and tests with, when missing.
# Run by `make demo` and `make check`; a no-op when everything is there.
set -eu

# build and unit tests
pkgs="gcc make pkg-config libc6-dev libpci-dev libkmod-dev libnl-3-dev libnl-route-3-dev
libinih-dev libvirt-dev libxml2-dev libjson-c-dev libcmocka-dev"
# fixtures, CLI tests, benchmark, fuzzing, man page lint
pkgs="$pkgs python3 pciutils kmod clang libclang-rt-14-dev clang-format mandoc strace"
# the Debian package (tests/cli/t_deb.sh) and its bash completion
pkgs="$pkgs dpkg-dev debhelper lintian bash-completion"
# the report, rendered in a real browser (tests/report/check.py); patch(1) for plan --diff
pkgs="$pkgs chromium libxml2-utils patch"
# the Ansible collection (ansible/): ansible-core, and what ansible-test
# sanity and the module unit tests run offline with (tests/cli/t_ansible_*.sh)
pkgs="$pkgs ansible-core pylint yamllint python3-pycodestyle python3-voluptuous python3-pytest
python3-venv"
# libvirt's own QEMU driver, in-process, to prove the domain XML
pkgs="$pkgs libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86 ovmf"
# the lab; its Debian host for the reboot scenario: debootstrap, mkfs.ext4 -d
[ "${1:-}" = "--lab" ] && pkgs="$pkgs busybox-static iproute2 cpio debootstrap e2fsprogs"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "deps: run as root, or install:$missing" >&2
		exit 1
	fi
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
