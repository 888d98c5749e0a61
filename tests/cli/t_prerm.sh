#!/bin/sh
# The package's prerm names every run still applied, read from
# `gpuprov -q rollback --list` (a line a run, tab-separated): a refused
# journal is named (it may have changed the host), a run interrupted or done
# is named, a rolled-back one is not, and nothing of the text listing (a
# reason or profile wrapped onto a line of its own, the "<- next" marker) is
# taken for a run.  The journals and the lock are the test's own.
set -eu
. "$(dirname "$0")/lib.sh"
mkdir -m 700 "$d/journal" "$d/bin"
ln -s "$G" "$d/bin/gpuprov"
gp_own_state
journal() { # RUN-ID SEQ STATUS STEP-STATE [MODE]
	printf '{"schema_version": 1, "run_id": "%s", "seq": %s, "status": "%s", "profile": "/etc/gpuprov/a-profile-path-long-enough-to-wrap-the-listing-onto-a-line-of-its-own.ini", "steps": [{"kind": "module.load", "subject": "vfio_pci", "state": "%s", "undo": {}}]}\n' \
		"$1" "$2" "$3" "$4" >"$d/journal/$1.json"
	chmod "${5:-600}" "$d/journal/$1.json"
}
journal 20990101T000000Z-1 1 done done
journal 20990101T000000Z-2 2 rolled_back undone
journal 20990101T000000Z-3 3 running done
# others may read it: refused, status invalid, the reason wraps
journal 20990101T000000Z-4 4 done done 644
prerm() {
	PATH=$d/bin:$PATH sh debian/gpuprov.prerm remove 2>"$d/err" || fail "prerm failed"
}
prerm
want="gpuprov: runs applied on this host and not rolled back: 20990101T000000Z-4 20990101T000000Z-1 20990101T000000Z-3"
[ "$(head -n 1 "$d/err")" = "$want" ] || { cat "$d/err"; fail "prerm: not the runs still applied"; }
grep -q "run 'gpuprov rollback'" "$d/err" || fail "prerm: no way out named"

# every run rolled back: not a word
rm "$d/journal"/*.json
journal 20990101T000000Z-2 2 rolled_back undone
prerm
[ ! -s "$d/err" ] || { cat "$d/err"; fail "prerm spoke of runs rolled back"; }

# the runs cannot be listed (the journal directory others can write): said
chmod 777 "$d/journal"
prerm
grep -q "cannot list them" "$d/err" || { cat "$d/err"; fail "prerm: a list that failed went unsaid"; }
exit 0
