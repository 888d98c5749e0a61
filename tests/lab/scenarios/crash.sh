# Crash across runs (the messy host, tests/lab/profiles/lab-bind.ini): a run
# SIGKILLed after each of its steps in turn.  Each time apply refuses to start
# (exit 2, naming the run and 'gpuprov rollback'), and repeating plain
# rollback until "nothing to roll back" gives the host back exactly as before:
# drivers, overrides, vfio modules, every file under /etc.  Then a sequence:
# a finished run, a second run (another profile) killed mid-way, a refused
# run; rollback, repeated, undoes both.  The kill comes when the journal shows
# step N done: GPUPROV_STEP_DELAY holds the run there, nothing else is
# needed in gpuprov for it.
. /tap.sh
B=/etc/gpuprov/lab-bind.ini
C=/etc/gpuprov/lab-companions.ini
J=/var/lib/gpuprov/journal

host_state() {
	kernel_facts
	for d in /sys/bus/pci/devices/*; do echo "${d##*/} override $(cat "$d/driver_override")"; done
	ls /sys/module | grep vfio
	find /etc \( -type f -o -type l \) | sort | while read -r f; do
		if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(md5sum <"$f")"; fi
	done
}
newest() { ls "$J"/*.json 2>/dev/null | sort | tail -1; }
steps_done() { grep -cE '"state": "(done|skipped)"' "$1" 2>/dev/null; }

# runs apply with profile $1, kills it once $2 steps are done; prints the run's journal
killed_after() {
	local known pid i j
	known=$(ls "$J" 2>/dev/null | tr '\n' ' ')
	GPUPROV_STEP_DELAY=2 gpuprov -p "$1" apply --yes >/tmp/killed.log 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null; do
		j=$(newest)
		if [ -n "$j" ] && ! echo "$known" | grep -q "${j##*/}" &&
			[ "$(steps_done "$j")" -ge "$2" ]; then
			break
		fi
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	newest
}

# plain rollback until it has nothing left (at most 6 times); 0 when it got there
rollback_all() {
	local k=0
	while [ $k -lt 6 ]; do
		gpuprov rollback --yes >/tmp/rb.log 2>&1 || { sed 's/^/# rollback: /' /tmp/rb.log; return 1; }
		grep -q "nothing to roll back" /tmp/rb.log && return 0
		k=$((k + 1))
	done
	return 1
}

before=$(host_state)
host_state >/tmp/state.before
nsteps=$(gpuprov -p $B plan | grep -cE '^ {0,2}[0-9]+  [a-z]+\.[a-z]')
t_ok "the plan has steps ($nsteps)" test "$nsteps" -ge 4

n=1
while [ $n -le "$nsteps" ]; do
	j=$(killed_after $B $n)
	run=$(basename "$j" .json)
	t_ok "killed after step $n of $nsteps: its journal says running" grep -q '"status": "running"' "$j"
	gpuprov -p $B apply --yes >/tmp/refused.log 2>&1
	t_exit "... apply refuses (exit 2)" 2 sh -c "exit $?"
	t_grep "... naming the run and the command" /tmp/refused.log "run $run was interrupted.*gpuprov rollback"
	gpuprov rollback --list >/tmp/list.wrapped 2>&1
	unwrap /tmp/list.wrapped >/tmp/list.txt
	t_grep "... rollback --list shows it interrupted, next" /tmp/list.txt "$run +interrupted .*<- next"
	t_ok "... plain rollback, repeated, ends with nothing left" rollback_all
	host_state >/tmp/state.after
	t_ok "... and the host is exactly as before" cmp /tmp/state.before /tmp/state.after
	cmp -s /tmp/state.before /tmp/state.after || diff /tmp/state.before /tmp/state.after | sed 's/^/# /' | head -20
	n=$((n + 1))
done

# a finished run, then another profile's run killed mid-way, then a refused run
gpuprov -p $B apply --yes >/tmp/a1.log 2>&1
t_exit "a finished run" 0 sh -c "exit $?"
j=$(killed_after $C 2)
t_ok "a second run killed after 2 steps" grep -q '"status": "running"' "$j"
t_exit "a third run is refused" 2 gpuprov -p $B apply --yes
t_ok "rollback, repeated, undoes the killed run and the finished one" rollback_all
host_state >/tmp/state.after
t_ok "... and the host is exactly as before the first run" cmp /tmp/state.before /tmp/state.after
cmp -s /tmp/state.before /tmp/state.after || diff /tmp/state.before /tmp/state.after | sed 's/^/# /' | head -20
gpuprov rollback --list | sed 's/^/# /'
t_done
