#!/bin/sh
# The bash completion (completion/gpuprov.bash) as bash-completion loads it:
# `complete -p`, then COMP_WORDS cases: commands and options (every one the
# command table and the option table have: src/cli/main.c, src/cli/cmd.h),
# after a command only the options it takes, help's commands,
# the command after options that take a value (however getopt_long reads
# them), --only values, --accept's finding ids (src/core/findings.c),
# profile files, directories for -r and --baseline, run IDs for rollback (from
# a journal directory), bond names for bond (sysfs, in a mount namespace of
# its own).
set -eu
exec bash - "$@" <<'BASH'
set -eu
top=$(pwd)
GP_NAME=t_completion
. "$top/tests/cli/lib.sh"
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
# compline LINE: the same, LINE split as bash splits it (an '=' is a word of
# its own, which the completion joins again)
compline() {
	local line=$1
	read -ra COMP_WORDS <<<"${line//=/ = }"
	case $line in *" ") COMP_WORDS+=("") ;; esac
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_gpuprov gpuprov "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
wantline() { # wantline EXPECTED LINE
	local got
	got=$(compline "$2")
	[ "$got" = "$1" ] || fail "$2<TAB>: '$got', want '$1'"
}
want() { # want EXPECTED WORD...
	local exp=$1 got
	shift
	got=$(comp "$@")
	[ "$got" = "$exp" ] || fail "gpuprov ${*:2}<TAB>: '$got', want '$exp'"
}

cmds=$(gp_commands | sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$cmds" ] || fail "no command table in src/cli/main.c"
want "$cmds" gpuprov ""
want "rollback" gpuprov ro
want "check" gpuprov -p x.ini ch
want "check" gpuprov --json -r /tmp ch
# every option that takes a value (--help's list names it) has it skipped
want "check" gpuprov --baseline /tmp ch
want "verify" gpuprov --size 1GiB --nccl-lib /x ver
# ... as getopt_long reads them: --opt=VALUE, a prefix only one option has,
# a value after a cluster of letters, nothing after --
wantline "check" "gpuprov --baseline=/tmp ch"
wantline "check" "gpuprov -p x.ini --only=vfio ch"
want "check" gpuprov --base /tmp ch
want "check" gpuprov --acc gpu.slot -p x.ini ch
want "check" gpuprov -yp x.ini ch
want "check" gpuprov -px.ini ch
want "" gpuprov -- check ch
got=$(comp gpuprov --)
for o in $(gp_options); do
	case " $got " in *" --$o "*) ;; *) fail "--<TAB> misses --$o: $got" ;; esac
done
want "--json" gpuprov --js
want "--json" gpuprov -p x.ini check --js
want "--json" gpuprov bogus --js

# after the command, only what it takes (help --json, its descriptor) and what
# every command takes
globals="--help --json --quiet --root --verbose --version"
sorted() { printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/ $//'; }
want "$(sorted $globals --baseline --profile)" gpuprov check --
want "--force-mgmt" gpuprov -p x.ini plan --f
want "" gpuprov check --f
want "" gpuprov scan --only
want "$(sorted $globals --list --yes -V -h -q -r -v -y)" gpuprov rollback -
want "$globals" gpuprov help --
# confirm takes no option of its own, and no argument ('watch' is apply's)
want "$globals" gpuprov confirm --
want "" gpuprov confirm ""
want "--confirm-within" gpuprov -p x.ini apply --conf
# a number of seconds: nothing to offer, and the command after it completes
want "" gpuprov -p x.ini apply --confirm-within ""
want "apply" gpuprov --confirm-within 30 -p x.ini app
want "--output" gpuprov snapshot --o
want "--profile" gpuprov -y domxml --output x.xml --p
# every option is taken by a command or by all of them
seen=""
for c in $cmds; do
	got=" $(comp gpuprov "$c" --) "
	for g in $globals; do
		case $got in *" $g "*) ;; *) fail "$c --<TAB> misses $g: $got" ;; esac
	done
	seen="$seen$got"
done
for o in $(gp_options); do
	case "$seen " in *" --$o "*) ;; *) fail "no command is offered --$o" ;; esac
done

want "$cmds" gpuprov help ""
want "check" gpuprov --json help ch
want "" gpuprov help check ""

want "bond vfio vm" gpuprov --only ""
want "vfio,bond" gpuprov --only vfio,b
want "vfio,bond,vm" gpuprov -p x.ini --only vfio,bond,v
wantline "vfio vm" "gpuprov --only=v"

# --accept: the finding ids it takes, as findings.c's table has them: those
# whose failure blocks a step, less the safety rules (GUARD) and drift.*
ids=$(sed -n 's/^	F(GP_F_[A-Z0-9_]*, "\([a-z0-9_.]*\)", GP_GROUP_[A-Z_ |]*),$/\1/p' \
	src/core/findings.c | sort | tr '\n' ' ' | sed 's/ $//')
case $ids in *" "*" "*" "*" "*) ;; *) fail "no finding table in src/core/findings.c: '$ids'" ;; esac
want "$ids" gpuprov --accept ""
want "$ids" gpuprov -p x.ini plan --accept ""
want "p2p.acs p2p.path" gpuprov --accept p2p
want "gpu.count,gpu.health gpu.count,gpu.link gpu.count,gpu.numa_split gpu.count,gpu.reset gpu.count,gpu.slot" \
	gpuprov -p x.ini --accept gpu.count,gpu.
want "" gpuprov --accept gpu.in
want "" gpuprov --accept drift.
want "" gpuprov --accept iommu.o
wantline "vm.kvm" "gpuprov apply --accept=vm.k"
wantline "bios.version,vm.kvm" "gpuprov apply --accept=bios.version,vm.k"
want "check" gpuprov --accept vm.kvm,p2p.acs ch

mkdir -p "$d/files/sub"
touch "$d/files/a.ini" "$d/files/b.txt" "$d/files/snap.tar.gz"
cd "$d/files"
want "a.ini sub" gpuprov -p ""
want "a.ini sub" gpuprov profile validate ""
want "a.ini sub" gpuprov profile validate -o x ""
want "" gpuprov profile validate a.ini ""
want "sub" gpuprov -r ""
# --baseline: an unpacked snapshot, a directory (a .tar.gz is refused, exit 4)
want "sub" gpuprov --baseline ""
want "sub" gpuprov -p a.ini check --baseline ""
wantline "sub" "gpuprov check --baseline=s"
want "a.ini b.txt snap.tar.gz sub" gpuprov -o ""
cd "$top"
want "discover validate" gpuprov profile ""

# run IDs: what rollback --list shows, from the journal directory
export GPUPROV_STATE_DIR=$d/journal
mkdir -m 700 "$d/journal"
want "" gpuprov rollback ""
for id in 20990101T000000Z-1 20990102T000000Z-7; do
	printf '{"schema_version": 1, "run_id": "%s", "status": "done", "steps": []}\n' "$id" \
		>"$d/journal/$id.json"
	chmod 600 "$d/journal/$id.json"
done
# an interrupted run, the next to undo, of a profile long enough to wrap the
# text list: '<- next' on a line of its own is no run ID
printf '{"schema_version": 1, "run_id": "%s", "status": "running", "profile": "%s", "steps": []}\n' \
	20990103T000000Z-9 /etc/gpuprov/profiles/a-rather-long-profile-name-for-the-rack-in-hall-b.ini \
	>"$d/journal/20990103T000000Z-9.json"
chmod 600 "$d/journal/20990103T000000Z-9.json"
runs="20990101T000000Z-1 20990102T000000Z-7 20990103T000000Z-9"
want "$runs" gpuprov rollback ""
want "20990102T000000Z-7" gpuprov -y rollback 20990102
# rollback [--list | RUN-ID]: 'next' is no argument (plain rollback takes it)
want "" gpuprov rollback n
want "" gpuprov rollback --list ""
want "" gpuprov rollback --li ""
want "" gpuprov rollback 20990101T000000Z-1 ""
want "$runs" gpuprov rollback --yes ""

# bond names: the kernel's bonding masters; without a bond, every interface but lo
mkdir -p "$d/net/bond0/bonding" "$d/net/bond7/bonding" "$d/net/eth0" "$d/net/lo"
printf 'bond0 bond7\n' >"$d/net/bonding_masters"
mkdir -p "$d/net2/eth0" "$d/net2/ens1f0np0" "$d/net2/lo"
declare -f comp want fail $(compgen -A function _gpuprov) >"$d/fns.sh"
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
