#!/bin/sh
# profile discover -o never replaces a profile someone may have edited:
# refused (exit 4, nothing changed) unless --force, which keeps the old one
# as FILE.bak (a second name of it: a link is never followed, and a write
# that fails leaves FILE as it was: t_write.sh).
set -eu
. "$(dirname "$0")/lib.sh"
H=$(gp_host r5350-ready)

$G -r $H -o "$d/p.ini" profile discover || fail "a new file: exit $?"
echo '; edited by hand' >>"$d/p.ini"
cp "$d/p.ini" "$d/edited"
set +e
$G -r $H -o "$d/p.ini" profile discover 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] || fail "existing file: exit $rc, want 4"
grep -q "'$d/p.ini' exists: not replaced (add --force" "$d/err" || fail "message: $(cat "$d/err")"
cmp -s "$d/p.ini" "$d/edited" || fail "the edited profile was changed"
[ ! -e "$d/p.ini.bak" ] || fail "a backup without --force"

$G -r $H -o "$d/p.ini" --force profile discover 2>"$d/err" || fail "--force: exit $?"
cmp -s "$d/p.ini.bak" "$d/edited" || fail "--force: the backup is not the edited file"
grep -q 'edited by hand' "$d/p.ini" && fail "--force: not replaced"
grep -q "kept the previous '$d/p.ini' as '$d/p.ini.bak'" "$d/err" || fail "--force said nothing"
$G profile validate "$d/p.ini" >/dev/null || fail "--force wrote an invalid profile"

# a link in the way is kept aside as a link, its target untouched
echo precious >"$d/victim"
rm "$d/p.ini"
ln -s "$d/victim" "$d/p.ini"
$G -r $H -o "$d/p.ini" --force profile discover 2>/dev/null || fail "--force over a link"
[ "$(cat "$d/victim")" = precious ] || fail "the link was followed"
[ -L "$d/p.ini.bak" ] && [ ! -L "$d/p.ini" ] || fail "the link was not kept aside"

