// SPDX-License-Identifier: GPL-2.0
/*
 * Swap for the dropbehind suite: a swap device of the test's own, pages of
 * a shmem file pushed by reclaim into zswap with zsmalloc_mod as its zpool,
 * the pages' swap entries, and the counters that tell what happened. All
 * through the test kernel's hooks (kunit/patches/0006 and 0007), with
 * paths of no mount but our own: built into the kernel, the suite runs
 * before user space has mounted anything.
 */
#include <kunit/test.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/vmstat.h>
#include <linux/zswap.h>

#include "helpers.h"

#ifdef HAVE_DROPBEHIND_PATH

/* ---------------------------------------------------------------------- */
/* The swap device                                                         */

/* As swapon(8) would have it: highest priority, so that shmem swaps here. */
#define TSWAP_FLAGS	(SWAP_FLAG_PREFER | SWAP_FLAG_PRIO_MASK)
/* Swap slots on the device (less than brd's 64 MiB and null_blk's 1 GiB). */
#define TSWAP_PAGES	4096

struct tswap_dev {
	struct file *file;
	bool on;
};

static void tswap_dev_release(void *arg)
{
	struct tswap_dev *d = arg;

	if (d->on)
		WARN_ON(swapoff_file_kunit(d->file));
	fput(d->file);
	/* a kthread's last fput is deferred: release the device for the next test */
	flush_delayed_fput();
}

/* Open /dev/@name read-write, exclusively, through a devtmpfs mount of ours. */
static struct file *open_dev_node(const char *name)
{
	struct file_system_type *devtmpfs = get_fs_type("devtmpfs");
	struct vfsmount *mnt;
	struct file *f;

	if (!devtmpfs)
		return ERR_PTR(-ENODEV);
	mnt = kern_mount(devtmpfs);
	if (IS_ERR(mnt))
		return ERR_CAST(mnt);
	f = file_open_root_mnt(mnt, name, O_RDWR | O_LARGEFILE | O_EXCL, 0);
	kern_unmount(mnt);	/* an open file keeps the mount it needs */
	return f;
}

/* mkswap: a version 1 header for TSWAP_PAGES pages, no bad pages. */
static int write_swap_header(struct file *f)
{
	union swap_header *hdr;
	loff_t pos = 0;
	ssize_t n;

	hdr = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!hdr)
		return -ENOMEM;
	hdr->info.version = 1;
	hdr->info.last_page = TSWAP_PAGES - 1;
	memcpy(hdr->magic.magic, "SWAPSPACE2", 10);
	n = kernel_write(f, hdr, PAGE_SIZE, &pos);
	kfree(hdr);
	if (n != PAGE_SIZE)
		return n < 0 ? n : -EIO;
	return vfs_fsync(f, 0);
}

/**
 * tswap_device() - swap on a block device until the test ends
 * @test: the test
 * @name: its device node ("ram0", "nullb0")
 *
 * Return: the open device file; the test fails if it cannot be had.
 */
struct file *tswap_device(struct kunit *test, const char *name)
{
	struct tswap_dev *d;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->file = open_dev_node(name);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(d->file),
			       "open /dev/%s: %ld (booted with kunit/cmdline's parameters?)",
			       name, PTR_ERR(d->file));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, tswap_dev_release, d));
	KUNIT_ASSERT_EQ(test, 0, write_swap_header(d->file));
	KUNIT_ASSERT_EQ(test, 0, swapon_file_kunit(d->file, TSWAP_FLAGS));
	d->on = true;
	return d->file;
}

/* ---------------------------------------------------------------------- */
/* Data: the pages of a shmem file                                         */

static void put_file(void *f)
{
	fput(f);
	/* free the file's swap entries before the swap device goes */
	flush_delayed_fput();
}

/*
 * Page @i: a 64-byte pattern of its own, repeated. Compressible (zswap
 * keeps it) and never all zeroes (a zero page goes to the swap zeromap,
 * not to zswap).
 */
static u32 tdata_seed(const struct tdata *td, pgoff_t i)
{
	return td->salt ^ (u32)(i * 0x9e3779b1u);
}

static void tdata_fill_page(const struct tdata *td, pgoff_t i, u8 *p)
{
	unsigned int off;

	pat_fill(p, 64, tdata_seed(td, i));
	p[0] |= 1;
	for (off = 64; off < PAGE_SIZE; off += 64)
		memcpy(p + off, p, 64);
}

/**
 * tdata_create() - a shmem file of @n pages, each with its own contents
 * @test: the test; the file goes when it ends (with its swap entries)
 * @n: pages
 * @salt: makes the contents differ from another test's
 *
 * Return: the file, its pages in memory and dirty.
 */
struct tdata *tdata_create(struct kunit *test, unsigned int n, u32 salt)
{
	struct tdata *td;
	pgoff_t i;

	td = kunit_kzalloc(test, sizeof(*td), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, td);
	td->swp = kunit_kcalloc(test, n, sizeof(*td->swp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, td->swp);
	td->test = test;
	td->n = n;
	td->salt = salt;
	td->file = shmem_file_setup("zsmod_dropbehind", (loff_t)n << PAGE_SHIFT,
				    VM_NORESERVE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(td->file));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, put_file, td->file));
	for (i = 0; i < n; i++) {
		struct folio *folio = shmem_read_folio(td->file->f_mapping, i);
		void *p;

		KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
		p = kmap_local_folio(folio, 0);
		tdata_fill_page(td, i, p);
		kunmap_local(p);
		folio_mark_dirty(folio);
		folio_put(folio);
	}
	return td;
}

/**
 * tdata_push() - reclaim every page of @td: shmem -> swap cache -> zswap
 * @td: the pages
 *
 * Records each page's swap entry in @td->swp.
 *
 * Return: how many pages reclaim freed.
 */
unsigned long tdata_push(struct tdata *td)
{
	struct address_space *mapping = td->file->f_mapping;
	unsigned long freed;
	pgoff_t i;

	freed = reclaim_mapping_kunit(mapping, 0, td->n);
	for (i = 0; i < td->n; i++) {
		void *e = xa_load(&mapping->i_pages, i);

		td->swp[i] = xa_is_value(e) ? radix_to_swp_entry(e) : (swp_entry_t){ 0 };
	}
	return freed;
}

/**
 * tdata_check() - read page @i of @td back (swapping it in if it is out)
 * @td: the pages
 * @i: the page
 *
 * Return: the first offset that differs, -1 if none, -2 if unreadable.
 */
long tdata_check(struct tdata *td, pgoff_t i)
{
	struct folio *folio = shmem_read_folio(td->file->f_mapping, i);
	u8 *want, *p;
	long bad = -1;
	unsigned int off;

	if (IS_ERR(folio))
		return -2;
	want = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!want) {
		folio_put(folio);
		return -2;
	}
	tdata_fill_page(td, i, want);
	p = kmap_local_folio(folio, 0);
	for (off = 0; off < PAGE_SIZE; off++) {
		if (p[off] != want[off]) {
			bad = off;
			break;
		}
	}
	kunmap_local(p);
	folio_put(folio);
	kfree(want);
	return bad;
}

/* ---------------------------------------------------------------------- */
/* Counters                                                                */

void tevents_read(struct tevents *ev)
{
	all_vm_events(ev->v);
}

long tevents_delta(const struct tevents *a, const struct tevents *b,
		   enum vm_event_item item)
{
	return (long)(b->v[item] - a->v[item]);
}

static void zpool_add_stats(struct zsmod_pool *pool, void *arg)
{
	struct zsmod_pool_stats *sum = arg, st;

	zsmod_pool_stats(pool, &st);
	sum->pages_used += st.pages_used;
	sum->objs_used += st.objs_used;
	sum->pages_compacted += st.pages_compacted;
	sum->pages_migrated += st.pages_migrated;
}

/* The sum of the counters of zswap's zsmalloc_mod pools. */
void zswap_pools_stats(struct zsmod_pool_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	zsmod_kunit_zpool_for_each(zpool_add_stats, sum);
}

static void zpool_compact(struct zsmod_pool *pool, void *arg)
{
	zsmod_compact(pool);
}

/* Compact zswap's zsmalloc_mod pools. */
void zswap_pools_compact(void)
{
	zsmod_kunit_zpool_for_each(zpool_compact, NULL);
}

#endif /* HAVE_DROPBEHIND_PATH */
