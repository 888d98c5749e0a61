#!/bin/sh
# -v prints what gpuprov(8) OPTIONS promises, each on standard error as a
# "gpuprov: debug:" line, and nothing of it without -v; the exit status, the
# JSON document and the text report (but check's) are the same with and
# without it:
#  - what libpci reports (a config file that cannot be read),
#  - what libkmod reports (a module its index names but the tree lacks),
#  - a resource file that does not parse,
#  - libvirt's answer when a connection fails (check says it without -v too,
#    as vm.libvirt: an SSH URI to a closed local port fails at once),
#  - the templates directory plan reads;
#  - check's ok findings, each (a count line without -v).
set -eu
. "$(dirname "$0")/lib.sh"

# promise WHAT PATTERN ARGS...: with -v, a debug line matching PATTERN; the
# same exit status and JSON document; the same text, but check's, which with
# -v lists each ok finding that a count line stands for without it
promise() {
	what=$1 pat=$2
	shift 2
	set +e
	"$G" "$@" >"$d/plain.out" 2>"$d/plain.err"
	rc=$?
	"$G" -v "$@" >"$d/v.out" 2>"$d/v.err"
	rcv=$?
	"$G" --json "$@" >"$d/plain.json" 2>/dev/null
	"$G" -v --json "$@" >"$d/v.json" 2>/dev/null
	set -e
	grep -q "^gpuprov: debug: $pat" "$d/v.err" || fail "-v: no '$pat' ($what): $(cat "$d/v.err")"
	! grep -q "debug:" "$d/plain.err" || fail "without -v, debug lines ($what): $(cat "$d/plain.err")"
	[ $rc = $rcv ] || fail "$what: exit $rc, with -v $rcv"
	# the live host's free memory (vm.memory's message) moves between two runs
	python3 - "$d/plain.json" "$d/v.json" <<'PY' || fail "$what: the JSON document differs with -v"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for doc in (a, b):
    for f in doc.get("findings", []):
        if f["id"] == "vm.memory":
            f["message"] = ""
assert a == b
PY
	case " $* " in
	*" check "*)
		! grep -q "^ok " "$d/plain.out" && grep -q "ok (-v lists the ok findings)$" "$d/plain.out" ||
			fail "$what: check without -v lists ok findings"
		grep -q "^ok " "$d/v.out" || fail "$what: check -v does not list the ok findings" ;;
	*)
		cmp -s "$d/plain.out" "$d/v.out" || fail "$what: the report differs with -v" ;;
	esac
}

# libpci: a device's config space that is a directory
cp -a build/hosts/r5350-ready "$d/host"
c=$(readlink -f "$d/host/sys/bus/pci/devices/0000:00:00.0")/config
rm "$c"
mkdir "$c"
promise "libpci" "libpci: .*read failed" -r "$d/host" scan
promise "libkmod" "libkmod: " -r build/hosts/lab-r5350 -p profiles/h3c-r5350-g6.ini check
promise "a malformed resource file" "0000:41:00.0: malformed resource file" -r build/hosts/malformed scan
gp_vm_profile "$d/p.ini" "$d/out/gp-test-vm.xml" "qemu+ssh://root@127.0.0.1:1/system"
promise "libvirt" "libvirt at 'qemu+ssh://root@127.0.0.1:1/system': ." -p "$d/p.ini" check
grep -q "vm.libvirt" "$d/plain.out" || fail "check without -v does not say vm.libvirt"
grep -q '"vm.libvirt"' "$d/plain.json" || fail "check --json without -v does not say vm.libvirt"
promise "templates" "templates from /" -r build/hosts/r5350-ready -p profiles/h3c-r5350-g6.ini plan
exit 0
