#!/bin/sh
# --json prints exactly one JSON document on stdout, with "schema_version",
# "version" and "command", whatever the outcome: usage errors, bad profiles, an unreadable
# host, refusals, a missing bond, and commands whose plain output is not JSON.
set -u
. "$(dirname "$0")/lib.sh"
gp_tables_read
H=$(gp_host r5350-ready)
P=$(gp_profile h3c-r5350-g6)
bad=0
one() {
	want=$1
	shift
	"$G" "$@" >"/tmp/gp-json.$$.out" 2>/dev/null
	rc=$?
	if ! python3 - "/tmp/gp-json.$$.out" "/tmp/gp-json.$$.done" <<'PY'; then
import json, sys
text = open(sys.argv[1]).read()
doc, end = json.JSONDecoder().raw_decode(text)
assert not text[end:].strip(), "more than one document"
assert doc["schema_version"] == 1 and doc["command"] and doc["version"], doc
if doc.get("error") is not None:
    assert doc["error"], doc
else:
    open(sys.argv[2], "a").write(doc["command"] + "\n")
PY
		echo "not one JSON document: $* (exit $rc)"
		bad=1
	fi
	[ "$rc" = "$want" ] || { echo "exit $rc, want $want: $*"; bad=1; }
}
one 4 --json
one 4 --json frobnicate
one 3 --json verify
one 4 --json --frobnicate scan
one 4 --frobnicate --json scan
one 4 --json -r "$H" scan extra
one 4 --json -r "$H" -o
one 3 --json -r build/hosts/nonexistent scan
one 4 --json -r "$H" check
one 4 --json -r "$H" -p tests/cli/profiles/nonexistent.ini check
one 4 --json -r "$H" -p tests/cli/profiles/bad-section.ini plan
one 4 --json profile validate tests/cli/profiles/bad-value.ini
one 4 --json profile frobnicate
one 0 --json -r "$H" profile discover
one 0 --json -r "$H" -p "$P" domxml
one 4 --json -r "$H" -p tests/cli/profiles/vm-broken.ini domxml
one 4 --json -r "$H" snapshot
one 4 --json -r "$H" -p "$P" apply --yes
one 4 --json -r "$H" rollback
one 4 --json -r "$H" -p "$P" --only disks plan
one 4 --json -r "$H" -p "$P" bond
one 2 --json bond gpuprov-no-such-bond
one 2 --json -r build/hosts/group-shared -p "$P" plan
one 2 --json -r build/hosts/numa-split -p "$P" check
one 0 --json --version
# every command answers --json with its own document (not only its errors):
# snapshot printed nothing on stdout, help and --help their text
one 0 --json -r "$H" -p "$P" scan
one 0 --json -r "$H" -p "$P" topo
one 0 --json -r "$H" -p "$P" check
one 1 --json -r "$H" -p "$P" plan
one 1 --json -r "$H" -p "$P" report
one 0 --json -r "$H" -p "$P" nccl-topo
one 0 --json -r "$H" -p tests/cli/profiles/roce-pass.ini guest-config
one 0 --json profile validate "$P"
one 0 --json -r "$H" -o "/tmp/gp-json.$$.tgz" snapshot
one 0 --json help
one 0 --json help plan
one 0 --json --help
one 0 --json -p "$P" plan --help
# apply and rollback on this machine (root), in a state directory of their own:
# apply with nothing to do (--only bond, the profile has no [bond]) printed nothing
T=$(mktemp -d)
chmod 755 "$T"
printf '[gpus]\nmatch = 10de:20b5\ncount = 2\n' >"$T/p.ini"
chmod 644 "$T/p.ini"
export GPUPROV_STATE_DIR="$T/journal" GPUPROV_RUN_DIR="$T/run"
one 0 --json -p "$T/p.ini" --only bond apply --yes
one 0 --json rollback --list
one 0 --json rollback --yes
one 2 --json confirm
# a run waiting for confirm (a journal as apply --confirm-within leaves it;
# session 2147483647 is above any pid_max, so no shell's: this one may confirm
# it; not 0, which getsid() answers where the session leader is outside the
# PID namespace, as in some CI containers)
mkdir -p -m 700 "$T/journal"
printf '{"schema_version": 1, "run_id": "20990101T000000Z-1", "seq": 9, "status": "done", "steps": [], "confirm": {"state": "pending", "within": 60, "deadline": 4102444800, "watcher": 1, "session": 2147483647}}\n' \
	>"$T/journal/20990101T000000Z-1.json"
chmod 600 "$T/journal/20990101T000000Z-1.json"
one 0 --json confirm
grep -q '"state": "confirmed"' "/tmp/gp-json.$$.out" || { echo "confirm --json: not confirmed"; bad=1; }
rm -rf "$T"
unset GPUPROV_STATE_DIR GPUPROV_RUN_DIR
# bond and verify answer with their document only on a host with a bond (the
# lab: tests/lab/scenarios/r5350.sh, bond --json) or with GPUs; here, their
# errors are documents (above)
for c in $(gp_commands); do
	case "$c" in bond | verify) continue ;; esac
	grep -qx "$c" "/tmp/gp-json.$$.done" ||
		{ echo "$c --json: no document of its own tested here"; bad=1; }
done
rm -f "/tmp/gp-json.$$.done" "/tmp/gp-json.$$.tgz"

# scan streams its devices one object at a time: a slot name that is not
# UTF-8, inside that stream, still becomes U+FFFD and the document parses.
T=/tmp/gp-json-slot.$$
rm -rf "$T" && cp -a "$H" "$T"
mv "$T/sys/bus/pci/slots/1" "$T/sys/bus/pci/slots/$(printf 'bad\377slot')"
"$G" -r "$T" --json scan >"/tmp/gp-json.$$.out" 2>/dev/null
if ! python3 - "/tmp/gp-json.$$.out" <<'PY'; then
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
slots = [d["slot"] for d in doc["devices"] if d.get("slot")]
assert "bad\ufffdslot" in slots, slots
PY
	echo "scan --json: a non-UTF-8 slot name in the device stream"
	bad=1
fi
rm -rf "$T" "/tmp/gp-json.$$.out"
exit $bad
