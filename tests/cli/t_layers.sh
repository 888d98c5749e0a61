#!/bin/sh
# The layer rule (ARCHITECTURE.md): cli -> {host, act} -> sys -> core -> shared.
# A file of src/L includes only headers of L and of the layers below it; host
# and act never include each other; every include names its folder.  Only
# cli/ deals in exit statuses.  No module below cli/ is part of a cycle.
set -eu
. "$(dirname "$0")/lib.sh"

rank() {
	case $1 in
	shared) echo 0 ;; core) echo 1 ;; sys) echo 2 ;; host | act) echo 3 ;; cli) echo 4 ;;
	*) echo 9 ;;
	esac
}

for f in src/*.c src/*.h; do
	[ -e "$f" ] || continue
	gp_bad "$f: outside the layer folders"
done
for f in src/*/*.c src/*/*.h; do
	from=${f#src/}
	from=${from%%/*}
	[ "$(rank "$from")" -lt 9 ] || { gp_bad "$f: src/$from is not a layer"; continue; }
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		to=${inc%%/*}
		if [ "$to" = "$inc" ] || [ "$(rank "$to")" -eq 9 ]; then
			gp_bad "$f: #include \"$inc\" names no layer folder"
		elif [ "$to" != "$from" ] && [ "$(rank "$to")" -ge "$(rank "$from")" ]; then
			gp_bad "$f: $from may not include $inc"
		fi
	done
done
# Exit statuses are cli's: below it, calls return 0 or a negative errno
# (shared/exit.h defines them; util.c's allocators exit out of memory).
for f in $(grep -l 'GP_EXIT_' src/*/*.c src/*/*.h); do
	case $f in
	src/cli/* | src/shared/exit.h | src/shared/util.c) ;;
	*) gp_bad "$f: an exit status below cli/ (return 0 or -errno)" ;;
	esac
done
# No cycle below cli/, in the graph of includes or of calls (ARCHITECTURE.md,
# "Cycles left"): a module that needs one that needs it is one module in two
# files, and a layer with a cycle has no order to read or test it in.
for graph in "" "--symbols build/obj"; do
	# shellcheck disable=SC2086 # graph is an option and its argument, or none
	python3 scripts/includes.py -v $graph >"$d/graph" || gp_bad "scripts/includes.py -v${graph:+ $graph} failed"
	awk '$1 == "cycle:" { for (i = 2; i <= NF; i++) if ($i != "<->" && $i !~ /^cli\//) { print; next } }' \
		"$d/graph" >"$d/cycles"
	[ ! -s "$d/cycles" ] || gp_bad "a cycle outside cli/ (scripts/includes.py -v${graph:+ $graph}): $(cat "$d/cycles")"
done
# core/ decides as a pure function: no mutable object of its own (.data or
# .bss; const tables are .rodata or .data.rel.ro), so nothing one call
# leaves behind changes the next (a memo, a first error, a result buffer)
for o in build/obj/core/*.o; do
	[ -f "$o" ] || { gp_bad "no $o: run make first"; break; }
	objdump -t "$o" | awk -v f="$o" '$2 ~ /[lg]/ && $3 == "O" && ($4 == ".data" || $4 == ".bss") {
		print f ": mutable static " $NF; bad = 1 } END { exit bad }' || gp_bad "$o: mutable statics (above)"
done
gp_end
