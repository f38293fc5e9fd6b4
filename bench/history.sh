#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark several commits of the allocator with the current bench/ and
# tabulate the key ratios to the in-kernel zsmalloc: which change moved what.
#
# usage: bench/history.sh [--rounds N] [--out FILE.rst] [--reuse] REV...
#   Each REV: bench/run.sh --rev REV --rounds N (default 3), results in
#   out/bench/history/<sha>/; the table goes to FILE.rst (default
#   bench/results/history.rst) and next to it as .csv.
#   --reuse: a REV whose results are already in out/bench/history/<sha>/
#   (from a run with the same bench/ and rounds) is not measured again.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rounds=3 out=$top/bench/results/history.rst reuse=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--reuse) reuse=1; shift ;;
	-*) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "history: no revisions given" >&2; exit 2; }

dirs=()
for rev in "$@"; do
	sha=$(git rev-parse --short "$rev")
	d=$top/out/bench/history/$sha
	mkdir -p "$d"
	echo "=== $sha $(git log -1 --format=%s "$sha")"
	if [ -n "$reuse" ] && [ -s "$d/e2e_summary.csv" ] && [ -s "$d/micro.csv" ]; then
		echo "history: $sha: reusing $d"
		dirs+=("$d")
		continue
	fi
	./bench/run.sh --rev "$sha" --rounds "$rounds" --out "$d" >"$d/run.out" 2>&1 || {
		echo "history: $sha failed, see $d/run.out" >&2; continue; }
	git log -1 --format='%h %s' "$sha" >"$d/subject.txt"
	dirs+=("$d")
done
python3 - "$out" "${dirs[@]}" <<'EOF'
import csv, os, sys
out, dirs = sys.argv[1], sys.argv[2:]
rows = []
for d in dirs:
    e = {r["backend"]: r for r in csv.DictReader(open(d + "/e2e_summary.csv"))}
    m = {r["op"]: r for r in csv.DictReader(open(d + "/micro.csv"))}
    mod = e["zsmalloc_mod"]
    f = lambda op: float(m[op]["time_ratio"]) if op in m else float("nan")
    rows.append({
        "commit": open(d + "/subject.txt").read().strip(),
        "e2e_out_time": float(mod["out_ms_ratio"]), "e2e_in_time": float(mod["in_ms_ratio"]),
        "e2e_speed": float(mod["speed_ratio"]), "e2e_density": float(mod["density_ratio"]),
        "malloc_write": f("malloc_write"), "malloc": f("malloc"), "map_write": f("map_write"),
        "map_read": f("map_read"), "map_unmap": f("map_unmap"), "free": f("free"),
        "churn": f("churn"), "free_2threads": f("free_2threads"),
        "pages_per_stored_byte": f("pages_per_stored_byte"),
    })
keys = list(rows[0].keys())
with open(os.path.splitext(out)[0] + ".csv", "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=keys)
    w.writeheader()
    w.writerows(rows)
sys.path.insert(0, "bench")
from report import heading, table
L = [".. Written by bench/history.sh; the columns: Documentation/benchmarks.rst.", ""]
L += heading("zsmalloc_mod across commits", "-")
L += table(keys, [["``%s``" % r[k] if k == "commit" else "%.3f" % r[k] for k in keys]
                  for r in rows])
open(out, "w").write("\n".join(L).rstrip("\n") + "\n")
print("\n".join(L))
EOF
