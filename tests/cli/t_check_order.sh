#!/bin/sh
# check's text puts what needs the reader first: failures,
# then warnings, then one line counting them and the ok findings; -v lists
# each ok finding after the warnings.  Every finding of the JSON document is
# in the -v text, with its id and subject, and the count line agrees.
set -eu
. "$(dirname "$0")/lib.sh"

for args in "-r build/hosts/bars -p profiles/h3c-r5350-g6.ini" \
	"-r build/hosts/lab-messy -p tests/lab/profiles/lab-messy.ini" \
	"-r build/hosts/r5350-ready -p profiles/h3c-r5350-g6.ini"; do
	# shellcheck disable=SC2086
	{ $G $args check >"$d/plain" || true; }
	# shellcheck disable=SC2086
	{ $G -v $args check >"$d/all" 2>/dev/null || true; }
	# shellcheck disable=SC2086
	{ $G --json $args check >"$d/json" || true; }
	python3 - "$d" "$args" <<'PY' || fail "$args"
import json, re, sys
d, args = sys.argv[1], sys.argv[2]
doc = json.load(open(d + "/json"))
rank = {"fail": 0, "warn": 1, "ok": 2}
label = {"fail": "FAIL", "warn": "WARN", "ok": "ok"}
row = re.compile(r"^(FAIL|WARN|ok)  +(\S+) +(\S+)")

def findings(path):
    return [m.groups() for m in map(row.match, open(path)) if m]

want = [(label[f["severity"]], f["id"], f["subject"]) for f in doc["findings"]]
# the order of the checks within each severity, failures first
want.sort(key=lambda f: rank[{"FAIL": "fail", "WARN": "warn", "ok": "ok"}[f[0]]])
got = findings(d + "/all")
assert got == want, (args, got, want)
plain = findings(d + "/plain")
assert plain == [f for f in want if f[0] != "ok"], (args, plain)
s = doc["summary"]
count = "%d fail, %d warn, %d ok" % (s["fail"], s["warn"], s["ok"])
last = open(d + "/plain").read().splitlines()[-1]
assert last == count + (" (-v lists the ok findings)" if s["ok"] else ""), last
assert open(d + "/all").read().splitlines()[-1] == count
PY
done
echo "t_check_order: ok"
