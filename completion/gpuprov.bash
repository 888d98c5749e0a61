# bash completion for gpuprov(8)                          -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Commands and options come from `gpuprov --help`, the command table's own
# text, so that a new command or option completes without editing this file.
# Run IDs come from `gpuprov rollback --list`, bond names from sysfs.

# The words of `gpuprov --help`: commands (before "options:") or options.
_gpuprov_help()
{
    "$1" --help 2>/dev/null | awk -v want="$2" '
        /^options:/ { opts = 1; next }
        want == "commands" && !opts && /^  [a-z][a-z0-9-]* / { print $1 }
        want == "options" {
            for (i = 1; i <= NF; i++)
                if ($i ~ /^--?[a-zA-Z][a-z-]*,?$/) { sub(/,$/, "", $i); print $i }
        }' | sort -u
}

# Bonds first (the kernel's list of bonding masters); without one, every
# interface but lo, for a bond the profile has not built yet.
_gpuprov_bonds()
{
    local net=/sys/class/net names
    names=$(cat "$net/bonding_masters" 2>/dev/null)
    if [[ -z $names ]]; then
        names=$(command ls "$net" 2>/dev/null | grep -vx -e lo -e bonding_masters)
    fi
    printf '%s\n' $names
}

_gpuprov()
{
    local cur prev words cword
    _init_completion || return

    local bin=${words[0]} cmd="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -p | --profile | -r | --root | -o | --output | --only | --accept) ((i++)) ;;
            -*) ;;
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
            local runs
            runs=$("$bin" rollback --list 2>/dev/null | awk 'NR > 1 { print $2 }')
            COMPREPLY=($(compgen -W "$runs" -- "$cur"))
            ;;
        bond)
            COMPREPLY=($(compgen -W "$(_gpuprov_bonds)" -- "$cur"))
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
