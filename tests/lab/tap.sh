# TAP helpers for the lab scenarios (busybox sh).
T_N=0
# t_ok DESC CMD...: runs CMD; ok when it exits 0.
t_ok() {
	desc=$1
	shift
	T_N=$((T_N + 1))
	if "$@" >/tmp/t.out 2>&1; then
		echo "ok $T_N - $desc"
	else
		echo "not ok $T_N - $desc"
		sed 's/^/# /' /tmp/t.out | head -20
	fi
}
# t_grep DESC FILE PATTERN: ok when an extended regex matches a line of FILE.
t_grep() {
	T_N=$((T_N + 1))
	if grep -Eq -- "$3" "$2"; then
		echo "ok $T_N - $1"
	else
		echo "not ok $T_N - $1 (no line matches '$3' in $2)"
		sed 's/^/# /' "$2" | head -40
	fi
}
# t_exit DESC WANT CMD...: ok when CMD exits with status WANT.
t_exit() {
	desc=$1
	want=$2
	shift 2
	T_N=$((T_N + 1))
	"$@" >/tmp/t.out 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		echo "ok $T_N - $desc"
	else
		echo "not ok $T_N - $desc (exit $rc, want $want)"
		sed 's/^/# /' /tmp/t.out | head -40
	fi
}
# unwrap FILE: gpuprov's text as one line per finding or step.  Text output
# is wrapped at 80 columns, each further line indented by 5 spaces or more
# (a finding's message and hint, a plan step's target): joined back with one
# space, a grep sees "FAIL  id  subject  message  hint: ..." on one line.
unwrap() {
	awk 'NR > 1 && /^     / { sub(/^ +/, " "); line = line $0; next }
		NR > 1 { print line } { line = $0 } END { if (NR) print line }' "$1"
}
t_done() {
	echo "1..$T_N"
}
# The kernel's own view of every PCI function, for the host-side comparison.
kernel_facts() {
	for d in /sys/bus/pci/devices/*; do
		b=${d##*/}
		g=-
		[ -e "$d/iommu_group" ] && g=$(basename "$(readlink "$d/iommu_group")")
		drv=-
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		echo "$b $(cat "$d/vendor") $(cat "$d/device") $(cat "$d/class") $(cat "$d/numa_node") $g $drv"
	done
}
# busybox sh runs its own applets before PATH: iproute2's ip by its full path
ip() { /usr/sbin/ip "$@"; }
