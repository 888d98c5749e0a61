#!/bin/sh
# The terminal is asked about once per stream, not once per line:
# whether stdout is a terminal (colour, line buffering) and how wide it is
# (gp_wrap) are answered when the streams are set up.  A scan of 125 lines
# and a check of 139 once made an ioctl (isatty's TCGETS) per row, finding
# and wrapped line.  strace counts them, into a file and on a pseudo-terminal.
set -eu
. "$(dirname "$0")/lib.sh"
H=$(gp_host many-gpus)
P=$(gp_profile h3c-r5350-g6)
# LeakSanitizer cannot run under ptrace
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

# at most 4: isatty of stdout and stderr, the width of a terminal, one spare
count() { # count WHAT LINES-AT-LEAST
	lines=$(tr -d '\r' <"$d/out" | wc -l)
	[ "$lines" -ge "$2" ] || fail "$1: $lines lines, want $2 or more"
	n=$(grep -c '^ioctl(' "$d/trace" || true)
	[ "$n" -le 4 ] || fail "$1: $n ioctl calls for $lines lines: $(sort "$d/trace" | uniq -c | sort -rn | head -3)"
}
for cmd in "-v check" topo; do
	# shellcheck disable=SC2086
	strace -qq -e trace=ioctl -o "$d/trace" "$G" -r "$H" -p "$P" $cmd >"$d/out" 2>&1 || true
	count "$cmd into a file" 100
done
strace -qq -e trace=ioctl -o "$d/trace" "$G" -r build/hosts/link -p "$P" plan >"$d/out" 2>&1 || true
count "plan into a file" 20
strace -qq -e trace=ioctl -o "$d/trace" "$G" -r "$H" scan >"$d/out" 2>&1
count "scan into a file" 100
strace -qq -e trace=ioctl -o "$d/trace" "$G" -r "$H" -p "$P" check >"$d/out" 2>&1 || true
count "check into a file" 100
# on a terminal: colour per finding, the width for the wrap, still asked once
TERM=xterm script -qec "strace -qq -e trace=ioctl -o $d/trace $G -r $H -p $P check" /dev/null \
	>"$d/out" 2>&1 || true
count "check on a terminal" 100
grep -q "$(printf '\033')\[1;31mFAIL" "$d/out" || fail "check on a terminal: no colour"
exit 0
