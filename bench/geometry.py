#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pool-size model: the class geometry of zsmalloc and zsmalloc_mod.

Replays the objects zswap would store from a content stream (the output of
bench/lzo_sizes: "INDEX SAME SIZE" per page; same-filled pages and pages
whose SIZE is 0 never reach the allocator) through the size classes of

  zsmalloc      the in-kernel allocator of 6.12: 16-byte classes, chains
                of up to 8 pages chosen by the highest whole percent used,
                neighbours of equal geometry merged (mm/zsmalloc.c);
  zsmalloc_mod  ours, as zsmalloc_mod.c builds them (its constants are read
                from zsmalloc_mod_internal.h): the chain that wastes the fewest bytes per
                page, the same merging, and borrowing of slots in larger
                classes for small classes and rare sizes (in a large
                pool, each class up to one zspage's worth of unused
                bytes);

in stream order, allocation only, as at the peak of the end-to-end
benchmark (every class then has at most one partly filled zspage). It
prints the pool pages of each and where zsmalloc_mod's pool bytes go, for
each working set given. What-if options change zsmalloc_mod's geometry.

The model ignores what the allocators do not control: it matches the
measured pool sizes of bench/results within about 0.5% (the kernel's lzo
compresses slightly differently from liblzo2), and their ratio within
about 0.2%.
"""
import argparse
import re
import sys

PAGE = 4096
HANDLE = 8


class Class:
    """One distinct size class: slot size, chain pages, objects per chain."""

    def __init__(self, size, pages, objs, pos):
        self.size, self.pages, self.objs, self.pos = size, pages, objs, pos
        self.zspages = self.used = 0
        self.borrow_waste = 0   # bytes unused in the slots it borrowed
        self.payload = 0    # bytes of the objects in its slots
        self.headers = 0    # handle words in its slots

    @property
    def huge(self):
        return self.pages == 1 and self.objs == 1

    def has_room(self):
        return self.used < self.zspages * self.objs

    def put(self, size):
        self.used += 1
        self.payload += size
        self.headers += 0 if self.huge else HANDLE


def zsmalloc_chain(size, max_pages):
    """mm/zsmalloc.c get_pages_per_zspage(): first chain with the best whole percent."""
    best, best_pc = 1, 0
    for n in range(1, max_pages + 1):
        used = n * PAGE - (n * PAGE) % size
        pc = used * 100 // (n * PAGE)
        if pc > best_pc:
            best, best_pc = n, pc
    return best


def zsmod_chain(size, max_pages):
    """zsmalloc_mod.c zspage_chain_pages(): fewest wasted bytes per page."""
    best, best_waste = 1, PAGE % size
    for n in range(2, max_pages + 1):
        waste = (n * PAGE) % size
        if waste * best < best_waste * n:
            best, best_waste = n, waste
    return best


def build_classes(chain, min_size, delta, max_pages):
    """By class index, the (possibly merged) class; and the distinct ones."""
    nr = (PAGE - min_size + delta - 1) // delta + 1
    by_idx, prev = [None] * nr, None
    for idx in range(nr - 1, -1, -1):
        size = min(min_size + idx * delta, PAGE)
        pages = chain(size, max_pages)
        objs = pages * PAGE // size
        if prev and prev.pages == pages and prev.objs == objs:
            by_idx[idx] = prev
            continue
        prev = by_idx[idx] = Class(size, pages, objs, 0)
    distinct = sorted({id(c): c for c in by_idx}.values(), key=lambda c: c.size)
    for pos, c in enumerate(distinct):
        c.pos = pos
    return by_idx, distinct


def class_index(size, min_size, delta, nr):
    return 0 if size <= min_size else min((size - min_size + delta - 1) // delta, nr - 1)


def replay(sizes, geometry):
    """Allocate every object; return the distinct classes and the pool pages.

    With geometry["long_chain"], a second table of chains up to that many
    pages takes over once the pool holds geometry["long_from"] pages: new
    zspages are opened in it, after the free slots of the first table's
    class for the same size are used up.
    """
    g = geometry
    by_idx, distinct = build_classes(g["chain"], g["min_size"], g["delta"], g["max_pages"])
    by_long, long_distinct = by_idx, distinct
    if g.get("long_chain"):
        by_long, long_distinct = build_classes(g["chain"], g["min_size"], g["delta"],
                                               g["long_chain"])
    pages = 0
    for size in sizes:
        idx = class_index(size + HANDLE, g["min_size"], g["delta"], len(by_idx))
        c, table = by_idx[idx], distinct
        if pages >= g.get("long_from", pages + 1) and not c.has_room():
            c, table = by_long[idx], long_distinct
        if c.has_room():
            c.put(size)
            continue
        if g["borrow"] and borrow(c, table, pages, g, size):
            continue
        c.zspages += 1
        pages += c.pages
        c.put(size)
    if by_long is not by_idx:
        distinct = distinct + long_distinct
    return distinct, pages


def borrow(c, distinct, pool_pages, g, size):
    """zsmalloc_mod.c malloc_borrow_slot(): a free slot of a larger class."""
    if pool_pages >= g["budget_pool_pages"] and c.borrow_waste >= c.pages * PAGE:
        return False
    allocated = c.zspages * c.objs
    reach = g["borrow_bytes"]
    if not allocated and pool_pages >= g["rare_pool_pages"]:
        reach = g["rare_borrow_bytes"]
    elif allocated >= g["borrow_zspages"] * c.objs:
        return False
    for larger in distinct[c.pos + 1:]:
        if larger.size - c.size > reach:
            break
        if larger.has_room():
            larger.put(size)
            c.borrow_waste += larger.size - c.size
            return True
    return False


def zsmod_constants(path):
    """The geometry constants of zsmalloc_mod_internal.h."""
    text = open(path).read()
    want = {"ZSMOD_MIN_ALLOC_SIZE": "min_size", "ZSMOD_CLASS_DELTA": "delta",
            "ZSMOD_MAX_PAGES_PER_ZSPAGE": "max_pages",
            "ZSMOD_BORROW_ZSPAGES": "borrow_zspages", "ZSMOD_BORROW_BYTES": "borrow_bytes",
            "ZSMOD_RARE_POOL_PAGES": "rare_pool_pages",
            "ZSMOD_RARE_BORROW_BYTES": "rare_borrow_bytes",
            "ZSMOD_BORROW_BUDGET_POOL_PAGES": "budget_pool_pages"}
    got = {}
    for name, key in want.items():
        m = re.search(r"^#define\s+%s\s+(\d+)U?\b" % name, text, re.M)
        if not m:
            sys.exit("geometry: %s not found in %s" % (name, path))
        got[key] = int(m.group(1))
    return got


def breakdown(distinct, pages, payload):
    """Where the pool bytes go: shares of the pool, in percent."""
    pool = pages * PAGE
    headers = sum(c.headers for c in distinct)
    rounding = sum(c.used * c.size - c.payload - c.headers for c in distinct)
    free = sum((c.zspages * c.objs - c.used) * c.size for c in distinct)
    tail = sum(c.zspages * (c.pages * PAGE - c.objs * c.size) for c in distinct)
    assert payload + headers + rounding + free + tail == pool
    return {k: 100.0 * v / pool for k, v in
            (("headers", headers), ("rounding", rounding), ("free slots", free),
             ("tails", tail))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", required=True, help="output of bench/lzo_sizes")
    ap.add_argument("--mib", default="64,192,512", help="working sets, comma-separated")
    ap.add_argument("--source", default="zsmalloc_mod_internal.h", help="where our constants are read")
    ap.add_argument("--max-chain", type=int, help="what-if: zsmalloc_mod chains of up to N pages")
    ap.add_argument("--delta", type=int, help="what-if: zsmalloc_mod classes D bytes apart")
    ap.add_argument("--no-borrow", action="store_true", help="what-if: zsmalloc_mod without borrowing")
    ap.add_argument("--long-chain", type=int,
                    help="what-if: a second class table, chains up to N pages, for new zspages "
                         "once the pool is large (--long-from)")
    ap.add_argument("--long-from", type=int, default=16384,
                    help="pool pages from which --long-chain applies [16384]")
    a = ap.parse_args()

    mod = zsmod_constants(a.source)
    mod.update(chain=zsmod_chain, borrow=not a.no_borrow)
    if a.max_chain:
        mod["max_pages"] = a.max_chain
    if a.delta:
        mod["delta"] = a.delta
    if a.long_chain:
        mod.update(long_chain=a.long_chain, long_from=a.long_from)
    zs = dict(min_size=32, delta=16, max_pages=8, chain=zsmalloc_chain, borrow=False)

    stream = []
    for line in open(a.sizes):
        idx, same, size = (int(x) for x in line.split())
        stream.append((idx, same, size))
    what_if = ", ".join(s for s in (
        a.max_chain and "chains up to %d pages" % a.max_chain,
        a.delta and "classes %d bytes apart" % a.delta,
        a.no_borrow and "no borrowing",
        a.long_chain and "chains up to %d pages for new zspages from %d pool pages on" % (
            a.long_chain, a.long_from)) if s) or "none"

    print("| working set | objects | payload bytes | zsmalloc pages | zsmalloc_mod pages "
          "| density mod/zs | zero-waste bound / zs | zsmalloc_mod: headers | rounding "
          "| free slots | tails |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for mib in (int(m) for m in a.mib.split(",")):
        n_pages = mib * 256
        if n_pages > len(stream):
            sys.exit("geometry: the stream holds only %d MiB" % (len(stream) // 256))
        sizes = [s for i, same, s in stream[:n_pages] if not same and s]
        payload = sum(sizes)
        _, zs_pages = replay(sizes, zs)
        classes, mod_pages = replay(sizes, mod)
        b = breakdown(classes, mod_pages, payload)
        print("| %d MiB | %d | %d | %d | %d | %.4fx | %.4fx | %.2f%% | %.2f%% | %.2f%% | %.2f%% |" % (
            mib, len(sizes), payload, zs_pages, mod_pages, zs_pages / mod_pages,
            zs_pages * PAGE / payload, b["headers"], b["rounding"], b["free slots"], b["tails"]))
    print("\nzsmalloc_mod what-if: %s." % what_if)


if __name__ == "__main__":
    main()
