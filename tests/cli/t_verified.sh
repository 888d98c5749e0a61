#!/bin/sh
# [server] verified = no is seen wherever the slot map is read: under check's
# header, in check --json ("slot_map_verified": false; it said nothing) and
# in the report's verdict (a GO on a guessed slot map read as a confirmed
# one).  With verified = yes none of them says it, and the findings and exit
# statuses are the same either way (the key is informational).
set -eu
. "$(dirname "$0")/lib.sh"
H=$(gp_host r5350-ready)
grep -qx 'verified = no' profiles/h3c-r5350-g6.ini || fail "the shipped R5350 profile says verified = no"
cp profiles/h3c-r5350-g6.ini "$d/no.ini"
sed 's/^verified = no$/verified = yes/' profiles/h3c-r5350-g6.ini >"$d/yes.ini"
NOTE="slot map not verified on hardware (verified = no)"
for v in no yes; do
	set +e
	$G -r $H -p "$d/$v.ini" check >"$d/$v.check" 2>&1
	echo $? >"$d/$v.rc"
	$G -r $H -p "$d/$v.ini" --json check >"$d/$v.json" 2>/dev/null
	$G -r $H -p "$d/$v.ini" report >"$d/$v.md" 2>/dev/null
	echo $? >>"$d/$v.rc"
	$G -r $H -p "$d/$v.ini" -o "$d/$v.html" report 2>/dev/null
	set -e
done
grep -q "^$NOTE" "$d/no.check" || fail "check: no note under the header"
! grep -q "not verified" "$d/yes.check" || fail "check, verified = yes: a note"
python3 - "$d/no.json" "$d/yes.json" <<'PY' || fail "check --json: slot_map_verified"
import json, sys
no, yes = (json.load(open(f)) for f in sys.argv[1:])
assert no["slot_map_verified"] is False and yes["slot_map_verified"] is True, (no, yes)
assert no["findings"] == yes["findings"] and no["summary"] == yes["summary"]
PY
for f in md html; do
	grep -q "slot map is not verified on hardware (verified = no)" "$d/no.$f" || fail "report ($f): no note"
	! grep -q "not verified on hardware" "$d/yes.$f" || fail "report ($f), verified = yes: a note"
done
cmp -s "$d/no.rc" "$d/yes.rc" || fail "exit statuses differ: $(cat "$d/no.rc") / $(cat "$d/yes.rc")"
# a profile without a slot map has nothing to verify: null
$G -r $H -p profiles/generic-2gpu.ini --json check 2>/dev/null |
	python3 -c 'import json, sys; assert json.load(sys.stdin)["slot_map_verified"] is None' ||
	fail "check --json without a slot map: slot_map_verified is not null"
exit 0
