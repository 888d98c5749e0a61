#!/usr/bin/env python3
"""The nested start's comparisons, as TAP lines (numbered from FIRST):
what gpuprov predicted (its domain XML, `gpuprov nccl-topo`) against QEMU's
own view (QMP qom-get of the paused domain's devices) and the nested guest's
(its kernel's PCI functions, read from its console), with the lab host's
BAR sizes from sysfs.
usage: predict.py aliases 0 XML           (each hostdev's alias and host address)
       predict.py qom FIRST XML QOM        (QOM: lines "ALIAS JSON", qom-get's
                                            answer for ALIAS's property host)
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
ids = {}
for bdf, _ in hostdevs:
    with open(f"/sys/bus/pci/devices/{bdf}/vendor") as v, open(f"/sys/bus/pci/devices/{bdf}/device") as d:
        ids[bdf] = "%s:%s" % (v.read().strip()[2:], d.read().strip()[2:])



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
nccl_path, console_path = sys.argv[4:6]
# ---- the guest's view, from its console ----
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
tap(bool(guest), f"the nested guest listed its PCI functions ({len(guest)})", "no 'dev' line on its console")

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
        f"the guest has {vd} at {busid}, where gpuprov put it (domain XML and nccl-topo)",
        f"the guest has {g} there; its functions: {sorted(guest.items())}")
    tap(g is not None and g[1] == node,
        f"{busid} is on guest NUMA node {node}, as predicted", f"the guest says {g}")
# BARs: the host's sizes, device by device (the same IDs: compared as multisets)
want = sorted((ids[b], tuple(host_bars(b))) for b, _ in hostdevs)
got = sorted((guest[b][0], tuple(sorted(bars.get(b, [])))) for b, _, _ in predicted if b in guest)
tap(want == got, "every passed device's memory BARs are assigned in the guest with the host's sizes",
    f"host {want}\nguest {got}")
# vCPUs and NUMA cells as the domain XML says
vcpus = int(dom.find("vcpu").text)
cells = len(dom.findall("cpu/numa/cell"))
tap(cpus == vcpus, f"the guest has the domain's {vcpus} vCPUs", f"it has {cpus}")
tap(nodes == max(cells, 1), f"the guest has the domain's {cells} NUMA cells", f"it has {nodes}")
print(f"COUNT {n}")
