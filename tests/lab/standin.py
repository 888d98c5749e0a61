#!/usr/bin/env python3
"""Turn gpuprov's domain XML into one that boots here under TCG: the GPUs
become ivshmem-plain stand-ins with the same 64-bit BAR sizes on the same
guest root ports; the guest is small; the firmware, the machine type, the
controllers and gpuprov's X-PciMmio64Mb stay as generated.
usage: standin.py IN OUT BARS_MIB CODE VARS NVRAM KERNEL INITRD CONSOLE BITS SHM [WINDOW_MIB]
BARS_MIB: the 64-bit BAR sizes of one GPU in MiB, comma-separated; SHM: the
prefix of the stand-ins' /dev/shm files; WINDOW_MIB replaces X-PciMmio64Mb."""
import sys
import xml.etree.ElementTree as ET

Q = "http://libvirt.org/schemas/domain/qemu/1.0"
ET.register_namespace("qemu", Q)
(src, out, bars, code, vars_, nvram, kernel, initrd, console, bits, shm) = sys.argv[1:12]
window = sys.argv[12] if len(sys.argv) > 12 else None
bars = [int(b) for b in bars.split(",")]
tree = ET.parse(src)
dom = tree.getroot()
dom.set("type", "qemu")
for tag in ("cputune", "numatune", "memoryBacking"):
    for n in dom.findall(tag):
        dom.remove(n)
cells = dom.findall("cpu/numa/cell")
ncells = max(1, len(cells))
per_cell = 512 * 1024  # KiB
for tag in ("memory", "currentMemory"):
    dom.find(tag).text = str(per_cell * ncells)
    dom.find(tag).set("unit", "KiB")
dom.find("vcpu").text = str(ncells)
for i, c in enumerate(cells):
    c.set("cpus", str(i))
    c.set("memory", str(per_cell))
cpu = dom.find("cpu")
for t in cpu.findall("topology"):  # sized for the real vCPUs, one per cell here
    cpu.remove(t)
cpu.set("mode", "maximum")
cpu.set("check", "none")
mpa = cpu.find("maxphysaddr")
mpa.attrib.clear()
mpa.set("mode", "emulate")
mpa.set("bits", bits)
os_ = dom.find("os")
os_.attrib.pop("firmware", None)
for n in os_.findall("boot"):
    os_.remove(n)
loader = ET.SubElement(os_, "loader", readonly="yes", type="pflash")
loader.text = code
ET.SubElement(os_, "nvram", template=vars_).text = nvram
ET.SubElement(os_, "kernel").text = kernel
ET.SubElement(os_, "initrd").text = initrd
ET.SubElement(os_, "cmdline").text = "console=ttyS0 panic=-1 loglevel=4"
devs = dom.find("devices")
for d in devs.findall("disk"):
    drv = d.find("driver")
    drv.attrib.clear()
    drv.set("name", "qemu")
    drv.set("type", "raw")
    d.find("source").set("file", nvram + ".disk")
for i in devs.findall("interface"):
    i.set("type", "user")
    for s in i.findall("source"):
        i.remove(s)
for c in devs.findall("console") + devs.findall("serial"):
    devs.remove(c)
ser = ET.SubElement(devs, "serial", type="file")
ET.SubElement(ser, "source", path=console)
# each GPU: its BARs as ivshmem-plain functions of one slot behind its root port
n = 0
for hd in devs.findall("hostdev"):
    addr = hd.find("address")
    devs.remove(hd)
    for fn, mib in enumerate(bars):
        sh = ET.SubElement(devs, "shmem", name=f"{shm}-{n}")
        n += 1
        ET.SubElement(sh, "model", type="ivshmem-plain")
        ET.SubElement(sh, "size", unit="M").text = str(mib)
        a = ET.SubElement(sh, "address", type="pci", domain="0x0000",
                          bus=addr.get("bus"), slot="0x00", function=f"0x{fn:x}")
        if fn == 0 and len(bars) > 1:
            a.set("multifunction", "on")
for ov in dom.findall(f"{{{Q}}}override"):
    dom.remove(ov)
if window is not None:
    args = [a for a in dom.iter(f"{{{Q}}}arg")
            if a.get("value", "").startswith("opt/ovmf/X-PciMmio64Mb")]
    if not args:
        cl = dom.find(f"{{{Q}}}commandline")
        if cl is None:
            cl = ET.SubElement(dom, f"{{{Q}}}commandline")
        ET.SubElement(cl, f"{{{Q}}}arg", value="-fw_cfg")
        args = [ET.SubElement(cl, f"{{{Q}}}arg")]
    args[0].set("value", f"opt/ovmf/X-PciMmio64Mb,string={window}")
tree.write(out)
