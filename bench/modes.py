#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Memdesc mode against overlay mode, from two bench runs' results.

usage: modes.py --overlay DIR --memdesc DIR --out FILE.rst

DIR: a results folder of bench/run.sh (bench/results) and of
bench/run.sh --memdesc (bench/results/memdesc). Both runs measure the
in-kernel zsmalloc in their own boot; its ratio between the two boots shows
how far the boots agree. Writes a reStructuredText fragment.
"""
import argparse
import csv
import os


def rows(folder, name, key):
    with open(os.path.join(folder, name)) as f:
        return {r[key]: r for r in csv.DictReader(f)}


def meta(folder):
    """The bench's metadata block, as its results.rst records it."""
    out = {}
    with open(os.path.join(folder, "results.rst")) as f:
        for line in f:
            k, sep, v = line.strip().partition("=")
            if sep and k in ("date", "commit", "zpdesc", "command"):
                out.setdefault(k, v)
    return out


def table(head, body):
    cells = [head] + body
    w = [max(len(r[i]) for r in cells) for i in range(len(head))]
    rule = "  ".join("=" * n for n in w)
    fmt = lambda r: "  ".join(c.ljust(n) for c, n in zip(r, w)).rstrip()
    return [rule, fmt(head), rule] + [fmt(r) for r in body] + [rule, ""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--overlay", required=True)
    ap.add_argument("--memdesc", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    ov_e, md_e = (rows(d, "e2e_summary.csv", "backend") for d in (a.overlay, a.memdesc))
    ov_m, md_m = (rows(d, "micro.csv", "op") for d in (a.overlay, a.memdesc))

    L = []
    for name, d in (("overlay", a.overlay), ("memdesc", a.memdesc)):
        m = meta(d)
        L.append(f"- {name}: ``{m.get('command', '?')}`` at {m.get('commit', '?')}, "
                 f"{m.get('date', '?')} (module: zpdesc={m.get('zpdesc', '?')})")
    L.append("")

    body = []
    for op, o in ov_m.items():
        if op not in md_m or op.startswith("pages_"):
            continue  # page counts: density below
        m = md_m[op]
        ov, md = float(o["zsmalloc_mod_ns"]), float(m["zsmalloc_mod_ns"])
        zo, zm = float(o["zsmalloc_ns"]), float(m["zsmalloc_ns"])
        body.append([op, f"{ov:.1f}", f"{md:.1f}", f"{md / ov:.3f}",
                     f"{zm / zo:.3f}"])
    L += ["Micro-benchmark, ns/op (medians):", ""]
    L += table(["op", "overlay", "memdesc", "memdesc / overlay",
                "zsmalloc, boot 2 / boot 1"], body)

    o, m = ov_e["zsmalloc_mod"], md_e["zsmalloc_mod"]
    zo, zm = ov_e["zsmalloc"], md_e["zsmalloc"]
    body = []
    for key, what in (("out_ms", "swap-out ms"), ("in_ms", "swap-in ms"),
                      ("density_all", "density, slab counted")):
        body.append([what, f"{float(o[key]):.3f}", f"{float(m[key]):.3f}",
                     f"{float(m[key]) / float(o[key]):.3f}",
                     f"{float(zm[key]) / float(zo[key]):.3f}"])
    pages = [float(e["pool_bytes"]) / 4096 for e in (o, m)]
    meta_b = [float(e["meta_bytes"]) for e in (o, m)]
    body.append(["slab bytes per pool page", f"{meta_b[0] / pages[0]:.1f}",
                 f"{meta_b[1] / pages[1]:.1f}",
                 f"+{(meta_b[1] - meta_b[0]) / pages[1]:.1f}", ""])
    L += ["End to end through zswap (medians; slab of the module's own caches "
          "at the peak, descriptors included in memdesc mode):", ""]
    L += table(["", "overlay", "memdesc", "memdesc / overlay",
                "zsmalloc, boot 2 / boot 1"], body)
    with open(a.out, "w") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    main()
