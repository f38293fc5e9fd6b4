#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Real process memory as content, on the host (no guest): the resident
# private memory of two real programs at work, dumped (bench/procmem.py),
# compressed page by page with liblzo2 (bench/lzo_sizes.c); their size
# distributions beside the benchmark corpus's, and the layout model
# (bench/layouts.py) on each.
#   python  a Python interpreter holding a data set, as a service holds
#           one: 300,000 records (an id, a name, an e-mail address, a
#           score, tags, a timestamp) parsed from JSON
#   cc1     gcc compiling mm/page_alloc.c of the test kernel (KASAN and
#           all: its own command line), stopped halfway through its run
#
# usage: bench/procmem.sh [--mib LIST] [--out FILE]
#   --mib LIST  working sets of the layout model [512,2048]: sizes drawn
#               from each dump's, with replacement (procmem.py resample)
#   --out FILE  also write the tables to FILE
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

mib=512,2048 out=''
while [ $# -gt 0 ]; do
	case $1 in
	--mib) mib=$2; shift ;;
	--out) out=$2; shift ;;
	*) echo "usage: bench/procmem.sh [--mib LIST] [--out FILE]" >&2; exit 2 ;;
	esac
	shift
done

work=$top/out/bench/procmem
mkdir -p "$work"
geo=$top/out/bench/geometry
# the corpus stream's sizes (and lzo_sizes) come from bench/geometry.sh
[ -s "$geo/sizes.txt" ] || bench/geometry.sh --mib 512 >/dev/null
lzo=$geo/lzo_sizes
pids=()
trap 'kill -9 "${pids[@]}" 2>/dev/null || true' EXIT

# ---- python: a data set held in memory ----
rm -f "$work/python.bin"
python3 -c '
import json, random, signal, string
rng = random.Random(1)
words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 10)))
         for _ in range(5000)]
def rec(i):
    a, b = rng.choice(words), rng.choice(words)
    return {"id": i, "name": a.title() + " " + b.title(), "email": a + "." + b + "@example.org",
            "score": rng.random() * 100, "tags": rng.sample(words, rng.randint(0, 5)),
            "created": "2026-%02d-%02dT%02d:%02d:%02dZ" % (rng.randint(1, 12), rng.randint(1, 28),
                                                        rng.randint(0, 23), rng.randint(0, 59),
                                                        rng.randint(0, 59))}
text = json.dumps([rec(i) for i in range(300000)])
data = json.loads(text)
del text
print("ready", flush=True)
signal.pause()
' >"$work/python.ready" &
pids+=($!)
while ! grep -q ready "$work/python.ready" 2>/dev/null; do sleep 1; done
kill -STOP "${pids[0]}"
python3 bench/procmem.py dump "${pids[0]}" "$work/python.bin"
kill -9 "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true

# ---- cc1: a compiler halfway through a large file ----
# the test kernel's own command for mm/page_alloc.o (its .cmd file), output
# to /dev/null; run once to time it, then again to stop it halfway
kd=$(./kunit/build-kernel.sh -q)
cmd=$(sed -n 's|^savedcmd_mm/page_alloc.o := ||p' "$kd/build/mm/.page_alloc.o.cmd")
cmd=${cmd%%;*}	# the compiler only, not objtool after it
cmd=${cmd/-Wp,-MMD,mm\/.page_alloc.o.d/}
cmd=${cmd/-o mm\/page_alloc.o/-o \/dev\/null}
[ -n "$cmd" ] || { echo "procmem: no command for mm/page_alloc.o in $kd/build" >&2; exit 1; }
cd "$kd/build"
t0=$(date +%s%N)
eval "$cmd"
half=$((($(date +%s%N) - t0) / 2000000))
eval "$cmd" &
pids+=($!)
sleep "$((half / 1000)).$(printf '%03d' $((half % 1000)))"
# the cc1 that descends from the job
cc1=''
for c in $(pgrep -x cc1); do
	p=$c
	while [ "$p" -gt 1 ] && [ "$p" != "${pids[1]}" ]; do
		p=$(ps -o ppid= "$p" | tr -d ' ') || break
	done
	[ "$p" != "${pids[1]}" ] || cc1=$c
done
[ -n "$cc1" ] || { echo "procmem: no cc1 under job ${pids[1]}" >&2; exit 1; }
cd "$top"
kill -STOP "$cc1"
rm -f "$work/cc1.bin"
python3 bench/procmem.py dump "$cc1" "$work/cc1.bin"
kill -9 "$cc1"
wait "${pids[1]}" 2>/dev/null || true

for p in python cc1; do
	"$lzo" "$work/$p.bin" >"$work/$p.sizes"
	rm -f "$work/$p.bin"
done
{
	echo "## Compressed sizes (lzo1x_1, liblzo2)"
	echo
	python3 bench/procmem.py hist "corpus stream=$geo/sizes.txt" \
		"python heap=$work/python.sizes" "cc1 heap (halfway)=$work/cc1.sizes"
	for p in python cc1; do
		echo
		echo "## Layouts on the $p heap's sizes"
		echo
		max=$(tr , '\n' <<<"$mib" | sort -n | tail -n 1)
		python3 bench/procmem.py resample "$work/$p.sizes" "$max" 1 >"$work/$p.resampled"
		(cd bench && python3 layouts.py --sizes "$work/$p.resampled" \
			--source ../zsmalloc_mod_internal.h --mib "$mib" \
			--packed 1:8:8:6 --packed 1:16:2:6 --packed 1:16:8:10)
	done
} | if [ -n "$out" ]; then tee "$out"; else cat; fi
