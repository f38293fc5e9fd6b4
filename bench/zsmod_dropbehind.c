// SPDX-License-Identifier: GPL-2.0
/*
 * zsmod_dropbehind: one zswap writeback storm out of zsmalloc_mod, and how
 * long the written-back pages stay in the swap cache afterwards (bench/run.sh
 * --dropbehind, on the test kernel: it needs kunit/patches/0004-0006).
 *
 * At load: a shmem file of "pages" pages with compressible contents of
 * their own, pushed by reclaim into zswap (reclaim_mapping_kunit()); then
 * every entry written back to the swap device at once
 * (zswap_writeback_kunit()), PG_reclaim or PG_dropbehind as
 * zswap.writeback_dropbehind says. Measured from the end of the storm (the
 * swap device is brd: a write has completed when zswap_writeback_kunit()
 * returns): how many of the pages still have a folio in the swap cache at
 * fixed times after it, and the first sample at which none has.
 *
 * Results: one line in /sys/kernel/debug/zsmod_dropbehind/results,
 *   pages=N written=W storm_us=T rss@0=US/R0 rss@1=US/R1 ... drop_us=D
 *     dropped=X kept=Y busy=Z (kept: still busy after the last try)
 * (rss@MS=US/R: the sample due MS milliseconds after the storm started US
 * microseconds after it and found R pages in the swap cache)
 * where drop_us is the time from the end of the storm until the last
 * folio was dropped or kept, or -1 if that had not happened by the last
 * sample; then
 *     reclaim_us=U reclaimed=F left=L
 * from one reclaim pass over the written entries after the last sample,
 * the same in both modes (what memory pressure does to the folios that
 * PG_reclaim leaves behind): how long it took, the pages it freed, and the
 * pages still in the swap cache after it. Meant for a guest under qemu
 * -icount (time counts instructions).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/seq_buf.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/vmstat.h>
#include <linux/zswap.h>

static unsigned int pages = 4096;
module_param(pages, uint, 0444);
MODULE_PARM_DESC(pages, "pages written back in the storm");

#ifdef ZSWAP_WRITEBACK_KUNIT

/* ms after the storm at which the swap cache is looked at */
static const unsigned int sample_ms[] = { 0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };

static struct dentry *dir;
static char results[768];
static struct debugfs_blob_wrapper blob = { .data = results };

/* Page i: a 64-byte pattern of its own, repeated (never all zero). */
static void fill_page(u8 *p, pgoff_t i)
{
	unsigned int off;
	u32 x = 0x9e3779b1u * (u32)(i + 1);

	for (off = 0; off < 64; off++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[off] = x | 1;
	}
	for (off = 64; off < PAGE_SIZE; off += 64)
		memcpy(p + off, p, 64);
}

static long delta(const unsigned long *ev0, const unsigned long *ev, enum vm_event_item item)
{
	return (long)(ev[item] - ev0[item]);
}

#define DELTA(item) delta(ev0, ev, item)

/* The swap-cache address space of @swp's folio, if it has one */
static struct address_space *swap_cache_space(swp_entry_t swp)
{
	struct folio *folio = swap_cache_folio_kunit(swp);
	struct address_space *mapping;

	if (!folio)
		return NULL;
	mapping = folio_mapping(folio);
	folio_put(folio);
	return mapping;
}

/*
 * Reclaim the storm's folios still in the swap cache, as reclaim under
 * memory pressure would: one reclaim_mapping_kunit() call (one LRU drain)
 * per run of consecutive swap offsets in one swap-cache address space.
 */
static unsigned long reclaim_left(const swp_entry_t *swp, unsigned int n)
{
	unsigned long freed = 0;
	unsigned int i, j;

	for (i = 0; i < n; i = j) {
		struct address_space *mapping = swap_cache_space(swp[i]);
		pgoff_t first = swp_offset(swp[i]);

		j = i + 1;
		if (!mapping)
			continue;
		while (j < n && swp_type(swp[j]) == swp_type(swp[i]) &&
		       swp_offset(swp[j]) == first + (j - i) &&
		       swap_cache_space(swp[j]) == mapping)
			j++;
		freed += reclaim_mapping_kunit(mapping, first, j - i);
	}
	return freed;
}

/* kept since @ev0, for any reason */
static long kept(const unsigned long *ev0, const unsigned long *ev)
{
	return DELTA(DROPBEHIND_KEPT_DIRTY) + DELTA(DROPBEHIND_KEPT_MAPPED) +
	       DELTA(DROPBEHIND_KEPT_BUSY) + DELTA(DROPBEHIND_LEFT);
}

/* dropped + kept since @ev0 */
static long settled(const unsigned long *ev0, unsigned long *ev)
{
	all_vm_events(ev);
	return DELTA(DROPBEHIND_DROPPED) + kept(ev0, ev);
}

/* The storm's written pages and the time its last one was settled */
struct drop_watch {
	const unsigned long *ev0;	/* the events before the storm */
	unsigned long *ev;		/* room for the events now */
	unsigned int written;
	ktime_t end;			/* of the storm */
	s64 drop_us;			/* from its end until all settled, or -1 */
};

static void drop_watch(struct drop_watch *w)
{
	if (w->drop_us < 0 && w->written && settled(w->ev0, w->ev) >= w->written)
		w->drop_us = ktime_us_delta(ktime_get(), w->end);
}

/*
 * Pages of @swp with a folio in the swap cache. A scan takes milliseconds:
 * it looks out for the last drop meanwhile (@w, if not NULL).
 */
static unsigned int swap_cached(const swp_entry_t *swp, unsigned int n,
				struct drop_watch *w)
{
	unsigned int i, cached = 0;

	for (i = 0; i < n; i++) {
		struct folio *folio = swap_cache_folio_kunit(swp[i]);

		if (i % 64 == 0) {
			if (w)
				drop_watch(w);
			/* the drops' worker may need this CPU */
			cond_resched();
		}

		if (folio) {
			cached++;
			folio_put(folio);
		}
	}
	return cached;
}

static int storm(struct seq_buf *s)
{
	unsigned long *ev0, *ev;
	unsigned int i, k, written = 0;
	struct drop_watch w;
	unsigned long freed;
	swp_entry_t *swp;
	struct file *file;
	ktime_t t0, t1;
	int ret = -ENOMEM;

	swp = kvcalloc(pages, sizeof(*swp), GFP_KERNEL);
	ev0 = kcalloc(NR_VM_EVENT_ITEMS, sizeof(*ev0), GFP_KERNEL);
	ev = kcalloc(NR_VM_EVENT_ITEMS, sizeof(*ev), GFP_KERNEL);
	if (!swp || !ev0 || !ev)
		goto out;
	file = shmem_file_setup("zsmod_dropbehind", (loff_t)pages << PAGE_SHIFT, VM_NORESERVE);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out;
	}
	for (i = 0; i < pages; i++) {
		struct folio *folio = shmem_read_folio(file->f_mapping, i);
		void *p;

		if (IS_ERR(folio)) {
			ret = PTR_ERR(folio);
			goto put;
		}
		p = kmap_local_folio(folio, 0);
		fill_page(p, i);
		kunmap_local(p);
		folio_mark_dirty(folio);
		folio_put(folio);
	}
	reclaim_mapping_kunit(file->f_mapping, 0, pages);
	for (i = 0; i < pages; i++) {
		void *e = xa_load(&file->f_mapping->i_pages, i);

		if (xa_is_value(e))
			swp[i] = radix_to_swp_entry(e);
	}

	all_vm_events(ev0);
	t0 = ktime_get();
	for (i = 0; i < pages; i++)
		written += swp[i].val && !zswap_writeback_kunit(swp[i]);
	t1 = ktime_get();

	seq_buf_printf(s, "pages=%u written=%u storm_us=%lld", pages, written,
		       ktime_us_delta(t1, t0));
	w = (struct drop_watch){ .ev0 = ev0, .ev = ev, .written = written,
				 .end = t1, .drop_us = -1 };
	for (k = 0; k < ARRAY_SIZE(sample_ms); k++) {
		ktime_t at = ktime_add_ms(t1, sample_ms[k]);

		/* until the sample is due, watch for the last drop */
		while (ktime_before(ktime_get(), at)) {
			drop_watch(&w);
			usleep_range(20, 40);
		}
		drop_watch(&w);
		/* the scan takes a while: record when it started */
		seq_buf_printf(s, " rss@%u=%lld/", sample_ms[k], ktime_us_delta(ktime_get(), t1));
		seq_buf_printf(s, "%u", swap_cached(swp, pages, &w));
	}
	all_vm_events(ev);
	seq_buf_printf(s, " drop_us=%lld dropped=%ld kept=%ld busy=%ld", w.drop_us,
		       DELTA(DROPBEHIND_DROPPED), kept(ev0, ev), DELTA(DROPBEHIND_KEPT_BUSY));
	t0 = ktime_get();
	freed = reclaim_left(swp, pages);
	t1 = ktime_get();
	seq_buf_printf(s, " reclaim_us=%lld reclaimed=%lu left=%u\n",
		       ktime_us_delta(t1, t0), freed, swap_cached(swp, pages, NULL));
	ret = 0;
put:
	fput(file);
	flush_delayed_fput();
out:
	kfree(ev);
	kfree(ev0);
	kvfree(swp);
	return ret;
}

static int __init zsdb_init(void)
{
	struct seq_buf s;
	int ret;

	seq_buf_init(&s, results, sizeof(results));
	ret = storm(&s);
	if (ret)
		return ret;
	pr_info("%s", results);
	blob.size = strlen(results);
	dir = debugfs_create_dir("zsmod_dropbehind", NULL);
	debugfs_create_blob("results", 0444, dir, &blob);
	return 0;
}

static void __exit zsdb_exit(void)
{
	debugfs_remove(dir);
}
#else
static int __init zsdb_init(void)
{
	pr_err("needs the test kernel's dropbehind path (kunit/patches/0004-0006)\n");
	return -EOPNOTSUPP;
}

static void __exit zsdb_exit(void)
{
}
#endif

module_init(zsdb_init);
module_exit(zsdb_exit);
MODULE_DESCRIPTION("zswap writeback storm out of zsmalloc_mod: swap-cache residency afterwards");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
