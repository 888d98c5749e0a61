#!/bin/sh
# The dry run says what apply would refuse or fail on before its first
# change: a read-only /etc (persist.readonly, from the host's mount table,
# blocking every step in plan as in apply, which refuses on the same
# blockers), huge pages the VM needs and its node lacks (vm.memory), the
# profile's trust (profile.trust: t_profile_trust.sh).  A writable host
# without /etc/gpuprov is ok: apply makes it, and the finding says so.
set -eu
. "$(dirname "$0")/lib.sh"
R5350=profiles/h3c-r5350-g6.ini
run() { # WHAT HOST PROFILE ARGS...: stdout in $d/out, the exit status echoed
	h=$1 p=$2
	shift 2
	set +e
	$G -r "$(gp_host "$h")" -p "$p" "$@" >"$d/out" 2>"$d/err"
	echo $?
	set -e
}

# /etc read-only: check fails, plan and report are blocked by it, --accept lets it through
[ "$(run etc-readonly $R5350 check)" = 2 ] || fail "etc-readonly: check does not fail"
grep -q "^FAIL  persist.readonly   host          mounted read-only: /etc, which holds" "$d/out" ||
	fail "etc-readonly: no persist.readonly failure: $(grep persist "$d/out")"
grep -q "mount -o remount,rw /etc" "$d/out" || fail "etc-readonly: the hint names no mount point"
[ "$(run etc-readonly $R5350 plan)" = 2 ] || fail "etc-readonly: plan is not refused"
grep -q "^  persist.readonly host: mounted read-only: /etc" "$d/out" || fail "etc-readonly: plan's blockers: $(cat "$d/out")"
[ "$(run etc-readonly $R5350 --json plan)" = 2 ] || fail "etc-readonly: plan --json is not refused"
python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
assert any(b.startswith("persist.readonly ") for b in doc["blocked"]), doc["blocked"]' "$d/out" ||
	fail "etc-readonly: plan --json's blocked"
[ "$(run etc-readonly $R5350 --accept persist.readonly plan)" = 1 ] ||
	fail "etc-readonly: --accept persist.readonly does not let it through"
[ "$(run etc-readonly $R5350 report)" = 2 ] || fail "etc-readonly: report is not NO-GO"
grep -q "^- \*\*persist.readonly\*\* host: mounted read-only" "$d/out" || fail "etc-readonly: the report's verdict"

# writable, /etc/gpuprov absent: ok, apply makes it; nothing blocks
[ "$(run etc-writable $R5350 -v check)" = 0 ] || fail "etc-writable: check does not pass"
grep -q "^ok    persist.readonly   host          writable: /var/lib/gpuprov, /etc/gpuprov," "$d/out" ||
	fail "etc-writable: $(grep -A1 persist "$d/out")"
grep -A1 "persist.readonly" "$d/out" | grep -q "(apply makes /etc/gpuprov)" ||
	fail "etc-writable: does not say apply makes /etc/gpuprov"
# without a mount table (a tree without /proc/self/mountinfo): not said
run r5350-ready $R5350 --json check >/dev/null
! grep -q persist.readonly "$d/out" || fail "r5350-ready: persist.readonly without a mount table"

# huge pages the VM needs and its node lacks: a failure that blocks the VM's steps
sed 's/^memory = .*/memory = 4TiB/' $R5350 >"$d/huge.ini"
grep -q '^hugepages = 1GiB' "$d/huge.ini" || fail "the shipped profile no longer asks for 1 GiB pages"
[ "$(run r5350-ready "$d/huge.ini" plan)" = 2 ] || fail "huge pages: plan is not refused"
grep -q "^  vm.memory a100-vm: cell 0 wants 4 TiB on node 0, which has .* of free" "$d/out" ||
	fail "huge pages: plan's blockers: $(cat "$d/out")"
