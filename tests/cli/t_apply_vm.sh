#!/bin/sh
# apply --only vm and rollback for real, against libvirt's in-process QEMU
# driver (qemu:///embed): domain.write writes the file, nccl.write NCCL's
# topology file beside it (replacing an old one), domain.define defines the
# domain, a second plan has nothing to do, rollback removes the XML, puts the
# old NCCL file back and undefines, and a second rollback does nothing.  Runs on this machine (root) with the journal
# in a scratch directory; the VM has no GPU here, which is all libvirt needs.
set -eu
. "$(dirname "$0")/lib.sh"
# --accept vm.kvm: these steps are the subject, not KVM; on a host without
# /dev/kvm (a cloud VM, TCG) vm.kvm fails, rightly, and would block them
# the journal and a lock of its own: runs of other trees on this machine do
# not meet it
gp_own_state
gp_embed_libvirt "$d"
gp_vm_profile "$d/p.ini" "$d/out/gp-test-vm.xml" "$uri"
chmod 644 "$d/p.ini"
defined() { virsh -q -c "$uri" list --all --name 2>/dev/null | grep -qx gp-test-vm; }

set +e
$G -p "$d/p.ini" --only vm --accept vm.kvm plan >"$d/plan" 2>&1; rc=$?
set -e
[ $rc -eq 1 ] || { cat "$d/plan"; fail "plan: exit $rc, want 1"; }
grep -q "domain.write .*absent" "$d/plan" || fail "plan lacks domain.write"
grep -q "domain.define .*gp-test-vm .*not defined" "$d/plan" || fail "plan lacks domain.define"
grep -q "nccl.write .*$d/out/gp-test-vm.nccl-topo.xml .*absent" "$d/plan" || fail "plan lacks nccl.write"
# an NCCL file of the operator's own is there: apply replaces it, rollback puts it back
mkdir -p "$d/out"
echo '<system version="1"/>' >"$d/out/gp-test-vm.nccl-topo.xml"
$G -p "$d/p.ini" --only vm --accept vm.kvm plan 2>&1 | grep -q "nccl.write .*differs" || fail "plan: nccl.write not 'differs'"

chmod 666 "$d/p.ini"
set +e
$G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes 2>"$d/err"; rc=$?
set -e
[ $rc -eq 4 ] && grep -q "writable by group or others" "$d/err" || fail "a writable profile was not refused"
chmod 644 "$d/p.ini"

$G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes 2>"$d/apply.log" || { cat "$d/apply.log"; fail "apply failed"; }
[ -f "$d/out/gp-test-vm.xml" ] || fail "no domain XML written"
defined || fail "the domain is not defined"
$G -p "$d/p.ini" nccl-topo | cmp -s - "$d/out/gp-test-vm.nccl-topo.xml" ||
	fail "nccl.write did not write what nccl-topo prints"
virsh -q -c "$uri" dumpxml --inactive gp-test-vm | grep -q "urn:gpuprov:1" || fail "no digest"
$G -p "$d/p.ini" --only vm --accept vm.kvm plan >"$d/plan2" || { cat "$d/plan2"; fail "second plan not empty"; }

# A running VM holds its devices: while the domain runs, a second apply is
# blocked by vm.running and rollback refuses, both exit 2 and change nothing.
# libvirt starts no KVM domain here, nor host-passthrough under TCG, nor a disk
# that is not there: the defined domain is redefined with those changed, its
# metadata (gpuprov's digest) kept, and started paused.  The embedded driver
# leaves QEMU running when virsh exits, with its monitor socket in the root
# (mode 0775), which the root's walk lets pass.
printf 'stdio_handler = "file"\n' >>"$d/embed/etc/qemu.conf"
virsh -q -c "$uri" dumpxml --inactive gp-test-vm |
	sed -e '/<disk /,/<\/disk>/d' -e '/<interface /,/<\/interface>/d' \
		-e "s/<domain type=[\"']kvm[\"']/<domain type='qemu'/" \
		-e "s/<cpu mode=[\"']host-passthrough[\"']/<cpu mode='maximum'/" >"$d/tcg.xml"
virsh -q -c "$uri" define "$d/tcg.xml" >/dev/null 2>&1 || fail "the TCG copy is not defined"
# a failure below must not leave its QEMU running on this machine
gp_on_exit 'virsh -q -c "$uri" destroy gp-test-vm >/dev/null 2>&1'
virsh -q -c "$uri" start --paused gp-test-vm >"$d/start.log" 2>&1 || true # virsh may crash at exit
running() { [ "$(virsh -q -c "$uri" domstate gp-test-vm 2>/dev/null | head -1)" = paused ]; }
running || { cat "$d/start.log"; fail "the domain did not start"; }
set +e
$G -p "$d/p.ini" --only vm --accept vm.kvm apply --yes >"$d/apply2.out" 2>&1; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "vm.running gp-test-vm: a domain of this name is running" "$d/apply2.out" ||
	{ cat "$d/apply2.out"; fail "a second apply while the domain runs: exit $rc, want 2 (vm.running)"; }
set +e
$G rollback --yes 2>"$d/rbrun.log"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "domain 'gp-test-vm' is running at $uri and holds its devices" "$d/rbrun.log" &&
	grep -q "nothing was undone" "$d/rbrun.log" ||
	{ cat "$d/rbrun.log"; fail "rollback while the domain runs: exit $rc, want 2"; }
running || fail "rollback stopped the domain"
[ -f "$d/out/gp-test-vm.xml" ] && defined || fail "a refused rollback undid something"
$G rollback --list -q | grep -q "	done	3	3	next	-$" || fail "the refused rollback marked the run"
virsh -q -c "$uri" destroy gp-test-vm >/dev/null 2>&1 || true
i=0
while running && [ $i -lt 20 ]; do
	virsh -q -c "$uri" destroy gp-test-vm >/dev/null 2>&1 || sleep 1
	i=$((i + 1))
done
! running || fail "the domain cannot be stopped"

$G rollback --yes 2>"$d/rb.log" || { cat "$d/rb.log"; fail "rollback failed"; }
[ ! -e "$d/out/gp-test-vm.xml" ] || fail "the XML is still there"
[ "$(cat "$d/out/gp-test-vm.nccl-topo.xml")" = '<system version="1"/>' ] ||
	fail "rollback did not put the operator's NCCL file back"
! defined || fail "the domain is still defined"
$G rollback --yes 2>"$d/rb2.log" || fail "second rollback failed"
grep -q "nothing to roll back" "$d/rb2.log" || fail "second rollback did something"
set +e
$G rollback --yes 20990101T000000Z-1 2>"$d/rb3.log"; rc=$?
set -e
[ $rc -eq 4 ] && grep -q "no journal" "$d/rb3.log" || fail "an unknown run ID: exit $rc"


# libvirt is loaded at run time: where libvirt.so.0 cannot be loaded (hidden
# under /dev/null in a private mount namespace), plan and check say so in
# words and apply changes nothing.  The installed binary, build/gpuprov: it
# does not link libvirt (the ASan one does, see the Makefile)
P=$(pwd)/build/gpuprov
! ldd "$P" | grep -q libvirt || fail "build/gpuprov links libvirt"
lib=$(ldconfig -p | awk '/libvirt\.so\.0 .*x86-64/ {print $NF; exit}')
[ -n "$lib" ] || fail "no libvirt.so.0 in ldconfig's cache"
hidden() {
	unshare -m --propagation private sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' \
		sh "$lib" "$P" -p "$d/p.ini" "$@"
}
why="cannot load $lib: file too short"
set +e
hidden --only vm --accept vm.kvm plan >"$d/hplan" 2>&1; rc=$?
set -e
# read unwrapped: the text is wrapped at 80 columns
flat() { tr '\n' ' ' <"$1" | tr -s ' '; }
[ $rc -eq 1 ] && flat "$d/hplan" | grep -qF "domain.define gp-test-vm unknown (libvirt unreachable: $why)" ||
	{ cat "$d/hplan"; fail "plan without libvirt: exit $rc"; }
set +e
hidden check >"$d/hcheck" 2>&1
hidden --only vm --accept vm.kvm apply --yes >"$d/happly" 2>&1; rc=$?
set -e
flat "$d/hcheck" | grep -qF "vm.libvirt" && flat "$d/hcheck" | grep -qF "cannot be reached: $why" ||
	{ cat "$d/hcheck"; fail "check without libvirt: no vm.libvirt"; }
[ $rc -ne 0 ] && flat "$d/happly" | grep -qF "cannot connect to libvirt at '$uri': $why (is libvirt0 installed?)" &&
	grep -q "nothing was changed" "$d/happly" || { cat "$d/happly"; fail "apply without libvirt: exit $rc"; }
[ ! -e "$d/out/gp-test-vm.xml" ] || fail "apply without libvirt wrote the domain XML"
