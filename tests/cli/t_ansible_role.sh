#!/bin/sh
# The role through the collection's fleet playbook over four "hypervisors" on
# localhost, each a fixture tree (tests/integration/inventory.yml): a
# report-only run in batches of two (one host installs a built binary and its
# templates; every host gets its profile placed), then the applied state in
# check mode with diff.  The fleet summary on the controller must say which
# host is ready, pending, blocked and drifted; the second run must change
# nothing but report the pending applies (idempotence of the role).
. tests/ansible/lib.sh
W=$D/work
ev="-e gp=$G -e templates=$(pwd)/templates -e fixtures=$FIX -e profile=$PROFILE -e work=$W"

play() { # LOG ARGS...: the fleet playbook, its log kept
	log=$1; shift
	# shellcheck disable=SC2086
	ansible-playbook -i "$COLL/tests/integration/inventory.yml" gpuprov.fleet.fleet $ev "$@" \
		>"$D/$log" 2>&1 || { grep -B2 -A20 'FAILED\|ERROR' "$D/$log" | head -60; exit 1; }
}
summary() { # the states summary.json and summary.md give each host, as JSON
	/usr/bin/python3 - "$W/summary" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1] + '/summary.json'))
md = open(sys.argv[1] + '/summary.md').read()
want = json.loads(sys.argv[2])
got = {h['host']: h['status'] for h in doc['hosts']}
bad = got != want or any('| %s | %s |' % kv not in md for kv in want.items())
drift = [f['id'] for h in doc['hosts'] if h['host'] == 'hv-drifted' for f in h['drift']]
bad |= drift != ['drift.added', 'drift.added']
bad |= any(doc['counts'][s] != list(want.values()).count(s) for s in set(want.values()))
if bad:
    print('summary: want', want, 'got', got, doc['counts'], 'drift', drift)
sys.exit(bad)
PY
}
changed() { # LOG HOST: the changed count of HOST in the recap
	sed -n "s/^$2 *:.* changed=\([0-9]*\) .*/\1/p" "$D/$1"
}

play checked.log -e gpuprov_state=checked -e gpuprov_serial=2
[ -x "$W/hv-ready/sbin/gpuprov" ] && [ -f "$W/hv-ready/templates/vfio-rebind.sh" ] ||
	{ echo "binary and templates not installed"; exit 1; }
summary '{"hv-ready": "ready", "hv-pending": "ready", "hv-blocked": "blocked", "hv-drifted": "drifted"}'

play applied.log -e gpuprov_state=applied -e gpuprov_fail_on=[] --check --diff
summary '{"hv-ready": "ready", "hv-pending": "pending", "hv-blocked": "blocked", "hv-drifted": "drifted"}'
grep -q '^+device.bind 0000:41:00.0: vfio-pci' "$D/applied.log" || { echo "no plan diff shown"; exit 1; }
for h in hv-ready:0 hv-blocked:0 hv-pending:1 hv-drifted:1; do
	n=$(changed applied.log "${h%:*}")
	[ "$n" = "${h#*:}" ] || { echo "${h%:*}: changed=$n on the second run, want ${h#*:}"; exit 1; }
done
grep -A5 'PLAY RECAP' "$D/applied.log" | grep '^hv-'
