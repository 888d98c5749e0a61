#!/bin/sh
# QEMU's version: its binary is run (a process of 27 MB) only where a
# profile's [vm] or the profile command uses the version, never for scan or
# topo; dpkg's status is read a line at a time (never held whole) and says
# what it said when it was read whole: the first Version of the
# qemu-system-x86 stanza, nothing past a NUL byte.
set -eu
. "$(dirname "$0")/lib.sh"

# a QEMU that says who ran it
mkdir "$d/bin"
cat >"$d/bin/qemu-system-x86_64" <<EOQ
#!/bin/sh
echo ran >>"$d/qemu-ran"
echo "QEMU emulator version 9.9.1 (gpuprov test)"
EOQ
chmod 755 "$d/bin/qemu-system-x86_64"
cat >"$d/vm.ini" <<EOP
[gpus]
match = 10de:20b5
count = 2
[vm]
name = gp-test-vm
numa = none
output = $d/out/gp-test-vm.xml
define = no
EOP
chmod 644 "$d/vm.ini"
PATH=$d/bin:$PATH
export PATH
for cmd in scan topo; do
	"$G" $cmd >/dev/null 2>&1 || true
	[ ! -e "$d/qemu-ran" ] || fail "$cmd ran QEMU"
done
"$G" -p "$d/vm.ini" check >"$d/check" 2>&1 || true
[ -e "$d/qemu-ran" ] || { cat "$d/check"; fail "check with a [vm] did not ask QEMU"; }
rm "$d/qemu-ran"
"$G" -r build/hosts/r5350-ready profile discover >/dev/null 2>&1
[ ! -e "$d/qemu-ran" ] || fail "profile under -r ran the live QEMU"

# dpkg's status under -r, as the profile command quotes it
cp -a build/hosts/r5350-ready "$d/h"
mkdir -p "$d/h/var/lib/dpkg"
n=0
while IFS='|' read -r text want; do
	n=$((n + 1))
	# shellcheck disable=SC2059
	printf "$text" >"$d/h/var/lib/dpkg/status"
	got=$("$G" -r "$d/h" profile discover 2>&1 | sed -n 's/.*P2P in the guest: QEMU \(.*\) may not.*/\1/p;s/^gpudirect_clique = 0$/8.1 or later/p')
	[ "$got" = "$want" ] || fail "dpkg case $n: '$got', want '$want'"
done <<'EOC'
Package: qemu-system-x86\nVersion: 1:7.2+dfsg-7\n|7.2
Package: foo\nVersion: 7.0\n\nPackage: qemu-system-x86\nStatus: ok\nVersion: 8.2.1\n|8.1 or later
Package: qemu-system-x86\nVersion: abc\nVersion: 7.1\n|(version unknown)
Package: qemu-system-x86\nVersion: 7.1\000junk\n|7.1
Package: qemu-system-x86\000\nVersion: 7.1\n|(version unknown)
Package: qemu-system-x86\nVersion: 7.0|7.0
Package: qemu-system-x86\r\nVersion: 7.0\r\n|(version unknown)
Version: 7.0\nPackage: qemu-system-x86\n|(version unknown)
Package: qemu-system-x86\nVersion: 7.1\nPackage: qemu-system-x86\nVersion: 6.2\n|7.1
EOC
# over GP_DPKG_MAX (64 MiB) says nothing, even with the stanza first
printf 'Package: qemu-system-x86\nVersion: 7.1\n' >"$d/h/var/lib/dpkg/status"
truncate -s 65M "$d/h/var/lib/dpkg/status"
"$G" -r "$d/h" profile discover 2>&1 | grep -q 'QEMU (version unknown)' ||
	fail "a status over 64 MiB was read"
