#!/bin/sh
# The bash completion (completion/gpuprov.bash) as bash-completion loads it:
# `complete -p`, then COMP_WORDS cases: commands and options (every one the
# command table and the option table have: src/cli/main.c, src/cli/cmd.h),
# the command after options that take a value, --only values,
# profile files, directories for -r, run IDs for rollback (from a journal
# directory), bond names for bond (sysfs, in a mount namespace of its own).
set -eu
exec bash - "$@" <<'BASH'
set -eu
top=$(pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "$*"; exit 1; }
. /usr/share/bash-completion/bash_completion
. "$top/completion/gpuprov.bash"
[ "$(complete -p gpuprov)" = "complete -F _gpuprov gpuprov" ] || fail "complete -p: $(complete -p gpuprov)"
PATH=$top/build:$PATH

# comp WORD...: what TAB offers after these words (the last one being completed), sorted
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_gpuprov gpuprov "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
want() { # want EXPECTED WORD...
	local exp=$1 got
	shift
	got=$(comp "$@")
	[ "$got" = "$exp" ] || fail "gpuprov ${*:2}<TAB>: '$got', want '$exp'"
}

. "$top/tests/cli/lib.sh"
cmds=$(gp_commands | sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$cmds" ] || fail "no command table in src/cli/main.c"
want "$cmds" gpuprov ""
want "rollback" gpuprov ro
want "check" gpuprov -p x.ini ch
want "check" gpuprov --json -r /tmp ch
# every option that takes a value (--help's list names it) has it skipped
want "check" gpuprov --baseline /tmp ch
want "verify" gpuprov --size 1GiB --nccl-lib /x ver
got=$(comp gpuprov --)
for o in $(gp_options); do
	case " $got " in *" --$o "*) ;; *) fail "--<TAB> misses --$o: $got" ;; esac
done
want "--json" gpuprov --js
want "--json" gpuprov -p x.ini check --js

want "bond vfio vm" gpuprov --only ""
want "vfio,bond" gpuprov --only vfio,b
want "vfio,bond,vm" gpuprov -p x.ini --only vfio,bond,v

mkdir -p "$d/files/sub"
touch "$d/files/a.ini" "$d/files/b.txt"
cd "$d/files"
want "a.ini sub" gpuprov -p ""
want "a.ini sub" gpuprov profile validate ""
want "sub" gpuprov -r ""
want "a.ini b.txt sub" gpuprov -o ""
cd "$top"
want "discover validate" gpuprov profile ""

# run IDs: what rollback --list shows, from the journal directory
export GPUPROV_STATE_DIR=$d/journal
mkdir -m 700 "$d/journal"
for id in 20990101T000000Z-1 20990102T000000Z-7; do
	printf '{"schema_version": 1, "run_id": "%s", "status": "done", "steps": []}\n' "$id" \
		>"$d/journal/$id.json"
	chmod 600 "$d/journal/$id.json"
done
want "20990101T000000Z-1 20990102T000000Z-7" gpuprov rollback ""
want "20990102T000000Z-7" gpuprov -y rollback 20990102

# bond names: the kernel's bonding masters; without a bond, every interface but lo
mkdir -p "$d/net/bond0/bonding" "$d/net/bond7/bonding" "$d/net/eth0" "$d/net/lo"
printf 'bond0 bond7\n' >"$d/net/bonding_masters"
mkdir -p "$d/net2/eth0" "$d/net2/ens1f0np0" "$d/net2/lo"
declare -f comp want fail _gpuprov _gpuprov_help _gpuprov_bonds _gpuprov_match >"$d/fns.sh"
got=$(unshare -m bash -c ". /usr/share/bash-completion/bash_completion; . $d/fns.sh
	mount --bind $d/net /sys/class/net && comp gpuprov bond ''")
[ "$got" = "bond0 bond7" ] || fail "bond <TAB> with bonds: '$got'"
got=$(unshare -m bash -c ". /usr/share/bash-completion/bash_completion; . $d/fns.sh
	mount --bind $d/net2 /sys/class/net && comp gpuprov bond e")
[ "$got" = "ens1f0np0 eth0" ] || fail "bond e<TAB> without bonds: '$got'"
# an interface name is anyone's text: offered as it is, never run
mkdir -p "$d/net3/eth1" "$d/net3/\$(touch pwned-by-completion)"
got=$(cd "$d" && unshare -m bash -c ". /usr/share/bash-completion/bash_completion; . $d/fns.sh
	mount --bind $d/net3 /sys/class/net && comp gpuprov bond ''")
[ ! -e "$d/pwned-by-completion" ] || fail "bond <TAB> ran a command from an interface name"
case "$got" in *'$(touch pwned-by-completion)'*eth1*) ;; *) fail "bond <TAB> hostile name: '$got'" ;; esac
BASH
