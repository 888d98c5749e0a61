#!/usr/bin/env python3
"""make bench: gpuprov's read path on a large host against lspci on the same tree.

Builds a host of more than 4,096 PCI functions (16 GPUs behind PCIe switches,
NIC ports with SR-IOV virtual functions, NVMe drives, two NUMA nodes) with the
fixture builder, plus device directories copied from the real-kernel captures
in tests/fixtures/captured/ (the H200 guest, the lab's trees) under PCI domains
of their own.  Then it times, alternating, N runs each of

    gpuprov -r ROOT [--json] scan | topo | -p bench/bench.ini check | plan
    lspci -O sysfs.path=ROOT/sys/bus/pci -D -vmm

(what an operator would otherwise run), and prints the median wall time, the
user+system CPU time, the peak resident memory of each, and the ratios to
lspci side by side.  Then the same for a second host of about 4,100 functions
built as real machines differ from the first (describe_other, realistic): PCIe
switches two deep, four PCI domains, a netdev under /sys/class/net for each
bound NIC function (a virtual function bound to its driver has one), a real
function's capabilities and the attributes neither tool reads.  Then the curve: time per PCI function at about 1k, 4k and
16k functions.  Last, with strace: files opened per function, and files opened
more than once (should be 0).  Nothing here asserts a time; the figures are
for the reader.
"""
import os
import re
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


def describe(rcs=8):
    """The description lines of a large host: about 518 functions a root complex."""
    lines = [
        "host release=6.1.0-18-amd64 bios=5.32 product=bench phys_bits=52",
        "cmdline ro amd_iommu=on iommu=pt",
        "numa 0 cpus=0-63 mem=512GiB",
        "numa 1 cpus=64-127 mem=512GiB",
    ]
    gpu = 0
    for rc in range(rcs):
        bus = (rc % 8) * 0x20
        dom = f"{rc // 8 * 0x10:04x}"
        numa = rc * 2 // rcs
        lines.append(f"rc pci{dom}:{bus:02x} numa={numa}")
        lines.append(f"hostbridge {dom}:{bus:02x}:00.0")
        # a switch with two GPUs
        rp = f"{dom}:{bus:02x}:01.1"
        lines.append(f"rootport {rp} link=16x16 acs=SV,RR,CR,UF")
        up = f"{dom}:{bus + 1:02x}:00.0"
        lines.append(f"switch-up {up} parent={rp} link=16x16")
        for i in range(2):
            dn = f"{dom}:{bus + 2:02x}:{i:02x}.0"
            lines.append(f"switch-down {dn} parent={up} link=16x16 acs=SV,RR,CR,UF")
            lines.append(f"gpu {dom}:{bus + 3 + i:02x}:00.0 parent={dn} id=10de:2335 "
                         f"link=32x16 driver=nvidia bars=0:16M:64:pf,2:256G:64:pf,4:32M:64:pf")
            gpu += 1
        # a dual-port NIC, each port with 254 functions (PF + VFs, ARI)
        rp2 = f"{dom}:{bus:02x}:03.1"
        lines.append(f"rootport {rp2} link=16x16 acs=SV,RR,CR,UF")
        for port in range(2):
            nbus = bus + 5 + port
            for fn in range(254):
                dev, func = fn >> 3, fn & 7
                drv = "mlx5_core"
                lines.append(f"nic {dom}:{nbus:02x}:{dev:02x}.{func} parent={rp2} "
                             f"id=15b3:{'101d' if fn == 0 else '101e'} link=16x16 "
                             f"driver={drv} bars=0:2M:64:pf")
            lines.append(f"net ens{rc}f{port}np{port} pci={dom}:{nbus:02x}:00.0 speed=200000")
        # an NVMe drive
        rp3 = f"{dom}:{bus:02x}:05.1"
        lines.append(f"rootport {rp3} link=16x4")
        lines.append(f"dev {dom}:{bus + 7:02x}:00.0 parent={rp3} id=144d:a80a class=0108 "
                     f"link=16x4 driver=nvme bars=0:16K:64")
    return lines


CAPTURED = os.path.join(TOP, "tests/fixtures/captured")


def graft_captures(out, copies):
    """Copies the PCI device directories of the real-kernel captures into
    out, each copy under a PCI domain of its own (0100, 0101, ...), links
    rewritten to match: real device directories carry every attribute the
    kernel writes, not only those the fixture builder knows."""
    tmp = out + ".captured"
    n = 0
    domain = 0x100
    for _ in range(copies):
        for tgz in sorted(os.listdir(CAPTURED)):
            if not tgz.endswith("-sysfs.tgz"):
                continue
            if not os.path.isdir(os.path.join(tmp, tgz)):
                os.makedirs(os.path.join(tmp, tgz))
                subprocess.run(["tar", "xzf", os.path.join(CAPTURED, tgz), "-C",
                                os.path.join(tmp, tgz)], check=True)
            n += graft_one(os.path.join(tmp, tgz), out, domain)
            domain += 1
    shutil.rmtree(tmp)
    return n


def graft_one(src, out, domain):
    dom = f"{domain:04x}"
    devices = os.path.join(src, "sys/devices")
    n = 0
    for top in os.listdir(devices):
        if not top.startswith("pci0000:"):
            continue
        new_top = top.replace("pci0000:", f"pci{dom}:")
        dst_top = os.path.join(out, "sys/devices", new_top)
        if os.path.exists(dst_top):
            continue
        for dirpath, dirnames, filenames in os.walk(os.path.join(devices, top)):
            rel = os.path.relpath(dirpath, devices)
            new_rel = re.sub(r"\b0000:", f"{dom}:", rel.replace("pci0000:", f"pci{dom}:"))
            os.makedirs(os.path.join(out, "sys/devices", new_rel), exist_ok=True)
            for name in filenames + dirnames:
                s = os.path.join(dirpath, name)
                d = os.path.join(out, "sys/devices", new_rel, re.sub(r"^0000:", f"{dom}:", name))
                if os.path.islink(s):
                    target = os.readlink(s).replace("pci0000:", f"pci{dom}:")
                    os.symlink(re.sub(r"\b0000:", f"{dom}:", target), d)
                elif os.path.isfile(s):
                    shutil.copyfile(s, d)
                    os.chmod(d, os.stat(s).st_mode & 0o777)
            if re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]",
                            os.path.basename(new_rel)):
                bdf = os.path.basename(new_rel)
                os.symlink(os.path.join("../../../devices", new_rel),
                           os.path.join(out, "sys/bus/pci/devices", bdf))
                n += 1
    return n


def build(rcs=8, copies=16, out=OUT):
    h = mkhost.Host()
    h.path = out + ".host"
    for line in describe(rcs):
        h.line(line)
    if os.path.exists(out):
        shutil.rmtree(out)
    mkhost.build(h, out)
    grafted = graft_captures(out, copies) if copies else 0
    return len(h.order) + grafted, grafted


def describe_other(rcs=16):
    """A host built the way real machines differ from describe(): four PCI
    domains, two levels of PCIe switches under a root port, GPUs, NICs with
    a PF and VFs (half of the VFs without a driver), NVMe drives and a
    quad-port NIC with two ports unbound, IDs that are in pci.ids, a slot for
    each GPU and drive: about 260 functions a root complex."""
    lines = [
        "host release=6.8.0-49-generic bios=2.1.3 product=other phys_bits=52",
        "cmdline ro amd_iommu=on iommu=pt",
        "numa 0 cpus=0-95 mem=768GiB",
        "numa 1 cpus=96-191 mem=768GiB",
    ]
    for rc in range(rcs):
        bus = (rc % 4) * 0x40
        dom = f"{rc // 4:04x}"
        numa = rc * 2 // rcs
        lines.append(f"rc pci{dom}:{bus:02x} numa={numa}")
        lines.append(f"hostbridge {dom}:{bus:02x}:00.0 id=1022:14a4")
        rp = f"{dom}:{bus:02x}:01.1"
        lines.append(f"rootport {rp} id=1022:14ab link=32x16 acs=SV,RR,CR,UF")
        up = f"{dom}:{bus + 1:02x}:00.0"
        lines.append(f"switch-up {up} parent={rp} id=1000:c030 link=32x16")
        for i in range(4):
            dn = f"{dom}:{bus + 2:02x}:{i:02x}.0"
            lines.append(f"switch-down {dn} parent={up} id=1000:c030 link=32x16 "
                         "acs=SV,RR,CR,UF")
            if i < 2:
                lines.append(f"gpu {dom}:{bus + 3 + i:02x}:00.0 parent={dn} id=10de:2330 "
                             f"link=32x16 driver=nvidia slot={rc * 4 + i} "
                             "bars=0:16M:64:pf,2:128G:64:pf,4:32M:64:pf")
                continue
            # a second level of switch, and a NIC behind it: its PF and VFs
            up2 = f"{dom}:{bus + 5 + (i - 2) * 3:02x}:00.0"
            lines.append(f"switch-up {up2} parent={dn} id=1000:c030 link=32x16")
            dn2 = f"{dom}:{bus + 6 + (i - 2) * 3:02x}:00.0"
            lines.append(f"switch-down {dn2} parent={up2} id=1000:c030 link=32x16 "
                         "acs=SV,RR,CR,UF")
            nbus = bus + 7 + (i - 2) * 3
            for fn in range(119):
                dev, func = fn >> 3, fn & 7
                drv = "" if fn % 2 else " driver=mlx5_core"
                lines.append(f"nic {dom}:{nbus:02x}:{dev:02x}.{func} parent={dn2} "
                             f"id=15b3:{'1021' if fn == 0 else '101e'} link=32x16"
                             f"{drv} bars=0:2M:64:pf")
                if drv:  # a bound function has its netdev
                    lines.append(f"net ib{rc}p{i}v{fn} pci={dom}:{nbus:02x}:{dev:02x}.{func} "
                                 "speed=400000")
        rp3 = f"{dom}:{bus:02x}:03.1"
        lines.append(f"rootport {rp3} id=1022:14ab link=16x4")
        lines.append(f"dev {dom}:{bus + 12:02x}:00.0 parent={rp3} id=144d:a824 class=0108 "
                     f"link=16x4 driver=nvme slot=nvme{rc} bars=0:32K:64")
        rp4 = f"{dom}:{bus:02x}:05.1"
        lines.append(f"rootport {rp4} id=1022:14ab link=8x8")
        for fn in range(4):
            drv = " driver=i40e" if fn < 2 else ""
            lines.append(f"nic {dom}:{bus + 13:02x}:00.{fn} parent={rp4} id=8086:1572 "
                         f"link=8x8{drv} bars=0:8M:64:pf,3:32K:64:pf")
            if drv:
                lines.append(f"net enp{rc}s0f{fn} pci={dom}:{bus + 13:02x}:00.{fn} speed=10000")
    return lines


# Extended capabilities a real PCIe function chains after 0x100 (ID, length).
EXT_CAPS = [(0x0001, 0x48), (0x000e, 0x08), (0x0010, 0x40), (0x0018, 0x08), (0x001e, 0x10),
            (0x0003, 0x0c), (0x0019, 0x30), (0x0025, 0x0c), (0x0026, 0x30), (0x0027, 0x50),
            (0x000b, 0x80), (0x001f, 0x0c)]


def real_config(cfg, bridge, rootport):
    """mkhost's config space as a real function's: its header and PCI Express
    capability kept, then PM, MSI, MSI-X, VPD and a vendor-specific
    capability, and a dozen extended ones (AER first; ACS on a bridge, its
    control kept, ARI and SR-IOV on an endpoint; DPC on a root port)."""
    cfg = bytearray(cfg)
    if len(cfg) < 4096 or cfg[0x34] != 0x40:
        return bytes(cfg)
    acs = cfg[0x100:0x108] if cfg[0x100] == 0x0d else None
    cfg[0x80:] = bytes(len(cfg) - 0x80)
    cfg[0x41] = 0x80
    std = [(0x80, 0x01, b"\x03\xc8\x08\x00"), (0x88, 0x05, b"\x80\x01"),
           (0x98, 0x11, b"\x7f\x00\x00\x00\x00\x00\x80\x00\x00\x00"),
           (0xa4, 0x03, b"\x00\x00"), (0xb0, 0x09, b"\x14\x01")]
    for i, (pos, cid, body) in enumerate(std):
        cfg[pos] = cid
        cfg[pos + 1] = std[i + 1][0] if i + 1 < len(std) else 0
        cfg[pos + 2:pos + 2 + len(body)] = body
    ext = [c for c in EXT_CAPS if not (bridge and c[0] in (0x000e, 0x0010))]
    if bridge:
        ext.insert(1, (0x000d, 0x08))
    if rootport:
        ext.insert(2, (0x001d, 0x48))
    pos = 0x100
    for i, (cid, size) in enumerate(ext):
        nxt = pos + size if i + 1 < len(ext) else 0
        nxt = (nxt + 0xf) & ~0xf
        cfg[pos:pos + 4] = (cid | 1 << 16 | nxt << 20).to_bytes(4, "little")
        if cid == 0x000d and acs:
            cfg[pos + 4:pos + 8] = acs[4:8]
        else:  # capability registers: not zeros
            cfg[pos + 4:pos + size] = bytes((pos + j) & 0xff for j in range(4, size))
        pos = nxt
    return bytes(cfg)


def realistic(h, out):
    """What a real kernel's device directory has beyond what mkhost writes:
    the attributes lspci and gpuprov never read (uevent, power/, msi_irqs/,
    resourceN, aer_*, vpd, ...), a bridge's 17-line resource file, a
    subsystem link, and each config space made a real function's."""
    bus = os.path.join(out, "sys/bus/pci")
    for bdf in h.order:
        d = h.devs[bdf]
        path = mkhost.devdir(h, out, bdf)
        bridge = d["kind"] in mkhost.BRIDGES
        with open(os.path.join(path, "config"), "rb") as f:
            cfg = f.read()
        with open(os.path.join(path, "config"), "wb") as f:
            f.write(real_config(cfg, bridge, d["kind"] == "rootport"))
        if bridge and os.path.exists(os.path.join(path, "resource")):
            with open(os.path.join(path, "resource"), "a") as f:
                f.write("0x0000000000000000 0x0000000000000000 0x0000000000000000\n" * 4)
        attrs = {"ari_enabled": "1", "broken_parity_status": "0",
                 "consistent_dma_mask_bits": "64", "d3cold_allowed": "1", "dma_mask_bits": "64",
                 "msi_bus": "1", "power_state": "D0", "local_cpus": "ffffffff,ffffffff",
                 "aer_dev_correctable": "RxErr 0\nBadTLP 0\nTOTAL_ERR_COR 0",
                 "aer_dev_fatal": "Undefined 0\nTOTAL_ERR_FATAL 0",
                 "aer_dev_nonfatal": "Undefined 0\nTOTAL_ERR_NONFATAL 0",
                 "uevent": f"PCI_SLOT_NAME={bdf}\nPCI_ID={d.get('id', '')}",
                 "power/control": "on", "power/runtime_status": "active",
                 "power/wakeup": "disabled", "link/l1_aspm": "0", "link/clkpm": "0"}
        for i in range(8):
            attrs[f"msi_irqs/{200 + i}"] = "msix"
        for name, text in attrs.items():
            mkhost.write(os.path.join(path, name), text + "\n")
        for name in ("resource0", "resource2", "resource2_wc", "remove", "rescan", "reset"):
            mkhost.write(os.path.join(path, name), "")
        mkhost.write(os.path.join(path, "vpd"), bytes(range(256)), "wb")
        mkhost.symlink(bus, os.path.join(path, "subsystem"))


OTHER = OUT + "-other"


def build_other(out=OTHER):
    h = mkhost.Host()
    h.path = out + ".host"
    for line in describe_other():
        h.line(line)
    if os.path.exists(out):
        shutil.rmtree(out)
    mkhost.build(h, out)
    realistic(h, out)
    return len(h.order)


SPAWN = os.path.join(TOP, "build/bench-spawn")


def timed(cmd, ok=(0,)):
    """Wall seconds, user+system CPU seconds, peak RSS in MB of one run,
    measured by bench/spawn.c: a child of this Python would start with the
    interpreter's resident pages in its ru_maxrss (exec keeps the high-water
    mark), which made every command look at least as large as Python."""
    err = os.path.join(TOP, "build/bench-stderr.txt")
    out = subprocess.run([SPAWN, err] + cmd, capture_output=True, text=True, check=True)
    wall, cpu, rss, status = out.stdout.split()
    if int(status) not in ok:
        sys.exit(f"bench: {' '.join(cmd)} failed: {open(err).read()[-400:]}")
    return float(wall), float(cpu), int(rss) / 1024.0


OPEN = re.compile(r'^\d+\s+openat2?\((.*)\) = \d+<([^>]*)>$')


def opened(cmd, root):
    """For one run: the files under the root opened to be read (strace -y
    names the file each descriptor really is), and those read more than
    once.  O_PATH opens (the -r guard resolving a path before libpci opens
    it) and directory opens (listings) are counted apart: they read no file."""
    if not shutil.which("strace"):
        return None
    log = os.path.join(TOP, "build/bench-strace.txt")
    subprocess.run(["strace", "-f", "-qq", "-y", "-e", "trace=openat,openat2", "-o", log] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    real = os.path.realpath(root) + "/"
    seen, other = {}, 0
    for line in open(log):
        m = OPEN.match(line.rstrip("\n"))
        if not m or not m.group(2).startswith(real):
            continue
        if "O_PATH" in m.group(1) or "O_DIRECTORY" in m.group(1):
            other += 1
            continue
        seen[m.group(2)] = seen.get(m.group(2), 0) + 1
    return sum(seen.values()), other, sorted(p for p, n in seen.items() if n > 1)


PROFILE = os.path.join(HERE, "bench.ini")
COMMANDS = [
    ("scan", ["scan"], (0,)),
    ("scan --json", ["--json", "scan"], (0,)),
    ("topo", ["topo"], (0,)),
    ("check", ["-p", PROFILE, "check"], (0, 1, 2)),
    ("plan", ["-p", PROFILE, "plan"], (0, 1, 2)),
]


def lspci(root):
    return ["lspci", "-O", f"sysfs.path={root}/sys/bus/pci", "-D", "-vmm"]


def side_by_side(gpuprov, root, runs):
    """Each command alternated with lspci on the same tree, medians.  With
    root None, both read /sys itself (the live path, no -r)."""
    rows = []
    theirs = lspci(root) if root else ["lspci", "-D", "-vmm"]
    for name, args, ok in COMMANDS:
        ours = [gpuprov] + (["-r", root] if root else []) + args
        timed(ours, ok)
        timed(theirs)  # warm the page cache for both
        a, b = [], []
        for _ in range(runs):
            a.append(timed(ours, ok))
            b.append(timed(theirs))
        med = [statistics.median(x[i] for x in a) for i in (0, 1)]
        ref = [statistics.median(x[i] for x in b) for i in (0, 1)]
        rows.append((name, med, max(x[2] for x in a), ref, max(x[2] for x in b)))
    print(f"{'gpuprov command':<14} {'wall':>8} {'cpu':>8} {'RSS':>8} | {'lspci wall':>10} "
          f"{'cpu':>8} {'RSS':>8} | {'ratio wall':>10} {'cpu':>6} {'RSS':>6}")
    for name, med, rss, ref, rss_ref in rows:
        print(f"{name:<14} {med[0] * 1000:6.0f}ms {med[1] * 1000:6.0f}ms {rss:6.1f}MB | "
              f"{ref[0] * 1000:8.0f}ms {ref[1] * 1000:6.0f}ms {rss_ref:6.1f}MB | "
              f"{med[0] / ref[0]:10.2f} {med[1] / ref[1]:6.2f} {rss / rss_ref:6.2f}")
    return rows


def curve(gpuprov, runs):
    """Time per PCI function of scan --json at about 1k, 4k and 16k functions."""
    print("\ncurve: gpuprov --json scan, median of "
          f"{runs} runs (lspci on the same tree beside it)")
    print(f"{'functions':>10} {'wall':>8} {'per function':>13} {'cpu/function':>13} "
          f"{'lspci/function':>15}")
    base = None
    for rcs in (2, 8, 32):
        out = OUT + f"-{rcs}"
        n, _ = build(rcs, copies=0, out=out)
        ours = [gpuprov, "-r", out, "--json", "scan"]
        timed(ours)
        a = [timed(ours) for _ in range(runs)]
        b = [timed(lspci(out)) for _ in range(runs)]
        wall = statistics.median(x[0] for x in a)
        cpu = statistics.median(x[1] for x in a)
        ref = statistics.median(x[0] for x in b)
        per = cpu / n
        base = base or per
        print(f"{n:>10} {wall * 1000:6.0f}ms {wall / n * 1e6:10.1f} us {per * 1e6:10.1f} us "
              f"{ref / n * 1e6:12.1f} us   cpu/function {per / base:.2f}x the 1k figure")
        shutil.rmtree(out)


def live(gpuprov):
    """The live path: in a private mount namespace of its own (nothing
    outside it sees the mount), the bench tree is bind-mounted over /sys and
    both tools read /sys as they do on a real host — gpuprov without -r, so
    without the ownership walk and open guard that -r needs as root."""
    if os.environ.get("BENCH_IN_NS"):
        subprocess.run(["mount", "--make-rprivate", "/"], check=True)
        subprocess.run(["mount", "--bind", os.path.join(OUT, "sys"), "/sys"], check=True)
        n = len(os.listdir("/sys/bus/pci/devices"))
        print(f"\nlive: the bench tree over /sys in a private mount namespace ({n} functions), "
              "no -r")
        side_by_side(gpuprov, None, RUNS)
        return
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("\nlive: needs root and unshare(1) for a private mount namespace: not measured")
        return
    env = dict(os.environ, BENCH_IN_NS="1")
    subprocess.run(["unshare", "-m", sys.executable, os.path.abspath(__file__), "--live"],
                   env=env, check=False)


def main():
    gpuprov = os.path.join(TOP, "build/gpuprov")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-Wall", "-Werror", "-o", SPAWN,
                    os.path.join(HERE, "spawn.c")], check=True)
    if "--live" in sys.argv:
        live(gpuprov)
        return
    t0 = time.perf_counter()
    n_main, grafted = build()
    print(f"bench host: {n_main} PCI functions ({grafted} of them device directories copied "
          f"from the real-kernel captures) under {os.path.relpath(OUT, TOP)} "
          f"(built in {time.perf_counter() - t0:.1f} s)")
    ours, theirs = timed([gpuprov, "--help"]), timed(["lspci", "--version"])
    print(f"startup (libraries loaded before main): gpuprov --help {ours[2]:.1f} MB peak RSS, "
          f"lspci --version {theirs[2]:.1f} MB")
    print(f"\nwith -r{', as root: the paths libpci and libkmod open are walked for ownership and guarded' if os.geteuid() == 0 else ''}")
    side_by_side(gpuprov, OUT, RUNS)
    t0 = time.perf_counter()
    other = build_other()
    print(f"\nother host: {other} PCI functions built as real machines differ from the one "
          f"above (switches two deep, four domains, a netdev for each bound function, a real "
          f"function's capabilities and attributes) under {os.path.relpath(OTHER, TOP)} "
          f"(built in {time.perf_counter() - t0:.1f} s)")
    side_by_side(gpuprov, OTHER, RUNS)
    live(gpuprov)
    if not os.environ.get("BENCH_NO_CURVE"):
        curve(gpuprov, max(3, RUNS // 3))
    print()
    runs = [("gpuprov " + name, [gpuprov, "-r", OUT] + args) for name, args, _ in COMMANDS[:2]]
    runs += [("lspci -D -vmm", lspci(OUT))]
    runs += [("other host: gpuprov " + name, [gpuprov, "-r", OTHER] + args)
             for name, args, _ in COMMANDS[1:2]] + [("other host: lspci -D -vmm", lspci(OTHER))]
    for name, cmd in runs:
        root = OTHER if name.startswith("other") else OUT
        n = other if root == OTHER else n_main
        got = opened(cmd, root)
        if got is None:
            print("strace not found: opens not counted")
            break
        total, other, twice = got
        print(f"{name}: {total} files opened to be read, {total / n:.1f} per PCI "
              f"function, {len(twice)} of them more than once ({other} opens of directories "
              "or O_PATH resolutions besides)")
        for path in twice[:10]:
            print(f"  {path}")


if __name__ == "__main__":
    main()
