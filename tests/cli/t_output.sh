#!/bin/sh
# -o naming a character device or a FIFO is written through, and a write
# that fails there is an error: -o /dev/full exited 0 (the one writer put a
# regular file in the device's place).  A link to a device is refused, and
# left as it was.  The nodes are made here (mknod), never /dev's own.
set -eu
. "$(dirname "$0")/lib.sh"
R="-r build/hosts/r5350-ready"
P="-p profiles/h3c-r5350-g6.ini"
mknod "$d/full" c 1 7
mknod "$d/null" c 1 3
ln -s null "$d/link"

run() { # EXIT NAME ARGS...: the exit status wanted
	want=$1 name=$2
	shift 2
	set +e
	"$@" 2>"$d/err" >/dev/null
	rc=$?
	set -e
	[ $rc -eq "$want" ] || fail "$name: exit $rc, want $want: $(cat "$d/err")"
}

for cmd in domxml "profile discover"; do
	P=""
	[ "$cmd" = domxml ] && P="-p profiles/h3c-r5350-g6.ini" # profile does not take -p
	run 4 "$cmd -o full" $G $R $P -o "$d/full" $cmd
	grep -q "cannot write '$d/full': No space left on device" "$d/err" || fail "$cmd: $(cat "$d/err")"
	run 0 "$cmd -o null" $G $R $P -o "$d/null" $cmd
	run 4 "$cmd -o link" $G $R $P -o "$d/link" $cmd
	grep -q "cannot write '$d/link'" "$d/err" || fail "$cmd: $(cat "$d/err")"
done
P="-p profiles/h3c-r5350-g6.ini"
[ -c "$d/full" ] && [ -c "$d/null" ] && [ -L "$d/link" ] || fail "a node was replaced: $(ls -l "$d")"

# a FIFO with a reader gets the whole document
mkfifo "$d/fifo"
cat "$d/fifo" >"$d/from-fifo" &
$G $R $P -o "$d/fifo" domxml 2>/dev/null
wait
$G $R $P domxml 2>/dev/null | cmp -s - "$d/from-fifo" || fail "the FIFO got another document"
# another user's FIFO by that name (made in /tmp, say): refused, nothing
# written to it (it had the document, a VNC password included)
mkfifo "$d/their-fifo"
chown 65534 "$d/their-fifo"
timeout 20 cat "$d/their-fifo" >"$d/stolen" &
reader=$!
run 4 "-o their FIFO" $G $R $P -o "$d/their-fifo" domxml
grep -q "cannot write '$d/their-fifo': the device or FIFO is owned by uid 65534, not root" "$d/err" ||
	fail "their FIFO: $(cat "$d/err")"
timeout 5 sh -c ': >"$1"' sh "$d/their-fifo" || true # the reader's end
wait $reader || true
[ ! -s "$d/stolen" ] || fail "another user's FIFO got the document"

# run as root, -o's directory must be root's alone on its whole path (or
# sticky, as /tmp): another user's directory on the way could become a link
mkdir -m 755 "$d/theirs" "$d/mine"
mkdir -m 755 "$d/theirs/sub"
chown 65534 "$d/theirs"
run 4 "domxml -o theirs" $G $R $P -o "$d/theirs/sub/vm.xml" domxml
grep -q "refusing '$d/theirs/sub': '$d/theirs' is owned by uid 65534" "$d/err" || fail "theirs: $(cat "$d/err")"
[ ! -e "$d/theirs/sub/vm.xml" ] || fail "theirs: written"
# a relative name in root's working directory
top=$(pwd)
(cd "$d/mine" && "$G" -r "$top/build/hosts/r5350-ready" -p "$top/profiles/h3c-r5350-g6.ini" -o vm.xml domxml 2>"$d/err") || fail "relative: $(cat "$d/err")"
[ -s "$d/mine/vm.xml" ] || fail "relative: not written"

# standard output on a full disk: every command's report, its JSON, help and
# --version end with exit 4 and the reason, as -o does (they exited 0, the
# report cut short); the exit status the command had otherwise is not kept
for args in scan topo "$P check" "$P plan" "$P domxml" "$P nccl-topo" "$P report" \
	"profile discover" help "help plan" --help --version "--json scan" "$P --json check"; do
	# shellcheck disable=SC2086
	run 4 "$args >full" sh -c "exec \"\$0\" $R $args >\"$d/full\"" $G
	grep -q "cannot write to standard output: No space left on device" "$d/err" ||
		fail "$args >full: $(cat "$d/err")"
done
