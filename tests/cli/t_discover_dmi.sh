#!/bin/sh
# profile discover copies the DMI product name into [server] model only when
# the profile reads it back as exactly that; a name with newlines, '[', ';',
# '#' or control characters (dmi-inject) is left out, so it cannot add keys
# or sections (a [vm] uri that runs a program) to the profile it writes.
set -eu
. "$(dirname "$0")/lib.sh"

sections() { grep '^\[' "$1" | tr '\n' ' '; }

$G -r build/hosts/r5350-ready -o "$d/ref.ini" profile discover
$G -r build/hosts/dmi-inject -o "$d/inj.ini" profile discover 2>"$d/err"
$G profile validate "$d/inj.ini" >/dev/null || fail "the discovered profile does not validate"
[ "$(sections "$d/inj.ini")" = "$(sections "$d/ref.ini")" ] ||
	fail "sections: $(sections "$d/inj.ini")"
! grep -q '^model\|^product' "$d/inj.ini" || fail "keys from the DMI name: $(cat "$d/inj.ini")"
# [vm] name and uri are discover's own, as on any host
[ "$(grep '^uri\|^name' "$d/inj.ini")" = "$(grep '^uri\|^name' "$d/ref.ini")" ] ||
	fail "keys from the DMI name: $(cat "$d/inj.ini")"
! grep -q "$(printf '[\001\033]')" "$d/inj.ini" || fail "control characters in the profile"
grep -q "model left out" "$d/err" || fail "no warning: $(cat "$d/err")"
# the rest is what the same machine without that name gets
grep -v '^model\|^product\|^; model\|^; is (' "$d/ref.ini" >"$d/ref.rest"
grep -v '^; model\|^; is (' "$d/inj.ini" | diff "$d/ref.rest" - || fail "the rest differs"

# a name the profile can hold reads back exactly (check prints the model)
want=$(cat build/hosts/dmi-odd/sys/class/dmi/id/product_name)
$G -r build/hosts/dmi-odd -o "$d/odd.ini" profile discover
$G -r build/hosts/dmi-odd -p "$d/odd.ini" check >"$d/out" || true
[ "$(head -1 "$d/out")" = "check against $d/odd.ini ($want)" ] || fail "model: $(head -1 "$d/out")"
