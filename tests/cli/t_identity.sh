#!/bin/sh
# Another server's profile, or another machine's baseline, is said first and
# plainly: server.model (the profile's [server] product against the DMI
# product name) and drift.host (a baseline of another machine: its serial,
# else its DMI product, else its hostname; nothing else is then compared).
set -eu
. "$(dirname "$0")/lib.sh"
P=$(gp_profile h3c-r5350-g6)
first() { # FILE: the id and severity of the first finding not ok, then of server.model/drift.host
	python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
bad = [f for f in doc["findings"] if f["severity"] != "ok"]
print(*((bad[0]["id"], bad[0]["severity"]) if bad else ("none", "none")))
for f in doc["findings"]:
    if f["id"] in ("server.model", "drift.host"):
        print(f["id"], f["severity"], f["message"])
print("drift:", " ".join(sorted(f["id"] for f in doc["findings"] if f["id"].startswith("drift."))))
' "$1"
}
run() { # EXIT ARGS...: gpuprov --json ARGS, exit EXIT
	want=$1
	shift
	set +e
	$G --json "$@" >"$d/out" 2>"$d/err"
	rc=$?
	set -e
	[ $rc -eq "$want" ] || fail "$*: exit $rc, want $want: $(cat "$d/err")"
	first "$d/out" >"$d/f"
}

# the R5350 profile on a Supermicro: server.model fails, first
run 2 -r build/hosts/switch16 -p $P check
head -1 "$d/f" | grep -q '^server.model fail' || fail "not first: $(cat "$d/f")"
grep -q "^server.model fail this host is a 'SYS-821GE-TNHR' (DMI product name), the profile is for 'H3C UniServer R5350 G6'" "$d/f" ||
	fail "server.model: $(cat "$d/f")"
# on its own server: ok; the host's name in another case matches too
run 0 -r build/hosts/r5350-ready -p $P check
grep -q "^server.model ok this host is a 'UniServer R5350 G6'" "$d/f" || fail "ok: $(cat "$d/f")"
# a profile without [server] product is not judged (a generic profile)
run 0 -r build/hosts/r5350-ready -p profiles/generic-2gpu.ini check
grep -q '^server.model' "$d/f" && fail "generic profile judged: $(cat "$d/f")"
# a host whose DMI product cannot be read: a warning, not a verdict
cp -a build/hosts/r5350-ready "$d/nodmi"
rm "$d/nodmi/sys/class/dmi/id/product_name"
run 1 -r "$d/nodmi" -p $P check
grep -q "^server.model warn cannot read this host's DMI product name" "$d/f" || fail "unreadable: $(cat "$d/f")"
# a discovered profile names its own server exactly, odd characters escaped
for h in r5350-ready dmi-odd; do
	$G -r build/hosts/$h -o "$d/$h.ini" profile discover 2>/dev/null
	grep -q '^product = ' "$d/$h.ini" || fail "$h: discover wrote no product"
	$G -v -r build/hosts/$h -p "$d/$h.ini" check 2>/dev/null | grep -q '^ok    server.model' ||
		fail "$h: its own discovered profile"
	$G -v -r build/hosts/switch16 -p "$d/$h.ini" check 2>/dev/null | grep -q '^FAIL  server.model' ||
		fail "$h: its discovered profile on another server"
done

# a baseline of another machine: drift.host fails, no other drift.* at all
run 2 -r build/hosts/r5350-ready -p $P --baseline build/hosts/switch16 check
grep -q "^drift.host fail the baseline is of another machine: a 'SYS-821GE-TNHR', this host a 'UniServer R5350 G6'" "$d/f" ||
	fail "drift.host product: $(cat "$d/f")"
grep -qx 'drift: drift.host' "$d/f" || fail "other drift compared: $(cat "$d/f")"
# the same model, another serial number: another machine
cp -a build/hosts/r5350-ready "$d/a" && cp -a build/hosts/r5350-ready "$d/b"
echo SN-A >"$d/a/sys/class/dmi/id/product_serial"
echo SN-B >"$d/b/sys/class/dmi/id/product_serial"
run 2 -r "$d/a" -p $P --baseline "$d/b" check
grep -q "^drift.host fail the baseline is of another machine: serial number 'SN-B', this host's 'SN-A'" "$d/f" ||
	fail "drift.host serial: $(cat "$d/f")"
# the same serial under a new hostname: the same machine, compared
echo renamed >"$d/b/proc/sys/kernel/hostname"
echo SN-A >"$d/b/sys/class/dmi/id/product_serial"
run 0 -r "$d/a" -p $P --baseline "$d/b" check
grep -q "^drift.host ok the baseline is of this machine (its serial number)" "$d/f" || fail "renamed: $(cat "$d/f")"
grep -q 'drift.moved' "$d/f" || fail "the same machine was not compared: $(cat "$d/f")"
# no serial, the same product, another hostname: another machine of the fleet
rm "$d/b/sys/class/dmi/id/product_serial"
run 2 -r "$d/a" -p $P --baseline "$d/b" check
grep -q "^drift.host fail .*host 'renamed', this one 'r5350-ready'" "$d/f" || fail "hostname: $(cat "$d/f")"

# a serial left as the board maker shipped it names no machine: the product does
echo 'To Be Filled By O.E.M.' >"$d/a/sys/class/dmi/id/product_serial"
echo 'To Be Filled By O.E.M.' >"$d/b/sys/class/dmi/id/product_serial"
echo OTHER-MODEL >"$d/b/sys/class/dmi/id/product_name"
run 2 -r "$d/a" -p $P --baseline "$d/b" check
grep -q "^drift.host fail the baseline is of another machine: a 'OTHER-MODEL'" "$d/f" || fail "placeholder serial: $(cat "$d/f")"
# nothing to compare: unknown, said, and the rest compared
rm "$d/b/sys/class/dmi/id/product_name" "$d/b/proc/sys/kernel/hostname"
run 1 -r "$d/a" -p $P --baseline "$d/b" check
grep -q "^drift.host warn whether the baseline is of this machine is unknown" "$d/f" || fail "unknown: $(cat "$d/f")"

# a DMI name too long for [server] product once escaped: left out, the profile loads
cp -a "$(gp_host r5350-ready)" "$d/long"
echo 'ThinkSystem SR670 V2 Server Platform -[7Z22CTO1WW]-[7Z23CTO1WW]-x' >"$d/long/sys/class/dmi/id/product_name"
$G -r "$d/long" -o "$d/long.ini" profile discover 2>/dev/null || fail "discover, long name: exit $?"
grep -q '^product = ' "$d/long.ini" && fail "a product line longer than a profile holds"
grep -q '^; product: ' "$d/long.ini" || fail "the long product left out unsaid"
$G profile validate "$d/long.ini" >/dev/null || fail "discover wrote a profile it refuses"

# drift.cmdline names whole words, and how many more did not fit
cp -a build/hosts/r5350-ready "$d/c"
words=""
for i in $(seq 1 60); do words="$words option_number_$i=value$i"; done
echo "$(cat build/hosts/r5350-ready/proc/cmdline)$words" >"$d/c/proc/cmdline"
run 1 -r "$d/c" -p $P --baseline build/hosts/r5350-ready check
python3 - "$d/out" <<'PY' || fail "drift.cmdline cut a word"
import json, re, sys
m = [f["message"] for f in json.load(open(sys.argv[1]))["findings"] if f["id"] == "drift.cmdline"][0]
added = re.match(r"kernel command line: added \[(.*)\], removed \[(.*)\]$", m)
assert added, m
words = added.group(1).split(" ")
assert words[-3:-1] == ["and", words[-2]] and words[-1] == "more", m
assert all(re.fullmatch(r"option_number_\d+=value\d+", w) for w in words[:-3]), m
assert words[-2].isdigit() and int(words[-2]) + len(words) - 3 == 60, m
PY
