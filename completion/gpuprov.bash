# bash completion for gpuprov(8)                          -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Commands and options come from `gpuprov --help`, the command table's own
# text, and the options each command takes from `gpuprov help --json` (its
# descriptor's), so that a new command or option completes without editing
# this file.  Run IDs come from `gpuprov -q rollback --list`, bond names from
# sysfs, the ids --accept takes from `gpuprov help --json` ("accept").

# The words of `gpuprov --help` ($2: its text): commands (before "options:"),
# options, the options that take a value (an option's line names it: "--only
# LIST"), or "-p --profile" pairs, an option's two spellings.
_gpuprov_help()
{
    printf '%s\n' "$2" | awk -v want="$1" '
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
        }
        want == "pairs" && opts && $1 ~ /^-[a-zA-Z],$/ { print substr($1, 1, 2), $2 }' |
        sort -u
}

# The options command $3 takes, both spellings of each: those its entry of
# `help --json` ($2) lists, and those every command takes (the options of
# --help, $1, that no entry lists: -r, --json, -v, ...).  A command the JSON
# does not name (an older gpuprov, a typo) gets every option.
_gpuprov_options()
{
    {
        _gpuprov_help pairs "$1" | sed 's/^/pair /'
        _gpuprov_help options "$1" | sed 's/^/opt /'
        # json-c's pretty print: "name" of each command, then its "options"
        # array, one string a line
        printf '%s\n' "$2" | awk '
            /^      "name": "/ { split($0, q, "\""); cmd = q[4]; print "cmd", cmd }
            /^      "options": \[/ { in_opts = 1; next }
            in_opts && /^ *\]/ { in_opts = 0 }
            in_opts && /^ *"-/ { split($0, q, "\""); print "takes", cmd, q[2] }'
    } | awk -v want="$3" '
        $1 == "pair" { alias[$2] = $3; alias[$3] = $2; next }
        $1 == "opt" { all[$2]; next }
        $1 == "cmd" { known[$2]; next }
        $1 == "takes" {
            listed[$3]; if ($3 in alias) listed[alias[$3]]
            if ($2 == want) { mine[$3]; if ($3 in alias) mine[alias[$3]] }
        }
        END {
            for (o in all)
                if (!(want in known) || o in mine || !(o in listed)) print o
        }' | sort
}

# The finding ids --accept takes, from `help --json` ($1): its "accept" array,
# one string a line in json-c's pretty print (a finding whose failure blocks a
# step and that is not a safety rule; the binary's table decides).
_gpuprov_findings()
{
    printf '%s\n' "$1" | awk '
        /^  "accept": \[/ { on = 1; next }
        on && /^  \]/ { exit }
        on { split($0, q, "\""); if (q[2] ~ /^[a-z0-9_.]+$/) print q[2] }'
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

# A comma-separated list ($1, being typed) of the lines of stdin: its last
# element, among those not named before it, after what precedes it.
_gpuprov_list()
{
    local done_part="" w
    [[ $1 == *,* ]] && done_part=${1%,*},
    while IFS= read -r w; do
        [[ ,$done_part == *,"$w",* ]] && continue
        [[ $w == "${1##*,}"* ]] && COMPREPLY+=("$done_part$w")
    done
    compopt -o nospace 2>/dev/null
    return 0
}

# The long option word $1 names, of those in $2 (" --a --b "): itself, or
# the one it is a prefix of when only one is (getopt_long's abbreviations).
_gpuprov_long()
{
    local o whole=""
    if [[ $1 != *=* && $2 != *" $1 "* ]]; then
        for o in $2; do
            [[ $o == "$1"* ]] && whole+=" $o"
        done
    fi
    whole=${whole# }
    [[ $whole && $whole != *" "* ]] && printf '%s' "$whole" || printf '%s' "$1"
}

# The option of a cluster of letters ($1, -yp) whose value is the next word:
# the first letter that takes a value (of those in $2) takes the rest of the
# word as its value, or the next word when it is the last; nothing if none.
_gpuprov_cluster()
{
    local j
    for ((j = 1; j < ${#1}; j++)); do
        if [[ $2 == *" -${1:j:1} "* ]]; then
            ((j == ${#1} - 1)) && printf '%s' "-${1:j:1}"
            return 0
        fi
    done
    return 0
}

_gpuprov()
{
    local cur prev words cword split
    # -s: --baseline=DIR is one word, and completing --accept=... its value
    _init_completion -s || return

    local bin=${words[0]} cmd="" i j w help valued longs given=" " opts_end=""
    local -a args=()
    help=$("$bin" --help 2>/dev/null)
    valued=" $(_gpuprov_help valued "$help" | tr '\n' ' ')"
    longs=" $(_gpuprov_help options "$help" | grep -- '^--' | tr '\n' ' ')"
    # The command and its arguments, past the options and their values, as
    # getopt_long reads them: before or after the command, --opt VALUE,
    # --opt=VALUE, a long one by a prefix only it has, -pVALUE, -yp VALUE,
    # none after --.  given: the options, by their long names when typed so.
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        if [[ $opts_end || $w != -?* ]]; then
            if [[ -z $cmd ]]; then
                cmd=$w
            else
                args+=("$w")
            fi
        elif [[ $w == -- ]]; then
            opts_end=1
        elif [[ $w == --* ]]; then
            w=$(_gpuprov_long "$w" "$longs")
            given+="${w%%=*} "
            [[ $valued == *" $w "* ]] && ((i++))
        else
            for ((j = 1; j < ${#w}; j++)); do
                given+="-${w:j:1} "
                [[ $valued == *" -${w:j:1} "* ]] && break
            done
            [[ $(_gpuprov_cluster "$w" "$valued") ]] && ((i++))
        fi
    done

    # the option whose value is being typed, as the cases below name it
    case $prev in
        --*) prev=$(_gpuprov_long "$prev" "$longs") ;;
        -?*) w=$(_gpuprov_cluster "$prev" "$valued") && prev=${w:-$prev} ;;
    esac
    case $prev in
        -p | --profile)
            _filedir ini
            return
            ;;
        -r | --root | --baseline)
            # a tree gpuprov reads: a snapshot's .tar.gz is refused (exit 4)
            # until it is unpacked into a directory
            _filedir -d
            return
            ;;
        -o | --output | --nccl-lib)
            _filedir
            return
            ;;
        --only)
            _gpuprov_list "$cur" < <(printf '%s\n' vfio bond vm)
            return
            ;;
        --accept)
            _gpuprov_list "$cur" < <(_gpuprov_findings "$("$bin" help --json 2>/dev/null)")
            return
            ;;
        --size | --confirm-within)
            return
            ;;
    esac
    $split && return

    if [[ $cur == -* && -z $opts_end ]]; then
        if [[ $cmd ]]; then
            COMPREPLY=($(compgen -W "$(_gpuprov_options "$help" \
                "$("$bin" help --json 2>/dev/null)" "$cmd")" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_gpuprov_help options "$help")" -- "$cur"))
        fi
        return
    fi

    case $cmd in
        "")
            COMPREPLY=($(compgen -W "$(_gpuprov_help commands "$help")" -- "$cur"))
            ;;
        help)
            ((${#args[@]})) ||
                COMPREPLY=($(compgen -W "$(_gpuprov_help commands "$help")" -- "$cur"))
            ;;
        rollback)
            # [--list | RUN-ID]: one run ID, the first field of each line of
            # the porcelain list (-q: no header, no wrapped lines); plain
            # rollback takes the run the list marks "next" by itself
            [[ $given == *" --list "* ]] && return
            ((${#args[@]})) && return
            _gpuprov_match "$cur" < <("$bin" -q rollback --list 2>/dev/null | cut -f1)
            ;;
        bond)
            ((${#args[@]})) ||
                _gpuprov_match "$cur" < <(_gpuprov_bonds)
            ;;
        profile)
            if ((${#args[@]} == 0)); then
                COMPREPLY=($(compgen -W "validate discover" -- "$cur"))
            elif [[ ${#args[@]} == 1 && ${args[0]} == validate ]]; then
                _filedir ini
            fi
            ;;
    esac
} &&
    complete -F _gpuprov gpuprov

# ex: filetype=sh
