# Sourced by tests/run.sh.  A case line: NAME|EXIT|ARGS (ARGS split on blanks).
# The binary's stdout must equal tests/cli/expected/NAME.out and its stderr
# NAME.err (when that file exists); JSON output must parse.  A JSON header's
# "version" is the binary's (tests/cli/t_version.sh): expected files say
# @VERSION@, so that a new debian/changelog entry changes none of them.
GPUPROV=${GPUPROV:-build/test/gpuprov}
GP_VERSION=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)

run_cases() {
	while IFS='|' read -r name want args; do
		case "$name" in ''|'#'*) continue ;; esac
		exp=tests/cli/expected/$name
		# shellcheck disable=SC2086
		"$GPUPROV" $args >"/tmp/gp-case.$$.out" 2>"/tmp/gp-case.$$.err"
		rc=$?
		sed -i "s/^  \"version\": \"$GP_VERSION\",\$/  \"version\": \"@VERSION@\",/" \
			"/tmp/gp-case.$$.out"
		if [ -n "${UPDATE:-}" ]; then
			cp "/tmp/gp-case.$$.out" "$exp.out"
			if [ -s "/tmp/gp-case.$$.err" ]; then cp "/tmp/gp-case.$$.err" "$exp.err"; else rm -f "$exp.err"; fi
		fi
		why=""
		[ "$rc" = "$want" ] || why="exit $rc, want $want"
		if [ -z "$why" ] && ! cmp -s "/tmp/gp-case.$$.out" "$exp.out"; then
			why="stdout differs"
			diff -u "$exp.out" "/tmp/gp-case.$$.out" | head -30
		fi
		if [ -z "$why" ] && [ -f "$exp.err" ] && ! cmp -s "/tmp/gp-case.$$.err" "$exp.err"; then
			why="stderr differs"
			diff -u "$exp.err" "/tmp/gp-case.$$.err" | head -10
		fi
		case " $args " in *" --json "*)
			[ -n "$why" ] || python3 -m json.tool "/tmp/gp-case.$$.out" >/dev/null 2>&1 ||
				why="bad JSON" ;;
		esac
		if [ -z "$why" ]; then ok "cli $name"; else
			head -5 "/tmp/gp-case.$$.err"; bad "cli $name: $why"; fi
	done <"$1"
	rm -f "/tmp/gp-case.$$.out" "/tmp/gp-case.$$.err"
}
