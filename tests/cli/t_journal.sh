#!/bin/sh
# The journal, for real on this machine (root), with --only vm steps against
# libvirt's in-process QEMU driver (qemu:///embed), the journal in a scratch
# directory:
#  - a run killed after a step: apply refuses (exit 2, naming the run and
#    'gpuprov rollback'), rollback --list shows it interrupted, plain rollback
#    undoes it, then nothing is left and apply runs again;
#  - undo puts the VM's XML back exactly: every byte (NUL bytes, 9 MiB),
#    owner, mode, xattrs; a symbolic link as a link;
#  - secrets: the journal is 0600 in a 0700 directory; apply --json and
#    rollback --json show digests, never the old file or the old domain XML.
set -eu
. "$(dirname "$0")/lib.sh"
# --accept vm.kvm: these steps are the subject, not KVM; on a host without
# /dev/kvm (a cloud VM, TCG) vm.kvm fails, rightly, and would block them
# the journal and a lock of its own: runs of other trees on this machine do
# not meet it
gp_own_state
mkdir -p "$d/out"
gp_embed_libvirt "$d"
X=$d/out/gp-test-vm.xml
# a fixed UUID: libvirt redefines a domain of the same name only with its UUID
sed "s|<name>gpu-vm</name>|<name>gpu-vm</name><uuid>9c1e0c5a-5f57-4d52-9f3a-6b1f3f0a7e11</uuid>|" \
	templates/domain-q35-ovmf.xml >"$d/template.xml"
gp_vm_profile "$d/p.ini" "$X" "$uri" "$d/template.xml"
chmod 644 "$d/p.ini"
# other gpuprov runs on this machine (tests of other trees) may hold the
# lock for a moment: exit 5 is tried again
G5() {
	n=0
	while :; do
		rc=0
		$G "$@" >"$d/g5.out" || rc=$?
		[ $rc -eq 5 ] && [ $n -lt 100 ] || { cat "$d/g5.out"; return $rc; }
		n=$((n + 1))
		sleep 0.2
	done
}
apply() { G5 -p "$d/p.ini" --only vm --accept vm.kvm "$@" apply --yes; }

# ---- a run killed after its first step (the delay keeps it there) ----
n=0
while :; do
	GPUPROV_STEP_DELAY=30 $G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes 2>"$d/killed.log" &
	pid=$!
	i=0
	while kill -0 $pid 2>/dev/null && ! grep -q '"state": "done"' "$d"/journal/*.json 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "step 1 never done"
		sleep 0.1
	done
	kill -0 $pid 2>/dev/null && break
	n=$((n + 1))
	[ $n -lt 100 ] && grep -q "holds '" "$d/killed.log" || { cat "$d/killed.log"; fail "apply"; }
	sleep 0.2
done
kill -9 $pid
wait $pid 2>/dev/null || true
run=$(basename "$d"/journal/*.json .json)
[ -f "$X" ] || fail "the killed run had not written the XML"
[ "$(stat -c %a "$d/journal")" = 700 ] || fail "journal directory not 0700"
[ "$(stat -c %a "$d/journal/$run.json")" = 600 ] || fail "journal not 0600"

set +e
apply 2>"$d/refused.log" >/dev/null; rc=$?
G5 -p "$d/p.ini" --only vm --accept vm.kvm --json apply --yes >"$d/refused.json" 2>/dev/null; rcj=$?
set -e
[ $rc -eq 2 ] && [ $rcj -eq 2 ] || { cat "$d/refused.log"; fail "apply after a crash: exit $rc/$rcj"; }
grep -q "run $run was interrupted" "$d/refused.log" || fail "the refusal names no run"
grep -q "gpuprov rollback" "$d/refused.log" || fail "the refusal names no command"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["pending_run"]==sys.argv[2]' \
	"$d/refused.json" "$run" || fail "apply --json refusal"
[ "$(ls "$d/journal" | wc -l)" = 1 ] || fail "the refused apply left a journal"

G5 rollback --list >"$d/list" || fail "rollback --list"
awk 'length($0) > 80 { exit 1 }' "$d/list" || { cat "$d/list"; fail "--list: over 80 columns"; }
awk -f tests/cli/unwrap.awk "$d/list" | grep -Eq "^1 +$run +interrupted +1/3 .*<- next" ||
	{ cat "$d/list"; fail "--list"; }
G5 --json rollback --list >"$d/list.json"
python3 - "$d/list.json" "$run" <<'PY' || fail "rollback --list --json"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
assert d["command"] == "rollback" and len(d["runs"]) == 1
assert r["run_id"] == sys.argv[2] and r["status"] == "running" and r["interrupted"]
assert r["to_undo"] == 1 and r["steps"] == 3 and r["next"] and r["seq"] == 1
PY
G5 rollback --yes 2>"$d/rb.log" || { cat "$d/rb.log"; fail "rollback of the killed run"; }
grep -q "rolled back run $run" "$d/rb.log" || fail "rollback names no run"
[ ! -e "$X" ] || fail "rollback left the XML"
G5 rollback --yes 2>"$d/rb2.log"
grep -q "nothing to roll back" "$d/rb2.log" || fail "a second rollback did something"
G5 rollback --list | grep -Eq "^1 +$run +rolled_back +0/3" || fail "--list after rollback"

# ---- exact restore of what was there, and no secrets in --json ----
# the old XML: 9 MiB with NUL bytes, a secret, owned by nobody, 0640, an xattr
{ printf 'SECRETPASSWORD\0'; head -c 9437184 /dev/urandom; } >"$X"
chown 65534:65534 "$X"
chmod 640 "$X"
python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.gpuprov", b"v\0w")' "$X"
cp -p "$X" "$d/orig"
stat -c '%u %g %a %s' "$X" >"$d/orig.stat"
# a domain already defined, with a VNC password
$G -p "$d/p.ini" domxml 2>/dev/null | sed -e '/<gp:gpuprov/d' \
	-e "s|<devices>|<devices><graphics type='vnc' passwd='SECRETVN'/>|" >"$d/old.xml"
virsh -q -c "$uri" define "$d/old.xml" >/dev/null
G5 -p "$d/p.ini" --only vm --accept vm.kvm --json apply --yes >"$d/apply.json" 2>"$d/apply.log" ||
	{ cat "$d/apply.log"; fail "apply"; }
! grep -q SECRET "$d/apply.json" || fail "apply --json shows a secret"
! grep -q '"content"' "$d/apply.json" || fail "apply --json shows a file's content"
python3 - "$d/apply.json" "$d/orig" <<'PY' || fail "apply --json: no digests"
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
undo = {s["kind"]: s["undo"] for s in d["steps"]}
f = undo["domain.write"]["file"]
assert f["sha256"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert f["size"] == 9437184 + 15 and f["xattrs"] == ["user.gpuprov"]
assert len(undo["domain.define"]["previous_sha256"]) == 64
assert "previous" not in undo["domain.define"]
PY
grep -q SECRETVN "$d"/journal/*.json || fail "the journal lacks the old domain XML"
G5 --json rollback --yes >"$d/rb.json" 2>"$d/rb.log" || { cat "$d/rb.log"; fail "rollback"; }
! grep -q SECRET "$d/rb.json" || fail "rollback --json shows a secret"
cmp "$X" "$d/orig" || fail "content not restored exactly"
[ "$(stat -c '%u %g %a %s' "$X")" = "$(cat "$d/orig.stat")" ] ||
	fail "owner/mode not restored: $(stat -c '%u %g %a %s' "$X")"
python3 -c 'import os,sys; assert os.getxattr(sys.argv[1], "user.gpuprov") == b"v\0w"' "$X" ||
	fail "xattr not restored"
virsh -q -c "$uri" dumpxml --inactive --security-info gp-test-vm | grep -q SECRETVN ||
	fail "the old domain was not defined again"

# a symbolic link at the output comes back as that link
rm "$X"
ln -s /nonexistent/elsewhere.xml "$X"
apply >/dev/null 2>"$d/apply2.log" || { cat "$d/apply2.log"; fail "apply over a link"; }
[ ! -L "$X" ] || fail "apply wrote through the link"
G5 rollback --yes 2>/dev/null || fail "rollback of the link"
[ "$(readlink "$X")" = /nonexistent/elsewhere.xml ] || fail "the link was not restored"

# ---- a journal rollback must not trust: exit 4, nothing touched ----
export GPUPROV_STATE_DIR=$d/crafted
J=$d/crafted/20990101T000000Z-1.json
craft() { # the undo record of one domain.write step
	mkdir -p -m 700 "$d/crafted"
	printf '{"schema_version": 1, "run_id": "20990101T000000Z-1", "status": "done", "steps": [{"kind": "domain.write", "subject": "x", "state": "done", "undo": {"file": %s}}]}\n' "$1" >"$J"
	chmod 600 "$J"
}
refused() { # what, victim
	set +e
	G5 rollback --yes 2>"$d/crafted.log"
	rc=$?
	set -e
	[ $rc -eq 4 ] || { cat "$d/crafted.log"; fail "$1: exit $rc, want 4"; }
	grep -q "refusing the journal" "$d/crafted.log" || fail "$1: no reason"
	rm -rf "$d/crafted"
}
echo precious >"$d/victim"
craft "{\"path\": \"$d/victim\", \"previous\": null, \"mode\": 420}"
refused "a path gpuprov never writes"
[ -f "$d/victim" ] || fail "a crafted journal removed a file"
craft "{\"path\": \"$d/suid.xml\", \"previous\": \"#!/bin/sh\", \"mode\": 3565}"
refused "a setuid file not recorded from one"
[ ! -e "$d/suid.xml" ] || fail "a crafted journal made a setuid file"
craft "{\"path\": \"$d/v.xml\", \"type\": \"absent\"}"
echo keep >"$d/v.xml"
chmod 644 "$J"
refused "a journal others can read"
craft "{\"path\": \"$d/v.xml\", \"type\": \"absent\"}"
chown 65534 "$J"
refused "a journal not root's"
craft "{\"path\": \"$d/v.xml\", \"type\": \"absent\"}"
mv "$J" "$d/elsewhere.json"
ln -s "$d/elsewhere.json" "$J"
refused "a journal that is a link"
craft "{\"path\": \"$d/v.xml\", \"type\": \"absent\"}"
chmod 777 "$d/crafted"
set +e
G5 rollback --yes 2>"$d/crafted.log"
rc=$?
set -e
[ $rc -eq 4 ] && grep -q "not root's alone" "$d/crafted.log" || fail "a writable journal directory: exit $rc"
[ "$(cat "$d/v.xml")" = keep ] || fail "a refused journal removed a file"
# the same journal, root's and 0600 in a 0700 directory, is acted on
chmod 700 "$d/crafted"
G5 rollback --yes 2>/dev/null || fail "a sound journal was refused"
[ ! -e "$d/v.xml" ] || fail "a sound journal was not acted on"
exit 0
