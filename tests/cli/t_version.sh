#!/bin/sh
# One version: debian/changelog's first entry (dpkg-parsechangelog reads it as
# dpkg-buildpackage does) is the Makefile's VERSION, what --version prints,
# and the "version" in the header of every JSON document.
set -eu
. "$(dirname "$0")/lib.sh"
want=$(dpkg-parsechangelog -S Version)
[ -n "$want" ] || fail "no version in debian/changelog"
mk=$(make -pn build/gpuprov 2>/dev/null | sed -n 's/^VERSION := //p' | head -1)
[ "$mk" = "$want" ] || fail "Makefile VERSION '$mk', debian/changelog '$want'"
for bin in $G build/gpuprov; do
	[ "$($bin --version)" = "gpuprov $want" ] || fail "$bin --version: $($bin --version)"
	[ "$($bin -V)" = "gpuprov $want" ] || fail "$bin -V: $($bin -V)"
done
check() {
	"$G" "$@" 2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
assert doc["version"] == sys.argv[1], doc.get("version")
assert list(doc)[:3] == ["schema_version", "version", "command"], list(doc)[:3]
' "$want" || fail "version in the JSON header: $*"
}
check --json --version
check --json -r build/hosts/r5350-ready scan
check --json -r build/hosts/r5350-ready -p profiles/h3c-r5350-g6.ini check
check --json -r build/hosts/r5350-ready frobnicate
