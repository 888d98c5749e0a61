# The Ansible module gpuprov.fleet.gpuprov on a real kernel: run in the guest
# as Ansible runs a module on a managed host (python3 MODULE ARGS-FILE; the
# guest has no SSH, so no ansible-playbook), with the crash scenario's host
# and lab-bind.ini.  Check mode changes nothing; applied binds both devices
# and returns the run ID; a second applied has nothing to do (no change);
# rolled_back gives the e1000e back to its driver; a second one has nothing
# to roll back.  The kernel's state is read from sysfs, not from the module.
. /tap.sh
B=/etc/gpuprov/lab-bind.ini
M=/usr/lib/python3/dist-packages/ansible_collections/gpuprov/fleet/plugins/modules/gpuprov.py
E=0000:47:00.0
T=0000:81:00.0
drv() { [ -e "/sys/bus/pci/devices/$1/driver" ] && basename "$(readlink "/sys/bus/pci/devices/$1/driver")"; }
# mod ARGS-JSON: the module's result in /tmp/mod.json
mod() {
	printf '{"ANSIBLE_MODULE_ARGS": %s}\n' "$1" >/tmp/args.json
	HOME=/tmp /usr/bin/python3 "$M" /tmp/args.json >/tmp/mod.json 2>/tmp/mod.err
	cat /tmp/mod.err >>/tmp/mod.json
	cp /tmp/mod.json "/out/ansible-$2.json"
}

t_ok "python3 runs in the guest" /usr/bin/python3 -c 'import ansible.module_utils.basic'
mod '{"profile": "'$B'", "state": "applied", "_ansible_check_mode": true}' check
t_grep "check mode: changes pending" /tmp/mod.json '"changed": true'
t_grep "check mode: the plan's steps" /tmp/mod.json '"kind": "device.bind"'
t_ok "check mode: the e1000e still on e1000e" test "$(drv $E)" = e1000e

mod '{"profile": "'$B'", "state": "applied"}' apply
t_grep "applied: changed" /tmp/mod.json '"changed": true'
t_grep "applied: the run ID" /tmp/mod.json '"run_id": "[^"]+"'
t_ok "kernel: the e1000e is on vfio-pci" test "$(drv $E)" = vfio-pci
t_ok "kernel: the testdev is on vfio-pci" test "$(drv $T)" = vfio-pci

mod '{"profile": "'$B'", "state": "applied"}' again
t_grep "applied again: nothing to do" /tmp/mod.json '"msg": "nothing to do"'
t_grep "applied again: no change" /tmp/mod.json '"changed": false'

mod '{"state": "rolled_back"}' rollback
t_grep "rolled_back: changed" /tmp/mod.json '"changed": true'
t_ok "kernel: the e1000e is back on e1000e" test "$(drv $E)" = e1000e
t_ok "kernel: the testdev has no driver" test -z "$(drv $T)"

mod '{"state": "rolled_back"}' rollback2
t_grep "rolled_back again: nothing to roll back" /tmp/mod.json '"msg": "nothing to roll back"'
t_grep "rolled_back again: no change" /tmp/mod.json '"changed": false'
t_done
