#!/bin/sh
# profile.trust: check and plan on the live host say what apply would refuse
# before it reads a byte of the profile: a profile (or the [vm] template) that
# another user can change.  As root a failure that blocks every step (plan
# says blocked; --accept cannot let it through); as another user, reading
# a copy for a dry run, a warning.  Under -r (another host's tree, where apply
# never runs) it is not judged.
set -eu
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { gp_not_exercised "t_profile_trust: root's verdict (not root)"; exit 0; }

mkdir -m 0755 "$d/etc"
chmod 0755 "$d"
cp tests/cli/profiles/min-bios.ini "$d/etc/p.ini"
chmod 0644 "$d/etc/p.ini"
trust() { # ARGS...: the profile.trust finding of check --json ARGS, as "severity message"
	set +e
	"$G" --json "$@" check >"$d/out" 2>"$d/err"
	rc=$?
	set -e
	python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["id"] == "profile.trust":
        print(f["severity"], f["message"])' "$d/out" >"$d/got"
}
said() { trust "$@"; cat "$d/got"; } # the same, printed (its exit status lost)

[ "$(said -p "$d/etc/p.ini")" = "ok only root can change the profile" ] ||
	fail "a root-owned 0644 profile: $(said -p "$d/etc/p.ini")"
chmod 0664 "$d/etc/p.ini"
trust -p "$d/etc/p.ini"
got=$(cat "$d/got")
case $got in
"fail refusing '$d/etc/p.ini': '$d/etc/p.ini' is writable by group or others (mode 664)"*) ;;
*) fail "a group-writable profile: $got" ;;
esac
[ "$rc" -eq 2 ] || fail "check with an untrusted profile: exit $rc, want 2"
grep -q 'profile.trust' "$d/err" && fail "the refusal was said as an error too: $(cat "$d/err")"
# plan says it blocks apply, and no --accept lets it through
set +e
"$G" -p "$d/etc/p.ini" --only vfio plan >"$d/plan" 2>&1
rc=$?
"$G" -p "$d/etc/p.ini" --accept profile.trust plan >"$d/acc" 2>&1
rc2=$?
set -e
[ $rc -eq 2 ] && grep -q '^  profile.trust profile: refusing' "$d/plan" || fail "plan: exit $rc: $(cat "$d/plan")"
[ $rc2 -eq 4 ] && grep -q "'profile.trust' cannot be accepted" "$d/acc" || fail "--accept profile.trust: exit $rc2"
chmod 0644 "$d/etc/p.ini"
# a directory above it that another user can write
chmod 0777 "$d/etc"
said -p "$d/etc/p.ini" | grep -q '^fail ' || fail "a world-writable directory above it: $(said -p "$d/etc/p.ini")"
chmod 0755 "$d/etc"
# the [vm] template another user can change
cp templates/domain-q35-ovmf.xml "$d/etc/t.xml"
chmod 0666 "$d/etc/t.xml"
printf '[vm]\nname = t\ntemplate = %s\n' "$d/etc/t.xml" >>"$d/etc/p.ini"
said -p "$d/etc/p.ini" | grep -q "^fail refusing '$d/etc/t.xml'" || fail "template: $(said -p "$d/etc/p.ini")"
chmod 0644 "$d/etc/t.xml"
[ "$(said -p "$d/etc/p.ini")" = "ok only root can change the profile and the VM's template" ] ||
	fail "a trusted template: $(said -p "$d/etc/p.ini")"
# under -r: not judged
chmod 0664 "$d/etc/p.ini"
[ -z "$(said -r "$(gp_host r5350-ready)" -p "$d/etc/p.ini")" ] || fail "judged under -r"
# another user's dry run of their copy: a warning, what apply (as root) will refuse
gp_user_copy "$d/u" "$G"
cp tests/cli/profiles/min-bios.ini "$d/u/p.ini"
chown 65534 "$d/u/p.ini"
set +e
setpriv --reuid 65534 --regid 65534 --clear-groups "$d/u/gpuprov" --json -p "$d/u/p.ini" check >"$d/out" 2>"$d/err"
set -e
python3 -c '
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["id"] == "profile.trust"]
assert f and f[0]["severity"] == "warn" and "owned by uid 65534" in f[0]["message"], f' "$d/out" ||
	fail "a user's copy: $(cat "$d/out" "$d/err" | head -20)"
