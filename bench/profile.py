#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""profile.txt (bench/run.sh --profile) -> profile.rst.

profile.txt lines: "BACKEND PHASE COUNT FUNCTION" from bench/zsmod_prof.c
(one sample per period on each vCPU; under -icount a sample stands for a
fixed number of instructions). Idle samples are dropped. For each phase
(out: swap-out, in: swap-in) the table lists the functions with the most
samples in any backend, then the sums over the functions of each backend's
own code and of the slab calls (shared functions, but the handles of
zsmalloc and zsmalloc_mod make most of their difference to zbud).
"""
import argparse
import collections
import re

from report import table  # bench/report.py

BACKENDS = ("zsmalloc", "zbud", "zsmalloc_mod")
IDLE = ("pv_native_safe_halt", "default_idle", "[none]")
OWN = {
    "zsmalloc": re.compile(r"^(zs_|obj_(malloc|free)$|fix_fullness_group|"
                           r"__free_zspage|free_zspage|alloc_zspage|"
                           r"insert_zspage|remove_zspage|find_get_zspage|"
                           r"get_fullness_group|create_page_chain|init_zspage)"),
    "zbud": re.compile(r"^zbud_"),
    "zsmalloc_mod": re.compile(r"\[zsmalloc_mod\]$"),
}
SLAB = re.compile(r"^(kmem_cache_(alloc|free)|__slab_free|___slab_alloc|"
                  r"allocate_slab|slab_update_freelist|__kmem_cache_alloc)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--in", dest="src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--what", default="", help="what was profiled, for the header")
    a = ap.parse_args()

    prof = collections.defaultdict(collections.Counter)
    period = None
    for line in open(a.src):
        parts = line.split()
        if len(parts) < 4:
            continue
        b, ph = parts[0], parts[1]
        if parts[3].startswith("@"):
            continue
        if parts[2].isdigit() and parts[3] != "samples":
            name = " ".join(parts[3:])
            if not name.startswith(IDLE):
                prof[(b, ph)][name] += int(parts[2])
        elif "period" in line:
            period = line.split("period")[-1].strip()

    title = "Where the end-to-end run spends its instructions"
    out = [".. Written by bench/profile.py from profile.txt (bench/run.sh --profile).",
           "", title, "-" * len(title), "",
           f"One sample every {period} of guest time on each vCPU, idle samples "
           "dropped; one extra end-to-end run per backend after the timed rounds. "
           "The counts are samples.", ""]
    if a.what:
        out += [f"Allocator: {a.what}.", ""]
    for ph, title in (("out", "Swap-out"), ("in", "Swap-in")):
        tot = {b: sum(prof[(b, ph)].values()) for b in BACKENDS}
        own = {b: sum(c for n, c in prof[(b, ph)].items() if OWN[b].search(n))
               for b in BACKENDS}
        slab = {b: sum(c for n, c in prof[(b, ph)].items() if SLAB.search(n))
                for b in BACKENDS}
        rows = [["all samples"] + [tot[b] for b in BACKENDS],
                ["the backend's own functions"] + [own[b] for b in BACKENDS],
                ["slab calls (``kmem_cache_*``, ``__slab_free``, ...)"] +
                [slab[b] for b in BACKENDS]]
        names = set()
        for b in BACKENDS:
            names |= set(prof[(b, ph)])
        names = sorted(names, key=lambda n: (-max(prof[(b, ph)][n] for b in BACKENDS), n))
        rows += [[f"``{n}``"] + [prof[(b, ph)][n] for b in BACKENDS] for n in names[:a.top]]
        out += [title, "~" * len(title), ""] + table(["function", *BACKENDS], rows)
    with open(a.out, "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
