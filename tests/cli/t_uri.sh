#!/bin/sh
# A profile's [vm] uri can make libvirt run a program as root (the ext
# transport runs command=; the embedded driver runs the emulator its root's
# domain configurations name).  Only allow-listed URIs pass (file:line, exit
# 4), every connection is checked (read-only commands read the defined
# domain's digest on the live host), an embedded root must be root's alone,
# and LIBVIRT_DEFAULT_URI is never used.  The program here leaves a mark.
set -eu
. "$(dirname "$0")/lib.sh"
T=$(pwd)/templates
chmod 755 "$d"
printf '#!/bin/sh\ntouch %s/ran\nexit 1\n' "$d" >"$d/x"
chmod 755 "$d/x"

profile() { # FILE URI-LINE
	printf '[gpus]\nmatch = 10de:20b5\ncount = 2\n[vm]\nname = gp-uri-vm\n%s\n' "$2" >"$1"
}

profile "$d/ext.ini" "uri = qemu+ext:///system?command=$d/x"
for cmd in check plan domxml scan topo; do
	set +e
	timeout 60 $G -p "$d/ext.ini" $cmd >/dev/null 2>"$d/err"
	rc=$?
	set -e
	[ ! -e "$d/ran" ] || fail "$cmd ran the URI's command"
	[ $rc -eq 4 ] || fail "$cmd: exit $rc, want 4"
	grep -q "$d/ext.ini:6: bad value for uri" "$d/err" || fail "$cmd: $(cat "$d/err")"
done
set +e
$G profile validate "$d/ext.ini" >/dev/null 2>&1
rc=$?
set -e
[ $rc -eq 4 ] || fail "profile validate: exit $rc, want 4"

# no uri: qemu:///system, whatever LIBVIRT_DEFAULT_URI says
profile "$d/none.ini" ""
LIBVIRT_DEFAULT_URI="qemu+ext:///system?command=$d/x" timeout 60 $G -p "$d/none.ini" check \
	>/dev/null 2>&1 || true
[ ! -e "$d/ran" ] || fail "LIBVIRT_DEFAULT_URI was used"

# an embedded root another user could write: its domain names our program
# as the emulator, which libvirt runs when it loads the configuration
mkdir -p "$d/embed/etc/qemu"
printf 'user = "root"\ngroup = "root"\n' >"$d/embed/etc/qemu.conf"
sed "s|<name>gpu-vm</name>|<name>evil</name>|; s|/usr/bin/qemu-system-x86_64|$d/x|" \
	"$T/domain-q35-ovmf.xml" >"$d/embed/etc/qemu/evil.xml"
chown 65534 "$d/embed/etc/qemu/evil.xml"
profile "$d/embed.ini" "uri = qemu:///embed?root=$d/embed"
$G profile validate "$d/embed.ini" >/dev/null
timeout 60 $G -p "$d/embed.ini" check >/dev/null 2>"$d/err" || true
[ ! -e "$d/ran" ] || fail "an embedded root of another user's was opened"
grep -q "refusing '$d/embed': '$d/embed/etc/qemu/evil.xml' is owned by uid 65534" "$d/err" ||
	fail "embed: $(cat "$d/err")"

# an embedded root is what its path leads to, root's all the way down and
# writable by nobody else, sticky or not: else libvirt is never asked (it
# would make run/ in the root) and check fails vm.embed.  The other user's
# files are benign here: what is tested is that gpuprov refuses first.
embed_refused() { # NAME ROOT WORDS
	profile "$d/$1.ini" "uri = qemu:///embed?root=$2"
	set +e
	timeout 60 $G -p "$d/$1.ini" check >"$d/out" 2>"$d/err"
	rc=$?
	set -e
	[ ! -e "$2/run" ] || fail "$1: libvirt was asked (it made $2/run)"
	[ $rc -eq 2 ] || fail "$1: exit $rc, want 2"
	grep -q "refusing '$2': .*$3" "$d/err" || fail "$1: $(cat "$d/err")"
	tr -s ' \n' '  ' <"$d/out" | grep -q "FAIL vm.embed .*is not opened: refusing '$2'" ||
		fail "$1: no vm.embed: $(cat "$d/out")"
}
# a sticky directory (as /run/lock): anyone may add entries after the check
mkdir -m 1777 "$d/lock"
mkdir "$d/lock/etc"
printf 'user = "root"\ngroup = "root"\n' >"$d/lock/etc/qemu.conf"
embed_refused sticky "$d/lock" "'$d/lock' is writable by group or others (mode 1777): sticky or not"
# the same through a link (as /var/lock), another user's files in it
ln -s lock "$d/var-lock"
setpriv --reuid 65534 --regid 65534 --clear-groups mkdir "$d/lock/theirs"
embed_refused via-link "$d/var-lock" "'$d/lock' is writable by group or others (mode 1777)"
# a link to root's directory: the walk descends where it leads
mkdir -m 755 "$d/real" "$d/real/etc"
printf 'user = "root"\ngroup = "root"\n' >"$d/real/etc/qemu.conf"
chown 65534 "$d/real/etc/qemu.conf"
ln -s real "$d/to-real"
embed_refused link-down "$d/to-real" "'$d/real/etc/qemu.conf' is owned by uid 65534"
# root's group writes (a member could add a domain)
chown 0 "$d/real/etc/qemu.conf"
chmod 775 "$d/real/etc"
embed_refused group "$d/to-real" "'$d/real/etc' is writable by group or others (mode 775)"
# a path that is not a plain name per component is refused as a URI
profile "$d/dot.ini" "uri = qemu:///embed?root=$d/./real"
set +e
$G profile validate "$d/dot.ini" >/dev/null 2>"$d/err"
rc=$?
set -e
[ $rc -eq 4 ] || fail "embed root with '.': exit $rc, want 4"
