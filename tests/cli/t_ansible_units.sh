#!/bin/sh
# The collection's module unit tests (Debian's pytest, in-process, against
# the real gpuprov on fixture trees).
. tests/ansible/lib.sh
GPUPROV_BIN=$G GPUPROV_FIXTURES=$FIX GPUPROV_PROFILE=$PROFILE PYTHONPATH="$D/collections" \
	/usr/bin/python3 -m pytest -q -p no:cacheprovider "$COLL/tests/unit" >"$D/units.log" 2>&1 || {
	tail -40 "$D/units.log"; exit 1; }
tail -1 "$D/units.log"
