#!/bin/sh
# Runs every test and ends with one line: "N passed, N failed".
# UPDATE=1 rewrites the CLI tests' expected files from the current output.
set -u
cd "$(dirname "$0")/.."

PASS=0
FAIL=0
FAILED=""
# what a test could not exercise on this host, and why: its "not exercised:"
# lines (the test still asserts everything else, and counts once)
NOTEX=""
notex() { NOTEX="$NOTEX$(printf '%s\n' "$1" | sed -n 's/^not exercised: /  /p')
"; }
ok() { PASS=$((PASS + 1)); [ -n "${VERBOSE:-}" ] && echo "ok   $1"; return 0; }
bad() { FAIL=$((FAIL + 1)); FAILED="$FAILED $1"; echo "FAIL $1"; }

# No test takes or writes this host's own lock or state (/run/gpuprov,
# /var/lib/gpuprov): every test gets a scratch pair unless it sets its own;
# one about the default paths runs in a private mount namespace (t_lock.sh).
GP_SCRATCH=$(mktemp -d)
trap 'rm -rf "$GP_SCRATCH"' EXIT
export GPUPROV_STATE_DIR=$GP_SCRATCH/state GPUPROV_RUN_DIR=$GP_SCRATCH/run

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# ---- the lab: a real kernel under QEMU (tests/lab/lab.sh), started first ----
# It is QEMU/TCG, the rest mostly serial shell: they overlap, and the lab's
# result is collected at the end (its log in build/lab.log).  Its own scratch
# state: the lab runs gpuprov inside its guests, and libvirt and QEMU here.
LAB_PID=
LAB_NOT_OK=
WHY= # a failed script's last lines, said again at the end (a CI log shows the end)
if [ -z "${GP_NO_LAB:-}" ]; then
	mkdir -p build
	GPUPROV_STATE_DIR=$GP_SCRATCH/lab-state GPUPROV_RUN_DIR=$GP_SCRATCH/lab-run \
		sh tests/lab/lab.sh >build/lab.log 2>&1 </dev/null &
	LAB_PID=$!
	trap 'kill "$LAB_PID" 2>/dev/null; rm -rf "$GP_SCRATCH"' EXIT
fi

# ---- unit tests (cmocka): each test case counts ----
for t in build/test/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
	n=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
	PASS=$((PASS + n))
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" | grep -E 'FAILED|ERROR|error|Sanitizer' | head -20
		FAIL=$((FAIL + (rc > 0 && rc < 100 ? rc : 1)))
		FAILED="$FAILED $(basename "$t")"
	fi
done
echo "unit: $PASS passed so far"

# ---- the binary on fixture hosts, against expected files ----
. tests/cli/run_cases.sh
run_cases tests/cli/cases
echo "cli: $PASS passed so far"

# ---- other scripted tests ----
# LeakSanitizer's tracer itself sometimes dies at exit of a process that ran
# libvirt's threads ("Tracer caught signal 11 ... LeakSanitizer has
# encountered a fatal error"), on a loaded machine: that is the tool failing,
# not a leak (a leak says "detected memory leaks"), so such a test runs once
# more, and says so; any other failure, or the same crash twice, fails.
lsan_crash() {
	printf '%s\n' "$1" | grep -q 'LeakSanitizer has encountered a fatal error' &&
		! printf '%s\n' "$1" | grep -q 'detected memory leaks'
}
# each script's seconds, for the line that names the slowest (the suite must
# stay within its time budget: that line says where the time goes)
TIMES=$GP_SCRATCH/times
T_START=$(date +%s)
# Two lanes take the scripts from one queue (a script is claimed by mkdir).
# The second starts when the lab's nested topology (vmstart, TCG inside
# TCG, the slowest and most starved by a busy machine) has ended: while it
# runs the machine's cores are busy (and a lab boot starved of them can miss
# its deadline); after it, the lab's plain boots (ovmf, reboot) take far
# less than their deadlines, and the scripts, mostly one process at a time,
# would leave a core idle.  The slow ones are queued first, so that neither lane ends with a
# long one alone.  Each lane has its own scratch state (no script shares a
# journal or lock with another that runs beside it); each script's output
# and status are kept and judged below, in order.
Q=$GP_SCRATCH/queue
mkdir -p "$Q"
SCRIPTS=$(ls tests/cli/t_*.sh)
NSCRIPTS=$(printf '%s\n' "$SCRIPTS" | wc -l)
SLOW="t_ansible_role t_deb t_json t_verify t_confirm t_lspci_agree t_snapshot t_report t_domxml t_nccl_topo"
SLOW=$(for s in $SLOW; do echo "tests/cli/$s.sh"; done | grep -F -x "$SCRIPTS")
ORDER=$(printf '%s\n' "$SLOW"; printf '%s\n' "$SCRIPTS" | grep -v -F -x "$SLOW")
run_script() {
	name=$(basename "$1" .sh)
	t0=$(date +%s)
	out=$(sh "$1" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && lsan_crash "$out"; then
		out="note: $name: LeakSanitizer's tracer crashed (not a leak); running it once more
$(sh "$1" 2>&1)"
		rc=$?
	fi
	printf '%s\n' "$out" >"$Q/$name/out"
	echo "$(($(date +%s) - t0)) $name" >>"$TIMES"
	echo "$rc" >"$Q/$name/rc"
}
lane() {
	export GPUPROV_STATE_DIR=$GP_SCRATCH/lane$1/state GPUPROV_RUN_DIR=$GP_SCRATCH/lane$1/run
	# the second lane: not before the lab's nested topology has ended (or the
	# lab), and not at all when the first took every script
	while [ "$1" -ne 1 ] && [ -n "$LAB_PID" ] && kill -0 "$LAB_PID" 2>/dev/null &&
		! grep -q '^lab: [0-9]* passed\|^lab: vmstart: QEMU exited' build/lab.log; do
		[ "$(ls "$Q" | wc -l)" -lt "$NSCRIPTS" ] || return 0
		sleep 5
	done
	for t in $ORDER; do
		mkdir "$Q/$(basename "$t" .sh)" 2>/dev/null || continue
		run_script "$t"
	done
}
lane 1 &
LANE1=$!
(lane 2)
wait "$LANE1"
for t in $SCRIPTS; do
	name=$(basename "$t" .sh)
	out=$(cat "$Q/$name/out" 2>/dev/null)
	rc=$(cat "$Q/$name/rc" 2>/dev/null || echo 1)
	printf '%s\n' "$out" | grep "^note: $name: LeakSanitizer" || true
	notex "$out"
	if [ "$rc" -eq 0 ]; then ok "$name"; else
		printf '%s\n' "$out" | tail -20
		bad "$name"
		WHY="$WHY$(printf '%s\n' "$out" | grep . | tail -3 | sed "s/^/  $name: /")
"
	fi
done

# ---- the fuzz harnesses replay their corpus: what once crashed stays fixed ----
for f in build/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	name=$(basename "$f")
	corpus=tests/fuzz/corpus/${name#fuzz_}
	if out=$("$f" -runs=0 "$corpus" 2>&1); then ok "$name corpus"; else
		printf '%s\n' "$out" | tail -20; bad "$name corpus"; fi
done

echo "scripts: $(($(date +%s) - T_START)) s; slowest: $(sort -rn "$TIMES" | head -6 |
	awk '{printf "%s%s %d s", (NR > 1 ? ", " : ""), $2, $1}')"

# ---- the lab's result (started above) ----
if [ -n "$LAB_PID" ]; then
	t0=$(date +%s)
	wait "$LAB_PID"
	echo "lab: waited $(($(date +%s) - t0)) s for it after the other tests"
	LAB_PID=
	notex "$(cat build/lab.log)"
	grep -E '^lab: ' build/lab.log | grep -v '^lab: booting\|QEMU exited' || true
	# a topology's failures are "TOPO: not ok N - ...": kept for the last lines,
	# which are what a CI log shows first
	LAB_NOT_OK=$(grep -E '(^|: )not ok' build/lab.log | head -20)
	echo "lab: topologies: $(sed -n 's/^lab: \([a-z0-9]*\): QEMU exited [0-9]* after \([0-9]*\) s$/\1 \2 s/p' \
		build/lab.log | paste -sd, - | sed 's/,/, /g')"
	set -- $(sed -n 's/^lab: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' build/lab.log)
	if [ $# -eq 2 ]; then
		PASS=$((PASS + $1))
		[ "$2" -eq 0 ] || { FAIL=$((FAIL + $2)); FAILED="$FAILED lab"; }
	else
		tail -20 build/lab.log
		bad "lab (did not finish)"
	fi
fi

[ -z "${GP_NO_LAB:-}" ] || NOTEX="$NOTEX  the lab: a real kernel under QEMU (GP_NO_LAB is set)
"
NOTEX=$(printf '%s' "$NOTEX" | grep . | sort -u)
[ -z "$NOTEX" ] || printf 'not exercised on this host (the rest of each test ran):\n%s\n' "$NOTEX"
[ -z "$WHY" ] || printf 'the failed scripts ended:\n%s' "$WHY"
[ -z "$LAB_NOT_OK" ] || printf 'the lab failed:\n%s\n' "$LAB_NOT_OK"
[ -n "$FAILED" ] && echo "failed:$FAILED"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
