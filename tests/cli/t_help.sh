#!/bin/sh
# gpuprov --help, gpuprov help COMMAND and COMMAND --help fit 80 columns
# (help plan printed a 110-column synopsis), for every command of the table;
# COMMAND --help is that command's synopsis, which names every option the
# command takes (the table's opts, as "does not use" refusals know them).
set -eu
. "$(dirname "$0")/lib.sh"
wide() { # FILE WHAT: no line over 80 columns
	awk -v what="$2" 'length > 80 { printf "%s: %d columns: %s\n", what, length, $0; bad = 1 }
		END { exit bad }' "$1" || exit 1
}
$G --help >"$d/all"
wide "$d/all" "gpuprov --help"
cmds=$(gp_commands)
[ -n "$cmds" ] || fail "no command table in src/cli/main.c"
# every descriptor a cmd_*.c exports is a line of the table
for c in $(sed -n 's/^const struct gp_cmd gp_cmd_\([a-z_]*\) = {$/\1/p' src/cli/cmd_*.c | tr _ -); do
	echo "$cmds" | grep -qx -e "$c" || fail "gp_cmd_$c is in no line of main.c's COMMANDS"
done
for c in $cmds; do
	grep -q "^  $c " "$d/all" || fail "--help does not list $c"
	$G help "$c" >"$d/$c"
	wide "$d/$c" "gpuprov help $c"
	$G "$c" --help >"$d/$c.h"
	cmp -s "$d/$c" "$d/$c.h" || fail "'$c --help' is not 'help $c'"
	# the synopsis (up to the blank line) ends with the command's name
	sed '/^$/q' "$d/$c" | tr -s ' \n' '  ' | grep -q "^usage: gpuprov .*\] $c\( \|$\)" ||
		fail "help $c: no synopsis naming $c: $(cat "$d/$c")"
	# every option the command takes is in its synopsis, and only those
	$G --json help "$c" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
(c,) = doc["commands"]
text = open(sys.argv[1]).read().split("\n\n")[0]
for o in c["options"]:
    assert "[" + o in text or o + " " in text, (o, text)
for w in text.replace("[", " ").replace("]", " ").split():
    if w.startswith("-") and w not in ("-p", "-r", "--json", "-v|-q"):
        assert w in c["options"], (w, c["options"])
' "$d/$c" || fail "help $c: its options differ from the command table's"
done
# every option of the table is in --help's synopsis and in the man page's
for o in $(gp_options); do
	case "$o" in help | version | profile | root | output | yes | verbose | quiet) continue ;; esac
	sed '/^$/q' "$d/all" | grep -q -e "\[--$o[] ]" || fail "--help's synopsis lacks --$o"
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' man/gpuprov.8 | grep -q "^\.Op Fl -$o\( \|$\)" ||
		fail "gpuprov(8) SYNOPSIS lacks --$o"
done
# with an option the command does not use, --help still answers (exit 0)
$G scan --only vm --help >"$d/x" || fail "scan --only vm --help: exit $?"
cmp -s "$d/x" "$d/scan" || fail "scan --only vm --help is not help scan"
exit 0
