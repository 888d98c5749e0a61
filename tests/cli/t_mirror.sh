#!/bin/sh
# The lab downloads from the Debian archive this machine's apt uses
# (tests/lab/mirror.py), in either format of apt's sources; the tree itself
# names no package mirror.
set -eu
. "$(dirname "$0")/lib.sh"
M() { APT_ETC=$d/apt OS_RELEASE=$d/os-release python3 tests/lab/mirror.py; }

mkdir -p "$d/apt/sources.list.d"
echo 'VERSION_CODENAME=bookworm' >"$d/os-release"

# deb822: a disabled stanza, a third party's "nodistro main", then Debian's
cat >"$d/apt/sources.list.d/a.sources" <<'S'
Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb
URIs: https://third.example/node
Suites: nodistro
Components: main
S
cat >"$d/apt/sources.list.d/debian.sources" <<'S'
Types: deb deb-src
# a comment inside the stanza
URIs: http://archive.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
S
[ "$(M)" = http://archive.example/debian ] || fail "deb822: $(M)"

# the one-line format, with options, comes first (sources.list)
printf '# deb http://commented.example/debian bookworm main\n' >"$d/apt/sources.list"
printf 'deb-src http://src.example/debian bookworm main\n' >>"$d/apt/sources.list"
printf 'deb [arch=amd64 signed-by=/k.gpg] http://list.example/debian/ bookworm main\n' \
	>>"$d/apt/sources.list"
[ "$(M)" = http://list.example/debian ] || fail "one-line: $(M)"

# another release's archive is not taken for this one's
echo 'VERSION_CODENAME=trixie' >"$d/os-release"
if out=$(M 2>&1); then fail "no trixie source, yet: $out"; fi
case $out in *"no source of trixie main"*GP_LAB_MIRROR*) ;; *) fail "message: $out" ;; esac

# the variable wins
[ "$(GP_LAB_MIRROR=http://mine.example/d M)" = http://mine.example/d ] || fail "GP_LAB_MIRROR"

# no mirror host in the tree (this script names only example.*)
hits=$(git ls-files -z | xargs -0 grep -l -I -E \
	'deb\.debian\.org|(ftp|security|snapshot|cdn|httpredir)\.debian\.org|archive\.ubuntu\.com|ports\.ubuntu\.com' \
	2>/dev/null || true)
[ -z "$hits" ] || fail "the tree names a package mirror: $hits"
