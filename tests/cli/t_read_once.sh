#!/bin/sh
# Whether a file a profile names may be shown (plan --diff, plan --json, the
# report) is decided from the descriptor that was read, never by looking the
# path up again: between two lookups a user who owns a directory on the path
# can swap a link, and /etc/shadow would be printed as "public" (review2 F2).
# strace shows the lookups: the VM's output file and the template are each
# opened once and never stat'ed by name afterwards.
set -u
. "$(dirname "$0")/lib.sh"

R=$d/tree
cp -a build/hosts/r5350-ready "$R"
mkdir -p "$R/var/lib/gpuprov"
printf '<domain type="kvm"><name>OUTPUT-NOW-PUBLIC</name></domain>\n' \
	>"$R/var/lib/gpuprov/a100-vm.xml"
chmod 0644 "$R/var/lib/gpuprov/a100-vm.xml"
cp templates/domain-q35-ovmf.xml "$d/t.xml"
chmod 0644 "$d/t.xml"
sed "s|^output = .*|output = /var/lib/gpuprov/a100-vm.xml\ntemplate = $d/t.xml|" \
	profiles/h3c-r5350-g6.ini >"$d/p.ini"
grep -q "^template = $d/t.xml$" "$d/p.ini" || fail "the profile names no template"

# by_name FILE: the trace's lookups of the path (opens, stats, access, ...)
by_name() { grep -F "\"$1\"" "$d/trace"; }
for how in "plan --diff" "--json plan"; do
	# shellcheck disable=SC2086
	# LeakSanitizer cannot run under ptrace (the untraced runs below look for leaks)
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
		strace -f -qq -e trace=%file,openat2 -o "$d/trace" "$G" -r "$R" -p "$d/p.ini" $how \
		>"$d/out" 2>&1
	grep -q OUTPUT-NOW-PUBLIC "$d/out" || fail "$how: the public output file is not shown"
	n=$(by_name /var/lib/gpuprov/a100-vm.xml | grep -c 'open')
	[ "$n" = 1 ] || fail "$how: the output file opened $n times: $(by_name /var/lib/gpuprov/a100-vm.xml)"
	n=$(by_name "$d/t.xml" | wc -l)
	[ "$n" = 1 ] || fail "$how: the template looked up $n times: $(by_name "$d/t.xml")"
	by_name "$d/t.xml" | grep -q 'open' || fail "$how: the template was not opened"
done

# the decision still follows the file read: root alone may read the output
# file, or the template the domain is built from: digests only
private() { # private FILE: plan --diff with FILE readable by root alone
	chmod 0644 "$R/var/lib/gpuprov/a100-vm.xml" "$d/t.xml"
	chmod 0600 "$1"
	"$G" -r "$R" -p "$d/p.ini" plan --diff >"$d/out" 2>&1
	! grep -q OUTPUT-NOW-PUBLIC "$d/out" || fail "$1: a file root alone may read was shown"
	grep -A1 '^domain.write ' "$d/out" | grep -q 'holds a secret' ||
		fail "$1 readable by root alone: domain.write is not secret"
}
private "$R/var/lib/gpuprov/a100-vm.xml"
private "$d/t.xml"
exit 0
