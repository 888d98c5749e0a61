#!/bin/sh
# libvirt and libxml2 are loaded at run time (sys/virt.c, sys/xml.c): the
# installed binary links neither (nor ICU and libstdc++, which libxml2
# pulls), and where libxml2 cannot be loaded (hidden under /dev/null in a
# private mount namespace) domxml says so and fails with status 4, while
# scan, which never needs it, prints what it prints with it.  (libvirt
# hidden: t_apply_vm.)
set -eu
. "$(dirname "$0")/lib.sh"
P=$(pwd)/build/gpuprov
H=$(gp_host r5350-ready)

ldd "$P" >"$d/ldd"
for lib in libvirt libxml2 libicu libstdc++; do
	! grep -q "$lib" "$d/ldd" || fail "build/gpuprov links $lib"
done
lib=$(ldconfig -p | awk '/libxml2\.so\.2 .*x86-64/ {print $NF; exit}')
[ -n "$lib" ] || fail "no libxml2.so.2 in ldconfig's cache"
hidden() {
	unshare -m --propagation private sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' \
		sh "$lib" "$P" "$@"
}
"$P" -r $H -p profiles/h3c-r5350-g6.ini domxml >"$d/vm.xml" || fail "domxml with libxml2 failed"
grep -q '<domain' "$d/vm.xml" || fail "domxml wrote no domain"
set +e
hidden -r $H -p profiles/h3c-r5350-g6.ini domxml >"$d/out" 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] && [ ! -s "$d/out" ] || { cat "$d/err"; fail "domxml without libxml2: exit $rc"; }
grep -qF "gpuprov: error: cannot load $lib: file too short (the package is libxml2)" "$d/err" ||
	{ cat "$d/err"; fail "domxml without libxml2 did not say why"; }
"$P" -r $H scan >"$d/scan.with"
hidden -r $H scan >"$d/scan.without" 2>"$d/err"
cmp -s "$d/scan.with" "$d/scan.without" && [ ! -s "$d/err" ] || fail "scan needs libxml2"
