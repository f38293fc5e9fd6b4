#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/dropbehind.sh's raw lines -> dropbehind.csv, dropbehind.rst,
dropbehind.dat and dropbehind.png: pages of a zswap writeback storm still
in the swap cache after it, PG_reclaim against PG_dropbehind.

A raw line (bench/guest-dropbehind.sh, bench/zsmod_dropbehind.c):
  # db mode=reclaim round=1 pages=4096 written=4096 storm_us=... rss@0=...
       rss@1=... drop_us=... dropped=... kept=... busy=... reclaim_us=...
       reclaimed=... left=...
Round 0 is a warm-up and left out; the figures are medians over rounds.

"Memory free after" is, for PG_dropbehind, the time from the end of the
storm until the worker had settled every folio (drop_us), plus the reclaim
pass if that still freed any; for PG_reclaim, the reclaim pass alone: the
time it would take if reclaim ran the moment the storm ended, the best
case for it.
"""
import argparse
import csv
import os
import re
import statistics
import subprocess

MODES = ("reclaim", "dropbehind")


def parse(path):
    rows = []
    with open(path) as f:
        for line in f:
            if not line.startswith("# db "):
                continue
            kv = dict(re.findall(r"(\S+)=(\S+)", line))
            row = {"mode": kv["mode"], "round": int(kv["round"])}
            for k, v in kv.items():
                if k in row:
                    continue
                if k.startswith("rss@"):    # US/R: when the sample began, what it found
                    us, n = v.split("/")
                    row["at@" + k[4:]] = int(us)
                    row[k] = int(n)
                else:
                    row[k] = int(v)
            rows.append(row)
    return rows


def free_us(r):
    """Microseconds from the storm's end until its pages were free again, or -1."""
    if r["left"] > 0:
        return -1
    if r["mode"] == "reclaim":
        return r["reclaim_us"]
    if r["drop_us"] < 0:
        return -1
    return r["drop_us"] + (r["reclaim_us"] if r["reclaimed"] > 0 else 0)


def med(vals):
    return statistics.median(vals) if vals else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rows = [r for r in parse(a.raw) if r["round"] > 0]
    if not rows:
        raise SystemExit("dropbehind.py: no measured storm in %s" % a.raw)
    samples = sorted(int(k[4:]) for k in rows[0] if k.startswith("rss@"))
    cols = ["mode", "round", "pages", "written", "storm_us"] + \
        [c % s for s in samples for c in ("at@%d", "rss@%d")] + \
        ["drop_us", "dropped", "kept", "busy", "reclaim_us", "reclaimed", "left"]
    with open(os.path.join(a.out, "dropbehind.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)

    summ = {}
    for m in MODES:
        rs = [r for r in rows if r["mode"] == m]
        if not rs:
            continue
        drops = [r["drop_us"] for r in rs]
        frees = [free_us(r) for r in rs]
        summ[m] = {
            "n": len(rs),
            "written": med([r["written"] for r in rs]),
            "storm_ms": med([r["storm_us"] for r in rs]) / 1000,
            "rss": {s: med([r["rss@%d" % s] for r in rs]) for s in samples},
            "at_ms": {s: med([r["at@%d" % s] for r in rs]) / 1000 for s in samples},
            "drop_ms": med(drops) / 1000 if min(drops) >= 0 else None,
            "dropped": med([r["dropped"] for r in rs]),
            "kept": med([r["kept"] for r in rs]),
            "busy": med([r["busy"] for r in rs]),
            "reclaim_ms": med([r["reclaim_us"] for r in rs]) / 1000,
            "reclaimed": med([r["reclaimed"] for r in rs]),
            "left": med([r["left"] for r in rs]),
            "free_ms": med(frees) / 1000 if min(frees) >= 0 else None,
            "work_ms": med([r["storm_us"] + f for r, f in zip(rs, frees)]) / 1000
            if min(frees) >= 0 else None,
        }

    # one block per mode: when each sample began (ms after the storm), pages found
    with open(os.path.join(a.out, "dropbehind.dat"), "w") as f:
        for m in MODES:
            f.write("# %s: ms_after_storm pages_in_swap_cache\n" % m)
            for s in samples:
                f.write("%.3f %g\n" % (summ[m]["at_ms"][s], summ[m]["rss"][s]))
            f.write("\n\n")
    last = samples[-1]
    script = """set terminal pngcairo size 1000,560 font "sans,11"
set termoption noenhanced
set output 'dropbehind.png'
set title "zswap writeback storm out of zsmalloc_mod: written-back pages left in the swap cache"
set xlabel "ms after the last write completed, plus 1 (qemu -icount guest time)"
set ylabel "pages in the swap cache (median of rounds)"
set logscale x
set xrange [0.8:%d]
set yrange [0:*]
set grid
set key top right
plot 'dropbehind.dat' index 0 using ($1+1):2 with linespoints lw 2 title "PG_reclaim (stock)", \\
     '' index 1 using ($1+1):2 with linespoints lw 2 title "PG_dropbehind"
""" % (max(summ[m]["at_ms"][last] for m in MODES) * 1.3 + 1)
    subprocess.run(["gnuplot"], input=script, text=True, cwd=a.out, check=True)

    meta = dict(line.rstrip("\n").split("=", 1) for line in open(a.meta) if "=" in line)
    out = []
    out.append(".. SPDX-License-Identifier: GPL-2.0\n")
    title = "Written back, then dropped? (%s kernel)" % meta.get("kind", "debug")
    out.append("%s\n%s\n" % (title, "=" * len(title)))
    out.append("Measured %s at %s on %s with ``%s``; medians of %d rounds "
               "after a warm-up (``dropbehind.csv`` has every storm).\n"
               % (meta.get("date", "?"), meta.get("commit", "?"),
                  meta.get("kernel", "?"), meta.get("command", "?"),
                  max(v["n"] for v in summ.values())))
    out.append(".. list-table::\n   :header-rows: 1\n")
    hdr = ["", "written back", "storm (ms)", "in the swap cache right after",
           "after %d ms" % last, "all settled after (ms)", "dropped", "kept",
           "of which still busy", "reclaim pass (ms)", "freed by it",
           "memory free after (ms)", "storm + freeing (ms)"]
    out.append("   * - " + "\n     - ".join(hdr))
    for m in MODES:
        if m not in summ:
            continue
        s = summ[m]
        if s["drop_ms"] is not None:
            gone = "%.1f" % s["drop_ms"]
        elif m == "reclaim":
            gone = "n/a (never dropped)"
        else:
            gone = "not within %d" % last
        free = "%.1f" % s["free_ms"] if s["free_ms"] is not None else \
            "not freed (%d left)" % s["left"]
        cells = ["PG_%s" % m, "%d" % s["written"], "%.1f" % s["storm_ms"],
                 "%d" % s["rss"][samples[0]], "%d" % s["rss"][last], gone,
                 "%d" % s["dropped"], "%d" % s["kept"], "%d" % s["busy"],
                 "%.1f" % s["reclaim_ms"], "%d" % s["reclaimed"], free,
                 "%.1f" % s["work_ms"] if s["work_ms"] is not None else "n/a"]
        out.append("   * - " + "\n     - ".join(cells))
    if len(summ) == 2 and summ["reclaim"]["storm_ms"] > 0:
        out.append("\nStorm time, PG_dropbehind / PG_reclaim: %.2f (the same writes; "
                   "the drops run on a worker meanwhile).\n"
                   % (summ["dropbehind"]["storm_ms"] / summ["reclaim"]["storm_ms"]))
        fr, fd = summ["reclaim"]["free_ms"], summ["dropbehind"]["free_ms"]
        if fr is not None and fd:
            out.append("Memory free, PG_reclaim (a reclaim pass right after the storm) / "
                       "PG_dropbehind (its worker): %.1f.\n" % (fr / fd))
        wr, wd = summ["reclaim"]["work_ms"], summ["dropbehind"]["work_ms"]
        if wr and wd is not None:
            out.append("Storm + freeing, PG_dropbehind / PG_reclaim: %.2f (the same "
                       "work: under -icount the drops count in the storm).\n" % (wd / wr))
    with open(os.path.join(a.out, "dropbehind.rst"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
