#!/bin/sh
# The modules in a playbook on localhost, against fixture trees (-r): check
# mode, diff mode, a blocked host, idempotence, drift, failures.
. tests/ansible/lib.sh
ansible-playbook "$COLL/tests/integration/playbooks/module.yml" -e "gp=$G" -e "fixtures=$FIX" \
	-e "profile=$PROFILE" >"$D/play.log" 2>&1 || { grep -B2 -A20 'FAILED\|ERROR' "$D/play.log" | head -60; exit 1; }
grep -A1 'PLAY RECAP' "$D/play.log" | tail -1
