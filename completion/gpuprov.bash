# bash completion for gpuprov(8)                          -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Commands and options come from `gpuprov --help`, the command table's own
# text, so that a new command or option completes without editing this file.
# Run IDs come from `gpuprov rollback --list`, bond names from sysfs.

# The words of `gpuprov --help`: commands (before "options:"), options, or
# the options that take a value (an option's line names it: "--only LIST").
_gpuprov_help()
{
    "$1" --help 2>/dev/null | awk -v want="$2" '
        /^options:/ { opts = 1; next }
        /^$/ { if (opts) exit }
        want == "commands" && !opts && /^  [a-z][a-z0-9-]* / { print $1 }
        want == "options" {
            for (i = 1; i <= NF; i++)
                if ($i ~ /^--?[a-zA-Z][a-z-]*,?$/) { sub(/,$/, "", $i); print $i }
        }
        want == "valued" && opts {
            short = ($1 ~ /^-[a-zA-Z],$/) ? substr($1, 1, 2) : ""
            long = short == "" ? 1 : 2
            if ($(long + 1) ~ /^[A-Z]+$/) { if (short != "") print short; print $long }
        }' | sort -u
}

# Bonds first (the kernel's list of bonding masters); without one, every
# interface but lo, for a bond the profile has not built yet.
_gpuprov_bonds()
{
    local net=/sys/class/net n
    local -a names
    read -ra names 2>/dev/null <"$net/bonding_masters"
    if ((${#names[@]})); then
        printf '%s\n' "${names[@]}"
        return
    fi
    for n in "$net"/*; do
        n=${n##*/}
        [[ $n == lo || $n == bonding_masters || $n == '*' ]] || printf '%s\n' "$n"
    done
}

# The lines of stdin that start with $1, into COMPREPLY: never through
# compgen -W, which expands $(...) in its words, and an interface can be named
# '$(reboot)' by anyone who may rename one.
_gpuprov_match()
{
    local w
    while IFS= read -r w; do
        [[ $w == "$1"* ]] && COMPREPLY+=("$w")
    done
    return 0
}

_gpuprov()
{
    local cur prev words cword
    _init_completion || return

    local bin=${words[0]} cmd="" i valued
    valued=" $(_gpuprov_help "$bin" valued | tr '\n' ' ')"
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -*) [[ $valued == *" ${words[i]} "* ]] && ((i++)) ;;
            *) cmd=${words[i]}; break ;;
        esac
    done

    case $prev in
        -p | --profile)
            _filedir ini
            return
            ;;
        -r | --root)
            _filedir -d
            return
            ;;
        -o | --output)
            _filedir
            return
            ;;
        --only)
            # a comma-separated list: its last element, among those not named yet
            local done_part="" left="" v
            [[ $cur == *,* ]] && done_part=${cur%,*},
            for v in vfio bond vm; do
                [[ ,$done_part == *,$v,* ]] || left+=" $v"
            done
            COMPREPLY=($(compgen -P "$done_part" -W "$left" -- "${cur##*,}"))
            compopt -o nospace 2>/dev/null
            return
            ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gpuprov_help "$bin" options)" -- "$cur"))
        return
    fi

    case $cmd in
        "")
            COMPREPLY=($(compgen -W "$(_gpuprov_help "$bin" commands)" -- "$cur"))
            ;;
        rollback)
            COMPREPLY=()
            _gpuprov_match "$cur" < <("$bin" rollback --list 2>/dev/null | awk 'NR > 1 { print $2 }')
            ;;
        bond)
            COMPREPLY=()
            _gpuprov_match "$cur" < <(_gpuprov_bonds)
            ;;
        profile)
            if [[ $prev == profile ]]; then
                COMPREPLY=($(compgen -W "validate discover" -- "$cur"))
            elif [[ $prev == validate ]]; then
                _filedir ini
            fi
            ;;
    esac
} &&
    complete -F _gpuprov gpuprov

# ex: filetype=sh
