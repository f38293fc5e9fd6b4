// SPDX-License-Identifier: GPL-2.0
/*
 * Suite zsmalloc_mod_compaction: the pool's own compaction. Pages drop as
 * expected when half the objects are freed, background compaction once
 * frees pause (and under frees that never pause), a zspage emptied while
 * one of its pages is locked (freed later by a worker), and a mapped
 * object that compaction on the other CPU leaves in place.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "helpers.h"

/*
 * Fill @nz zspages of class *@c (updated as fill_zspages() does) and free
 * every other object. Returns the pages compaction must bring the pool
 * down to: the live objects fit in ceil(live / opz) zspages, plus one
 * partly filled extra.
 */
static unsigned long fill_free_half(struct tpool *tp, const struct tclass **c,
				    unsigned int nz, unsigned long *live)
{
	unsigned int i;

	*c = fill_zspages(tp, len_for_class(*c), MOVABLE_GFP, nz);
	for (i = 0; i < tp->n; i += 2)
		tpool_free(tp, i);
	*live = tp->n / 2;
	return (DIV_ROUND_UP(*live, (*c)->opz) + 1) * (*c)->ppz;
}

/* Free every other object, compact: pages drop as expected, data survives. */
static void test_compaction(struct kunit *test)
{
	const unsigned int nz = 8;
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 2, true);
	struct zsmod_pool_stats st0, st1;
	struct zsmod_class_info info;
	unsigned long freed, live, bound;

	KUNIT_ASSERT_NOT_NULL(test, c);
	bound = fill_free_half(tp, &c, nz, &live);
	zsmod_pool_stats(tp->pool, &st0);
	KUNIT_EXPECT_EQ(test, st0.pages_used, (unsigned long)nz * c->ppz);

	freed = zsmod_compact(tp->pool);
	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, c->arg, &info));
	KUNIT_EXPECT_LE_MSG(test, st1.pages_used, bound,
			    "%lu live objects of %u per zspage still use %lu pages",
			    live, c->opz, st1.pages_used);
	KUNIT_EXPECT_GT(test, freed, 0UL);
	KUNIT_EXPECT_EQ(test, freed, st0.pages_used - st1.pages_used);
	KUNIT_EXPECT_EQ(test, st1.pages_compacted - st0.pages_compacted, freed);
	KUNIT_EXPECT_GE(test, st1.compactions - st0.compactions, 1UL);
	KUNIT_EXPECT_EQ(test, info.objs_used, live);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_page_flags(tp, "after compaction");
	expect_consistent(tp);

	/* nothing left to gain */
	KUNIT_EXPECT_EQ(test, zsmod_compact(tp->pool), 0UL);
	free_destroy_check(tp);
}

/*
 * Background compaction (auto_compact, on by default): once frees leave a
 * class with two zspages' worth of free slots and then pause, the pool
 * compacts itself, with nobody calling zsmod_compact(). Inside a memcg
 * this is the only compaction zswap's pool gets.
 */
static void test_auto_compact(struct kunit *test)
{
	const unsigned int nz = 8;
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 2, true);
	struct zsmod_pool_stats st0, st1;
	unsigned long live, bound, deadline;

	KUNIT_ASSERT_NOT_NULL(test, c);
	set_param(test, "auto_compact", true);
	/* before the frees: the worker may start before they all return */
	zsmod_pool_stats(tp->pool, &st0);
	bound = fill_free_half(tp, &c, nz, &live);

	/* the worker waits for frees to pause 2 s; polling must not free */
	deadline = jiffies + 8 * HZ;
	while (zsmod_get_total_pages(tp->pool) > bound && time_before(jiffies, deadline))
		msleep(50);
	/* the worker counts its run only after it gave the pages back */
	for (;;) {
		zsmod_pool_stats(tp->pool, &st1);
		if (st1.compactions != st0.compactions || !time_before(jiffies, deadline))
			break;
		msleep(50);
	}
	KUNIT_EXPECT_LE_MSG(test, st1.pages_used, bound,
			    "%lu live objects of %u per zspage still use %lu pages after 8 s",
			    live, c->opz, st1.pages_used);
	KUNIT_EXPECT_GE(test, st1.compactions - st0.compactions, 1UL);
	KUNIT_EXPECT_EQ(test, st1.pages_compacted - st0.pages_compacted,
			(unsigned long)nz * c->ppz - st1.pages_used);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Background compaction under churn that never pauses: a free every 100 ms,
 * each moving its zspage to another fullness group (with at most 10
 * objects per zspage every free crosses a 10% step), so each asks for
 * compaction again and puts the 2 s pause off again. The pool compacts all
 * the same, at the latest 10 s after the first request, while the frees go
 * on: with nothing else asking, within 20 s of them, and with no pause of
 * 2 s between two frees (which would let the pause rule run it).
 */
static void test_auto_compact_churn(struct kunit *test)
{
	const unsigned int nz = 64;
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = NULL;
	struct zsmod_pool_stats st0, st;
	unsigned long live, deadline, last, gap = 0;
	unsigned int next, frees = 0;
	int k;

	for (k = 0; k < tp->ntab && !c; k++)
		if (!tp->tab[k].huge && tp->tab[k].opz >= 4 && tp->tab[k].opz <= 10)
			c = &tp->tab[k];
	KUNIT_ASSERT_NOT_NULL(test, c);
	set_param(test, "auto_compact", true);
	zsmod_pool_stats(tp->pool, &st0);
	fill_free_half(tp, &c, nz, &live);
	KUNIT_ASSERT_LE(test, c->opz, 10U);
	/* stats run the queued frees: the first request for compaction */
	zsmod_pool_stats(tp->pool, &st);
	last = jiffies;
	deadline = last + 20 * HZ;
	/* fill_free_half() left the odd objects live */
	for (next = 1; next < tp->n && time_before(jiffies, deadline); next += 2) {
		msleep(100);
		tpool_free(tp, next);
		frees++;
		zsmod_pool_stats(tp->pool, &st);
		gap = max(gap, jiffies - last);
		last = jiffies;
		if (st.compactions != st0.compactions)
			break;
	}
	KUNIT_EXPECT_NE_MSG(test, st.compactions, st0.compactions,
			    "no background compaction during %u frees 100 ms apart (class size %u, %u objects per zspage)",
			    frees, c->size, c->opz);
	/* a pause of 2 s would have let the old rule run it: not this test */
	KUNIT_EXPECT_LT_MSG(test, gap, 2UL * HZ,
			    "the frees paused for %u ms: the run does not show the bound",
			    jiffies_to_msecs(gap));
	KUNIT_EXPECT_GT(test, st.pages_compacted, st0.pages_compacted);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Two zspages of one class: A keeps only object *@keep, B has room for it.
 * Compaction would move *@keep into B and free A. Returns A's first pfn.
 */
static unsigned long one_left_in_zspage(struct tpool *tp, const struct tclass *c,
					unsigned int *keep)
{
	struct kunit *test = tp->test;
	unsigned long pfns[MAX_PFNS], first;
	bool room = false;
	unsigned int i;

	c = fill_zspages(tp, len_for_class(c), MOVABLE_GFP, 2);
	KUNIT_ASSERT_EQ(test, tp->n, 2 * c->opz);
	KUNIT_ASSERT_EQ(test, zspage_pfns(tp, 0, pfns), (int)c->ppz);
	first = pfns[0];
	*keep = 0;
	for (i = 1; i < tp->n; i++) {
		KUNIT_ASSERT_EQ(test, zspage_pfns(tp, i, pfns), (int)c->ppz);
		if (pfns[0] == first) {
			tpool_free(tp, i);
		} else if (!room) {
			tpool_free(tp, i);
			room = true;
		}
	}
	KUNIT_ASSERT_TRUE(test, room);
	KUNIT_ASSERT_EQ(test, zsmod_get_total_pages(tp->pool), 2UL * c->ppz);
	return first;
}

/*
 * A zspage emptied while one of its pages is locked (as the migration core
 * locks them) is freed later by a worker: compaction does not count its
 * pages as freed, they stay counted in the pool, and they come back once
 * the page is unlocked.
 */
static void test_deferred_free(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 1, false);
	unsigned long first, freed, deadline, pfns[MAX_PFNS];
	struct zsmod_pool_stats st0, st1;
	struct page *locked;
	unsigned int keep;

	KUNIT_ASSERT_NOT_NULL(test, c);
	first = one_left_in_zspage(tp, c, &keep);
	zsmod_pool_stats(tp->pool, &st0);

	/* kcompactd may have moved the page meanwhile: check it, locked */
	locked = pfn_to_page(first);
	KUNIT_ASSERT_TRUE(test, get_page_unless_zero(locked));
	lock_page(locked);
	if (zspage_pfns(tp, keep, pfns) < 1 || pfns[0] != first) {
		unlock_page(locked);
		put_page(locked);
		KUNIT_FAIL(test, "the zspage's page moved before it could be locked");
		return;
	}
	freed = zsmod_compact(tp->pool);
	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_EXPECT_EQ_MSG(test, freed, 0UL, "compaction counted pages a worker has yet to free");
	KUNIT_EXPECT_EQ(test, st1.pages_compacted, st0.pages_compacted);
	KUNIT_EXPECT_EQ(test, st1.deferred_frees - st0.deferred_frees, 1UL);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), 2UL * c->ppz);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	unlock_page(locked);

	deadline = jiffies + 2 * HZ;
	while (zsmod_get_total_pages(tp->pool) > c->ppz && time_before(jiffies, deadline))
		usleep_range(5000, 10000);
	KUNIT_EXPECT_EQ_MSG(test, zsmod_get_total_pages(tp->pool), (unsigned long)c->ppz,
			    "the deferred zspage was not freed after its page was unlocked");
	put_page(locked);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

struct mover {
	struct tpool *tp;
	unsigned long freed;
	atomic_t done;
};

static int mover_fn(void *arg)
{
	struct mover *m = arg;

	m->freed = zsmod_compact(m->tp->pool);
	atomic_set(&m->done, 1);
	return 0;
}

/*
 * The promise of the pin: an object stays where it is while it is mapped.
 * Map the only object of a zspage that compaction would empty, and compact
 * the pool from the other CPU: it leaves the object alone. Once unmapped,
 * compaction moves it. (Not page migration: alloc_contig_range() waits for
 * work on every CPU, the mapper's too, which cannot run while it maps;
 * test_readers_vs_migration races readers with migration instead.)
 */
static void test_mapped_object_stays(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 1, false);
	struct mover m = { .tp = tp, .done = ATOMIC_INIT(0) };
	unsigned long pfn0, pfn1, deadline;
	struct task_struct *t;
	unsigned int keep, oi0, oi1, me;
	int cpu, done, loc0, loc1;
	long bad;
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, c);
	/*
	 * Stay on this CPU (this test's own thread, gone after it), so that
	 * the mover bound to the other one is never the CPU we spin on.
	 */
	me = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(me)), 0);
	cpu = cpumask_any_but(cpu_online_mask, me);
	KUNIT_ASSERT_LT_MSG(test, cpu, (int)nr_cpu_ids, "needs a second CPU");
	one_left_in_zspage(tp, c, &keep);

	t = kthread_create(mover_fn, &m, "zsmod-mover");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	get_task_struct(t);

	p = zsmod_map_object(tp->pool, tp->h[keep], ZSMOD_MM_RW);
	if (!p) {
		kthread_stop(t);
		put_task_struct(t);
		KUNIT_FAIL(test, "could not map object %u", keep);
		return;
	}
	/* read while mapped: nothing, kcompactd included, moves it now */
	loc0 = zsmod_handle_location(tp->pool, tp->h[keep], &pfn0, &oi0);
	/* preemption is off while mapped: wait by spinning, bounded */
	wake_up_process(t);
	deadline = jiffies + 10 * HZ;
	while (!(done = atomic_read(&m.done)) && time_before(jiffies, deadline))
		cpu_relax();
	loc1 = zsmod_handle_location(tp->pool, tp->h[keep], &pfn1, &oi1);
	bad = pat_check(p, tp->len[keep], tp->seed[keep]);
	pat_fill(p, tp->len[keep], ++tp->seed[keep]);
	zsmod_unmap_object(tp->pool, tp->h[keep]);
	kthread_stop(t);
	put_task_struct(t);

	KUNIT_EXPECT_EQ_MSG(test, done, 1, "compaction did not end in 10 s while we mapped");
	KUNIT_EXPECT_EQ(test, bad, -1L);
	KUNIT_EXPECT_EQ(test, loc0, 0);
	KUNIT_EXPECT_EQ(test, loc1, 0);
	KUNIT_EXPECT_EQ_MSG(test, pfn1, pfn0, "a mapped object was moved");
	KUNIT_EXPECT_EQ(test, oi1, oi0);
	KUNIT_EXPECT_EQ_MSG(test, m.freed, 0UL, "compaction freed the zspage of a mapped object");
	/* what we wrote through the mapping is there */
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);

	/* unmapped: the zspage empties into the other one */
	KUNIT_EXPECT_EQ(test, zsmod_compact(tp->pool), (unsigned long)c->ppz);
	KUNIT_EXPECT_EQ(test, zsmod_handle_location(tp->pool, tp->h[keep], &pfn1, &oi1), 0);
	KUNIT_EXPECT_NE(test, pfn1, pfn0);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

#define CONC_OBJS	192
#define CONC_ROUNDS	24
#define CONC_WORKERS	4

struct conc_worker {
	struct zsmod_pool *pool;
	unsigned long h[CONC_OBJS];
	unsigned int len[CONC_OBJS];
	u32 seed[CONC_OBJS];
	unsigned long ops, bad, failed;
	atomic_t *running;
};

/* Store, read back and free a third of the objects, round after round. */
static int conc_fn(void *arg)
{
	struct conc_worker *w = arg;
	unsigned int r, i;
	u8 *p;

	for (r = 0; r < CONC_ROUNDS && !kthread_should_stop(); r++) {
		for (i = 0; i < CONC_OBJS; i++) {
			if (w->h[i]) {
				p = zsmod_map_object(w->pool, w->h[i], ZSMOD_MM_RO);
				w->bad += !p || pat_check(p, w->len[i], w->seed[i]) != -1;
				if (p)
					zsmod_unmap_object(w->pool, w->h[i]);
				if ((i + r) % 3)
					continue;
				zsmod_free(w->pool, w->h[i]);
				w->h[i] = 0;
			}
			/* the same sizes in every worker: classes are shared */
			w->len[i] = 32 + (i * 613 + r * 97) % 2048;
			w->seed[i] = get_random_u32();
			if (zsmod_malloc(w->pool, w->len[i], MOVABLE_GFP | __GFP_NOWARN,
					 &w->h[i])) {
				w->h[i] = 0;
				w->failed++;
				continue;
			}
			p = zsmod_map_object(w->pool, w->h[i], ZSMOD_MM_WO);
			if (!p) {
				w->bad++;
				continue;
			}
			pat_fill(p, w->len[i], w->seed[i]);
			zsmod_unmap_object(w->pool, w->h[i]);
			w->ops++;
		}
		cond_resched();
	}
	atomic_dec(w->running);
	return 0;
}

/*
 * Every CPU on one pool at once: a worker bound to each online CPU stores
 * objects of the same sizes (so in the same classes), reads each back
 * through a read-only map and frees a third of them every round, while
 * this thread compacts the pool over and over. Each worker owns its
 * handles; what it reads must be what it wrote, and every page comes back.
 * The other cases mostly run one CPU at a time: this one gives KCSAN (in
 * kunit.py's kernel) concurrent mallocs, frees, maps and compaction.
 */
static void test_concurrent_ops(struct kunit *test)
{
	struct task_struct *t[CONC_WORKERS];
	struct zsmod_pool_stats st0, st1;
	struct conc_worker *w;
	unsigned long base = nr_zspages(), compactions = 0, deadline;
	struct zsmod_pool *pool;
	atomic_t running = ATOMIC_INIT(0);
	unsigned int n = 0, k, i;
	int cpu;

	w = kunit_kcalloc(test, CONC_WORKERS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_GE_MSG(test, num_online_cpus(), 2U, "needs a second CPU");
	pool = zsmod_create_pool("zsmod-kunit-conc");
	KUNIT_ASSERT_NOT_NULL(test, pool);

	for_each_online_cpu(cpu) {
		if (n == CONC_WORKERS)
			break;
		w[n].pool = pool;
		w[n].running = &running;
		t[n] = kthread_create(conc_fn, &w[n], "zsmod-conc/%d", cpu);
		if (IS_ERR(t[n])) {
			KUNIT_FAIL(test, "kthread_create failed");
			break;
		}
		kthread_bind(t[n], cpu);
		get_task_struct(t[n]);
		atomic_inc(&running);
		n++;
	}
	zsmod_pool_stats(pool, &st0);
	for (k = 0; k < n; k++)
		wake_up_process(t[k]);
	/* below KUnit's own timeout and the hung-task detector's */
	deadline = jiffies + 60 * HZ;
	while (atomic_read(&running) && time_before(jiffies, deadline)) {
		zsmod_compact(pool);
		compactions++;
		usleep_range(1000, 2000);
	}
	zsmod_pool_stats(pool, &st1);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&running), 0, "workers still running after 60 s");
	for (k = 0; k < n; k++) {
		kthread_stop(t[k]);
		put_task_struct(t[k]);
	}

	for (k = 0; k < n; k++) {
		for (i = 0; i < CONC_OBJS; i++) {
			u8 *p;

			if (!w[k].h[i])
				continue;
			p = zsmod_map_object(pool, w[k].h[i], ZSMOD_MM_RO);
			w[k].bad += !p || pat_check(p, w[k].len[i], w[k].seed[i]) != -1;
			if (p)
				zsmod_unmap_object(pool, w[k].h[i]);
			zsmod_free(pool, w[k].h[i]);
		}
		KUNIT_EXPECT_EQ_MSG(test, w[k].bad, 0UL, "worker %u read back bad data", k);
		KUNIT_EXPECT_EQ_MSG(test, w[k].failed, 0UL, "worker %u: allocations failed", k);
		/* all of round 0, then the third freed in each round */
		KUNIT_EXPECT_EQ(test, w[k].ops,
				CONC_OBJS + (CONC_ROUNDS - 1) * (CONC_OBJS / 3UL));
	}
	kunit_info(test, "%u workers, %lu compactions meanwhile: %lu pages freed",
		   n, compactions, st1.pages_compacted - st0.pages_compacted);
	/* compaction had work while the workers ran: the frees leave holes */
	KUNIT_EXPECT_GT(test, st1.pages_compacted - st0.pages_compacted, 0UL);
	/* everything freed: the pool's pages go, queued frees included */
	deadline = jiffies + 2 * HZ;
	while ((zsmod_get_total_pages(pool) || nr_zspages() > base) &&
	       time_before(jiffies, deadline))
		usleep_range(5000, 10000);
	KUNIT_EXPECT_EQ_MSG(test, zsmod_get_total_pages(pool), 0UL,
			    "pages of the pool not given back");
	KUNIT_EXPECT_LE(test, nr_zspages(), base);
	zsmod_destroy_pool(pool);
}

/*
 * The seed of test_random_ops: 0 draws one. A failure prints the seed;
 * zsmalloc_mod_kunit.random_ops_seed=<seed> on the kernel command line
 * (built in) or at insmod replays the same operations.
 */
static unsigned long random_ops_seed;
module_param(random_ops_seed, ulong, 0644);
MODULE_PARM_DESC(random_ops_seed, "seed of test_random_ops (0: random)");

enum random_op {
	OP_MALLOC, OP_FREE, OP_CHECK, OP_REWRITE, OP_COMPACT, OP_MIGRATE,
	NR_RANDOM_OPS
};

/* Out of 100: mostly malloc and free, so that the pool grows and shrinks. */
static const unsigned int random_op_weight[NR_RANDOM_OPS] = {
	[OP_MALLOC] = 40, [OP_FREE] = 30, [OP_CHECK] = 12, [OP_REWRITE] = 12,
	[OP_COMPACT] = 2, [OP_MIGRATE] = 4,
};

static enum random_op pick_op(struct rnd_state *rnd)
{
	unsigned int r = prandom_u32_state(rnd) % 100;
	enum random_op op;

	for (op = 0; op < NR_RANDOM_OPS - 1; op++) {
		if (r < random_op_weight[op])
			break;
		r -= random_op_weight[op];
	}
	return op;
}

/* A random live object of @tp, or -1. */
static int pick_live(struct tpool *tp, struct rnd_state *rnd)
{
	unsigned int i, start;

	if (!tp->n)
		return -1;
	start = prandom_u32_state(rnd) % tp->n;
	for (i = 0; i < tp->n; i++) {
		unsigned int idx = (start + i) % tp->n;

		if (tp->h[idx])
			return idx;
	}
	return -1;
}

/*
 * Malloc, free, map and read, rewrite, compact and migrate in a random
 * order, against a shadow model: the test's own record of every live
 * object's size and contents (struct tpool). Every few hundred steps,
 * and at the end, every object must read back and the pool's counters
 * must add up to what the model holds.
 */
static void test_random_ops(struct kunit *test)
{
	const unsigned int steps = 3000;
	unsigned long seed = random_ops_seed, pfns[MAX_PFNS];
	unsigned int step, count[NR_RANDOM_OPS] = {}, migrated = 0;
	struct tpool *tp = tpool_create(test, steps);
	struct rnd_state rnd;
	int idx, np;

	NEED_CONTIG(test);
	if (!seed)
		seed = get_random_u64() | 1;
	kunit_info(test, "seed %lu (replay: zsmalloc_mod_kunit.random_ops_seed=%lu)\n",
		   seed, seed);
	prandom_seed_state(&rnd, seed);
	/* the first zspages in a pageblock that alloc_contig_range() can take */
	offer_clean_pageblock(test);

	for (step = 0; step < steps; step++) {
		enum random_op op = pick_op(&rnd);

		count[op]++;
		switch (op) {
		case OP_MALLOC:
			/* every size from 1 byte to the largest, huge included */
			idx = tpool_alloc(tp, 1 + prandom_u32_state(&rnd) %
					  zsmod_max_alloc_size(), MOVABLE_GFP);
			KUNIT_ASSERT_GE_MSG(test, idx, 0, "seed %lu step %u", seed, step);
			break;
		case OP_FREE:
			idx = pick_live(tp, &rnd);
			if (idx >= 0)
				tpool_free(tp, idx);
			break;
		case OP_CHECK:
			idx = pick_live(tp, &rnd);
			if (idx >= 0)
				KUNIT_ASSERT_EQ_MSG(test, tpool_check(tp, idx), -1L,
						    "seed %lu step %u: object %d", seed, step,
						    idx);
			break;
		case OP_REWRITE:
			idx = pick_live(tp, &rnd);
			if (idx < 0)
				break;
			tp->seed[idx] = prandom_u32_state(&rnd);
			KUNIT_ASSERT_EQ(test, tpool_write(tp, idx, prandom_u32_state(&rnd) & 1 ?
							  ZSMOD_MM_RW : ZSMOD_MM_WO), 0);
			break;
		case OP_COMPACT:
			zsmod_compact(tp->pool);
			break;
		case OP_MIGRATE:
			idx = pick_live(tp, &rnd);
			if (idx < 0)
				break;
			np = zspage_pfns(tp, idx, pfns);
			KUNIT_ASSERT_GT(test, np, 0);
			/* the core may refuse (-EBUSY): that is no error of ours */
			if (!contig_migrate_pfn(pfns[prandom_u32_state(&rnd) % np]))
				migrated++;
			break;
		default:
			break;
		}
		if (step % 500 == 499) {
			KUNIT_ASSERT_EQ_MSG(test, tpool_check_all(tp), 0U,
					    "seed %lu step %u", seed, step);
			expect_consistent(tp);
		}
		cond_resched();
	}
	kunit_info(test, "malloc %u free %u check %u rewrite %u compact %u migrate %u (%u moved)\n",
		   count[OP_MALLOC], count[OP_FREE], count[OP_CHECK],
		   count[OP_REWRITE], count[OP_COMPACT], count[OP_MIGRATE], migrated);
	KUNIT_EXPECT_GT_MSG(test, migrated, 0U, "seed %lu: no migration went through", seed);
	KUNIT_EXPECT_EQ_MSG(test, tpool_check_all(tp), 0U, "seed %lu", seed);
	expect_consistent(tp);
	free_destroy_check(tp);
}

static struct kunit_case compaction_cases[] = {
	KUNIT_CASE(test_compaction),
	KUNIT_CASE_SLOW(test_auto_compact),
	KUNIT_CASE_SLOW(test_auto_compact_churn),
	KUNIT_CASE(test_deferred_free),
	KUNIT_CASE(test_mapped_object_stays),
	KUNIT_CASE_SLOW(test_concurrent_ops),
	KUNIT_CASE_SLOW(test_random_ops),
	{}
};

struct kunit_suite zsmalloc_mod_compaction_suite = {
	.name = "zsmalloc_mod_compaction",
	.test_cases = compaction_cases,
};
