#!/usr/bin/env python3
"""make bench: gpuprov's read path on a large host against lspci on the same tree.

Builds a host of more than 4,096 PCI functions (16 GPUs behind four PCIe
switches, 16 NIC ports with SR-IOV virtual functions, bridges, two NUMA
nodes) with the fixture builder, then times, alternating, N runs each of

    gpuprov -r ROOT --json scan
    lspci -O sysfs.path=ROOT/sys/bus/pci -D -vmm

(what an operator would otherwise run), and prints the median wall time,
the peak resident memory of each, and the ratio gpuprov / lspci.  It also
counts, with strace, the files gpuprov opens more than once (should be 0).
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tests/fixtures"))
import mkhost  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "9"))
OUT = os.path.join(TOP, "build/bench-host")


def describe():
    """The description lines of the large host."""
    lines = [
        "host release=6.1.0-18-amd64 bios=5.32 product=bench phys_bits=52",
        "cmdline ro amd_iommu=on iommu=pt",
        "numa 0 cpus=0-63 mem=512GiB",
        "numa 1 cpus=64-127 mem=512GiB",
    ]
    gpu = 0
    for rc in range(8):
        bus = rc * 0x20
        numa = rc // 4
        lines.append(f"rc pci0000:{bus:02x} numa={numa}")
        lines.append(f"hostbridge 0000:{bus:02x}:00.0")
        # a switch with two GPUs
        rp = f"0000:{bus:02x}:01.1"
        lines.append(f"rootport {rp} link=16x16 acs=SV,RR,CR,UF")
        up = f"0000:{bus + 1:02x}:00.0"
        lines.append(f"switch-up {up} parent={rp} link=16x16")
        for i in range(2):
            dn = f"0000:{bus + 2:02x}:{i:02x}.0"
            lines.append(f"switch-down {dn} parent={up} link=16x16 acs=SV,RR,CR,UF")
            lines.append(f"gpu 0000:{bus + 3 + i:02x}:00.0 parent={dn} id=10de:2335 "
                         f"link=32x16 driver=nvidia bars=0:16M:64:pf,2:256G:64:pf,4:32M:64:pf")
            gpu += 1
        # a dual-port NIC, each port with 254 functions (PF + VFs, ARI)
        rp2 = f"0000:{bus:02x}:03.1"
        lines.append(f"rootport {rp2} link=16x16 acs=SV,RR,CR,UF")
        for port in range(2):
            nbus = bus + 5 + port
            for fn in range(254):
                dev, func = fn >> 3, fn & 7
                drv = "mlx5_core"
                lines.append(f"nic 0000:{nbus:02x}:{dev:02x}.{func} parent={rp2} "
                             f"id=15b3:{'101d' if fn == 0 else '101e'} link=16x16 "
                             f"driver={drv} bars=0:2M:64:pf")
            lines.append(f"net ens{rc}f{port}np{port} pci=0000:{nbus:02x}:00.0 speed=200000")
        # an NVMe drive
        rp3 = f"0000:{bus:02x}:05.1"
        lines.append(f"rootport {rp3} link=16x4")
        lines.append(f"dev 0000:{bus + 7:02x}:00.0 parent={rp3} id=144d:a80a class=0108 "
                     f"link=16x4 driver=nvme bars=0:16K:64")
    return lines


def build():
    h = mkhost.Host()
    h.path = OUT + ".host"
    for line in describe():
        h.line(line)
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    mkhost.build(h, OUT)
    return len(h.order)


def timed(cmd):
    start = time.perf_counter()
    with open(os.devnull, "w") as devnull:
        p = subprocess.Popen(cmd, stdout=devnull, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {cmd[0]} failed: {p.stderr.read().decode()[-400:]}")
    p.stderr.close()
    return elapsed, usage.ru_maxrss / 1024.0


def opened_twice(gpuprov):
    if not shutil.which("strace"):
        return None
    log = os.path.join(TOP, "build/bench-strace.txt")
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,open", "-o", log,
                    gpuprov, "-r", OUT, "--json", "scan"], stdout=subprocess.DEVNULL,
                   check=True)
    seen = {}
    for line in open(log):
        if OUT in line and "openat(" in line:
            path = line.split('"')[1]
            seen[path] = seen.get(path, 0) + 1
    return sorted(p for p, n in seen.items() if n > 1)


def main():
    gpuprov = os.path.join(TOP, "build/gpuprov")
    t0 = time.perf_counter()
    n = build()
    print(f"bench host: {n} PCI functions under {os.path.relpath(OUT, TOP)} "
          f"(built in {time.perf_counter() - t0:.1f} s)")
    ours = [gpuprov, "-r", OUT, "--json", "scan"]
    theirs = ["lspci", "-O", f"sysfs.path={OUT}/sys/bus/pci", "-D", "-vmm"]
    timed(ours)
    timed(theirs)  # warm the page cache for both
    a, b = [], []
    for _ in range(RUNS):
        a.append(timed(ours))
        b.append(timed(theirs))
    ta = statistics.median(x[0] for x in a)
    tb = statistics.median(x[0] for x in b)
    ma = max(x[1] for x in a)
    mb = max(x[1] for x in b)
    print(f"{'command':<44} {'median':>9} {'peak RSS':>10}")
    print(f"{'gpuprov --json scan':<44} {ta * 1000:7.1f}ms {ma:8.1f}MB")
    print(f"{'lspci -D -vmm':<44} {tb * 1000:7.1f}ms {mb:8.1f}MB")
    print(f"ratio gpuprov/lspci: {ta / tb:.2f} (time), {ma / mb:.2f} (memory), "
          f"median of {RUNS} runs each")
    twice = opened_twice(gpuprov)
    if twice is None:
        print("strace not found: repeated opens not counted")
    else:
        print(f"files gpuprov opened more than once: {len(twice)}")
        for path in twice[:10]:
            print(f"  {os.path.relpath(path, OUT)}")


if __name__ == "__main__":
    main()
