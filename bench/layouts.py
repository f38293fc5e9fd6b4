#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Layout model: object layouts compared fresh and after churn.

Replays the objects zswap would store from a content stream (bench/lzo_sizes
output, as bench/geometry.py reads it) through layouts of objects in
zspages, object by object:

  zsmalloc      the 6.12 allocator's fixed slots (16-byte classes, chains of
                up to 8 pages); a freed slot is reused by its class, and
                nothing compacts (inside a memory cgroup zswap never asks,
                and the in-kernel pool has no background compaction);
  slots         zsmalloc_mod's fixed slots (its chains and class spacing,
                read from zsmalloc_mod_internal.h), without borrowing (it
                budgets itself away from 64 MiB of pool on), with its
                background compaction after each churn cycle;
  packed        objects of any size, each taking its size plus META bytes
                rounded up to ALIGN, laid end to end in zspages of PAGES
                pages; objects are grouped into BINS size ranges so that
                a zspage holds similar sizes. A zspage takes new objects at
                its end (best fit among its bin's zspages); a freed object
                leaves a hole that only compaction closes: it slides each
                kept zspage's objects together and empties the emptiest
                zspages into the others. With ":h", a free merges with
                free neighbours, and a new object takes the best-fitting
                free extent of its bin before any zspage's end. With ":gUSED",
                that, and compaction by gain: it slides nothing and empties
                only zspages at most USED percent used into the others'
                free extents and ends (each byte moved gives back at least
                100/USED).

Churn: fill the working set, then for each cycle free a random SHARE of the
live objects and store as many new ones, their sizes drawn from the same
stream. Compaction (slots, packed) runs after each cycle in the classes or
bins where it would free at least two zspages, as zsmalloc_mod's background
compaction does; it reports the bytes it moved per byte it gave back and
per byte the churn stored.

Pool pages only: the per-object handle (8 bytes in every layout, outside
the zspages) and the per-zspage descriptor are the same for all layouts
and left out; what a layout stores inside its zspages (the handle word of
the fixed slots, META of the packed objects) is counted.
"""
import argparse
import bisect
import heapq
import random
import sys

import geometry as geo

PAGE = geo.PAGE
ROOM = 64       # packed: a zspage's room at its end is filed in steps of this


class Zspage:
    __slots__ = ("objs", "used", "top", "group", "holes")

    def __init__(self, group=-1):
        self.holes = {}     # packed with holes: offset -> [size, object id or None]
        self.objs = set()   # object ids
        self.used = 0       # slots (fixed) or bytes (packed) of live objects
        self.top = 0        # packed: end of the last placed object
        self.group = group  # the fullness group (fixed) or room step (packed) it is filed under


class Layout:
    """Common bookkeeping: object id -> (bin, zspage, footprint)."""

    def __init__(self):
        self.where = {}
        self.at = {}        # packed with holes: object id -> offset
        self.pages = 0
        self.moved = 0      # bytes compaction copied
        self.returned = 0   # bytes compaction gave back

    def free(self, oid):
        b, z, f = self.where.pop(oid)
        z.objs.discard(oid)
        self.release(b, z, f)


class Fixed(Layout):
    """Fixed-size slots, zsmalloc's fullness groups: fullest zspage first."""

    def __init__(self, g, compact):
        super().__init__()
        self.by_idx, self.classes = geo.build_classes(g["chain"], g["min_size"], g["delta"],
                                                      g["max_pages"])
        self.g, self.compact_on = g, compact
        for c in self.classes:
            c.groups = [dict() for _ in range(12)]   # ordered: last in, first out
            c.nz = c.live = 0

    def group(self, c, z):
        if z.used == 0:
            return 0
        if z.used == c.objs:
            return 11
        return 100 * z.used // c.objs // 10 + 1

    def relist(self, c, z):
        g = self.group(c, z)
        if g != z.group:
            if z.group >= 0:
                del c.groups[z.group][z]
            c.groups[g][z] = None
            z.group = g

    def alloc(self, oid, size):
        idx = geo.class_index(size + geo.HANDLE, self.g["min_size"], self.g["delta"],
                              len(self.by_idx))
        c = self.by_idx[idx]
        z = self.pick(c)
        if z is None:
            z = Zspage()
            c.nz += 1
            self.pages += c.pages
        self.place(c, z, oid)

    def pick(self, c, exclude=None):
        for g in range(10, 0, -1):
            for z in reversed(c.groups[g]):
                if z is not exclude:
                    return z
        return None

    def place(self, c, z, oid):
        z.objs.add(oid)
        z.used += 1
        c.live += 1
        self.where[oid] = (c, z, c.size)
        self.relist(c, z)

    def release(self, c, z, f):
        z.used -= 1
        c.live -= 1
        if z.used == 0:
            del c.groups[z.group][z]
            c.nz -= 1
            self.pages -= c.pages
        else:
            self.relist(c, z)

    def compact(self):
        if not self.compact_on:
            return
        for c in self.classes:
            if c.nz * c.objs - c.live < 2 * c.objs:
                continue
            # sources: the emptiest zspages, while the rest can hold them
            zs = sorted((z for grp in c.groups for z in grp), key=lambda z: z.used)
            need = -(-c.live // c.objs)
            for src in zs[:len(zs) - need]:
                for oid in list(src.objs):
                    dst = self.pick(c, exclude=src)
                    if dst is None:
                        break
                    self.free(oid)
                    self.place(c, dst, oid)
                    self.moved += c.size
                if not src.objs and src.used == 0:
                    self.returned += c.pages * PAGE

    def waste(self, payload):
        return self.pages * PAGE - payload


class Packed(Layout):
    """Variable-size objects end to end in zspages of one bin each."""

    def __init__(self, bins, pages, align, meta):
        super().__init__()
        self.nbins, self.zpages, self.align, self.meta = bins, pages, align, meta
        self.cap = pages * PAGE
        self.span = PAGE + meta + align
        # a bin's zspages with room at their end, by ROOM-byte steps of it:
        # the allocator takes the one with the least room that fits (its
        # steps kept sorted), as lists by room would give a kernel allocator
        self.bins = [dict(zs={}, rooms={}, keys=[], live=0, holes=0) for _ in range(bins)]

    def footprint(self, size):
        return -(-(size + self.meta) // self.align) * self.align

    def bin_of(self, f):
        return min(f * self.nbins // self.span, self.nbins - 1)

    def alloc(self, oid, size):
        f = self.footprint(size)
        b = self.bins[self.bin_of(f)]
        z = self.find(b, f)
        if z is None:
            z = Zspage(None)
            b["zs"][z] = None
            self.pages += self.zpages
        self.place(b, z, oid, f)

    def find(self, b, f):
        """The zspage of the lowest room step that surely fits f, or None."""
        keys = b["keys"]
        i = bisect.bisect_left(keys, -(-f // ROOM))
        return next(iter(b["rooms"][keys[i]])) if i < len(keys) else None

    def unfile(self, b, z):
        rooms = b["rooms"]
        if z.group is not None:
            del rooms[z.group][z]
            if not rooms[z.group]:
                del rooms[z.group]
                b["keys"].remove(z.group)
            z.group = None

    def reopen(self, b, z):
        """File a zspage under the step of its room (steps round down)."""
        step = (self.cap - z.top) // ROOM
        if step == z.group:
            return
        self.unfile(b, z)
        if step > 0:
            if step not in b["rooms"]:
                b["rooms"][step] = {}
                bisect.insort(b["keys"], step)
            b["rooms"][step][z] = None
            z.group = step

    def place(self, b, z, oid, f):
        z.objs.add(oid)
        z.used += f
        z.top += f
        b["live"] += f
        self.where[oid] = (b, z, f)
        self.reopen(b, z)

    def release(self, b, z, f):
        z.used -= f
        b["live"] -= f
        if not z.objs:
            b["holes"] -= z.top - z.used - f
            del b["zs"][z]
            self.unfile(b, z)
            self.pages -= self.zpages
        else:
            b["holes"] += f

    def compact(self):
        for b in self.bins:
            if b["holes"] < 2 * self.cap:
                continue
            zs = sorted(b["zs"], key=lambda z: z.used, reverse=True)
            need = -(-b["live"] // self.cap)
            keep, srcs = zs[:need], zs[need:]
            for z in srcs:
                self.unfile(b, z)
            for z in keep:
                self.slide(b, z)
            for src in reversed(srcs):  # the emptiest first
                for oid in sorted(src.objs, key=lambda o: -self.where[o][2]):
                    f = self.where[oid][2]
                    dst = self.find(b, f)
                    if dst is None:
                        self.slide(b, src)
                        break
                    self.move(b, src, dst, oid, f)
                    self.moved += f
                else:
                    self.returned += self.zpages * PAGE
            self.compacted(b)

    def move(self, b, src, dst, oid, f):
        """Compaction: an object of src to the end of dst."""
        self.free(oid)
        self.place(b, dst, oid, f)

    def compacted(self, b):
        b["holes"] = sum(z.top - z.used for z in b["zs"])

    def slide(self, b, z):
        """Close a zspage's holes: the objects after the first hole move,
        counted as half its live bytes (the holes are anywhere)."""
        if z.top != z.used:
            self.moved += z.used // 2
            z.top = z.used
        self.reopen(b, z)


class PackedHoles(Packed):
    """Packed, with a free-space search inside zspages: a zspage is a list
    of extents, a free merges its extent with free neighbours (one that
    reaches the end gives the room back to the end), and a new object takes
    the best-fitting free extent of its bin before any zspage's end."""

    def __init__(self, bins, pages, align, meta):
        super().__init__(bins, pages, align, meta)
        for b in self.bins:
            b.update(hsteps=[], hbuck={})

    # -- the zspage's extents: z.holes maps offset -> [size, oid or None];
    #    z.objs holds (oid) and the offsets are found through self.at
    def offsets(self, z):
        return sorted(z.holes)

    def index_hole(self, b, z, off):
        step = z.holes[off][0] // ROOM
        if step == 0:
            return
        if step not in b["hbuck"]:
            b["hbuck"][step] = {}
            bisect.insort(b["hsteps"], step)
        b["hbuck"][step][(id(z), off)] = z

    def take_hole(self, b, f, avoid=()):
        """The free extent of the lowest step that fits f, outside the
        zspages @avoid: (z, off) or None. Index entries are checked as they
        are met (merges leave stale ones)."""
        steps = b["hsteps"]
        i = bisect.bisect_left(steps, -(-f // ROOM))
        while i < len(steps):
            step = steps[i]
            bucket = b["hbuck"][step]
            found = None
            for key in list(bucket):
                z = bucket[key]
                e = z.holes.get(key[1])
                if e is None or e[1] is not None or e[0] // ROOM != step or z not in b["zs"]:
                    del bucket[key]
                elif e[0] >= f and z not in avoid:
                    del bucket[key]
                    found = (z, key[1])
                    break
            if not bucket:
                del b["hbuck"][step]
                steps.remove(step)
            else:
                i += 1
            if found:
                return found
        return None

    def put(self, b, z, off, oid, f):
        """Object oid of footprint f at offset off of z (a free extent, or
        z.top for the end)."""
        if off == z.top:
            z.top += f
        else:
            size = z.holes[off][0]
            b["holes"] -= f
            if size > f:
                z.holes[off + f] = [size - f, None]
                self.index_hole(b, z, off + f)
        z.holes[off] = [f, oid]
        z.objs.add(oid)
        z.used += f
        b["live"] += f
        self.where[oid] = (b, z, f)
        self.at[oid] = off
        self.reopen(b, z)

    def alloc(self, oid, size):
        f = self.footprint(size)
        b = self.bins[self.bin_of(f)]
        hole = self.take_hole(b, f)
        if hole:
            self.put(b, hole[0], hole[1], oid, f)
            return
        z = self.find(b, f)
        if z is None:
            z = Zspage(None)
            b["zs"][z] = None
            self.pages += self.zpages
        self.put(b, z, z.top, oid, f)

    def free(self, oid):
        """Packed's free, then the extent merges with free neighbours."""
        b, z, f = self.where[oid]
        off = self.at.pop(oid)
        super().free(oid)
        if not z.objs:
            return
        z.holes[off] = [f, None]
        offs = self.offsets(z)
        k = offs.index(off)
        if k + 1 < len(offs) and z.holes[offs[k + 1]][1] is None:
            z.holes[off][0] += z.holes.pop(offs[k + 1])[0]
        if k > 0 and z.holes[offs[k - 1]][1] is None:
            z.holes[offs[k - 1]][0] += z.holes.pop(off)[0]
            off = offs[k - 1]
        if off + z.holes[off][0] == z.top:   # the end: room again
            z.top = off
            b["holes"] -= z.holes.pop(off)[0]
            self.reopen(b, z)
        else:
            self.index_hole(b, z, off)

    def slide(self, b, z, frm=0):
        """Close a zspage's holes from offset frm on (an extent's start):
        each object after the first of them moves."""
        off = frm
        for o in self.offsets(z):
            if o < frm:
                continue
            size, oid = z.holes.pop(o)
            if oid is None:
                b["holes"] -= size
                continue
            if o != off:
                self.moved += size
            z.holes[off] = [size, oid]
            self.at[oid] = off
            off += size
        z.top = off
        self.reopen(b, z)

    def move(self, b, src, dst, oid, f):
        self.free(oid)
        self.unfile(b, src)   # a free at its end refiled it
        self.put(b, dst, dst.top, oid, f)

    def relocate(self, b, src, oid, f, at):
        """Compaction: object oid of src (kept off the room lists) to
        at = (zspage, offset of a free extent or its end)."""
        self.free(oid)
        if src.objs:
            self.unfile(b, src)   # a free at its end refiled it
        self.put(b, at[0], at[1], oid, f)
        self.moved += f

    def largest_first(self, z):
        return sorted(z.objs, key=lambda o: -self.where[o][2])

    def room(self, b, f, avoid):
        """Where compaction can put f without sliding: the best-fitting free
        extent outside @avoid, else the end of least room that fits."""
        hole = self.take_hole(b, f, avoid)
        if hole is None:
            dst = self.find(b, f)
            if dst is not None:
                hole = (dst, dst.top)
        return hole

    def compacted(self, b):
        """Compaction slid every zspage it kept: index what holes are left."""
        super().compacted(b)
        b["hsteps"], b["hbuck"] = [], {}
        for z in b["zs"]:
            for off, (size, oid) in z.holes.items():
                if oid is None:
                    self.index_hole(b, z, off)



class PackedGain(PackedHoles):
    """PackedHoles with a compaction that slides nothing: it empties only
    zspages at most USED percent used, the emptiest first, into the free
    extents and the ends of the bin's other zspages, so that each byte
    moved gives back at least 100 / USED; a zspage whose objects do not all
    fit stays."""

    def __init__(self, bins, pages, align, meta, used):
        super().__init__(bins, pages, align, meta)
        self.max_used = self.cap * used // 100

    def compact(self):
        for b in self.bins:
            if b["holes"] < 2 * self.cap:
                continue
            zs = sorted(b["zs"], key=lambda z: z.used)
            need = -(-b["live"] // self.cap)
            srcs = [z for z in zs[:len(zs) - need] if z.used <= self.max_used]
            if len(srcs) < 2:
                continue
            avoid = set(srcs)
            for z in srcs:
                self.unfile(b, z)
            for src in srcs:
                for oid in self.largest_first(src):
                    f = self.where[oid][2]
                    hole = self.room(b, f, avoid)
                    if hole is None:
                        break
                    self.relocate(b, src, oid, f, hole)
                if src.objs:
                    self.reopen(b, src)
                else:
                    self.returned += self.zpages * PAGE

class PackedPair(PackedHoles):
    """PackedHoles with a compaction that slides a zspage only to let
    whole zspages empty. A run takes as victims the emptiest zspages, as
    many as the pool has in excess of what it would keep, and empties them
    one at a time, the emptiest first, into the others (never into another
    victim); a victim that does not empty stays. Policies:

      pair    the victim goes whole into one destination with free bytes
              (extents and end) >= its live bytes: one where its objects
              fit the free extents and the end as they are (the least free
              of those), else the one cheapest to slide, slid;
      spread  each object of the victim, largest first, to the best-fitting
              free extent or end of any other zspage; when none fits, the
              slide that frees the most bytes at a zspage's end per byte
              moved: from the zspage's first free extent (whole), or from
              any of them (tail: only the objects after it move).

    With waste None, a run starts when the bin's pool exceeds
    ceil(live / capacity) zspages by two and keeps that many; with WASTE,
    it starts when the excess exceeds WASTE percent of the bin's zspages
    and keeps an excess of WASTE / 2 percent."""

    def __init__(self, bins, pages, align, meta, policy, waste=None):
        super().__init__(bins, pages, align, meta)
        self.policy, self.waste = policy, waste

    def compact(self):
        for b in self.bins:
            n, need = len(b["zs"]), -(-b["live"] // self.cap)
            if n - need < 2 or self.waste is not None and (n - need) * 100 <= self.waste * n:
                continue
            keep = need if self.waste is None else int(need / (1 - self.waste / 200))
            zs = sorted(b["zs"], key=lambda z: z.used)
            victims = zs[:n - keep]
            for z in victims:
                self.unfile(b, z)
            (self.pairs if self.policy == "pair" else self.spread)(b, victims, zs[n - keep:])
            for z in victims:
                if z.objs:
                    self.reopen(b, z)

    def fits(self, z, objs):
        """Whether footprints objs (largest first) fit z's free extents
        (best fit) and end without sliding."""
        ext = sorted(s for s, oid in z.holes.values() if oid is None)
        end = self.cap - z.top
        for f in objs:
            i = bisect.bisect_left(ext, f)
            if i < len(ext):
                rest = ext.pop(i) - f
                if rest:
                    bisect.insort(ext, rest)
            elif end >= f:
                end -= f
            else:
                return False
        return True

    def best_extent(self, z, f):
        """The offset of z's smallest free extent that fits f, else its end."""
        fit = [(e[0], o) for o, e in z.holes.items() if e[1] is None and e[0] >= f]
        return min(fit)[1] if fit else z.top

    def unit(self, z, tail):
        """The slide of z that frees the most at its end per byte moved:
        (moved / freed, moved, freed, offset), or None without holes."""
        best, moved, freed = None, 0, 0
        for o in reversed(self.offsets(z)):
            size, oid = z.holes[o]
            if oid is not None:
                moved += size
                continue
            freed += size
            u = (moved / freed, moved, freed, o)
            if not tail or best is None or u < best:
                best = u
        return best

    def pairs(self, b, victims, keep):
        for v in victims:
            objs = [self.where[o][2] for o in self.largest_first(v)]
            dsts = [z for z in keep if z.objs and self.cap - z.used >= v.used]
            if not dsts:
                return
            fit = [z for z in dsts if self.fits(z, objs)]
            if fit:
                dst = min(fit, key=lambda z: self.cap - z.used)
            else:
                dst = min(dsts, key=lambda z: self.unit(z, False)[1])
                self.slide(b, dst)
            for oid in self.largest_first(v):
                f = self.where[oid][2]
                self.relocate(b, v, oid, f, (dst, self.best_extent(dst, f)))
            self.returned += self.cap

    def spread(self, b, victims, keep):
        tail = self.policy == "tail"
        heap = [(u[0], id(z), z) for z in keep for u in [self.unit(z, tail)] if u]
        heapq.heapify(heap)
        avoid = set(victims)
        for v in victims:
            for oid in self.largest_first(v):
                f = self.where[oid][2]
                at = self.room(b, f, avoid)
                while at is None and self.slide_cheapest(b, heap, tail):
                    at = self.room(b, f, avoid)
                if at is None:
                    break
                self.relocate(b, v, oid, f, at)
            if not v.objs:
                self.returned += self.cap

    def slide_cheapest(self, b, heap, tail):
        """Take the cheapest slide off the heap (keys only grow during a
        run, so an entry found stale goes back with its new key)."""
        while heap:
            key, _, z = heapq.heappop(heap)
            u = self.unit(z, tail)
            if u is None:
                continue
            if u[0] > key:
                heapq.heappush(heap, (u[0], id(z), z))
                continue
            self.slide(b, z, u[3])
            u = self.unit(z, tail)
            if u:
                heapq.heappush(heap, (u[0], id(z), z))
            return True
        return False


def run(layout, sizes, n, cycles, share, rng):
    """Fill with the first n sizes, then churn; return the pages after each
    step, the live payload and the bytes stored by the churn."""
    live, oid = [], 0
    payload = stored = 0
    for s in sizes[:n]:
        layout.alloc(oid, s)
        live.append((oid, s))
        payload += s
        oid += 1
    pages = [layout.pages]
    for _ in range(cycles):
        rng.shuffle(live)
        k = int(len(live) * share)
        for o, s in live[:k]:
            layout.free(o)
            payload -= s
        live = live[k:]
        for _ in range(k):
            s = sizes[rng.randrange(len(sizes))]
            layout.alloc(oid, s)
            live.append((oid, s))
            payload += s
            stored += s
            oid += 1
        pages.append(layout.pages)
        layout.compact()
        pages[-1] = (pages[-1], layout.pages)
    return pages, payload, stored


POLICIES = dict(p="pair", s="spread", t="tail")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", required=True, help="output of bench/lzo_sizes")
    ap.add_argument("--mib", default="512,2048", help="working sets, comma-separated")
    ap.add_argument("--source", default="zsmalloc_mod_internal.h")
    ap.add_argument("--cycles", type=int, default=5)
    ap.add_argument("--share", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--packed", action="append", default=[],
                    help="a packed layout BINS:PAGES:ALIGN:META[:h|:gUSED|:p|:s|:t[WASTE]] "
                         "(repeatable; h: with a free-space search in zspages; gUSED: that, "
                         "and compaction only of zspages at most USED%% used, sliding nothing; "
                         "p, s, t: that, and compaction by pair, spread or tail (PackedPair), "
                         "run when the pool exceeds its live bytes by two zspages or, with "
                         "WASTE, by WASTE%% of its pages, until by WASTE/2%%) [16:4:8:10]")
    a = ap.parse_args()

    stream = [tuple(int(x) for x in line.split()) for line in open(a.sizes)]
    mod = geo.zsmod_constants(a.source)
    mod.update(chain=geo.zsmod_chain, borrow=False)
    zs = dict(min_size=32, delta=16, max_pages=8, chain=geo.zsmalloc_chain, borrow=False)
    packed = a.packed or ["16:4:8:10"]

    print("| working set | layout | pages fresh | density / zsmalloc fresh | "
          "pages after churn (before compaction) | density / zsmalloc after churn | "
          "compaction: bytes moved per byte returned | per byte stored by the churn |")
    print("|---|---|---|---|---|---|---|---|")
    for mib in (int(m) for m in a.mib.split(",")):
        n_pages = mib * 256
        if n_pages > len(stream):
            sys.exit("layouts: the stream holds only %d MiB" % (len(stream) // 256))
        sizes = [s for i, same, s in stream[:n_pages] if not same and s]
        layouts = [("zsmalloc", Fixed(zs, compact=False)),
                   ("zsmalloc_mod slots", Fixed(mod, compact=True))]
        for p in packed:
            f = p.split(":")
            bins, pages, align, meta = (int(x) for x in f[:4])
            opt = f[4] if len(f) > 4 else ""
            if opt.startswith("g"):
                lay = PackedGain(bins, pages, align, meta, int(opt[1:]))
                what = ", holes filled, compaction of zspages at most %s%% used" % opt[1:]
            elif opt[:1] in POLICIES:
                policy, waste = POLICIES[opt[0]], float(opt[1:]) if opt[1:] else None
                lay = PackedPair(bins, pages, align, meta, policy, waste)
                what = ", holes filled, compaction by %s%s" % (
                    policy, ", at waste > %g%%" % waste if waste is not None else "")
            else:
                lay = (PackedHoles if opt == "h" else Packed)(bins, pages, align, meta)
                what = ", holes filled" if opt == "h" else ""
            layouts.append(("packed %d bins, %d-page zspages, align %d, meta %d%s"
                            % (bins, pages, align, meta, what), lay))
        ref = None
        for name, lay in layouts:
            steps, _, stored = run(lay, sizes, len(sizes), a.cycles, a.share, random.Random(a.seed))
            fresh, (before, after) = steps[0], steps[-1]
            if ref is None:
                ref = (fresh, after)
            ratio = "%.2f" % (lay.moved / lay.returned) if lay.returned else "-"
            print("| %d MiB | %s | %d | %.4fx | %d (%d) | %.4fx | %s | %.2f |" % (
                mib, name, fresh, ref[0] / fresh, after, before, ref[1] / after, ratio,
                lay.moved / stored))
    print("\nchurn: %d cycles, each freeing %.0f%% of the live objects and storing as many"
          " new ones (seed %d)." % (a.cycles, 100 * a.share, a.seed))


if __name__ == "__main__":
    main()
