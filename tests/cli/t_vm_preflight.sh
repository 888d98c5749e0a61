#!/bin/sh
# The VM preflight on this machine: libvirt that cannot be
# reached is said plainly by check (vm.libvirt, a warning with libvirt's own
# reason), without -v, and plan shows that reason for domain.define's
# "unknown".  An SSH URI to a closed local port fails at once, here and on
# any machine.
set -eu
. "$(dirname "$0")/lib.sh"
gp_vm_profile "$d/p.ini" "$d/out/gp-test-vm.xml" "qemu+ssh://root@127.0.0.1:1/system"
$G -p "$d/p.ini" check 2>"$d/check.err" | awk -f tests/cli/unwrap.awk >"$d/check" || true
grep -q "^WARN  vm.libvirt .*libvirt at qemu+ssh://root@127.0.0.1:1/system cannot be reached: ." "$d/check" ||
	{ cat "$d/check" "$d/check.err"; fail "check does not say libvirt is unreachable"; }
$G -p "$d/p.ini" --only vm plan 2>&1 | awk -f tests/cli/unwrap.awk >"$d/plan" || true
grep -q "domain.define .*unknown (libvirt unreachable: ." "$d/plan" ||
	{ cat "$d/plan"; fail "plan does not say why domain.define is unknown"; }
exit 0
