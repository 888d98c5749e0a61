#!/bin/sh
# make install honours PREFIX and DESTDIR; uninstall removes what it put there.
set -eu
. "$(dirname "$0")/lib.sh"
make -s install DESTDIR="$d" PREFIX=/usr >/dev/null
for f in usr/sbin/gpuprov usr/share/man/man8/gpuprov.8 usr/share/man/man5/gpuprov.ini.5 \
	usr/share/gpuprov/profiles/h3c-r5350-g6.ini usr/share/bash-completion/completions/gpuprov; do
	[ -f "$d/$f" ] || fail "missing $f"
done
"$d/usr/sbin/gpuprov" --version | grep -q '^gpuprov '
make -s uninstall DESTDIR="$d" PREFIX=/usr >/dev/null
left=$(find "$d" -type f)
[ -z "$left" ] || fail "left behind: $left"
# the man page's examples, run after make install with the PREFIX they say
# (in DESTDIR: /usr, /etc/gpuprov and /tmp are below it; the examples name
# /usr/share/gpuprov, where the package installs, as PREFIX=/usr does) on a fixture
# host ready for its profile, each exiting with the status it says after '#'.
# Read-only commands read the host with -r; apply cannot (it changes the
# live host): its example runs as plan, which must then be 1 (changes
# pending, nothing blocked: apply would go ahead); rollback --list reads
# the journals of a scratch state directory.
make -s install DESTDIR="$d" PREFIX=/usr >/dev/null
FIX=$(pwd)/build/hosts/r5350-ready
G="$d/usr/sbin/gpuprov"
mkdir -p "$d/tmp" "$d/work"
sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' man/gpuprov.8 |
	sed -n '/^\.Bd -literal/,/^\.Ed/p' | grep -E '^[#$] ' >"$d/ex"
[ "$(grep -c ' gpuprov ' "$d/ex")" -ge 5 ] || fail "examples: fewer than 5"
{
	echo "cd '$d/work' || exit 1"
	echo "export GPUPROV_TEMPLATES='$d/usr/share/gpuprov/templates'"
	echo "export GPUPROV_STATE_DIR='$d/state' GPUPROV_RUN_DIR='$d/run'"
	while IFS= read -r line; do
		cmd=${line#[#$] }
		want=0
		case "$cmd" in *"  # "[0-9]*)
			want=$(echo "$cmd" | sed 's/.*  # \([0-9]\).*/\1/')
			cmd=$(echo "$cmd" | sed 's/  *# [0-9].*//') ;;
		*gpuprov\ *) echo "echo 'example without its exit status: $line'; exit 1"; continue ;;
		esac
		run=$(echo "$cmd" | sed "s|/tmp/|$d/tmp/|g; s|/etc/gpuprov|$d/etc/gpuprov|g; s|/usr/share/|$d/usr/share/|g")
		case "$run" in
		# plan takes apply's options but --confirm-within, which arms a watcher:
		# that example's part (--only) may have nothing to do here, and no blocker
		*" --confirm-within "*" apply")
			run=$(echo "${run% apply} plan" | sed 's/ --confirm-within [0-9]*//') want='0|1' ;;
		*" apply") run="${run% apply} plan" want=1 ;;
		esac
		case "$run" in
		# the live host's own: no run of this test waits to be confirmed
		"gpuprov confirm"*) run="\"$G\"${run#gpuprov}" want=2 ;;
		"gpuprov rollback"*) run="\"$G\"${run#gpuprov}" ;;
		"gpuprov "*" -r "* | "gpuprov -r "*) run="\"$G\"${run#gpuprov}" ;;
		"gpuprov "*) run="\"$G\" -r '$FIX'${run#gpuprov}" ;;
		esac
		printf '%s\nrc=$?; case $rc in %s) ;; *) echo "example: %s: exit $rc, want %s"; exit 1 ;; esac\n' \
			"$run" "$want" "$(echo "$line" | tr -d "'\"")" "$want"
	done <"$d/ex"
	echo "exit 0"
} >"$d/ex.sh"
sh "$d/ex.sh" >"$d/ex.out" 2>&1 || { tail -5 "$d/ex.out"; exit 1; }
python3 -m json.tool "$d/tmp/check.json" >/dev/null || fail "examples: check.json is not JSON"
make -s uninstall DESTDIR="$d" PREFIX=/usr >/dev/null
