#!/bin/sh
# The man pages document every command, option, finding id, step kind, exit
# status and profile key the code has, each in its own section (a finding
# listed under FILES renders as a file), and mandoc finds nothing wrong.
set -eu
. "$(dirname "$0")/lib.sh"
gp_tables_read
missing=""

# Lines of a man page prefixed with their section: "SECTION|SUBSECTION|line".
sectioned() {
	awk '/^\.Sh /{sh=substr($0,5); ss=""} /^\.Ss /{ss=substr($0,5)} {print sh "|" ss "|" $0}' "$1"
}
sectioned man/gpuprov.8 >"/tmp/gp-docs.$$.8"
sectioned man/gpuprov.ini.5 >"/tmp/gp-docs.$$.5"
gp_on_exit 'rm -f "/tmp/gp-docs.$$.8" "/tmp/gp-docs.$$.5"'

# documented FILE SECTION SUBSECTION PREFIX WORD: a line "PREFIX WORD" or "PREFIX WORD ..."
# in that section (and subsection, when not empty).
documented() {
	awk -F'|' -v sh="$2" -v ss="$3" -v want="$4 $5" '
		$1 == sh && (ss == "" || $2 == ss) {
			line = substr($0, length($1) + length($2) + 3)
			if (line == want || index(line, want " ") == 1) found = 1
		}
		END { exit !found }' "$1"
}

# every finding id: src/core/findings.c's table, each line [ENUM] = { "id", ... }
finding_ids() { sed -n 's/^	[A-Z]*(GP_F_[A-Z0-9_]*, "\([a-z0-9_.]*\)".*/\1/p' src/core/findings.c; }
[ -n "$(finding_ids)" ] || missing="$missing findings.c:no-table"
for id in $(finding_ids); do
	documented "/tmp/gp-docs.$$.8" FINDINGS "" ".It Sy" "$id" || missing="$missing finding:$id"
done
# each is reported by a check (in core/; profile.trust in cli/, where the
# profile's own file is judged), and no check spells an id as a string
for e in $(sed -n 's/^	\(GP_F_[A-Z0-9_]*\),$/\1/p' src/core/findings.h); do
	grep -q "gp_report_add([^,]*, *$e,\|{ $e," src/core/*.c src/cli/ctx.c ||
		missing="$missing unreported:$e"
done
if grep -n 'gp_report_add([^,]*, *"' src/*/*.c; then missing="$missing id-as-string"; fi
# every step kind: src/core/steps.c's table, each line S(ENUM, "kind", ...)
step_kinds() { sed -n 's/^	S(GP_S_[A-Z0-9_]*, "\([a-z0-9_.]*\)".*/\1/p' src/core/steps.c; }
[ -n "$(step_kinds)" ] || missing="$missing steps.c:no-table"
# each is planned, and has an actuator; no other file spells a kind as a string
for e in $(sed -n 's/^	\(GP_S_[A-Z0-9_]*\),$/\1/p' src/core/steps.h); do
	grep -q "gp_plan_add([^,]*, *$e," src/core/*.c || missing="$missing unplanned:$e"
	grep -q "\[$e\] = &gp_act_" src/act/actuator.c || missing="$missing no-actuator:$e"
done
for kind in $(step_kinds); do
	re=$(printf '%s' "$kind" | sed 's/\./\\./g')
	if grep -n "\"$re[\":]" src/*/*.c src/*/*.h | grep -v '^src/core/steps\.c:'; then
		missing="$missing kind-as-string:$kind"
	fi
done
for cmd in $(gp_commands); do
	documented "/tmp/gp-docs.$$.8" COMMANDS "" ".It Cm" "$cmd" || missing="$missing command:$cmd"
done
for opt in $(gp_options); do
	grep -q "^OPTIONS||\\.It .*Fl -$opt\\( \\|\$\\)" "/tmp/gp-docs.$$.8" || missing="$missing option:--$opt"
done
for kind in $(step_kinds); do
	documented "/tmp/gp-docs.$$.8" "STEP KINDS" "" ".It Sy" "$kind" || missing="$missing step:$kind"
done
for code in $(sed -n 's/^	GP_EXIT_[A-Z_]* = \([0-9]*\),.*/\1/p' src/shared/exit.h); do
	documented "/tmp/gp-docs.$$.8" "EXIT STATUS" "" ".It" "$code" || missing="$missing exit:$code"
done
sed -n 's/^	{ "\([a-z]*\)", "\([a-z_0-9]*\)", [a-zA-Z_0-9]*,.*/\1 \2/p' src/core/profile.c >"/tmp/gp-docs.$$.keys"
echo "slot root_port" >>"/tmp/gp-docs.$$.keys"
echo "slot numa_node" >>"/tmp/gp-docs.$$.keys"
echo "slot cpu_direct" >>"/tmp/gp-docs.$$.keys"
echo "slot address" >>"/tmp/gp-docs.$$.keys"
while read -r section key; do
	case "$section" in
	slot) ss="[slot. Ns Ar name ]" ;;
	*) ss="[$section]" ;;
	esac
	documented "/tmp/gp-docs.$$.5" "SECTIONS AND KEYS" "$ss" ".It Cm" "$key" || missing="$missing key:$section.$key"
done <"/tmp/gp-docs.$$.keys"
rm -f "/tmp/gp-docs.$$.keys"
[ -z "$missing" ] || { echo "not documented in its section:$missing"; exit 1; }

# docs/CONTRACTS.md lists the same, each as `word`
C=docs/CONTRACTS.md
listed() { grep -qF "\`$1\`" "$C"; }
for id in $(finding_ids); do
	listed "$id" || missing="$missing finding:$id"
done
for kind in $(step_kinds); do
	listed "$kind" || missing="$missing step:$kind"
done
for cmd in $(gp_commands); do
	listed "$cmd" || missing="$missing command:$cmd"
done
for opt in $(gp_options); do
	grep -qF -e "\`--$opt\`" -e "/\`--$opt\`" "$C" || missing="$missing option:--$opt"
done
for code in $(sed -n 's/^	GP_EXIT_[A-Z_]* = \([0-9]*\),.*/\1/p' src/shared/exit.h); do
	grep -q "^| $code |" "$C" || missing="$missing exit:$code"
done
sed -n 's/^	{ "\([a-z]*\)", "\([a-z_0-9]*\)", [a-zA-Z_0-9]*,.*/\1 \2/p' src/core/profile.c |
	while read -r section key; do
		grep -q "^- \`\[$section\]\`:.*\`$key\`" "$C" ||
			sed -n "/^- \`\[$section\]\`:/,/^- \`/p" "$C" | grep -qF "\`$key\`" ||
			echo "key:$section.$key"
	done >"/tmp/gp-docs.$$.c"
missing="$missing $(tr '\n' ' ' <"/tmp/gp-docs.$$.c")"
rm -f "/tmp/gp-docs.$$.c"
[ -z "$(echo $missing)" ] || { echo "not in $C:$missing"; exit 1; }

# the user's documents speak of the product, not of how its work is organised
out=$(git grep -n -i -E '\bwave [0-9]|\bissue [0-9]+' -- man README.md docs ansible/README.md || true)
[ -z "$out" ] || { echo "the documents speak of the work, not the product: $out"; exit 1; }

# the repository cites nothing outside itself
out=$(git grep -n -e '\.\./shared' -e 'DESIGN\.md' -e 'STYLE\.md' -e '[^-]FACTS\.md' -- . \
	':!tests/cli/t_docs.sh' || true)
[ -z "$out" ] || { echo "cites a path outside the repository: $out"; exit 1; }
mandoc -T lint -W warning man/gpuprov.8 man/gpuprov.ini.5
