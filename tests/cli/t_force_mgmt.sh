#!/bin/sh
# --force-mgmt's scope is what gpuprov(8) says: plan and apply only (check
# refuses it, exit 4, and still reports bond.mgmt as a failure), the same as
# --accept bond.mgmt (the same steps and exit status, bond.mgmt listed as
# accepted, marked "(--force-mgmt)"), and nothing else: bond.port_master
# (a port of another bridge or bond) still blocks.
set -eu
. "$(dirname "$0")/lib.sh"
B="-r build/hosts/bond-problems -p tests/cli/profiles/bond-problems.ini --only bond"
st() { set +e; "$@" >"$d/out" 2>"$d/err"; echo $?; set -e; }

# shellcheck disable=SC2086
[ "$(st $G $B --json plan)" = 2 ] || fail "bond-problems: plan is not blocked without --force-mgmt"
cp "$d/out" "$d/plain.json"
# shellcheck disable=SC2086
[ "$(st $G $B --json --force-mgmt plan)" = 1 ] || fail "--force-mgmt: plan exit, want 1: $(cat "$d/err")"
cp "$d/out" "$d/force.json"
# shellcheck disable=SC2086
[ "$(st $G $B --json --accept bond.mgmt plan)" = 1 ] || fail "--accept bond.mgmt: plan exit, want 1"
cp "$d/out" "$d/accept.json"
python3 - "$d/plain.json" "$d/force.json" "$d/accept.json" <<'PY' || fail "--force-mgmt is not --accept bond.mgmt"
import json, sys
plain, force, accept = (json.load(open(f)) for f in sys.argv[1:])
assert [b.split()[0] for b in plain["blocked"]] == ["bond.mgmt"], plain["blocked"]
assert force["steps"] == accept["steps"] == plain["steps"], "steps differ"
assert force["blocked"] == accept["blocked"] == [], (force["blocked"], accept["blocked"])
assert force["accepted"] == [a + " (--force-mgmt)" for a in accept["accepted"]], force["accepted"]
assert [a.split()[0] for a in accept["accepted"]] == ["bond.mgmt"], accept["accepted"]
PY
# check does not take it, and reports bond.mgmt all the same
# shellcheck disable=SC2086
[ "$(st $G $B --force-mgmt check)" = 4 ] || fail "check --force-mgmt: not refused"
# shellcheck disable=SC2086
[ "$(st $G ${B% --only bond} --json check)" = 2 ] && python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
assert any(f["id"] == "bond.mgmt" and f["severity"] == "fail" for f in doc["findings"])
' "$d/out" || fail "check: bond.mgmt is not a failure"
# a port of another bridge or bond stays refused
[ "$(st $G -r build/hosts/ports-taken -p profiles/h3c-r5350-g6.ini --only bond --force-mgmt --json plan)" = 2 ] ||
	fail "ports-taken --force-mgmt: not blocked"
grep -q '"bond.port_master ' "$d/out" || fail "ports-taken --force-mgmt: bond.port_master not the blocker"
exit 0
