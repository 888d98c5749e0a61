#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The module graph of src/: levels, cycles and layer violations.

A module is a .c file and its .h (src/core/plan.c + src/core/plan.h is
"core/plan").  Module A depends on B when A's .c or .h includes B's header
(--symbols: when A's object file uses a symbol B's defines; objects from
OBJDIR).  A module's layer is its folder under src/, or for a flat tree the
layer a map file gives it (lines "name layer").

The rule: cli -> {host, act} -> sys -> core -> shared; a layer may use
itself and any layer below it; host and act never use each other.

Prints the numbers and, with -v, each cycle and violation.  Exit status 0
always: tests/cli/t_layers.sh does the enforcing.
"""
import os
import re
import subprocess
import sys

RANK = {"shared": 0, "core": 1, "sys": 2, "host": 3, "act": 3, "cli": 4}


def allowed(a, b):
    if a == b:
        return True
    if a not in RANK or b not in RANK:
        return False
    return RANK[a] > RANK[b]


def modules(src):
    mods = {}
    for d, _, files in os.walk(src):
        for f in files:
            if f.endswith((".c", ".h")):
                p = os.path.join(d, f)
                name = os.path.relpath(p, src)[:-2]
                mods.setdefault(name, []).append(p)
    return mods


def include_edges(src, mods):
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    edges = set()
    for m, paths in mods.items():
        for p in paths:
            with open(p, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    r = inc.match(line)
                    if not r:
                        continue
                    t = r.group(1)[:-2]
                    if t not in mods:  # a flat include resolved by folder
                        here = os.path.dirname(m)
                        t = os.path.join(here, t) if here else t
                    if t in mods and t != m:
                        edges.add((m, t))
    return edges


def symbol_edges(objdir, mods):
    defs, uses = {}, {}
    for d, _, files in os.walk(objdir):
        for f in files:
            if not f.endswith(".o"):
                continue
            p = os.path.join(d, f)
            m = os.path.relpath(p, objdir)[:-2]
            out = subprocess.run(["nm", p], capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    uses.setdefault(m, set()).add(parts[1])
                elif len(parts) == 3 and parts[1] in "TDBR":
                    defs[parts[2]] = m
    edges = set()
    for m, syms in uses.items():
        for s in syms:
            t = defs.get(s)
            if t and t != m:
                edges.add((m, t))
    return edges


def sccs(nodes, edges):
    adj = {n: [] for n in nodes}
    for a, b in edges:
        adj[a].append(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return out


def levels(nodes, edges, comps):
    """Longest chain of the graph with each cycle folded into one node."""
    comp_of = {n: i for i, c in enumerate(comps) for n in c}
    adj = {}
    for a, b in edges:
        ca, cb = comp_of[a], comp_of[b]
        if ca != cb:
            adj.setdefault(ca, set()).add(cb)
    memo = {}

    def depth(c):
        if c not in memo:
            memo[c] = 1 + max((depth(x) for x in adj.get(c, ())), default=0)
        return memo[c]

    return max((depth(c) for c in range(len(comps))), default=0)


def layer_of(m, lmap):
    if "/" in m:
        return m.split("/", 1)[0]
    return lmap.get(m, "?")


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    src, lmap, objdir = "src", {}, None
    while args:
        a = args.pop(0)
        if a == "--map":
            with open(args.pop(0)) as fh:
                for line in fh:
                    w = line.split("#", 1)[0].split()
                    if len(w) == 2:
                        lmap[w[0]] = w[1]
        elif a == "--symbols":
            objdir = args.pop(0)
        else:
            src = a
    mods = modules(src)
    edges = symbol_edges(objdir, mods) if objdir else include_edges(src, mods)
    nodes = set(mods) | {x for e in edges for x in e}
    comps = sccs(nodes, edges)
    cycles = [c for c in comps if len(c) > 1]
    bad = sorted((a, b) for a, b in edges
                 if not allowed(layer_of(a, lmap), layer_of(b, lmap)))
    print("modules %d edges %d levels %d cycles %d violations %d" %
          (len(nodes), len(edges), levels(nodes, edges, comps), len(cycles), len(bad)))
    if verbose:
        for c in cycles:
            print("cycle: " + " <-> ".join(c))
        for a, b in bad:
            print("violation: %s (%s) -> %s (%s)" %
                  (a, layer_of(a, lmap), b, layer_of(b, lmap)))


if __name__ == "__main__":
    main()
