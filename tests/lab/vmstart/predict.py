#!/usr/bin/env python3
"""The nested start's comparisons, as TAP lines (numbered from FIRST):
what gpuprov predicted (its domain XML, `gpuprov nccl-topo`) against QEMU's
own view (QMP qom-get of the paused domain's devices; query-pci once the
guest's firmware has numbered the buses and placed the BARs) and the nested
guest's kernel's (its PCI functions, read from its console), with the lab
host's BAR sizes from sysfs.
usage: predict.py aliases 0 XML           (each hostdev's alias and host address)
       predict.py pxbs 0 XML              (each expander bus's alias)
       predict.py qom FIRST XML QOM        (QOM: lines "ALIAS JSON", qom-get's
                                            answer for ALIAS's property host)
       predict.py placed 0 XML QPCI        (exit 0 when query-pci's answer QPCI
                                            has every hostdev with its memory BARs
                                            placed)
       predict.py firmware FIRST XML NCCL QPCI PAUSED
                                           (PAUSED: lines "KEY JSON", QMP's
                                            answers: bus_nr:ALIAS and
                                            numa_node:ALIAS of each expander
                                            bus, cpus: query-cpus-fast)
       predict.py guest FIRST XML NCCL CONSOLE"""
import json
import sys
import xml.etree.ElementTree as ET

mode, first, xml_path = sys.argv[1:4]
n = int(first) - 1


def tap(ok, desc, detail=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {desc}")
    if not ok and detail:
        for line in str(detail).splitlines()[:20]:
            print(f"# {line}")


MEM = 0x200  # IORESOURCE_MEM: the memory BARs (an I/O BAR may get no room behind a root port)


def host_ids(bdf):
    """The lab host's vendor:device of bdf."""
    with open(f"/sys/bus/pci/devices/{bdf}/vendor") as v, open(f"/sys/bus/pci/devices/{bdf}/device") as d:
        return "%s:%s" % (v.read().strip()[2:], d.read().strip()[2:])


def host_bars(bdf):
    """The sizes of the lab host's memory BARs (0-5) of bdf."""
    sizes = []
    with open(f"/sys/bus/pci/devices/{bdf}/resource") as f:
        for i, line in enumerate(f):
            if i > 5:
                break
            s, e, flags = (int(x, 16) for x in line.split())
            if e and flags & MEM:
                sizes.append(e - s + 1)
    return sorted(sizes)


dom = ET.parse(xml_path).getroot()
hostdevs = []
for hd in dom.iter("hostdev"):
    a = hd.find("source/address")
    bdf = "%04x:%02x:%02x.%x" % tuple(int(a.get(k), 16) for k in ("domain", "bus", "slot", "function"))
    alias = hd.find("alias").get("name")
    hostdevs.append((bdf, alias))
if mode == "aliases":
    for bdf, alias in hostdevs:
        print(alias, bdf)
    sys.exit(0)
if mode == "pxbs":
    for c in dom.iter("controller"):
        if c.get("model") == "pcie-expander-bus":
            print(c.find("alias").get("name"))
    sys.exit(0)


def qom_view(qom_path):
    """QEMU's view of the paused domain: each alias a device of the host address
    the XML gives (before the firmware numbers the buses behind the root
    ports, query-pci lists nothing behind them)."""
    got = {}
    for line in open(qom_path):
        alias, _, answer = line.partition(" ")
        try:
            got[alias] = json.loads(answer).get("return")
        except ValueError:
            got[alias] = answer.strip()
    for bdf, alias in hostdevs:
        tap(got.get(alias) == bdf, f"QMP: {alias} is realized as vfio-pci host {bdf}, as the XML says",
            f"qom-get {alias} host: {got.get(alias)}")


if mode == "qom":
    qom_view(sys.argv[4])
    print(f"COUNT {n}")
    sys.exit(0)


def answer(path):
    """A QMP command's "return", or None."""
    try:
        with open(path) as f:
            return json.load(f).get("return")
    except (OSError, ValueError, AttributeError):
        return None


def qmp_functions(buses):
    """query-pci's tree as (root bus number, device) for every function."""
    def walk(root, devs):
        for d in devs or []:
            yield root, d
            yield from walk(root, (d.get("pci_bridge") or {}).get("devices"))
    for b in buses or []:
        yield from walk(b.get("bus"), b.get("devices"))


def placed(d):
    """Every memory BAR (0-5) of d decoded at an address: the firmware's work done."""
    mem = [r for r in d.get("regions", []) if r.get("type") == "memory" and r.get("bar", 9) <= 5]
    return bool(mem) and all(r.get("address", -1) != -1 for r in mem)


if mode == "placed":
    funcs = {d.get("qdev_id"): d for _, d in qmp_functions(answer(sys.argv[4]))}
    sys.exit(0 if all(a in funcs and placed(funcs[a]) for _, a in hostdevs) else 1)


def firmware_view(qpci_path, paused_path):
    """The guest as its firmware left it, in QEMU's words: each function's
    address (the bus numbers OVMF gave the root ports), IDs, NUMA node (its
    expander bus's numa_node, what QEMU's ACPI tables give the guest) and
    memory BARs; the vCPUs and their nodes (PAUSED: lines "KEY JSON",
    bus_nr:ALIAS, numa_node:ALIAS and cpus, QMP's answers)."""
    said = {}
    for line in open(paused_path):
        key, _, text = line.strip().partition(" ")
        try:
            said[key] = json.loads(text).get("return")
        except (ValueError, AttributeError):
            pass
    node_of_bus = {said[k]: said.get("numa_node:" + k[7:]) for k in said if k.startswith("bus_nr:")}
    guest, bars = {}, {}
    for root, d in qmp_functions(answer(qpci_path)):
        bdf = "0000:%02x:%02x.%x" % (d["bus"], d["slot"], d["function"])
        guest[bdf] = ("%04x:%04x" % (d["id"]["vendor"], d["id"]["device"]), node_of_bus.get(root, -1))
        for r in d.get("regions", []):
            if r.get("type") == "memory" and r.get("bar", 9) <= 5 and r.get("address", -1) != -1:
                bars.setdefault(bdf, []).append(r["size"])
    cpus = said.get("cpus") or []
    nodes = {c.get("props", {}).get("node-id") for c in cpus} - {None}
    return guest, bars, len(cpus), len(nodes) or 1


def compare(who, guest, bars, cpus, nodes, nccl_path):
    """gpuprov's predictions against one view of the running guest."""
    tap(bool(guest), f"{who} lists the guest's PCI functions ({len(guest)})", "none listed")
    # NCCL's file: each passed device's guest bus ID and NUMA node (its <cpu numaid>)
    nccl = ET.parse(nccl_path).getroot()
    predicted = []
    for cpu in nccl.iter("cpu"):
        for p in cpu.iter("pci"):
            if p.get("class", "").startswith("0x0604"):
                continue
            vd = "%s:%s" % (p.get("vendor")[2:], p.get("device")[2:])
            predicted.append((p.get("busid"), vd, int(cpu.get("numaid"))))
    tap(len(predicted) == len(hostdevs),
        f"nccl-topo names each of the {len(hostdevs)} passed devices",
        f"its bus IDs: {predicted}")
    for busid, vd, node in predicted:
        g = guest.get(busid)
        tap(g is not None and g[0] == vd,
            f"{who}: {vd} at {busid}, where gpuprov put it (domain XML and nccl-topo)",
            f"there: {g}; all functions: {sorted(guest.items())}")
        tap(g is not None and g[1] == node,
            f"{who}: {busid} on guest NUMA node {node}, as predicted", f"it says {g}")
    # BARs: the host's sizes, device by device (the same IDs: compared as multisets)
    want = sorted((host_ids(b), tuple(host_bars(b))) for b, _ in hostdevs)
    got = sorted((guest[b][0], tuple(sorted(bars.get(b, [])))) for b, _, _ in predicted if b in guest)
    tap(want == got, f"{who}: every passed device's memory BARs assigned with the host's sizes",
        f"host {want}\nguest {got}")
    # vCPUs and NUMA cells as the domain XML says
    vcpus = int(dom.find("vcpu").text)
    cells = len(dom.findall("cpu/numa/cell"))
    tap(cpus == vcpus, f"{who}: the domain's {vcpus} vCPUs", f"it has {cpus}")
    tap(nodes == max(cells, 1), f"{who}: the domain's {cells} NUMA cells", f"it has {nodes}")


if mode == "firmware":
    nccl_path, qpci_path, paused_path = sys.argv[4:7]
    compare("QMP, after the guest's firmware", *firmware_view(qpci_path, paused_path),
            nccl_path)
    # the 64-bit BARs in the 64-bit window, above 4 GiB, where gpuprov's
    # window size is meant for them (a 32-bit hole could not take a GPU's)
    passed = {a for _, a in hostdevs}
    bars64 = [(d.get("qdev_id"), r["bar"], r["address"]) for _, d in qmp_functions(answer(qpci_path))
              if d.get("qdev_id") in passed for r in d.get("regions", [])
              if r.get("type") == "memory" and r.get("mem_type_64") and r.get("bar", 9) <= 5]
    tap(bool(bars64) and all(a >= 1 << 32 for _, _, a in bars64),
        f"QMP: the passed devices' {len(bars64)} 64-bit BARs are above 4 GiB",
        "\n".join(f"{q} BAR{b} at {a:#x}" for q, b, a in bars64) or "no 64-bit BAR")
    print(f"COUNT {n}")
    sys.exit(0)
nccl_path, console_path = sys.argv[4:6]
# ---- the guest kernel's view, from its console ----
guest = {}
bars = {}
cpus = nodes = None
for line in open(console_path, errors="replace"):
    f = line.split()
    if f[:1] == ["cpus"] and len(f) == 2:
        cpus = int(f[1])
    elif f[:1] == ["nodes"] and len(f) == 2:
        nodes = int(f[1])
    elif f[:1] == ["dev"] and len(f) == 5:
        guest[f[1]] = (f[2].replace("0x", ""), int(f[4]))
    elif f[:1] == ["res"] and len(f) == 6 and int(f[2]) <= 5 and int(f[5], 16) & MEM:
        bars.setdefault(f[1], []).append(int(f[4], 16) - int(f[3], 16) + 1)
compare("the nested guest's kernel", guest, bars, cpus, nodes, nccl_path)
print(f"COUNT {n}")
