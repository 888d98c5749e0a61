#!/usr/bin/env python3
"""Host-side checks of a lab run, printed as TAP.

    verify.py TOPOLOGY OUTDIR

OUTDIR is what the guest left in its 9p share: scan/topo/check JSON from
gpuprov, kernel.txt (the kernel's own view of every PCI function) and
snapshot.tar.gz.  Checks: gpuprov's devices, IOMMU groups, NUMA nodes and
drivers equal the kernel's; the snapshot, unpacked here, gives the same
scan, topo and check documents byte for byte; the journal of a run applied
with --confirm-within and never confirmed says its watcher rolled it back.
"""
import json
import os
import subprocess
import sys
import tarfile
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPUPROV = os.path.join(TOP, "build/gpuprov")
n = 0


def tap(ok, desc, detail=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {desc}")
    if not ok and detail:
        for line in str(detail).splitlines()[:20]:
            print(f"# {line}")


def kernel_view(path):
    out = {}
    for line in open(path):
        bdf, vendor, device, cls, numa, group, driver = line.split()
        out[bdf] = {
            "vendor": vendor[2:], "device": device[2:], "class": cls[2:6],
            "numa_node": None if int(numa) < 0 else int(numa),
            "iommu_group": None if group == "-" else int(group),
            "driver": None if driver == "-" else driver,
        }
    return out


def without_profile_trust(live):
    """The live check as a document, less profile.trust: that finding judges the
    profile's own file on the live host and is never made under -r (it is not
    the host's state).  None when the live check lacks it."""
    doc = json.loads(live)
    gone = [f for f in doc["findings"] if f["id"] == "profile.trust"]
    if len(gone) != 1:
        return None
    doc["summary"][gone[0]["severity"]] -= 1
    doc["findings"] = [f for f in doc["findings"] if f["id"] != "profile.trust"]
    return doc


def main(topo, out):
    profile = os.path.join(TOP, "tests/lab/profiles", f"lab-{topo}.ini")
    if not os.path.exists(os.path.join(out, "scan.json")):
        tap(True, f"{topo}: a scenario of runs only, nothing to compare host-side")
        print(f"1..{n}")
        return
    scan = json.load(open(os.path.join(out, "scan.json")))
    kernel = kernel_view(os.path.join(out, "kernel.txt"))
    ours = {d["bdf"]: d for d in scan["devices"]}
    tap(set(ours) == set(kernel), "scan lists exactly the kernel's PCI functions",
        set(ours) ^ set(kernel))
    for key in ("vendor", "device", "class", "numa_node", "iommu_group", "driver"):
        bad = [f"{b}: {ours[b][key]} vs kernel {k[key]}" for b, k in kernel.items()
               if b in ours and ours[b][key] != k[key]]
        tap(not bad, f"scan's {key} agrees with the kernel for every function", "\n".join(bad))
    groups = {g["id"]: sorted(g["devices"]) for g in scan["iommu_groups"]}
    kgroups = {}
    for b, k in kernel.items():
        if k["iommu_group"] is not None:
            kgroups.setdefault(k["iommu_group"], []).append(b)
    tap(groups == {g: sorted(v) for g, v in kgroups.items()},
        "iommu_groups agree with the kernel's groups")
    with tempfile.TemporaryDirectory() as tree:
        with tarfile.open(os.path.join(out, "snapshot.tar.gz")) as tar:
            tar.extractall(tree)
        for name, args in (("scan", ["-p", profile, "--json", "scan"]),
                           ("topo", ["-p", profile, "--json", "topo"]),
                           ("check", ["-p", profile, "--json", "check"])):
            live = open(os.path.join(out, f"{name}.json")).read()
            here = subprocess.run([GPUPROV, "-r", tree] + args, capture_output=True,
                                  text=True).stdout
            live = live.replace("/etc/gpuprov/", os.path.dirname(profile) + "/")
            if name == "check":  # compared as documents, profile.trust aside
                same = without_profile_trust(live) == json.loads(here or "null")
            else:
                same = here == live
            tap(same, f"{name} --json from the snapshot equals the live one",
                "".join(l for l in __import__("difflib").unified_diff(
                    live.splitlines(True), here.splitlines(True))))
    bond_json = os.path.join(out, "bond.json")
    if os.path.exists(bond_json):
        check_bond(json.load(open(bond_json)), os.path.join(out, "bond-sysfs.txt"))
    timeout_json = os.path.join(out, "confirm-timeout.json")
    if os.path.exists(timeout_json):
        check_timeout(json.load(open(timeout_json)),
                      open(os.path.join(out, "confirm-timeout.log")).read())
    print(f"1..{n}")


def check_timeout(doc, log):
    """The journal of the run nobody confirmed: its watcher rolled it back."""
    c = doc.get("confirm") or {}
    tap(doc["status"] == "rolled_back" and c.get("state") == "timed_out",
        "confirm: the unconfirmed run's journal says rolled back by its watcher",
        f"{doc['status']} {c}")
    tap(all(s["state"] in ("undone", "pending") for s in doc["steps"]) and
        any(s["state"] == "undone" for s in doc["steps"]),
        "confirm: every step it had done is undone",
        [(s["kind"], s["state"]) for s in doc["steps"]])
    tap(c.get("at", 0) >= c.get("deadline", 1) and
        c.get("deadline", 0) - c.get("within", 0) > 0,
        "confirm: rolled back at or after its deadline, not before", c)
    tap(f"watcher of run {doc['run_id']} (PID {c.get('watcher')}) started" in log and
        f"rolled back run {doc['run_id']}" in log,
        "confirm: the watcher's log names its run and PID and says what it did", log)


def check_bond(doc, sysfs):
    """gpuprov bond --json (netlink) against the kernel's bonding sysfs."""
    k = {}
    ports = {}
    for line in open(sysfs):
        key, _, val = line.strip().partition(" ")
        if key == "port":
            name, agg = val.split()
            ports[name] = int(agg)
        else:
            k[key] = val
    want = {
        "mode": k["mode"].split()[0], "miimon": int(k["miimon"]),
        "lacp_rate": k["lacp_rate"].split()[0],
        "xmit_hash_policy": k["xmit_hash_policy"].split()[0],
        "ad_select": k["ad_select"].split()[0], "min_links": int(k["min_links"]),
        "aggregator": int(k["ad_aggregator"]), "num_ports": int(k["ad_num_ports"]),
        "partner_mac": k["ad_partner_mac"], "mtu": int(k["mtu"]),
    }
    bad = [f"{key}: {doc[key]!r} vs sysfs {v!r}" for key, v in want.items() if doc[key] != v]
    tap(not bad, "bond --json agrees with /sys/class/net/bond0/bonding", "\n".join(bad))
    got = {p["name"]: p["aggregator"] for p in doc["ports"]}
    tap(got == ports, "bond --json's ports and aggregator IDs agree with sysfs",
        f"{got} vs {ports}")
    tap(doc["lacp_formed"] and len(set(got.values())) == 1,
        "bond --json: LACP formed, every port in one aggregator")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
