#!/bin/sh
# plan --diff and plan --json's "files": every file a persist step writes,
# diffed against the host's copy.  patch(1) applied to the host's copy must
# give exactly the content the JSON carries; a file with a secret shows
# digests only; what the host's files hold reaches no terminal raw.
set -eu
. "$(dirname "$0")/lib.sh"
P=$(gp_profile h3c-r5350-g6)
# the bond's ifupdown stanza, as an older run left it, holds a Wi-Fi key (a
# snapshot would have redacted it: added here, not in the fixture)
R=$d/tree
cp -a build/hosts/persist-old "$R"
mkdir -p "$R/etc/network/interfaces.d"
printf 'auto bond0\niface bond0 inet manual\n    wpa-psk hunter2-not-for-print\n' \
	>"$R/etc/network/interfaces.d/gpuprov-bond0"

rc=0
$G -r $R -p $P plan --diff >"$d/diff.txt" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || fail "plan --diff: exit $rc, want 1"
grep -q '^--- a/etc/modprobe.d/gpuprov-vfio.conf$' "$d/diff.txt"
grep -q '^+++ b/etc/modprobe.d/gpuprov-vfio.conf$' "$d/diff.txt"
grep -q '^--- /dev/null$' "$d/diff.txt"
grep -q '^persist.bond /etc/network/interfaces.d/gpuprov-bond0 (mode 0644): changed$' "$d/diff.txt"
grep -q 'holds a secret' "$d/diff.txt"
grep -q '^domain.write /var/lib/gpuprov/a100-vm.xml (mode 0644): new$' "$d/diff.txt"
if grep -q 'hunter2' "$d/diff.txt"; then echo "the secret was printed"; exit 1; fi
if grep -q "$(printf '\033')" "$d/diff.txt"; then echo "raw escape printed"; exit 1; fi
grep -q 'nouveau\\x1b\]0;pwned\\x07' "$d/diff.txt"

rc=0
$G -r $R -p $P --json plan >"$d/plan.json" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || fail "plan --json: exit $rc, want 1"
python3 - "$d" "$R" <<'PY'
import hashlib, json, os, subprocess, sys
d, root = sys.argv[1], sys.argv[2]
doc = json.load(open(os.path.join(d, "plan.json")))
files = doc["files"]
paths = [f["path"] for f in files]
assert "/etc/modprobe.d/gpuprov-vfio.conf" in paths, paths
assert "/etc/gpuprov/override.d/0000:42:00.0" in paths, paths
assert "/var/lib/gpuprov/a100-vm.xml" in paths, paths
patched = 0
for f in files:
    host = os.path.join(root, f["path"].lstrip("/"))
    exists = os.path.exists(host)
    assert f["exists"] == exists, f["path"]
    now = open(host, "rb").read() if exists else None
    want = None if now is None else hashlib.sha256(now).hexdigest()
    assert f["current_sha256"] == want, f["path"]
    if f["secret"]:
        assert f["content"] is None and f["diff"] is None, f["path"]
        assert "hunter2" not in json.dumps(f)
        continue
    new = f["content"].encode()
    assert f["sha256"] == hashlib.sha256(new).hexdigest(), f["path"]
    assert f["changed"] == (now != new), f["path"]
    if not f["changed"]:
        assert f["diff"] is None, f["path"]
        continue
    work = os.path.join(d, "work")
    with open(work, "wb") as w:
        w.write(now or b"")
    open(os.path.join(d, "p.diff"), "w").write(f["diff"])
    subprocess.run(["patch", "-s", "-f", work, os.path.join(d, "p.diff")], check=True,
                   stdout=subprocess.DEVNULL)
    got = open(work, "rb").read()
    assert got == new, (f["path"], got[:80], new[:80])
    patched += 1
assert patched >= 8, patched
secret = [f for f in files if f["secret"]]
assert [f["path"] for f in secret] == ["/etc/network/interfaces.d/gpuprov-bond0"], secret
PY
# A profile is not the owner of the files it names: [vm] output pointing at a
# file only root may read (a copy of /etc/shadow), or [vm] template at a template only
# root may read (it may hold a VNC password), shows digests, never the text.
printf 'root:$y$SHADOW-HASH-NOT-FOR-PRINT:19000::::::\n' >"$R/etc/shadow.xml"
chmod 0640 "$R/etc/shadow.xml"
sed 's|^output = .*|output = /etc/shadow.xml|' $P >"$d/shadow.ini"
grep -q '^output = /etc/shadow.xml$' "$d/shadow.ini"
sed "s|<devices>|<devices><graphics type='vnc' port='-1' passwd='VNC-PASS-NOT-FOR-PRINT'/>|" \
	templates/domain-q35-ovmf.xml >"$d/private.xml"
chmod 0600 "$d/private.xml"
sed "s|^output = .*|output = /var/lib/gpuprov/a100-vm.xml\ntemplate = $d/private.xml|" $P >"$d/tmpl.ini"
for prof in shadow tmpl; do
	$G -r $R -p "$d/$prof.ini" plan --diff >"$d/$prof.txt" 2>&1 || true
	$G -r $R -p "$d/$prof.ini" --json plan >"$d/$prof.json" 2>&1 || true
	if grep -q 'NOT-FOR-PRINT' "$d/$prof.txt" "$d/$prof.json"; then
		echo "$prof: a file the profile names was printed"
		exit 1
	fi
	grep -q 'domain.write' "$d/$prof.txt" || fail "$prof: no domain.write"
done
grep -q 'VNC-PASS-NOT-FOR-PRINT' "$d/private.xml" || fail "template has no password"
# apply's own JSON plan stays as it was: no "files"
echo ok
