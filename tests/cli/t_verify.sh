#!/bin/sh
# verify against a test double of NVML, CUDA and NCCL (tests/fake/fakegpu.c, answering
# from tests/fake/gpus/*.gpu): every verdict and exit status the issue lists — NVLink
# direct and through NVSwitch, PCIe only, P2P refused, a read-back mismatch, a slow
# pair, a small BAR1, NCCL failing or absent, no NVML, no CUDA, one GPU.  The real
# run on two H200s is in tests/fixtures/captured/h200x2-nvml.
set -u
. "$(dirname "$0")/lib.sh"
FAKE=build/test/libfakegpu.so
[ -f "$FAKE" ] || fail "no $FAKE: make build/test/libfakegpu.so"
# one library directory per set of libraries present (NCCL absent: --nccl-lib, since
# LD_LIBRARY_PATH cannot hide a real libnccl.so.2 the loader's cache knows)
for set in all nonvml nocuda; do
	mkdir -p "$d/$set"
	for lib in libnvidia-ml.so.1 libcuda.so.1 libnccl.so.2; do
		case "$set:$lib" in
		nonvml:libnvidia-ml.so.1 | nocuda:libcuda.so.1) continue ;;
		esac
		ln -s "$PWD/$FAKE" "$d/$set/$lib"
	done
done
bad=0
unset NCCL_TOPO_FILE # TOPO: the NCCL_TOPO_FILE of a case, unset when empty
TOPO=
# XENV: more of a case's environment (VAR=VALUE words); NCCL's debug output goes
# into a directory of verify's own under TMPDIR, which must be empty afterwards
unset NCCL_P2P_DISABLE NCCL_DEBUG NCCL_DEBUG_FILE NCCL_TOPO_DUMP_FILE
XENV=
mkdir "$d/tmp"
export TMPDIR=$d/tmp

# case NAME FIXTURE LIBS EXIT CHECK ARGS...: CHECK is Python run on the JSON document (doc)
case_() {
	name=$1 fix=$2 libs=$3 want=$4 check=$5
	shift 5
	env ${TOPO:+"NCCL_TOPO_FILE=$TOPO"} ${XENV:-} GP_FAKE_GPU=tests/fake/gpus/$fix.gpu \
		LD_LIBRARY_PATH=$d/$libs "$G" --json "$@" verify >"$d/out" 2>"$d/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "$name: exit $rc, want $want"
		head -5 "$d/err"
		bad=1
		return
	fi
	if ! python3 -c "
import json, sys
doc = json.load(open('$d/out'))
assert doc['command'] == 'verify' and doc['schema_version'] == 1, doc
pairs = doc.get('pairs', [])
gpus = doc.get('gpus', [])
nccl = doc.get('nccl')
topo = doc.get('nccl_topo_file', 'absent')
$check
"; then
		echo "$name: check failed"
		bad=1
	fi
}

H200=build/hosts/h200x2-guest

case_ h200-nvswitch h200-nvswitch all 0 "
assert [g['bdf'] for g in gpus] == ['0000:00:06.0', '0000:00:07.0']
assert all(g['nvlinks'] == 18 and g['bar1_bytes'] == g['bar_bytes'] == 256 << 30 for g in gpus), gpus
assert len(pairs) == 2 and {(p['from'], p['to']) for p in pairs} == {(0, 1), (1, 0)}
for p in pairs:
    assert p['p2p'] == {'read': 'ok', 'write': 'ok', 'atomics': 'ok', 'nvlink': 'ok'}, p
    assert p['can_access_peer'] and p['readback_ok'] and p['readback_by'] == 'kernel', p
    assert p['nvlinks'] == 18 and p['ceiling_from'] == 'nvlink', p
    assert abs(p['ceiling_gbps'] - 18 * 26.5625) < 1e-6, p
    assert 394 < p['gbps_uni'] < 395 and 789 < p['gbps_bidir'] < 790, p
    assert p['verdict'] == 'ok', p
    # 18 NVLink 4 links: the measured reference, from docs/BANDWIDTH.md's table
    assert p['expected_gbps'] == 380 and p['expected_basis'].startswith('measured: '), p
assert doc['predicted']['busbw_gbps'] == 326 and 'two H200' in doc['predicted']['basis'], doc['predicted']
big = nccl['p2p']['results'][-1]
assert nccl['version'] == 22803 and big['bytes'] == 1 << 30, nccl
assert abs(big['busbw_gbps'] - 327.4) < 0.5 and abs(big['algbw_gbps'] - 327.4) < 0.5, big
assert nccl['no_p2p'] is None
assert doc['exit_status'] == 0
# NCCL's own account, from the real capture the fake replays: P2P over NVLink
x = nccl['explain']
assert x['version'] == '2.28.9+cuda13.0' and x['lines'] > 300, x
assert x['cpu'] == {'arch': 'x86_64', 'vendor': 'GenuineIntel', 'family': 6, 'model': 207}, x['cpu']
assert [(p['a'], p['b'], p['a_bdf']) for p in x['pairs']] == [(0, 1, '0000:00:06.0'), (1, 0, '0000:00:07.0')], x
for p in x['pairs']:
    assert p['transport'] == 'P2P/CUMEM' and p['kind'] == 'P2P' and p['channels'] == 24, p
    assert p['path'] == 'NVL' and p['p2p_level'] == 'PXB' and p['gdr'] is None, p
assert x['warnings'] == [] and x['advice'] == [] and nccl['explain_why'] is None, x
" -r $H200
[ -z "$(ls -A "$d/tmp")" ] || { echo "NCCL's debug directory left behind: $(ls -A "$d/tmp")"; bad=1; }

# NCCL took SHM between two GPUs of a flat guest (PHB) on an Intel CPU: the
# warning names NCCL's own transport, the advice the topology file and the
# level; a WARN line's escape character stays escaped
case_ pcie-shm pcie-shm all 1 "
x = nccl['explain']
assert [p['transport'] for p in x['pairs']] == ['SHM/direct/direct'] * 2, x
assert all(p['path'] == 'PHB' and p['p2p_level'] == 'PXB' for p in x['pairs']), x
assert x['cpu']['model'] == 106 and len(x['advice']) == 1, x
assert 'gpuprov nccl-topo' in x['advice'][0] and 'NCCL_P2P_LEVEL=SYS' in x['advice'][0], x
assert x['warnings'] == ['Error: failed to extend /dev/shm\x1b[31m to 9637892 bytes'], x
assert nccl['verdict'] == 'warn' and 'through SHM/direct/direct, not P2P' in nccl['verdict_why'], nccl
" -r $H200
GP_FAKE_GPU=tests/fake/gpus/pcie-shm.gpu LD_LIBRARY_PATH=$d/all "$G" -r $H200 verify >"$d/out" 2>&1
awk -f tests/cli/unwrap.awk "$d/out" | grep -q "^  0->1  0000:00:06.0->0000:00:07.0 SHM/direct/direct  *PHB  PXB   2$" &&
	grep -qF 'NCCL WARN Error: failed to extend /dev/shm\x1b[31m' "$d/out" &&
	! grep -q "$(printf '\033')" "$d/out" ||
	{ echo "text: NCCL's account of pcie-shm"; cat "$d/out"; bad=1; }
awk 'length($0) > 80 { print "text: " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
	"$d/out" || bad=1

# NCCL_P2P_DISABLE=1 in verify's environment: NCCL's account says so
XENV=NCCL_P2P_DISABLE=1
case_ p2p-disabled h200-nvswitch all 1 "
x = nccl['explain']
assert all(p['kind'] == 'SHM' and p['p2p_level'] == 'LOC' for p in x['pairs']), x
assert x['advice'] == ['NCCL_P2P_DISABLE=1 is set: NCCL uses no P2P at all; unset it'], x
assert {'name': 'NCCL_P2P_DISABLE', 'value': '1'} in x['env'], x
" -r $H200
XENV=

# NCCL_TOPO_FILE: unset is said and no warning; the file nccl-topo writes for this machine
# matches; one naming a GPU that is not here (and lacking one that is) warns, as does a
# file that cannot be read (a FIFO must not hang) or is no topology
case_ topo-unset h200-nvswitch all 0 "
assert topo is None, topo
" -r $H200 --quick
"$G" -r $H200 nccl-topo --this-host >"$d/topo.xml" || { echo "nccl-topo --this-host failed"; bad=1; }
sed 's/busid="0000:00:07.0"/busid="0000:00:08.0"/' "$d/topo.xml" >"$d/other.xml"
mkfifo "$d/fifo"
echo '<nccl/>' >"$d/not.xml"
TOPO=$d/topo.xml
case_ topo-match h200-nvswitch all 0 "
assert topo == {'set': True, 'path': '$d/topo.xml', 'match': True, 'missing': [], 'extra': [],
                'error': None}, topo
" -r $H200 --quick
TOPO=$d/other.xml
case_ topo-mismatch h200-nvswitch all 1 "
assert topo['set'] and topo['match'] is False and topo['error'] is None, topo
assert topo['missing'] == ['0000:00:07.0'] and topo['extra'] == ['0000:00:08.0'], topo
" -r $H200 --quick
TOPO=$d/fifo
case_ topo-fifo h200-nvswitch all 1 "
assert topo['match'] is None and topo['error'] == 'not a regular file or directory', topo
" -r $H200 --quick
TOPO=$d/none.xml
case_ topo-missing h200-nvswitch all 1 "
assert topo['match'] is None and topo['error'] == 'No such file or directory', topo
" -r $H200 --quick
TOPO=$d/not.xml
case_ topo-not-xml h200-nvswitch all 1 "
assert topo['match'] is None and 'not an NCCL topology' in topo['error'], topo
" -r $H200 --quick
TOPO=
for f in topo.xml other.xml fifo; do
	NCCL_TOPO_FILE=$d/$f GP_FAKE_GPU=tests/fake/gpus/h200-nvswitch.gpu LD_LIBRARY_PATH=$d/all \
		timeout 60 "$G" -r $H200 verify --quick >"$d/out.$f" 2>&1
done
grep -qx "NCCL_TOPO_FILE: $d/topo.xml: its bus IDs match the 2 GPUs seen" "$d/out.topo.xml" &&
	grep -qx "NCCL_TOPO_FILE: $d/other.xml: does not match the 2 GPUs seen; missing from it: \
0000:00:07.0; not here: 0000:00:08.0" "$d/out.other.xml" &&
	grep -qx "NCCL_TOPO_FILE: $d/fifo: unreadable: not a regular file or directory" \
		"$d/out.fifo" &&
	GP_FAKE_GPU=tests/fake/gpus/h200-nvswitch.gpu LD_LIBRARY_PATH=$d/all "$G" -r $H200 verify \
		--quick 2>&1 | grep -qx "NCCL_TOPO_FILE: not set" ||
	{ echo "text: NCCL_TOPO_FILE not reported"; cat "$d"/out.*; bad=1; }

case_ nccl-compare h200-nvswitch all 0 "
cmp = nccl['no_p2p']['results']
assert [r['bytes'] for r in cmp] == [64 << 20, 256 << 20, 1 << 30], cmp
assert all(abs(r['busbw_gbps'] - 27.8) < 0.1 for r in cmp), cmp
" -r $H200 --nccl-compare --size 4MiB

case_ quick h200-nvswitch all 0 "
assert doc['bytes'] == 16 << 20 and doc['iterations'] == 5, doc
assert not nccl['ran'] and nccl['p2p'] is None, nccl
" -r $H200 --quick

case_ size h200-nvswitch all 0 "
assert doc['bytes'] == 1 << 20, doc
" -r $H200 --size 1MiB --no-nccl

case_ a100-bridge a100-bridge all 0 "
for p in pairs:
    assert p['nvlinks'] == 12 and abs(p['ceiling_gbps'] - 300) < 1e-6, p
assert gpus[1]['nvlink_gbps'] == 25.0 and gpus[0]['nvlink_gbps'] == 25.0, gpus
" --no-nccl

case_ nvswitch4 nvswitch4 all 0 "
assert len(pairs) == 12
links = {(p['from'], p['to']): p['nvlinks'] for p in pairs}
assert links[(0, 1)] == 18 and links[(0, 2)] == 18 and links[(0, 3)] == 12 and links[(3, 2)] == 12, links
" --quick

case_ pcie-only pcie-only all 0 "
for p in pairs:
    assert p['nvlinks'] == 0 and p['ceiling_from'] == 'pcie', p
    assert abs(p['ceiling_gbps'] - 63.015) < 0.01, p
    assert p['verdict'] == 'ok', p
" --quick

case_ refused refused all 2 "
for p in pairs:
    assert p['p2p']['read'] == 'not supported' and p['can_access_peer'] is False, p
    assert p['readback_ok'] is None and not p['peer_enabled'], p
    assert p['verdict'] == 'fail' and 'cuDeviceCanAccessPeer' in p['why'], p
" --quick

case_ mirror mirror all 2 "
f = {(p['from'], p['to']): p for p in pairs}
assert f[(0, 1)]['readback_ok'] is False and f[(0, 1)]['readback_mismatches'] == 262144, f
assert f[(0, 1)]['readback_by'] == 'copy' and f[(0, 1)]['verdict'] == 'fail', f
assert 'read back' in f[(0, 1)]['why'], f
assert f[(1, 0)]['readback_ok'] is True and f[(1, 0)]['verdict'] == 'ok', f
" --quick

case_ slow slow all 1 "
f = {(p['from'], p['to']): p for p in pairs}
assert f[(0, 1)]['verdict'] == 'warn' and 'one way 150.0 GB/s' in f[(0, 1)]['why'], f
# the slow direction slows the pair both ways at once, not GPU1's own copies
assert 'one way' not in f[(1, 0)]['why'] and 'both ways' in f[(1, 0)]['why'], f
" --quick

# above half the ceiling but below 80% of the expectation: a warning naming the likely cause
case_ h200-short h200-short all 1 "
f = {(p['from'], p['to']): p for p in pairs}
assert f[(0, 1)]['verdict'] == 'warn' and '74% of the 380.0 expected' in f[(0, 1)]['why'], f
assert 'below 50% of the nvlink ceiling' not in f[(0, 1)]['why'] and 'held back' in f[(0, 1)]['why'], f
assert 'no faster than PCIe' in f[(1, 0)]['why'], f
assert nccl['verdict'] == 'warn' and 'of the predicted 326.0' in nccl['verdict_why'], nccl
assert 'NCCL chose a slower path' in nccl['verdict_why'], nccl
"

case_ bar-small bar-small all 1 "
assert gpus[0]['bar_small'] and gpus[0]['bar1_bytes'] == 256 << 20 and gpus[0]['bar_bytes'] == 256 << 30, gpus
assert not gpus[1]['bar_small'], gpus
assert all(p['verdict'] == 'ok' for p in pairs)
" -r $H200 --quick

case_ nccl-fail nccl-fail all 2 "
assert nccl['ran'] and not nccl['p2p']['ok'] and 'ncclCommInitAll' in nccl['p2p']['why'], nccl
assert nccl['verdict'] == 'fail', nccl
assert nccl['explain'] is None and 'no debug output' in nccl['explain_why'], nccl
" --size 4MiB
# a stale NCCL_TOPO_FILE warns, and never lowers a failure to a warning
TOPO=$d/other.xml
case_ nccl-fail-topo nccl-fail all 2 "
assert nccl['verdict'] == 'fail' and topo['match'] is False, (nccl, topo)
" --size 4MiB
TOPO=

: >"$d/empty-nccl.so"
case_ nccl-absent h200-nvswitch all 0 "
assert not nccl['ran'] and 'empty-nccl.so' in nccl['why'], nccl
assert nccl['explain'] is None and nccl['explain_why'] == 'NCCL did not run', nccl
" --nccl-lib "$d/empty-nccl.so" --size 4MiB

# --nccl-lib as root: the library runs as root, so only root may be able to
# change it (the file and every directory above it), as for the templates;
# a virtualenv's copy is its user's.  Refused before anything runs (exit 4).
if [ "$(id -u)" -eq 0 ]; then
	cp "$FAKE" "$d/nccl-root.so"
	case_ nccl-lib-root h200-nvswitch all 0 "
assert nccl['ran'] and nccl['p2p']['ok'], nccl
" --nccl-lib "$d/nccl-root.so" --size 4MiB
	mkdir -m 755 "$d/venv"
	cp "$FAKE" "$d/venv/libnccl.so.2"
	chown 65534 "$d/venv"
	case_ nccl-lib-venv h200-nvswitch all 4 "
assert \"'$d/venv' is owned by uid 65534\" in doc['error'], doc
assert not gpus and nccl is None, doc
" --nccl-lib "$d/venv/libnccl.so.2" --size 4MiB
	cp "$FAKE" "$d/nccl-theirs.so"
	chown 65534 "$d/nccl-theirs.so"
	case_ nccl-lib-theirs h200-nvswitch all 4 "
assert 'nccl-theirs.so\' is owned by uid 65534' in doc['error'], doc
" --nccl-lib "$d/nccl-theirs.so" --size 4MiB
	cp "$FAKE" "$d/nccl-gw.so"
	chmod 664 "$d/nccl-gw.so"
	case_ nccl-lib-group h200-nvswitch all 4 "
assert 'nccl-gw.so\' is writable by group or others (mode 664)' in doc['error'], doc
" --nccl-lib "$d/nccl-gw.so" --size 4MiB
	case_ nccl-lib-missing h200-nvswitch all 4 "
assert 'no-such-nccl.so' in doc['error'], doc
" --nccl-lib "$d/no-such-nccl.so" --size 4MiB
	case_ nccl-lib-name h200-nvswitch all 4 "
assert 'give a path' in doc['error'], doc
" --nccl-lib libnccl.so.2 --size 4MiB
	# not loaded, not checked
	case_ nccl-lib-unused h200-nvswitch all 0 "
assert not nccl['ran'], nccl
" --nccl-lib "$d/nccl-theirs.so" --no-nccl
fi

case_ no-nvml h200-nvswitch nonvml 3 "
assert 'libnvidia-ml.so.1' in doc['error'], doc
"
# on the hypervisor (its GPUs on vfio-pci): said where verify belongs
case_ hypervisor h200-nvswitch nonvml 3 "
assert 'libnvidia-ml.so.1' in doc['error'], doc
assert \"2 GPUs here are on vfio-pci: this is the hypervisor, run 'gpuprov verify' inside the VM\" in doc['error'], doc
" -r build/hosts/vfio-applied
case_ no-driver-here h200-nvswitch nonvml 3 "
assert 'hypervisor' not in doc['error'], doc
" -r build/hosts/r5350-ready
case_ nvml-initfail nvml-initfail all 3 "
assert 'Driver Not Loaded' in doc['error'], doc
"
case_ no-cuda h200-nvswitch nocuda 3 "
assert 'libcuda.so.1' in doc['error'], doc
"
case_ one-gpu one all 3 "
assert 'NVML sees 1 GPU' in doc['error'], doc
"
case_ cuda-hidden cuda-hidden all 3 "
assert 'CUDA sees 1 of' in doc['error'], doc
"

# an HGX board's fabric (nvmlDeviceGetGpuFabricInfoV): registered, each GPU's clique said;
# In Progress warns (error 802 until Fabric Manager is done: power-cycle the guest); a GPU
# without a fabric says null
case_ hgx8 hgx8 all 0 "
assert len(gpus) == 8 and len(pairs) == 56, (len(gpus), len(pairs))
for g in gpus:
    assert g['fabric'] == {'state': 'Completed', 'status': 0, 'clique': 1, 'verdict': 'ok'}, g
" --quick
case_ hgx8-inprogress hgx8-inprogress all 1 "
for g in gpus:
    assert g['fabric']['state'] == 'In Progress' and g['fabric']['verdict'] == 'warn', g
assert doc['exit_status'] == 1
" --quick
case_ fabric-none pcie-only all 0 "
assert all(g['fabric'] is None for g in gpus), gpus
" --quick
GP_FAKE_GPU=tests/fake/gpus/hgx8-inprogress.gpu LD_LIBRARY_PATH=$d/all "$G" verify --quick \
	>"$d/out" 2>&1
grep -q 'fabric: In Progress: CUDA fails with error 802' "$d/out" && grep -q 'power-cycle the' "$d/out" ||
	{ echo "text: fabric In Progress not explained"; cat "$d/out"; bad=1; }
awk 'length($0) > 80 { print "text: " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
	"$d/out" || bad=1

# the text: one line per pair with its verdict, the read-back failure said in words
GP_FAKE_GPU=tests/fake/gpus/mirror.gpu LD_LIBRARY_PATH=$d/all "$G" verify --quick >"$d/out" 2>&1
grep -q '^GPU0->GPU1  ok/ok/ok/ok  yes   MISMATCH .* fail$' "$d/out" &&
	awk -f tests/cli/unwrap.awk "$d/out" |
	grep -q 'P2P writes land somewhere the other GPU does not read' ||
	{ echo "text: mirror not reported"; cat "$d/out"; bad=1; }
GP_FAKE_GPU=tests/fake/gpus/bar-small.gpu LD_LIBRARY_PATH=$d/all "$G" -r $H200 verify --quick \
	>"$d/out" 2>&1
grep -q 'vm.mmio: BAR1 is 256 MiB, the card advertises 256 GiB' "$d/out" ||
	{ echo "text: small BAR1 not reported"; cat "$d/out"; bad=1; }
# the whole text within 80 columns (gpuprov(8), Text layout), naming the
# machine, each number with a space before its unit
GP_FAKE_GPU=tests/fake/gpus/h200-nvswitch.gpu LD_LIBRARY_PATH=$d/all "$G" -r $H200 verify \
	--nccl-compare >"$d/out" 2>/dev/null
awk 'length($0) > 80 { print "text: " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
	"$d/out" || bad=1
grep -q "^host $(uname -n), kernel $(uname -r)\$" "$d/out" ||
	{ echo "text: no host line"; cat "$d/out"; bad=1; }
grep -q '^GPU0->GPU1  ok/ok/ok/ok  yes   ok        394.6 GB/s  789.2 GB/s  ok$' "$d/out" &&
	grep -q '^            one way 83% of the NVLink ceiling, 478.1 GB/s; 104% of the 380.0$' "$d/out" &&
	grep -q '^  predicted bus bandwidth 326.0 GB/s (measured: ' "$d/out" &&
	grep -q '^  P2P      64 MiB ' "$d/out" && ! grep -Eq '[0-9](GiB|MiB|GB/s|GT/s)' "$d/out" ||
	{ echo "text: pair rows or units"; cat "$d/out"; bad=1; }
# what a full run measured is kept (GPUPROV_STATE_DIR/verify.json), and topo shows it beside
# the ceiling and expectation of the pair with those bus IDs; a --quick run keeps nothing,
# and without a record topo says nothing of it
rec=$GPUPROV_STATE_DIR/verify.json
rm -f "$rec"
GP_FAKE_GPU=tests/fake/gpus/h200-nvswitch.gpu LD_LIBRARY_PATH=$d/all "$G" verify --quick >/dev/null 2>&1
[ ! -e "$rec" ] || { echo "a --quick run kept a record"; bad=1; }
GP_FAKE_GPU=tests/fake/gpus/h200-nvswitch.gpu LD_LIBRARY_PATH=$d/all "$G" verify >/dev/null 2>&1
cp -a $H200 "$d/root" && mkdir -p "$d/root/var/lib/gpuprov" && cp "$rec" "$d/root/var/lib/gpuprov/" ||
	{ echo "no record kept"; bad=1; }
"$G" -r "$d/root" --json topo >"$d/topo.json" && "$G" -r $H200 --json topo >"$d/topo0.json" &&
	python3 -c "
import json
doc, none = json.load(open('$d/topo.json')), json.load(open('$d/topo0.json'))
r = doc['verify_record']
assert abs(r['busbw_gbps'] - 327.4) < 0.1 and r['bytes'] == 1 << 30 and r['ranks'] == 2, r
assert doc['devices'][0]['bdf'] == '0000:00:06.0' and doc['devices'][1]['bdf'] == '0000:00:07.0'
assert abs(doc['links'][0][1]['measured_bytes_per_second'] - 394.6e9) < 1e8, doc['links'][0][1]
assert abs(doc['links'][1][0]['measured_bytes_per_second'] - 394.8e9) < 1e8, doc['links'][1][0]
assert doc['links'][0][2]['measured_bytes_per_second'] is None, doc['links'][0][2]
assert none['verify_record'] is None
assert all(l is None or l['measured_bytes_per_second'] is None for row in none['links'] for l in row)
" || { echo "topo: verify's record"; bad=1; }
"$G" -r "$d/root" topo >"$d/out" && awk -f tests/cli/unwrap.awk "$d/out" |
	grep -q "^  GPU0-GPU1	PHB   32 GT/s x16  63.0 / 40.0 / 394.6 GB/s$" &&
	grep -q "^  verify's all-reduce over 2 GPUs here: bus bandwidth 327.4 GB/s$" "$d/out" &&
	! "$G" -r $H200 topo | grep -q "measured by verify" ||
	{ echo "topo text: verify's record"; cat "$d/out"; bad=1; }
# the report's Paths table says the same, in a column it has only with a record
"$G" -r "$d/root" -p profiles/generic-2gpu.ini report >"$d/rep.md" 2>/dev/null
"$G" -r $H200 -p profiles/generic-2gpu.ini report >"$d/rep0.md" 2>/dev/null
grep -q '|Measured by verify here |$' "$d/rep.md" &&
	grep -q '^| GPU0-GPU1 | .* | 394.6 / 394.8 GB/s |$' "$d/rep.md" &&
	grep -q "^verify's all-reduce over 2 GPUs here (.*): bus bandwidth 327.4 GB/s\.\$" "$d/rep.md" &&
	! grep -q 'Measured by verify\|all-reduce over' "$d/rep0.md" ||
	{ echo "report: verify's record"; grep -A4 'Pair' "$d/rep.md"; bad=1; }
exit $bad
