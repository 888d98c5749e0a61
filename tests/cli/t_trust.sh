#!/bin/sh
# apply acts only on what nobody but root can change: the profile (checked
# before it is parsed), the directories above it, links on the way, every
# template it installs and the VM's template.  A relative [vm] template is
# looked up beside the profile (then among the templates), never in the
# working directory.  Another user is uid 65534; apply runs without --yes on
# a non-terminal, so a profile it accepts ends at "not asking", changing
# nothing.
set -eu
. "$(dirname "$0")/lib.sh"
T=$(pwd)/templates
gp_own_state
chmod 755 "$d"

profile() { # FILE [EXTRA LINE]
	cat >"$1" <<EOP
[gpus]
match = 10de:20b5
count = 2
[vm]
name = gp-trust-vm
vcpus = 1
memory = 256MiB
numa = none
define = no
output = $d/out/vm.xml
${2:-}
EOP
	chmod 644 "$1"
}

# --accept vm.kvm: the trust checks are the subject; on a host without
# /dev/kvm vm.kvm fails, rightly, and would stop apply before them
apply() { # PROFILE WORDS: apply must stop with WORDS in its message
	set +e
	$G -p "$1" --only vm --accept vm.kvm apply </dev/null >/dev/null 2>"$d/err"
	rc=$?
	set -e
	[ $rc -eq 4 ] && grep -q "$2" "$d/err" || fail "$1: exit $rc, want 4 and '$2': $(cat "$d/err")"
}
ACCEPTED="not asking on a non-terminal"
REFUSED="refusing '"

mkdir -m 755 "$d/ok" "$d/ww" "$d/nobody"
profile "$d/ok/p.ini"
apply "$d/ok/p.ini" "$ACCEPTED"

# the file: another user's, or writable by group or others
cp -p "$d/ok/p.ini" "$d/ok/theirs.ini"
chown 65534 "$d/ok/theirs.ini"
apply "$d/ok/theirs.ini" "is owned by uid 65534, not root"
cp -p "$d/ok/p.ini" "$d/ok/gw.ini"
chmod 664 "$d/ok/gw.ini"
chgrp 65534 "$d/ok/gw.ini"
apply "$d/ok/gw.ini" "writable by group or others"
# root's group is no exception: a member of it is another user
cp -p "$d/ok/p.ini" "$d/ok/rootgroup.ini"
chmod 664 "$d/ok/rootgroup.ini"
apply "$d/ok/rootgroup.ini" "rootgroup.ini' is writable by group or others (mode 664)"
mkdir -m 775 "$d/rootgroup"
cp -p "$d/ok/p.ini" "$d/rootgroup/p.ini"
apply "$d/rootgroup/p.ini" "'$d/rootgroup' is writable by group or others (mode 775)"

# checked before it is read: a broken profile of another user is refused, not parsed
printf '[gpus\n' >"$d/ok/broken.ini"
chown 65534 "$d/ok/broken.ini"
apply "$d/ok/broken.ini" "$REFUSED$d/ok/broken.ini': '$d/ok/broken.ini' is owned"

# the directories above it: world-writable, or another user's
chmod 777 "$d/ww"
cp -p "$d/ok/p.ini" "$d/ww/p.ini"
apply "$d/ww/p.ini" "'$d/ww' is writable by group or others"
chown 65534 "$d/nobody"
cp -p "$d/ok/p.ini" "$d/nobody/p.ini"
apply "$d/nobody/p.ini" "'$d/nobody' is owned by uid 65534"

# links: another user's link is refused, root's link is followed and checked
ln -s p.ini "$d/ok/their-link.ini"
chown -h 65534 "$d/ok/their-link.ini"
apply "$d/ok/their-link.ini" "their-link.ini' is owned by uid 65534"
ln -s p.ini "$d/ok/root-link.ini"
apply "$d/ok/root-link.ini" "$ACCEPTED"
ln -s ../ww/p.ini "$d/ok/to-ww.ini"
apply "$d/ok/to-ww.ini" "'$d/ww' is writable"
# a /proc link (root, cwd, fd/N) is resolved by the kernel, maybe in another
# mount namespace, not by its text: never followed
apply "/proc/self/root$d/ok/p.ini" "'/proc/self' is a link in /proc"
apply "/proc/$$/root$d/ok/p.ini" "'/proc/$$/root' is a link in /proc"

# every template apply installs: the directory and each file in it
cp -rp "$T" "$d/tpl"
export GPUPROV_TEMPLATES=$d/tpl
apply "$d/ok/p.ini" "$ACCEPTED"
chown 65534 "$d/tpl/vfio-rebind.sh"
apply "$d/ok/p.ini" "vfio-rebind.sh' is owned by uid 65534"
chown 0 "$d/tpl/vfio-rebind.sh"
chmod 666 "$d/tpl/netplan-bond.yaml"
apply "$d/ok/p.ini" "netplan-bond.yaml' is writable by group or others"
chmod 644 "$d/tpl/netplan-bond.yaml"
chmod 777 "$d/tpl"
apply "$d/ok/p.ini" "'$d/tpl' is writable by group or others"
chmod 755 "$d/tpl"
unset GPUPROV_TEMPLATES

# the templates named through a link: the directory it leads to and all in
# it, which a sticky directory is not (anyone may add entries after the check)
cp -rp "$T" "$d/tpl2"
ln -s tpl2 "$d/tpl-link"
export GPUPROV_TEMPLATES=$d/tpl-link
apply "$d/ok/p.ini" "$ACCEPTED"
chown 65534 "$d/tpl2/vfio-rebind.sh"
chmod 666 "$d/tpl2/vfio-rebind.sh"
apply "$d/ok/p.ini" "'$d/tpl2/vfio-rebind.sh' is owned by uid 65534"
chown 0 "$d/tpl2/vfio-rebind.sh"
chmod 755 "$d/tpl2/vfio-rebind.sh"
chmod 1777 "$d/tpl2"
apply "$d/ok/p.ini" "'$d/tpl2' is writable by group or others (mode 1777): sticky or not"
chmod 755 "$d/tpl2"
unset GPUPROV_TEMPLATES

# the VM's own template, beside the profile
sed 's|<name>gpu-vm</name>|&<title>beside the profile</title>|' \
	"$T/domain-q35-ovmf.xml" >"$d/ok/t.xml"
profile "$d/ok/vm-t.ini" "template = t.xml"
apply "$d/ok/vm-t.ini" "$ACCEPTED"
chown 65534 "$d/ok/t.xml"
apply "$d/ok/vm-t.ini" "t.xml' is owned by uid 65534"
chown 0 "$d/ok/t.xml"

# the search rule: beside the profile, then the templates; the working
# directory is never looked at
mkdir "$d/cwd"
sed 's|<name>gpu-vm</name>|&<title>working directory</title>|' \
	"$T/domain-q35-ovmf.xml" >"$d/cwd/t.xml"
cp "$d/cwd/t.xml" "$d/cwd/domain-q35-ovmf.xml"
profile "$d/ok/vm-shipped.ini" "template = domain-q35-ovmf.xml"
R=$(pwd)/build/hosts/r5350-ready
(cd "$d/cwd" && $G -r "$R" -p "$d/ok/vm-t.ini" domxml 2>/dev/null) >"$d/x1.xml"
grep -q "<title>beside the profile</title>" "$d/x1.xml" || fail "vm-t.ini: not the template beside the profile"
(cd "$d/cwd" && $G -r "$R" -p "$d/ok/vm-shipped.ini" domxml 2>/dev/null) >"$d/x2.xml"
! grep -q "<title>" "$d/x2.xml" || fail "vm-shipped.ini: the working directory's template was used"
(cd "$d/ok" && $G -r "$R" -p vm-t.ini domxml 2>/dev/null) >"$d/x3.xml"
grep -q "<title>beside the profile</title>" "$d/x3.xml" || fail "a profile in the working directory"

# the directory the VM's XML goes into (or the nearest that exists): another
# user's could be swapped for a link, and root would write where it leads
mkdir -m 755 "$d/vms"
chown 65534 "$d/vms"
sed "s|^output = .*|output = $d/vms/sub/vm.xml|" "$d/ok/p.ini" >"$d/ok/out-theirs.ini"
apply "$d/ok/out-theirs.ini" "'$d/vms' is owned by uid 65534"
