#!/bin/sh
# The Debian package, built as a packager builds it: dpkg-buildpackage -us
# -uc -b in a clean copy of this tree (tracked and new files, no build/),
# then lintian at its default level (warnings and errors fail; the overrides
# in debian/ say why), then the .deb unpacked into a throwaway root
# (dpkg -x): the installed binary prints debian/changelog's version, checks a
# fixture host with an installed profile, and takes its templates from the
# root's /usr/share/gpuprov.
set -eu
. "$(dirname "$0")/lib.sh"
top=$(pwd)
ver=$(dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb=$d/gpuprov_${ver}_$arch.deb

mkdir "$d/src"
git ls-files -z --cached --others --exclude-standard | (cd "$top" && xargs -0 sh -c '
	for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
	(cd "$top" && cpio -0pdm --quiet "$d/src")
[ ! -e "$d/src/build" ] || fail "the copy is not clean"
(cd "$d/src" && DEB_BUILD_OPTIONS="parallel=2" dpkg-buildpackage -us -uc -b >"$d/build.log" 2>&1) ||
	{ tail -30 "$d/build.log"; fail "dpkg-buildpackage failed"; }
[ -f "$deb" ] || { ls "$d"; fail "no $deb"; }

# lintian at the default level: no error, no warning
lintian --fail-on error,warning "$d"/gpuprov_"${ver}"_"$arch".changes >"$d/lintian.log" 2>&1 ||
	{ cat "$d/lintian.log"; fail "lintian"; }

# the control fields: shlibs resolved, the optional parts recommended/suggested
dpkg-deb -f "$deb" Depends | grep -q 'libpci3' || fail "Depends without the shared libraries"
dpkg-deb -f "$deb" Recommends | grep -q 'libvirt-daemon-system' || fail "Recommends"
# libvirt and libxml2 are loaded at run time (dlopen): no shlibs dependency;
# libxml2 is a dependency by name, libvirt recommended
dpkg-deb -f "$deb" Depends | grep -q 'libxml2' || fail "Depends lacks libxml2"
dpkg-deb -f "$deb" Recommends | grep -q 'libvirt0' || fail "Recommends lacks libvirt0"
! dpkg-deb -f "$deb" Depends | grep -q 'libvirt' || fail "Depends names libvirt"
dpkg-deb -f "$deb" Suggests | grep -q 'network-manager | netplan.io | ifupdown' || fail "Suggests"

R=$d/root
dpkg -x "$deb" "$R"
for f in usr/sbin/gpuprov usr/share/man/man8/gpuprov.8.gz usr/share/man/man5/gpuprov.ini.5.gz \
	usr/share/gpuprov/profiles/h3c-r5350-g6.ini usr/share/gpuprov/templates/domain-q35-ovmf.xml \
	usr/share/gpuprov/templates/60-gpuprov-vfio.rules usr/share/bash-completion/completions/gpuprov \
	usr/share/doc/gpuprov/copyright usr/share/doc/gpuprov/changelog.gz; do
	[ -f "$R/$f" ] || fail "the package has no /$f"
done
G=$R/usr/sbin/gpuprov
[ "$("$G" --version)" = "gpuprov $ver" ] || fail "installed --version: $("$G" --version)"
H=$top/build/hosts/r5350-ready
P=$R/usr/share/gpuprov/profiles/h3c-r5350-g6.ini
rc=0
"$G" -v -r "$H" -p "$P" check >"$d/check.out" 2>"$d/check.err" || rc=$?
[ $rc -le 1 ] || { cat "$d/check.out"; fail "installed check: exit $rc"; }
grep -q '^ok    iommu.off' "$d/check.out" || fail "installed check: no findings"

# the templates: the root's /usr/share/gpuprov, not the source tree's
"$G" -v -r "$H" -p "$P" domxml >"$d/vm.xml" 2>"$d/domxml.err" || { cat "$d/domxml.err"; fail "domxml"; }
grep -q "templates from $R/usr/share/gpuprov/templates\$" "$d/domxml.err" ||
	{ cat "$d/domxml.err"; fail "templates not from the installed tree"; }
sed -i 's|<name>|<title>gpuprov-packaged-template</title><name>|' \
	"$R/usr/share/gpuprov/templates/domain-q35-ovmf.xml"
"$G" -r "$H" -p "$P" domxml | grep -q 'gpuprov-packaged-template' ||
	fail "domxml did not use the installed template"

cmp -s "$R/usr/share/bash-completion/completions/gpuprov" "$top/completion/gpuprov.bash" ||
	fail "the installed completion is not completion/gpuprov.bash"

# removing says which applied runs stay applied; purging keeps the journals and says so
dpkg-deb -e "$deb" "$d/ctl"
mkdir -m 700 "$d/journal"
J=$d/journal/20990101T000000Z-1.json
printf '{"schema_version": 1, "run_id": "20990101T000000Z-1", "status": "done", "steps": [{"kind": "domain.write", "subject": "x", "state": "done", "undo": {"file": {"path": "/var/lib/gpuprov/x.xml", "previous": null, "mode": 420}}}]}\n' >"$J"
chmod 600 "$J"
# a journal others may read: refused (invalid), yet its run may have changed the host
sed 's/Z-1/Z-2/' "$J" >"$d/journal/20990101T000000Z-2.json"
chmod 644 "$d/journal/20990101T000000Z-2.json"
# the lock of its own: the host's runs are not this test's
PATH=$R/usr/sbin:$PATH GPUPROV_STATE_DIR=$d/journal GPUPROV_RUN_DIR=$d/run \
	sh "$d/ctl/prerm" remove 2>"$d/prerm.err" || fail "prerm failed"
grep -q "not rolled back: 20990101T000000Z-1 20990101T000000Z-2\$" "$d/prerm.err" ||
	{ cat "$d/prerm.err"; fail "prerm: not the applied runs, the refused one too"; }
grep -q "gpuprov rollback" "$d/prerm.err" || fail "prerm: no way out named"
GPUPROV_STATE_DIR=$d/journal sh "$d/ctl/postrm" purge 2>"$d/postrm.err" || fail "postrm failed"
[ -f "$J" ] || fail "postrm purge removed the journal"
grep -q "keeping $d/journal" "$d/postrm.err" || { cat "$d/postrm.err"; fail "postrm: kept silently"; }
