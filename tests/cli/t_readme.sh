#!/bin/sh
# README's runbook covers a real host from install to
# recovery, in order, and every gpuprov option it uses exists (cmd.h's table).
set -eu
. "$(dirname "$0")/lib.sh"
rb=$(sed -n '/^## Runbook/,/^## /p' README.md)
[ -n "$rb" ] || fail "README.md has no runbook"
last=0
for stage in "make install" "BIOS" "profile discover" "Check, then plan" "host.ini check" "--accept" "Maintenance window" \
	"host.ini apply" "Reboot points" "qemu-img create" "virsh start" "gpuprov verify" "NCCL_TOPO_FILE" \
	"bridge" "macvtap" "rollback --list" "virsh shutdown"; do
	n=$(printf '%s\n' "$rb" | grep -n -F -- "$stage" | head -1 | cut -d: -f1)
	[ -n "$n" ] || fail "the runbook does not say: $stage"
	[ "$n" -ge "$last" ] || fail "the runbook says '$stage' out of order (line $n)"
	last=$n
done
for word in "Proxmox" "More than two GPUs" "Debian"; do
	printf '%s\n' "$rb" | grep -q -F "$word" || fail "the runbook does not say: $word"
done
for opt in $(printf '%s\n' "$rb" | grep -o -- ' --[a-z-]*' | sort -u); do
	gp_options | grep -qx -e "${opt#--}" || fail "the runbook uses an option gpuprov lacks: $opt"
done
exit 0
