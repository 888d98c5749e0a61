#!/bin/sh
# gpuprov snapshot of every fixture host, unpacked elsewhere, gives the same
# scan, topo and check (a RoCE port's firmware too); bad use is exit 4.
set -eu
. "$(dirname "$0")/lib.sh"
# The snapshot is taken, and the tree's scan read, by the binary under test
# (ASan and UBSan); the other comparisons, 12 runs a host on 67 hosts, by the
# same source built without them (8 times faster), which the scan's
# comparison holds to the same output.
R=$(pwd)/build/gpuprov
[ -x "$R" ] || R=$G
for root in build/hosts/*/; do
	root=${root%/}
	rm -rf "$d/tree" && mkdir "$d/tree"
	$G -q -r "$root" -o "$d/s.tar.gz" snapshot
	tar xzf "$d/s.tar.gz" -C "$d/tree"
	$R -r "$root" --json scan >"$d/a" 2>&1 || true
	$G -r "$d/tree" --json scan >"$d/b" 2>&1 || true
	cmp -s "$d/a" "$d/b" || { echo "$root: scan differs"; diff "$d/a" "$d/b" | head; exit 1; }
	for c in "--json topo" "-p profiles/generic-2gpu.ini --json check" \
		"-p profiles/h3c-r5350-g6.ini --json check" "-p tests/cli/profiles/bond-problems.ini --json plan" \
		"-p tests/cli/profiles/bind.ini --json check"; do
		# shellcheck disable=SC2086
		$R -r "$root" $c >"$d/a" 2>&1 || true
		# shellcheck disable=SC2086
		$R -r "$d/tree" $c >"$d/b" 2>&1 || true
		cmp -s "$d/a" "$d/b" || { echo "$root: '$c' differs"; diff "$d/a" "$d/b" | head; exit 1; }
	done
done
# an HGX board: Fabric Manager's unit, wants link, config, process and the
# driver/Fabric Manager/NSCQ versions (dpkg's stanzas) say the same from the snapshot
rm -rf "$d/tree" && mkdir "$d/tree"
$G -q -r build/hosts/hgx-h200 -o "$d/s.tar.gz" snapshot
tar xzf "$d/s.tar.gz" -C "$d/tree"
for c in "-p tests/cli/profiles/hgx-full.ini --json check" "-p tests/cli/profiles/hgx-shared.ini --json check"; do
	# shellcheck disable=SC2086
	$G -r build/hosts/hgx-h200 $c >"$d/a" 2>&1 || true
	# shellcheck disable=SC2086
	$G -r "$d/tree" $c >"$d/b" 2>&1 || true
	cmp -s "$d/a" "$d/b" || { echo "hgx-h200: '$c' differs"; diff "$d/a" "$d/b" | head; exit 1; }
done
grep -q 'Fabric Manager 570.133.20-1, NSCQ 570.133.20-1' "$d/b" || fail "hgx-h200: versions lost"
# RoCE ports: their firmware (mlx5_ib's fw_ver) says the same from the snapshot
rm -rf "$d/tree" && mkdir "$d/tree"
$G -q -r build/hosts/roce-rails -o "$d/s.tar.gz" snapshot
tar xzf "$d/s.tar.gz" -C "$d/tree"
$G -r build/hosts/roce-rails -p tests/cli/profiles/roce-fw.ini --json check >"$d/a" 2>&1 || true
$G -r "$d/tree" -p tests/cli/profiles/roce-fw.ini --json check >"$d/b" 2>&1 || true
cmp -s "$d/a" "$d/b" || { echo "roce-rails: firmware differs"; diff "$d/a" "$d/b" | head; exit 1; }
grep -q 'firmware 22.31.1014 is older' "$d/b" || fail "roce-rails: firmware lost"
# a port's VFs (virtfn links) come along: the plan from the snapshot blocks
# on the link that disagrees with the SR-IOV capability, as the host's does
rm -rf "$d/tree" && mkdir "$d/tree"
$G -q -r build/hosts/roce-vf-bad -o "$d/s.tar.gz" snapshot
tar xzf "$d/s.tar.gz" -C "$d/tree"
$G -r build/hosts/roce-vf-bad -p tests/cli/profiles/roce-vf.ini --only vfio plan >"$d/a" 2>&1 || true
$G -r "$d/tree" -p tests/cli/profiles/roce-vf.ini --only vfio plan >"$d/b" 2>&1 || true
cmp -s "$d/a" "$d/b" || { echo "roce-vf-bad: plan differs"; diff "$d/a" "$d/b" | head; exit 1; }
grep -q '0000:86:00.5 (virtfn0)' "$d/b" || fail "roce-vf-bad: virtfn links lost"
# every modprobe.d directory the reader and libkmod read is in the snapshot
$G -q -r build/hosts/variant-local -o "$d/v.tar.gz" snapshot
tar tzf "$d/v.tar.gz" | grep -q 'usr/local/lib/modprobe.d/nvgrace.conf$' ||
	fail "variant-local: /usr/local/lib/modprobe.d not in the snapshot"
set +e
$G -r build/hosts/r5350-ready snapshot >/dev/null 2>&1; [ $? -eq 4 ] || fail "no -o: not 4"
$G -r build/hosts/nonexistent -o "$d/x.tgz" snapshot 2>/dev/null; [ $? -eq 3 ] || fail "bad root: not 3"
: >"$d/file" # a file where a directory is needed: nothing made there
$G -r build/hosts/r5350-ready -o "$d/file/dir/x.tgz" snapshot 2>/dev/null; [ $? -eq 4 ] || fail "unwritable: not 4"
exit 0
