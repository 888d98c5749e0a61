#!/bin/sh
# Text output fits 80 columns (gpuprov(8), Text layout): no
# line of a text golden in tests/cli/expected is wider, tabs expanded as a
# terminal does.  Not text, so not wrapped: --json documents, domxml's XML,
# nccl-topo's and guest-config's files (NCCL's XML, one element a line), and
# plan --diff's (a unified diff of the files the plan writes: their lines).
# The documented exceptions: a single word wider than a line (a path), the
# rows of topo's tab-separated matrix (nvidia-smi's layout, wider with more
# than five GPUs and NICs), and messages on stderr (one line each, for logs
# and greps).  And scan's table cells start under their headings.  help's
# text is not checked here.
set -eu
. "$(dirname "$0")/lib.sh"

bad=0
checked=0
while IFS='|' read -r name want args; do
	case "$name" in ''|'#'*|domxml-*|nccl-topo-*|guest-config-*|help*|no-command) continue ;; esac
	case " $args " in *" --json "* | *" --diff "*) continue ;; esac
	f=tests/cli/expected/$name.out
	[ -s "$f" ] || continue
	checked=$((checked + 1))
	# columns with tabs expanded to the next multiple of 8; a matrix row is a
	# label (or nothing) and a tab, then the cells
	over=$(awk -v f="$name" '
		function cols(s,    i, c, n) {
			n = 0
			for (i = 1; i <= length(s); i++) {
				c = substr(s, i, 1)
				n = c == "\t" ? n + 8 - n % 8 : n + 1
			}
			return n
		}
		cols($0) > 80 && $0 !~ /^(GPU|NIC)?[0-9]*\t/ && split($0, w, /[ \t]+/) - ($0 ~ /^[ \t]/) > 1 {
			printf "%s: %d columns: %s\n", f, cols($0), $0
		}' "$f")
	if [ -n "$over" ]; then
		printf '%s\n' "$over" | head -5 >&2
		bad=$((bad + 1))
	fi
done <tests/cli/cases
[ "$checked" -gt 50 ] || fail "only $checked text goldens checked"

# scan's tables: every cell starts where its column's heading does (no cell
# wider than its column pushes the rest right: "100000Mb/s" once did)
for f in tests/cli/expected/scan-*.out; do
	case "$f" in *json*) continue ;; esac
	awk -v f="${f##*/}" '
		/^(DEVICE|NODE|INTERFACE) / {
			n = 0
			for (i = 1; i <= length($0); i++)
				if (substr($0, i, 1) != " " && (i == 1 || substr($0, i - 1, 1) == " "))
					at[++n] = i
			next
		}
		/^$/ { n = 0; next }
		n {
			for (k = 2; k <= n; k++)
				if (substr($0, at[k] - 1, 1) != " " || substr($0, at[k], 1) == " ") {
					printf "%s: a cell out of its column %d: %s\n", f, k, $0
					bad = 1
				}
		}
		END { exit bad }' "$f" >&2 || bad=$((bad + 1))
done
[ "$bad" -eq 0 ] || fail "$bad text golden(s) with lines over 80 columns or cells out of their column"
echo "t_width: $checked text goldens within 80 columns"
