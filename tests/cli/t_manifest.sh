#!/bin/sh
# One manifest of what gpuprov reads of a host (core/manifest.{c,h}): the
# readers in host/ and sys/kmod.c and the snapshot (cli/cmd_snapshot.c) use
# its names.  A path read but not copied makes `-r SNAPSHOT` another host, so
# the snapshot names no host path of its own and copies every path and list
# the manifest names, but those whose line says "not copied" (and why) or
# "copied: LIST".
set -eu
. "$(dirname "$0")/lib.sh"

snap=src/cli/cmd_snapshot.c
hdr=src/core/manifest.h
# an absolute path in a string, but the staging directory's default (TMPDIR)
if grep -n '"/[A-Za-z]' "$snap" | grep -v '"/tmp"'; then
	gp_bad "$snap: the host paths above are not from $hdr"
fi
names=$(sed -n 's/^#define \(GP_[A-Z0-9_]*\)[[:space:]]*"\/.*/\1/p
	s/^extern const char \*const \(gp_[a-z0-9_]*\)\[.*/\1/p' "$hdr")
[ -n "$names" ] || fail "$hdr: no names"
for n in $names; do
	grep -qE "(define|const) $n\b.*(not copied|copied: )" "$hdr" && continue
	grep -qw "$n" "$snap" && continue
	# a path the manifest's own lists hold (gp_host_files, gp_vm_dirs)
	grep -w "$n" src/core/manifest.c | grep -qv "const char \*const $n\[" && continue
	gp_bad "$hdr: $n: the snapshot does not copy it (nor says 'not copied')"
done
gp_end
