#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest's "# e2e" and "# micro" lines into CSV files, results.rst
and gnuplot PNGs (called by bench/run.sh). What the figures mean:
Documentation/benchmarks.rst.

usage: report.py --raw RAW.txt --meta META.txt --out DIR [--raw-mttcg RAW]
"""
import argparse
import csv
import os
import statistics
import subprocess

# z3fold only on the debug test kernel: Debian does not build it
BACKENDS = ["zsmalloc", "zbud", "z3fold", "zsmalloc_mod"]
REJECTS = ["reject_compress_fail", "reject_compress_poor", "reject_alloc_fail",
           "reject_reclaim_fail", "reject_kmemcache_fail"]
MICRO_OPS = ["malloc_write", "malloc", "map_write", "map_read", "map_unmap", "map_read_2threads",
             "free", "churn", "free_2threads"]


def kv(tokens):
    d = {}
    for t in tokens:
        if "=" in t:
            k, v = t.split("=", 1)
            d[k] = v
    return d


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def parse(raw):
    with open(raw) as f:
        return parse_lines(f)


def parse_lines(lines):
    e2e, micro, corpus, config, other = [], [], {}, {}, []
    waste, frag = {}, []
    for line in lines:
        tok = line.split()
        if len(tok) < 2 or tok[0] != "#":
            continue
        if tok[1] == "e2e":
            e2e.append(kv(tok[2:]))
        elif tok[1] == "micro-frag" and len(tok) > 2:
            d = kv(tok[2:])
            if tok[2] == "config":
                config["frag_config"] = d
            elif "alloc" in d and tok[2] not in ("waste", "samples"):
                d["kind"] = "density" if "density" in tok else "op"
                frag.append(d)
        elif tok[1] == "micro" and len(tok) > 2:
            d = kv(tok[2:])
            if tok[2] == "corpus":
                corpus = d
            elif tok[2] == "config":
                config = d
            elif tok[2] == "waste":
                waste = d
            elif tok[2] == "samples":
                config.setdefault("samples", {})[(d["alloc"], d["op"])] = d["ns"]
            elif "alloc" in d:
                d["kind"] = "density" if "density" in tok else "op"
                micro.append(d)
        else:
            other.append(line.rstrip())
    config["waste"] = waste
    config["frag"] = frag
    return e2e, micro, corpus, config, other


def e2e_tables(runs, outdir):
    rows = []
    for r in runs:
        stored, pool = int(r["stored_pages"]), int(r["pool_bytes"])
        row = {
            "backend": r["backend"], "round": int(r["round"]), "pos": int(r["pos"]),
            "out_ms": int(r["out_ns"]) / 1e6, "in_ms": int(r["in_ns"]) / 1e6,
            "verify_ms": int(r["verify_ns"]) / 1e6,
            "pages": int(r["pages"]), "stored_pages": stored, "pool_bytes": pool,
            "density": stored * 4096 / pool if pool > 0 else float("nan"),
            "meta_bytes": int(r.get("meta_bytes", -1)),
            "rejects": sum(int(r.get(k, 0)) for k in REJECTS),
            "bad_pages": int(r["bad_pages"]), "reclaim_rc": int(r["reclaim_rc"]),
            "memcur_after": int(r["memcur_after"]),
            "written_back_pages": int(r["written_back_pages"]),
        }
        for k in REJECTS:
            row[k] = int(r.get(k, 0))
        row["total_ms"] = row["out_ms"] + row["in_ms"]
        meta = row["meta_bytes"]
        row["density_all"] = (stored * 4096 / (pool + meta)
                              if pool > 0 and meta >= 0 else float("nan"))
        rows.append(row)
    with open(os.path.join(outdir, "e2e_runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)

    measured = [r for r in rows if r["round"] > 0] or rows
    summ = {}
    for b in BACKENDS:
        rs = [r for r in measured if r["backend"] == b]
        if not rs:
            continue
        s = {"backend": b, "rounds": len(rs)}
        for k in ("out_ms", "in_ms", "total_ms", "density", "rejects", "stored_pages",
                  "pool_bytes", "meta_bytes", "density_all", "bad_pages", *REJECTS):
            xs = [r[k] for r in rs]
            s[k] = med(xs)
            s[k + "_min"], s[k + "_max"] = min(xs), max(xs)
        s["bad_pages_sum"] = sum(r["bad_pages"] for r in rs)
        summ[b] = s
    base = summ.get("zsmalloc")
    for b, s in summ.items():
        for k in ("out_ms", "in_ms", "total_ms"):
            s[k + "_ratio"] = s[k] / base[k]
            # paired: backend/zsmalloc within each round, then the median
            pairs = []
            for rnd in sorted({r["round"] for r in measured}):
                x = [r[k] for r in measured if r["round"] == rnd and r["backend"] == b]
                y = [r[k] for r in measured if r["round"] == rnd and r["backend"] == "zsmalloc"]
                if x and y:
                    pairs.append(x[0] / y[0])
            s[k + "_paired_ratio"] = med(pairs)
        s["speed_ratio"] = base["total_ms"] / s["total_ms"]
        s["density_ratio"] = s["density"] / base["density"]
        s["density_all_ratio"] = s["density_all"] / base["density_all"]
        s["out_spread_pct"] = 100 * (s["out_ms_max"] - s["out_ms_min"]) / s["out_ms"]
        s["in_spread_pct"] = 100 * (s["in_ms_max"] - s["in_ms_min"]) / s["in_ms"]
    fields = list(next(iter(summ.values())).keys())
    with open(os.path.join(outdir, "e2e_summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(summ.values())
    return rows, summ


def micro_tables(micro, outdir, name="micro.csv"):
    ops = {(m["alloc"], m["op"]): m for m in micro if m["kind"] == "op"}
    dens = {m["alloc"]: m for m in micro if m["kind"] == "density"}
    rows = []
    for op in MICRO_OPS:
        zs, mod = ops.get(("zsmalloc", op)), ops.get(("zsmalloc_mod", op))
        if not zs or not mod:
            continue
        zt, mt = float(zs["median_ns"]), float(mod["median_ns"])
        row = {"op": op, "zsmalloc_ns": zt, "zsmalloc_mod_ns": mt,
               "time_ratio": mt / zt, "throughput_ratio": zt / mt,
               "mean_time_ratio": float(mod["mean_ns"]) / float(zs["mean_ns"]),
               "zsmalloc_min_ns": float(zs["min_ns"]), "zsmalloc_max_ns": float(zs["max_ns"]),
               "zsmalloc_mod_min_ns": float(mod["min_ns"]),
               "zsmalloc_mod_max_ns": float(mod["max_ns"]),
               "samples": int(zs["samples"]), "ops": int(zs["ops"])}
        rows.append(row)
    if "zsmalloc" in dens and "zsmalloc_mod" in dens:
        zp, mp = int(dens["zsmalloc"]["pages"]), int(dens["zsmalloc_mod"]["pages"])
        by = int(dens["zsmalloc"]["payload_bytes"])
        czp, cmp_ = int(dens["zsmalloc"]["churn_pages"]), int(dens["zsmalloc_mod"]["churn_pages"])
        cby = int(dens["zsmalloc"]["churn_bytes"])
        if czp and cmp_ and cby == int(dens["zsmalloc_mod"]["churn_bytes"]):
            rows.append({"op": "pages_after_churn", "zsmalloc_ns": czp / cby,
                         "zsmalloc_mod_ns": cmp_ / cby, "time_ratio": cmp_ / czp,
                         "throughput_ratio": czp / cmp_, "mean_time_ratio": cmp_ / czp,
                         "zsmalloc_min_ns": czp, "zsmalloc_max_ns": czp,
                         "zsmalloc_mod_min_ns": cmp_, "zsmalloc_mod_max_ns": cmp_,
                         "samples": 1, "ops": cby})
        rows.append({"op": "pages_per_stored_byte", "zsmalloc_ns": zp / by,
                     "zsmalloc_mod_ns": mp / by, "time_ratio": mp / zp,
                     "throughput_ratio": zp / mp, "mean_time_ratio": mp / zp,
                     "zsmalloc_min_ns": zp, "zsmalloc_max_ns": zp,
                     "zsmalloc_mod_min_ns": mp, "zsmalloc_mod_max_ns": mp,
                     "samples": 1, "ops": int(dens["zsmalloc"]["objects"])})
    if rows:
        with open(os.path.join(outdir, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    return rows, dens


def gnuplot(script, outdir):
    subprocess.run(["gnuplot"], input=script, text=True, cwd=outdir, check=True)


def plots(rows, summ, mrows, outdir):
    bs = [b for b in BACKENDS if b in summ]
    with open(os.path.join(outdir, "e2e_times.dat"), "w") as f:
        f.write("# backend out_med out_min out_max in_med in_min in_max\n")
        for b in bs:
            s = summ[b]
            f.write("%s %.3f %.3f %.3f %.3f %.3f %.3f\n" % (
                b, s["out_ms"], s["out_ms_min"], s["out_ms_max"],
                s["in_ms"], s["in_ms_min"], s["in_ms_max"]))
    with open(os.path.join(outdir, "e2e_density.dat"), "w") as f:
        f.write("# backend density density_ratio\n")
        for b in bs:
            f.write("%s %.4f %.4f\n" % (b, summ[b]["density"], summ[b]["density_ratio"]))
    common = """set terminal pngcairo size 1000,560 font "sans,11"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key top left
set termoption noenhanced
"""
    gnuplot(common + """set output 'e2e_times.png'
set title "zswap end to end (qemu -icount guest): median of rounds, bars = min..max"
set ylabel "guest time (ms)"
set yrange [0:*]
set style histogram errorbars gap 2 lw 1.5
plot 'e2e_times.dat' using 2:3:4:xtic(1) title "swap-out (memory.reclaim)" lc rgb "#4477aa", \\
     '' using 5:6:7 title "swap-in (fault every page)" lc rgb "#ee8866"
""", outdir)
    gnuplot(common + """set output 'e2e_density.png'
set title "zswap density: stored bytes / pool bytes (higher is better)"
set ylabel "stored_pages*4096 / pool_total_size"
set yrange [0:*]
set style histogram clustered gap 2
plot 'e2e_density.dat' using 2:xtic(1) title "density" lc rgb "#228833", \\
     '' using 0:2:(sprintf("%.3f (%.3fx)", $2, $3)) with labels offset 0,1 notitle
""", outdir)
    with open(os.path.join(outdir, "e2e_ratio.dat"), "w") as f:
        f.write("# backend out_speed in_speed total_speed density (all vs zsmalloc)\n")
        for b in bs:
            s = summ[b]
            f.write("%s %.4f %.4f %.4f %.4f\n" % (b, 1 / s["out_ms_ratio"], 1 / s["in_ms_ratio"],
                                                   s["speed_ratio"], s["density_ratio"]))
    vals = [v for b in bs for v in (1 / summ[b]["out_ms_ratio"], 1 / summ[b]["in_ms_ratio"],
                                    summ[b]["density_ratio"])]
    lo, hi = min([0.85] + [v - 0.03 for v in vals]), max([1.06] + [v + 0.03 for v in vals])
    gnuplot(common + """set output 'e2e_ratio.png'
set title "zswap end to end vs in-kernel zsmalloc (above 1 is better)"
set ylabel "ratio to zsmalloc"
set yrange [%.2f:%.2f]""" % (lo, hi) + """
set style histogram clustered gap 2
set key outside right
plot 'e2e_ratio.dat' using 2:xtic(1) title "swap-out speed" lc rgb "#4477aa", \\
     '' using 3 title "swap-in speed" lc rgb "#ee8866", \\
     '' using 4 title "out+in speed" lc rgb "#aa3377", \\
     '' using 5 title "density" lc rgb "#228833", \\
     1 with lines dt 3 lc rgb "black" title "zsmalloc"
""", outdir)
    # per-round times, to show repeatability and the rotation
    with open(os.path.join(outdir, "e2e_rounds.dat"), "w") as f:
        for b in bs:
            f.write("# %s\n" % b)
            for r in sorted((r for r in rows if r["backend"] == b), key=lambda r: r["round"]):
                f.write("%d %.3f %.3f\n" % (r["round"], r["out_ms"], r["in_ms"]))
            f.write("\n\n")
    def per_round(col, what):
        return ", ".join("'e2e_rounds.dat' index %d using 1:%d with linespoints pt 7 lw 2 "
                         "title '%s'" % (i, col, b) for i, b in enumerate(bs))
    gnuplot(common.replace("set style data histograms\n", "").replace("1000,560", "1000,760") +
            """set output 'e2e_rounds.png'
set multiplot layout 2,1 title "zswap end to end per round (round 0 = warm-up, not in the medians)"
set ylabel "swap-out ms"
set key outside right
set xtics 1
plot """ + per_round(2, "out") + """
set xlabel "round"
set ylabel "swap-in ms"
plot """ + per_round(3, "in") + """
unset multiplot
""", outdir)
    if mrows:
        with open(os.path.join(outdir, "micro_ratio.dat"), "w") as f:
            f.write("# op ratio(zsmalloc_mod/zsmalloc, time; pages for density)\n")
            for m in mrows:
                f.write("%s %.4f\n" % (m["op"], m["time_ratio"]))
        gnuplot(common + """set output 'micro_ratio.png'
set title "zsmod_bench: zsmalloc_mod / zsmalloc (time per op; pages for density). Below 1 is better"
set ylabel "ratio"
set yrange [0:1.4]
set xtics rotate by -25
set style histogram clustered gap 2
set key top right
plot 'micro_ratio.dat' using 2:xtic(1) title "measured ratio" lc rgb "#4477aa", \\
     '' using 0:2:(sprintf("%.3f", $2)) with labels offset 0,1 notitle, \\
     1 with lines dt 2 lc rgb "black" title "zsmalloc = 1"
""", outdir)


def allocator_share(summ, mrows):
    """How much of the end-to-end time per stored page the allocator takes,
    from the micro figures."""
    m = {r["op"]: r for r in mrows}
    z = summ.get("zsmalloc")
    if not z or not all(k in m for k in ("malloc_write", "map_read", "free")):
        return []
    stored = z["stored_pages"]
    out_us = z["out_ms"] * 1000 / stored
    in_us = z["in_ms"] * 1000 / stored
    a_out = m["malloc_write"]["zsmalloc_ns"] / 1000
    a_in = (m["map_read"]["zsmalloc_ns"] + m["free"]["zsmalloc_ns"]) / 1000
    f = (a_out + a_in) / (out_us + in_us)
    mod = summ.get("zsmalloc_mod")
    text = ("Allocator share of the end-to-end time (zsmalloc, per stored page): swap-out "
            "%.1f us of which malloc_write %.2f us (%.1f%%); swap-in %.1f us of which "
            "map_read+free %.2f us (%.1f%%); together %.1f%%." % (
                out_us, a_out, 100 * a_out / out_us, in_us, a_in, 100 * a_in / in_us, 100 * f))
    if mod:
        pred_out = (m["malloc_write"]["zsmalloc_mod_ns"] - m["malloc_write"]["zsmalloc_ns"]) / 1000
        pred_in = (m["map_read"]["zsmalloc_mod_ns"] + m["free"]["zsmalloc_mod_ns"] -
                   m["map_read"]["zsmalloc_ns"] - m["free"]["zsmalloc_ns"]) / 1000
        text += (" The micro figures predict zsmalloc_mod at %+.2f us (out) and %+.2f us (in) "
                 "per stored page; measured end to end: %+.2f us and %+.2f us." % (
                     pred_out, pred_in, (mod["out_ms"] - z["out_ms"]) * 1000 / stored,
                     (mod["in_ms"] - z["in_ms"]) * 1000 / stored))
    return [text, ""]


def fmt(x, n=3):
    return ("%%.%df" % n) % x


def heading(title, char):
    return [title, char * len(title), ""]


def table(header, rows):
    """A reStructuredText simple table."""
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    border = "  ".join("=" * w for w in widths)
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
    return [border, line(cells[0]), border] + [line(r) for r in cells[1:]] + [border, ""]


def literal(lines):
    return ["::", ""] + ["   " + x for x in lines] + [""]


def e2e_section(m, rows, summ):
    n = next(iter(summ.values()))["rounds"] if summ else 0
    pages = rows[0]["pages"] if rows else 0
    bs = [b for b in BACKENDS if b in summ]
    L = heading("End to end through zswap", "~")
    L += ["%d pages (%d MiB), compressor %s, swap on %s; medians of %d measured rounds." % (
        pages, pages * 4096 >> 20, m.get("compressor", "lzo"),
        "the virtio disk" if m.get("swap") == "disk" else "a brd RAM disk", n), ""]
    L += table(["backend", "swap-out ms", "ratio", "swap-in ms", "ratio", "out+in ms",
                "speed", "stored pages", "pool bytes", "density", "density ratio",
                "rejects", "bad pages"],
               [[b, fmt(s["out_ms"], 1), fmt(s["out_ms_ratio"]), fmt(s["in_ms"], 1),
                 fmt(s["in_ms_ratio"]), fmt(s["total_ms"], 1), fmt(s["speed_ratio"]) + "x",
                 "%d" % s["stored_pages"], "%d" % s["pool_bytes"], fmt(s["density"]),
                 fmt(s["density_ratio"]) + "x", "%d" % s["rejects"], s["bad_pages_sum"]]
                for b, s in ((b, summ[b]) for b in bs)])
    L += ["Spread over rounds (max-min)/median: " + "; ".join(
        "%s out %.2f%% in %.2f%%" % (b, summ[b]["out_spread_pct"], summ[b]["in_spread_pct"])
        for b in bs) + ". Paired ratios (per round, then median): " + "; ".join(
        "%s out %.3f in %.3f" % (b, summ[b]["out_ms_paired_ratio"], summ[b]["in_ms_paired_ratio"])
        for b in bs if b != "zsmalloc") + ".", ""]
    if all(summ[b]["meta_bytes"] >= 0 for b in summ):
        L += ["Slab pages of the backends' own caches at the peak: " + "; ".join(
            "%s %d KiB" % (b, summ[b]["meta_bytes"] // 1024) for b in bs) +
            ". Density counting them too, ratio to zsmalloc: " + "; ".join(
            "%s %sx" % (b, fmt(summ[b]["density_all_ratio"])) for b in bs) + ".", ""]
    L += ["Rejects by kind (median per run): " + "; ".join(
        "%s: %s" % (b, ", ".join("%s %d" % (k.replace("reject_", ""), summ[b][k])
                                  for k in REJECTS if summ[b][k]) or "none")
        for b in bs) + ".", ""]
    return L


def micro_table(mrows, normal=None):
    """The micro table; with normal (the unfragmented rows by op), the
    fragmented run's against it."""
    header = ["op", "zsmalloc ns/op", "zsmalloc_mod ns/op", "time ratio"]
    header += ["zsmalloc_mod fragmented / unfragmented"] if normal is not None else \
        ["throughput ratio", "mean-based time ratio"]
    rows = []
    for m in mrows:
        if m["op"] in ("pages_per_stored_byte", "pages_after_churn"):
            name = {"pages_per_stored_byte": "pages per stored byte (pool pages)",
                    "pages_after_churn": "pages per live byte after churn (pool pages)"}[m["op"]]
            r = [name, "%d" % m["zsmalloc_min_ns"], "%d" % m["zsmalloc_mod_min_ns"],
                 fmt(m["time_ratio"])]
            other = [fmt(m["throughput_ratio"]), ""]
        else:
            r = [m["op"], fmt(m["zsmalloc_ns"], 1), fmt(m["zsmalloc_mod_ns"], 1),
                 fmt(m["time_ratio"])]
            other = [fmt(m["throughput_ratio"]), fmt(m["mean_time_ratio"])]
        if normal is not None:
            n = normal.get(m["op"])
            other = [fmt(m["zsmalloc_mod_ns"] / n["zsmalloc_mod_ns"]
                         if n and n["zsmalloc_mod_ns"] else float("nan"))]
        rows.append(r + other)
    return table(header, rows)


def micro_section(summ, mrows, dens, corpus, config):
    L = heading("Micro-benchmark (zsmod_bench.ko)", "~")
    L += ["Objects: %s pages of the content stream, %s zero pages and %s incompressible "
          "ones dropped, %s objects (mean %s bytes, %s payload bytes). %s repetitions per "
          "allocator, batches of %s ops." % (
              corpus.get("pages"), corpus.get("zero"), corpus.get("incompressible"),
              corpus.get("objects"), corpus.get("avg_size"), corpus.get("payload_bytes"),
              config.get("reps"), config.get("batch")), ""]
    L += micro_table(mrows)
    L += allocator_share(summ, mrows)
    samples = sorted(config.get("samples", {}).items())
    if samples:
        L += ["ns/op of each repetition of the two-thread operations (sorted):", ""]
        L += ["* %s %s: %s" % (al, op, ns.replace(",", ", ")) for (al, op), ns in samples]
        L.append("")
    w = config.get("waste")
    if w:
        pb = int(w["pool_bytes"])
        parts = [("payload", "payload"), ("handle words (8 B per non-huge object)", "headers"),
                 ("rounding: rest of the used slots (huge: of the page)", "rounding"),
                 ("free slots", "free_slots"), ("zspage tails no slot covers", "zspage_tail")]
        L += heading("Where the pool bytes go", "^")
        zp = int(dens["zsmalloc"]["pages"]) if "zsmalloc" in dens else 0
        mp = int(dens["zsmalloc_mod"]["pages"]) if "zsmalloc_mod" in dens else 0
        L += ["zsmalloc_mod's full pool after malloc_write (zsmod_class_info()). The "
              "in-kernel zsmalloc needed %d pages for the same objects (zsmalloc_mod %d, "
              "%+d)." % (zp, mp, mp - zp), ""]
        trows = [[name, w[key], "%.2f%%" % (100 * int(w[key]) / pb)] for name, key in parts]
        tot = sum(int(w[key]) for _, key in parts)
        trows.append(["sum (pool bytes %d)" % pb, tot, "%.2f%%" % (100 * tot / pb)])
        L += table(["part", "bytes", "share of pool"], trows)
        L += ["%s objects in the huge class (from %s B); %s of %s classes in use; about "
              "%s of %s objects span two pages." % (
                  w["huge_objs"], w["huge_class_size"], w["classes_used"], w["classes"],
                  w.get("spanning_objs", "?"), w.get("objects", "?")), ""]
    return L


def frag_section(mrows, config, outdir):
    frows, _ = micro_tables(config["frag"], outdir, "micro_frag.csv")
    fc = config.get("frag_config", {})
    L = heading("On fragmented memory (fragment=1)", "^")
    L += ["%s pages held, %s freed; order-1/2/3 probe allocations right afterwards "
          "succeeded: %s/%s/%s (1 = yes)." % (
              fc.get("held_pages", "?"), fc.get("freed_pages", "?"),
              fc.get("probe_order1", "?"), fc.get("probe_order2", "?"),
              fc.get("probe_order3", "?")), ""]
    return L + micro_table(frows, {r["op"]: r for r in mrows})


def write_report(meta, rows, summ, mrows, dens, corpus, config, other, mttcg, outdir):
    m = kv(meta)
    L = [".. Written by bench/report.py; what each figure means: "
         "Documentation/benchmarks.rst.", ""]
    L += heading("zsmalloc_mod benchmark results", "-")
    L += ["%s guest, %s, 2 vCPUs, qemu TCG with -icount." % (
        "Debug test kernel" if m.get("guest_kernel") == "debug" else "Stock Debian 6.12",
        m.get("guest_mem", "1G").replace("G", " GiB").replace("M", " MiB")), ""]
    L += literal(meta)
    L += e2e_section(m, rows, summ)
    if mrows:
        L += micro_section(summ, mrows, dens, corpus, config)
    if config.get("frag"):
        L += frag_section(mrows, config, outdir)
    L += mttcg
    L += heading("Guest environment", "~")
    L += literal([o.lstrip("# ") for o in other])
    with open(os.path.join(outdir, "results.rst"), "w") as f:
        f.write("\n".join(L).rstrip("\n") + "\n")


MTTCG_PAIRS = [("map_read", "map_read_2threads"), ("free", "free_2threads")]


def mttcg_rows(micro):
    """One boot's single- and two-thread medians, by (alloc, two-thread op)."""
    ops = {(m["alloc"], m["op"]): float(m["median_ns"]) for m in micro if m["kind"] == "op"}
    rows = {}
    for single, two in MTTCG_PAIRS:
        for al in ("zsmalloc", "zsmalloc_mod"):
            if (al, single) in ops and (al, two) in ops:
                rows[(al, two)] = (ops[(al, single)], ops[(al, two)])
    return rows


def mttcg_section(boots, outdir):
    """Two-thread operations with truly parallel vCPUs (no -icount), over boots."""
    per_boot = [mttcg_rows(micro) for micro, _ in boots]
    per_boot = [b for b in per_boot if b]
    if not per_boot:
        return []
    rows = []
    for single, two in MTTCG_PAIRS:
        for al in ("zsmalloc", "zsmalloc_mod"):
            got = [b[(al, two)] for b in per_boot if (al, two) in b]
            if got:
                s1, s2 = med([g[0] for g in got]), med([g[1] for g in got])
                rows.append({"alloc": al, "op": two, "single_ns": s1, "two_threads_ns": s2,
                             "scaling": s1 / s2, "boots": len(got)})
    with open(os.path.join(outdir, "micro_mttcg.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    reps = boots[0][1].get("reps", "?")
    L = heading("Two threads on parallel vCPUs (MTTCG boots, no -icount)", "~")
    L += ["%d boots of %s repetitions, wall clock." % (len(per_boot), reps), ""]
    trows = []
    for single, two in MTTCG_PAIRS:
        z = [r for r in rows if r["op"] == two and r["alloc"] == "zsmalloc"]
        m = [r for r in rows if r["op"] == two and r["alloc"] == "zsmalloc_mod"]
        ratios = [b[("zsmalloc", two)][1] / b[("zsmalloc_mod", two)][1] for b in per_boot
                  if ("zsmalloc", two) in b and ("zsmalloc_mod", two) in b]
        if z and m and ratios:
            z, m = z[0], m[0]
            trows.append([two, "%.1f" % z["single_ns"], "%.1f" % z["two_threads_ns"],
                          "%.2f" % z["scaling"], "%.1f" % m["single_ns"],
                          "%.1f" % m["two_threads_ns"], "%.2f" % m["scaling"],
                          "%.3f" % med(ratios), ", ".join("%.2f" % r for r in ratios)])
    return L + table(["op", "zsmalloc 1 thread ns/op", "zsmalloc 2 threads", "scaling",
                      "zsmalloc_mod 1 thread", "zsmalloc_mod 2 threads", "scaling",
                      "throughput ratio mod/zs", "per boot"], trows)


def parse_boots(raw):
    """Split a file of several MTTCG boots ('# mttcg-boot N' lines) and parse each."""
    chunks, cur = [], None
    with open(raw) as f:
        for line in f:
            if line.startswith("# mttcg-boot"):
                cur = []
                chunks.append(cur)
            elif cur is not None:
                cur.append(line)
    boots = []
    for chunk in chunks:
        _, mt, _, conf, _ = parse_lines(chunk)
        boots.append((mt, conf))
    return boots


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--raw-mttcg", help="micro lines of the MTTCG boot (no -icount)")
    a = ap.parse_args()
    e2e, micro, corpus, config, other = parse(a.raw)
    with open(a.meta) as f:
        meta = [line.rstrip() for line in f]
    if not e2e:
        raise SystemExit("report: no e2e lines in " + a.raw)
    rows, summ = e2e_tables(e2e, a.out)
    mrows, dens = micro_tables(micro, a.out)
    plots(rows, summ, mrows, a.out)
    mttcg = []
    if a.raw_mttcg and os.path.exists(a.raw_mttcg):
        mttcg = mttcg_section(parse_boots(a.raw_mttcg), a.out)
    write_report(meta, rows, summ, mrows, dens, corpus, config, other, mttcg, a.out)


if __name__ == "__main__":
    main()
