#!/usr/bin/env python3
"""NCCL's reading of a topology file, written from NCCL's source (NVIDIA/nccl
2.28.3: src/graph/xml.cc, topo.cc, paths.cc), not from gpuprov's code, and
the checks of `gpuprov nccl-topo` against `gpuprov topo` on the same tree.

  nccl_topo.py host TOPO.json FILE          --this-host: busids are the host's
  nccl_topo.py vm TOPO.json DOMAIN.xml FILE  the VM: busids from the domain XML
  nccl_topo.py all GPUPROV HOSTS PROFILE     both, on every tree under HOSTS

Each check: the file reads as NCCL's parser reads it (no warning), every
attribute is one NCCL reads and every value one it understands, every GPU
and NIC of the VM (or host) is in it once at the right bus ID, and for every
pair NCCL's path type equals topo's class on the host (NODE is PHB to NCCL,
which has no NODE).  Prints one line per pair; exit 1 on any difference.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

# ---- xml.cc: the parser (xmlGetNode, xmlGetToken, xmlGetValue, xmlLoadSub) ----
MAX_STR_LEN = 255
MAX_ATTR_COUNT = 16
MAX_SUBS = 128


class Warn(Exception):
    pass


class Node:
    def __init__(self, name):
        self.name, self.attrs, self.subs, self.parent = name, {}, [], None
        self.single = False


def _token(s, i, want_value):
    """xmlGetToken: a name up to ' ', '>', '/', '\\n', '\\r', or name=value."""
    o = []
    while True:
        if i >= len(s):
            raise Warn("XML Parse : Unexpected EOF")
        c = s[i]
        i += 1
        if c == "=":
            if not want_value:
                raise Warn("XML Parse : Unexpected value with name %s" % "".join(o))
            if i >= len(s) or s[i] not in "\"'":
                raise Warn("XML Parse : Expected (double) quote.")
            q = s[i]
            end = s.find(q, i + 1)
            if end < 0:
                raise Warn("XML Parse : Unexpected EOF")
            value = s[i + 1:end]
            if len(value) >= MAX_STR_LEN:
                raise Warn("Error : value %s too long (max %d)" % (value, MAX_STR_LEN))
            if end + 1 >= len(s):
                raise Warn("XML Parse : Unexpected EOF")
            return "".join(o), value, s[end + 1], end + 2
        if c in " >/\n\r":
            return "".join(o), None, c, i
        o.append(c)
        if len(o) >= MAX_STR_LEN:
            raise Warn("Error : name too long")


def _node(s, i):
    """xmlGetNode: (node or None at EOF, kind, next index)."""
    while i < len(s) and s[i] in " \n\r":
        i += 1
    if i >= len(s):
        return None, "none", i
    if s[i] != "<":
        raise Warn("XML Parse error : expecting '<', got '%s'" % s[i])
    name, _, c, i = _token(s, i + 1, False)
    if name.startswith("!--"):
        end = s.find("-->", i - 1)
        if end < 0:
            raise Warn("XML Parse error : unterminated comment")
        return _node(s, end + 3)
    if name == "" and c == "/":
        name, _, c, i = _token(s, i, False)
        if c != ">":
            raise Warn("XML Parse error : unexpected trailing %s in closing tag %s" % (c, name))
        return Node(name), "close", i
    n = Node(name)
    while c == " ":
        key, value, c, i = _token(s, i, True)
        if value is None:
            raise Warn("attribute %r of <%s> without a value" % (key, name))
        if len(n.attrs) >= MAX_ATTR_COUNT:
            raise Warn("more than %d attributes on <%s>" % (MAX_ATTR_COUNT, name))
        n.attrs[key] = value
    if c == "/":
        n.single = True
        _, _, c, i = _token(s, i, False)
    if c != ">":
        raise Warn("XML Parse : expected >, got '%s'" % c)
    return n, "open", i


HANDLERS = {None: ["system"], "system": ["cpu"], "cpu": ["pci", "nic"],
            "pci": ["pci", "gpu", "nic", "pcilink"], "gpu": ["nvlink", "c2c"],
            "nic": ["net"]}


def _load_sub(s, i, head):
    if head is not None and head.single:
        return i
    while True:
        n, kind, i = _node(s, i)
        if kind == "none":
            if head is not None:
                raise Warn("XML Parse : unterminated %s" % head.name)
            return i
        if head is not None and kind == "close":
            if n.name != head.name:
                raise Warn("XML Mismatch : %s / %s" % (head.name, n.name))
            return i
        if n.name not in HANDLERS.get(head.name if head else None, []):
            raise Warn("element <%s> under <%s>: NCCL ignores it" % (n.name, head.name if head else ""))
        if head is not None:
            if len(head.subs) == MAX_SUBS:
                raise Warn("Error : XML parser is limited to %d subnodes" % MAX_SUBS)
            head.subs.append(n)
        n.parent = head
        if head is None:
            top.append(n)
        i = _load_sub(s, i, n)


top = []


def parse(text):
    top.clear()
    _load_sub(text, 0, None)
    if len(top) != 1 or top[0].name != "system":
        raise Warn("expected one <system>")
    if top[0].attrs.get("version") != "1":
        raise Warn("XML Topology has wrong version")
    return top[0]


# ---- what NCCL reads of each attribute, and which values it understands ----
PCI_CLASS = [("0x060400", "PCI"), ("0x080100", "PCI"), ("0x068000", "NVS"), ("0x068001", "CPU"),
             ("0x03", "GPU"), ("0x02", "NIC")]  # topo.cc kvDictPciClass, fallback PCI
PCI_GEN = [("2.5 GT/s", 15), ("5 GT/s", 30), ("8 GT/s", 60), ("16 GT/s", 120), ("32 GT/s", 240),
           ("2.5 GT/s PCIe", 15), ("5.0 GT/s PCIe", 30), ("8.0 GT/s PCIe", 60),
           ("16.0 GT/s PCIe", 120), ("32.0 GT/s PCIe", 240), ("64.0 GT/s PCIe", 480)]
CPU_ARCH = ["x86_64", "arm64", "ppc64"]
CPU_VENDOR = ["GenuineIntel", "AuthenticAMD", "CentaurHauls", "  Shanghai  "]
ATTRS = {"system": {"version"},
         "cpu": {"numaid", "affinity", "arch", "vendor", "familyid", "modelid"},
         "pci": {"busid", "class", "vendor", "device", "subsystem_vendor", "subsystem_device",
                 "link_speed", "link_width"}}
BDF = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
HEX16 = re.compile(r"^0x[0-9a-f]{4}$")


def kv(value, table, fallback):
    """topo.h kvConvertToInt: the first entry that is a prefix of value."""
    for key, v in table:
        if value.startswith(key):
            return v
    return fallback


def check_values(n, errors):
    for key, value in n.attrs.items():
        if key not in ATTRS.get(n.name, set()):
            errors.append("<%s %s>: NCCL reads no such attribute" % (n.name, key))
    a = n.attrs
    if n.name == "cpu":
        if not re.match(r"^-?[0-9]+$", a.get("numaid", "")):
            errors.append("cpu without a numaid")
        if "affinity" in a and not re.match(r"^[0-9a-f]{8}(,[0-9a-f]{8})*$", a["affinity"]):
            errors.append("cpu affinity %r is not a cpumap" % a["affinity"])
        if "arch" in a and a["arch"] not in CPU_ARCH:
            errors.append("cpu arch %r unknown to NCCL" % a["arch"])
        if "vendor" in a and a["vendor"] not in CPU_VENDOR:
            errors.append("cpu vendor %r unknown to NCCL" % a["vendor"])
        for k in ("familyid", "modelid"):
            if k in a and not a[k].isdigit():
                errors.append("cpu %s %r" % (k, a[k]))
    if n.name == "pci":
        if not BDF.match(a.get("busid", "")):
            errors.append("pci busid %r is not NCCL's lower-case bus ID" % a.get("busid"))
        if not re.match(r"^0x[0-9a-f]{6}$", a.get("class", "")):
            errors.append("pci class %r" % a.get("class"))
        for k in ("vendor", "device", "subsystem_vendor", "subsystem_device"):
            if not HEX16.match(a.get(k, "")):
                errors.append("pci %s %s: %r" % (a.get("busid"), k, a.get(k)))
        if "link_speed" in a and kv(a["link_speed"], PCI_GEN, None) is None:
            errors.append("pci link_speed %r: NCCL falls back to 8 GT/s" % a["link_speed"])
        if "link_width" in a and not a["link_width"].isdigit():
            errors.append("pci link_width %r" % a["link_width"])
    for s in n.subs:
        check_values(s, errors)


# ---- topo.cc: the system from the XML; paths.cc: the path types ----
LINK_PCI, LINK_SYS = 4, 9
PATH_PIX, PATH_PXB, PATH_PHB, PATH_SYS = 4, 5, 8, 9
PATH_NAME = {0: "X", 4: "PIX", 5: "PXB", 8: "PHB", 9: "SYS"}


class TNode:
    def __init__(self, kind, ident, busid=None):
        self.kind, self.id, self.busid, self.links, self.device = kind, ident, busid, [], 0


def add_pci(x, parent, nodes, ends):
    """ncclTopoAddPci.  In the guest NCCL adds <gpu> to the pci element of each
    GPU it drives (ncclTopoFillGpu, by bus ID) and <nic> to its NICs'
    (ncclTopoFillNet): ends maps those bus IDs to GPU or NIC, whatever class
    the element says (NCCL rereads it from the guest's sysfs; a lab stand-in
    has none of a GPU's).  Other elements are typed by class: a bridge is a
    PCI node, a GPU or NIC nobody drives is dropped."""
    busid = x.attrs["busid"]
    kind = ends.get(busid) or kv(x.attrs["class"], PCI_CLASS, "PCI")
    node = None
    if kind in ("GPU", "NIC"):
        node = TNode(kind, busid, busid)
    elif kind == "PCI":
        node = TNode("PCI", busid, busid)
        for k, sh in (("vendor", 48), ("device", 32), ("subsystem_vendor", 16),
                      ("subsystem_device", 0)):
            if k in x.attrs:
                node.device += int(x.attrs[k], 0) << sh
        for s in x.subs:
            if s.name != "pcilink":
                add_pci(s, node, nodes, ends)
    if node is None:
        return
    width = int(x.attrs.get("link_width", "0") or "0") or 16
    speed = kv(x.attrs.get("link_speed", ""), PCI_GEN, 60)
    bw = width * speed / 80.0
    node.links.append((LINK_PCI, parent, bw))
    parent.links.append((LINK_PCI, node, bw))
    nodes.append(node)


def bcm_gen(dev, level):
    """topo.cc getBcmGen: Broadcom PEX switches NCCL flattens."""
    if dev & 0xfffffffffffff000 == 0x1000c0101000a000:
        return 4
    if dev & 0xfffffffffffff000 == 0x1000c03010000000 | level * 0x1000:
        return 5
    return 0


def flatten_bcm(nodes):
    """ncclTopoFlattenBcmSwitches: a sub-switch of the same generation merges into its parent."""
    again = True
    while again:
        again = False
        for sw in [n for n in nodes if n.kind == "PCI"]:
            gen = bcm_gen(sw.device, 0)
            if not gen:
                continue
            subs = [l[1] for l in sw.links if l[1].kind == "PCI" and bcm_gen(l[1].device, 1) == gen]
            sw.links = [l for l in sw.links if l[1] not in subs]
            for sub in subs:
                for (t, rem, bw) in sub.links:
                    if rem is sw:
                        continue
                    sw.links.append((t, rem, bw))
                    rem.links = [(t2, sw if r is sub else r, b) for (t2, r, b) in rem.links]
                nodes.remove(sub)
            sw.device |= 0xffff
            again = True
            break


def system_of(root, ends, flatten):
    nodes, cpus = [], []
    for x in root.subs:
        cpu = TNode("CPU", "cpu" + x.attrs["numaid"])
        cpus.append(cpu)
        nodes.append(cpu)
        for s in x.subs:
            if s.name == "pci":
                add_pci(s, cpu, nodes, ends)
    if flatten:
        flatten_bcm(nodes)
    for a in cpus:  # ncclTopoConnectCpus
        for b in cpus:
            if a is not b:
                a.links.append((LINK_SYS, b, 10.0))
    return nodes


def paths_from(base):
    """ncclTopoSetPaths: breadth first, the best bandwidth, then the fewest hops;
    GPUs do not forward (over PCI); type: PIX for a PCI link, PXB between two
    PCI switches, PHB where a CPU is on either end, SYS from CPU to CPU."""
    path = {base: (0, float("inf"), 0)}  # node -> (type, bw, count)
    level = [base]
    while level:
        nxt = []
        for node in level:
            ptype, pbw, pcount = path[node]
            for (ltype, rem, lbw) in node.links:
                if node is not base and node.kind == "GPU":
                    continue
                bw = min(pbw, lbw)
                cur = path.get(rem)
                if cur is not None and not ((cur[1] == 0 or cur[2] > pcount) and cur[1] < bw):
                    continue
                t = ltype
                if node.kind == "PCI" and rem.kind == "PCI":
                    t = PATH_PXB
                if ltype == LINK_PCI and (node.kind == "CPU" or rem.kind == "CPU"):
                    t = PATH_PHB
                path[rem] = (max(ptype, t), bw, pcount + 1)
                if rem not in nxt:
                    nxt.append(rem)
        level = nxt
    return path


def nccl_paths(text, ends, flatten=True):
    root = parse(text)
    errors = []
    check_values(root, errors)
    if errors:
        raise Warn("; ".join(errors))
    nodes = system_of(root, ends, flatten)
    ends = [n for n in nodes if n.kind in ("GPU", "NIC")]
    seen = [n.busid for n in ends]
    if len(seen) != len(set(seen)):
        raise Warn("a bus ID twice: %s" % sorted(seen))
    out = {}
    for a in ends:
        p = paths_from(a)
        for b in ends:
            out[(a.busid, b.busid)] = PATH_NAME[p[b][0]] if b in p else "DIS"
    return out


# ---- the guest addresses, from the domain XML ----
def guest_addresses(domxml):
    """host BDF -> guest BDF of each hostdev.  A pcie-root-port's bus is
    numbered by the guest firmware depth first from its expander bus's
    busNr + 1, in slot order (tests/lab/ovmf.sh sees it in a booted guest)."""
    dom = ET.parse(domxml).getroot()
    ctl = {int(c.get("index")): c for c in dom.iter("controller") if c.get("type") == "pci"}
    out = {}
    for hd in dom.iter("hostdev"):
        src = hd.find("source/address")
        host = "%04x:%02x:%02x.%x" % tuple(int(src.get(k), 16) for k in
                                           ("domain", "bus", "slot", "function"))
        a = hd.find("address")
        port = ctl[int(a.get("bus"), 16)]
        pa = port.find("address")
        pxb = ctl[int(pa.get("bus"), 16)]
        slots = sorted(int(c.find("address").get("slot"), 16) for c in ctl.values()
                       if c.get("model") == "pcie-root-port" and
                       int(c.find("address").get("bus"), 16) == int(pa.get("bus"), 16))
        bus = int(pxb.find("target").get("busNr")) + 1 + slots.index(int(pa.get("slot"), 16))
        out[host] = "0000:%02x:%02x.%x" % (bus, int(a.get("slot"), 16), int(a.get("function"), 16))
    return out


NCCL_OF_TOPO = {"X": "X", "PIX": "PIX", "PXB": "PXB", "PHB": "PHB", "NODE": "PHB", "SYS": "SYS"}


def check(mode, topo, text, domxml=None, out=print):
    devs = [d["bdf"] for d in topo["devices"]]
    if mode == "vm":
        where = guest_addresses(domxml)
        idx = [i for i, b in enumerate(devs) if b in where]
    else:
        where = {b: b for b in devs}
        idx = list(range(len(devs)))
    ends = {where[devs[i]]: topo["devices"][i]["role"].upper() for i in idx}
    try:
        got = nccl_paths(text, ends)
        plain = nccl_paths(text, ends, flatten=False)
    except Warn as e:
        out("not as NCCL reads it: %s" % e)
        return 1, 0
    want = sorted(where[devs[i]] for i in idx)
    have = sorted({a for a, _ in got})
    bad = pairs = 0
    if want != have:
        out("the file's GPUs and NICs %s, expected %s" % (have, want))
        bad += 1
    for i in idx:
        for j in idx:
            if i >= j:
                continue
            pairs += 1
            a, b = where[devs[i]], where[devs[j]]
            expect = [NCCL_OF_TOPO[topo["matrix"][i][j]]]
            # topo's SYS for a device the host puts on no NUMA node is its
            # worst case, not a fact: the file may place it with its root
            # complex's node (PHB), which a tree must do for one of its pairs
            unknown = None in (topo["devices"][i]["numa_node"], topo["devices"][j]["numa_node"])
            if expect == ["SYS"] and unknown:
                expect.append("PHB")
            # a host that puts two devices of one root complex on different
            # NUMA nodes (drift-slot): the VM gives each node a cell, as
            # domxml does, and cells meet only through the CPUs (SYS)
            ni, nj = topo["devices"][i]["numa_node"], topo["devices"][j]["numa_node"]
            if expect == ["PHB"] and None not in (ni, nj) and ni != nj:
                expect.append("SYS")
            # NCCL merges the second level of a Broadcom PEX switch into the
            # first, on the host as in the guest (the file keeps the switches'
            # IDs): without that step its path must be topo's class; with it,
            # a PXB through such a switch may be PIX
            n = plain.get((a, b), "absent")
            merged = got.get((a, b), "absent")
            ok = n in expect and plain.get((b, a)) == n and got.get((b, a)) == merged and \
                (merged == n or (n, merged) == ("PXB", "PIX"))
            bad += not ok
            out("%s %s-%s (host %s-%s): topo %s, NCCL from the file %s%s%s" %
                ("ok" if ok else "DIFFERS", a, b, devs[i], devs[j], topo["matrix"][i][j], n,
                 " (NUMA node unknown)" if unknown else "",
                 ", %s after NCCL's Broadcom switch merge" % merged if merged != n else ""))
    return bad, pairs


def run(*cmd):
    import subprocess
    return subprocess.run(cmd, capture_output=True, text=True)


def every_tree(gp, hosts, profile):
    """Both modes on every tree; many-gpus' VM has more cards on one node than
    an expander bus can number, which nccl-topo must refuse (exit 4)."""
    import os
    import tempfile
    bad, total, counts = 0, 0, {}
    tmp = tempfile.mkdtemp()
    for name in sorted(os.listdir(hosts)):
        root = os.path.join(hosts, name)
        for mode in ("host", "vm"):
            extra = ["--this-host"] if mode == "host" else ["-p", profile]
            topo = run(gp, "-r", root, "--json", *([] if mode == "host" else ["-p", profile]),
                       "topo")
            f = os.path.join(tmp, "%s.%s.xml" % (name, mode))
            r = run(gp, "-r", root, *extra, "nccl-topo", "-o", f)
            if mode == "vm" and name == "many-gpus":
                ok = r.returncode == 4 and "expander bus" in r.stderr
                print("%s %s vm: nccl-topo refuses (exit %d): %s" %
                      ("ok" if ok else "FAIL", name, r.returncode, r.stderr.strip()))
                bad += not ok
                continue
            if mode == "host" and topo.stdout and not any(
                    x["role"] == "gpu" for x in json.loads(topo.stdout)["devices"]):
                # no GPU here: a file of NICs alone places nothing, refused
                ok = r.returncode == 2 and "no GPU under" in r.stderr
                print("%s %s host: nccl-topo refuses a host without GPUs (exit %d)" %
                      ("ok" if ok else "FAIL", name, r.returncode))
                bad += not ok
                continue
            if r.returncode or not topo.stdout:
                print("FAIL %s %s: nccl-topo exit %d: %s" % (name, mode, r.returncode, r.stderr))
                bad += 1
                continue
            lint = run("xmllint", "--noout", f)
            if lint.returncode:
                print("FAIL %s %s: xmllint: %s" % (name, mode, lint.stderr))
                bad += 1
            dom = None
            if mode == "vm":
                dom = os.path.join(tmp, name + ".dom.xml")
                run(gp, "-r", root, "-p", profile, "domxml", "-o", dom)
            lines = []
            b, pairs = check(mode, json.loads(topo.stdout), open(f).read(), dom, lines.append)
            for line in lines:
                if not line.startswith("ok"):
                    print("FAIL %s %s: %s" % (name, mode, line))
                else:
                    cls = line.split("NCCL from the file ")[1].split()[0].rstrip(",")
                    counts[cls] = counts.get(cls, 0) + 1
            bad += b
            total += pairs
    print("%d pairs on %d trees, NCCL's path from the file as topo's class: %s; %d differ" %
          (total, len(os.listdir(hosts)), counts, bad))
    return 1 if bad else 0


def main(argv):
    if argv[1] == "all":
        return every_tree(*argv[2:5])
    mode, topo = argv[1], json.load(open(argv[2]))
    text = open(argv[-1]).read()
    return 1 if check(mode, topo, text, argv[3] if mode == "vm" else None)[0] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
