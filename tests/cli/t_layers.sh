#!/bin/sh
# The layer rule (ARCHITECTURE.md): cli -> {host, act} -> sys -> core -> shared.
# A file of src/L includes only headers of L and of the layers below it; host
# and act never include each other; every include names its folder.
set -eu
cd "$(dirname "$0")/../.."

rank() {
	case $1 in
	shared) echo 0 ;; core) echo 1 ;; sys) echo 2 ;; host | act) echo 3 ;; cli) echo 4 ;;
	*) echo 9 ;;
	esac
}

bad=0
for f in src/*.c src/*.h; do
	[ -e "$f" ] || continue
	echo "$f: outside the layer folders"
	bad=1
done
for f in src/*/*.c src/*/*.h; do
	from=${f#src/}
	from=${from%%/*}
	[ "$(rank "$from")" -lt 9 ] || { echo "$f: src/$from is not a layer"; bad=1; continue; }
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		to=${inc%%/*}
		if [ "$to" = "$inc" ] || [ "$(rank "$to")" -eq 9 ]; then
			echo "$f: #include \"$inc\" names no layer folder"
			bad=1
		elif [ "$to" != "$from" ] && [ "$(rank "$to")" -ge "$(rank "$from")" ]; then
			echo "$f: $from may not include $inc"
			bad=1
		fi
	done
done
exit $bad
