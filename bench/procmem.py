#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Real process memory as benchmark content, and size distributions.

  procmem.py dump PID OUT        append every resident page of PID's private
                                 writable mappings (heap, anonymous memory,
                                 data, stacks: what reclaim would hand to
                                 zswap) to OUT, as a content stream
  procmem.py hist NAME=SIZES...  the distribution of compressed sizes of
                                 each bench/lzo_sizes output, side by side
  procmem.py resample SIZES MIB SEED
                                 a sizes file of MIB MiB drawn from SIZES
                                 (with replacement), for the layout model's
                                 working sets larger than a dump

Resident pages are found in /proc/PID/pagemap (bit 63: present), read
through /proc/PID/mem; the process should be stopped (SIGSTOP) meanwhile.
"""
import random
import struct
import sys

PAGE = 4096
PRESENT = 1 << 63


def dump(pid, out):
    n = 0
    with open("/proc/%d/maps" % pid) as maps, open("/proc/%d/pagemap" % pid, "rb") as pm, \
            open("/proc/%d/mem" % pid, "rb", buffering=0) as mem, open(out, "ab") as o:
        for line in maps:
            f = line.split()
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            if f[1] != "rw-p" or (len(f) > 5 and f[5] == "[vvar]"):
                continue
            pm.seek(lo // PAGE * 8)
            bits = pm.read((hi - lo) // PAGE * 8)
            for i in range(len(bits) // 8):
                if not struct.unpack_from("<Q", bits, 8 * i)[0] & PRESENT:
                    continue
                try:
                    mem.seek(lo + i * PAGE)
                    page = mem.read(PAGE)
                except OSError:
                    continue
                if len(page) == PAGE:
                    o.write(page)
                    n += 1
    print("procmem: %d resident pages (%d MiB) of pid %d" % (n, n // 256, pid), file=sys.stderr)


def read_sizes(path):
    return [tuple(int(x) for x in line.split()) for line in open(path)]


def hist(specs):
    edges = [256, 512, 1024, 1536, 2048, 2560, 3072, 3584, 4096]
    rows, names = [], []
    for spec in specs:
        name, path = spec.split("=", 1)
        names.append(name)
        s = read_sizes(path)
        n = len(s)
        same = sum(1 for _, sm, _ in s if sm)
        rej = sum(1 for _, sm, sz in s if not sm and not sz)
        stored = sorted(sz for _, sm, sz in s if not sm and sz)
        col = {"pages": "%d" % n, "same-filled": "%.1f%%" % (100.0 * same / n),
               "rejected (no gain)": "%.1f%%" % (100.0 * rej / n)}
        lo = 0
        for e in edges:
            k = sum(1 for x in stored if lo < x <= e)
            col["%d-%d B" % (lo + 1, e)] = "%.1f%%" % (100.0 * k / max(len(stored), 1))
            lo = e
        col["median stored size"] = "%d B" % stored[len(stored) // 2] if stored else "-"
        col["mean stored size"] = "%d B" % (sum(stored) // max(len(stored), 1))
        rows.append(col)
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for key in rows[0]:
        print("| %s | %s |" % (key, " | ".join(r[key] for r in rows)))
    print("\nThe size bins are shares of the stored pages (neither same-filled nor rejected).")


def resample(path, mib, seed):
    s = read_sizes(path)
    rng = random.Random(seed)
    for i in range(mib * 256):
        _, same, size = s[rng.randrange(len(s))]
        print(i, same, size)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "dump":
        dump(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "hist":
        hist(sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "resample":
        resample(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
