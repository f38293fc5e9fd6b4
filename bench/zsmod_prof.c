// SPDX-License-Identifier: GPL-2.0
/*
 * zsmod_prof: a sampling profiler of kernel time, for the benchmark guest.
 *
 * Under qemu -icount guest time counts instructions, so a timer that fires
 * every "period_ns" nanoseconds samples the kernel's instruction stream
 * evenly: the number of samples that land in a function is proportional to
 * the instructions executed in it. The guest has no perf tool; this is the
 * part of it we need.
 *
 *   echo 1 > /sys/kernel/debug/zsmod_prof/enable   start (clears samples)
 *   echo 0 > /sys/kernel/debug/zsmod_prof/enable   stop
 *   cat /sys/kernel/debug/zsmod_prof/report        "COUNT FUNCTION" lines,
 *                                                  largest first; with the
 *                                                  detail parameter, then
 *                                                  "COUNT @FUNCTION+OFFSET"
 *
 * A sample outside the kernel counts as "[user]"; one that finds no
 * interrupted context (the timer fired in idle, say) as "[none]".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/irq_regs.h>

static unsigned int period_ns = 5000;
module_param(period_ns, uint, 0444);
MODULE_PARM_DESC(period_ns, "sampling period in (guest) nanoseconds");
static char *detail;
module_param(detail, charp, 0444);
MODULE_PARM_DESC(detail, "also report per address in functions whose name contains this (say \"[zsmalloc_mod]\")");
static unsigned int max_samples = 1U << 22;
module_param(max_samples, uint, 0444);
MODULE_PARM_DESC(max_samples, "samples kept; later ones are counted as lost");

#define IP_USER		1UL
#define IP_NONE		2UL

static unsigned long *samples;
static atomic_t nr_samples;
static bool running;
static DEFINE_MUTEX(prof_lock);
static DEFINE_PER_CPU(struct hrtimer, prof_timer);
static struct dentry *prof_dir;

static enum hrtimer_restart prof_tick(struct hrtimer *timer)
{
	struct pt_regs *regs = get_irq_regs();
	unsigned long ip = IP_NONE;
	int n;

	if (regs)
		ip = user_mode(regs) ? IP_USER : instruction_pointer(regs);
	n = atomic_inc_return(&nr_samples) - 1;
	if (n < max_samples)
		samples[n] = ip;
	if (!READ_ONCE(running))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(period_ns));
	return HRTIMER_RESTART;
}

static void prof_start_cpu(void *unused)
{
	struct hrtimer *timer = this_cpu_ptr(&prof_timer);

	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	timer->function = prof_tick;
	hrtimer_start(timer, ns_to_ktime(period_ns), HRTIMER_MODE_REL_PINNED_HARD);
}

static void prof_stop(void)
{
	int cpu;

	WRITE_ONCE(running, false);
	for_each_online_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&prof_timer, cpu));
}

static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	bool on;
	int ret = kstrtobool_from_user(ubuf, len, &on);

	if (ret)
		return ret;
	mutex_lock(&prof_lock);
	if (on && !running) {
		atomic_set(&nr_samples, 0);
		WRITE_ONCE(running, true);
		on_each_cpu(prof_start_cpu, NULL, 1);
	} else if (!on && running) {
		prof_stop();
	}
	mutex_unlock(&prof_lock);
	return len;
}

static const struct file_operations enable_fops = {
	.owner = THIS_MODULE,
	.write = enable_write,
};

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

struct prof_entry {
	unsigned long count;
	char name[KSYM_NAME_LEN];
};

static int cmp_entry(const void *a, const void *b)
{
	const struct prof_entry *x = a, *y = b;

	return x->count > y->count ? -1 : x->count < y->count;
}

static void name_of(unsigned long ip, char *buf)
{
	if (ip == IP_USER)
		strscpy(buf, "[user]", KSYM_NAME_LEN);
	else if (ip == IP_NONE)
		strscpy(buf, "[none]", KSYM_NAME_LEN);
	else
		sprint_symbol_no_offset(buf, ip);
}

/* Samples sorted by address fall into functions in runs: count the runs. */
static int report_show(struct seq_file *s, void *v)
{
	unsigned int n, i, nent = 0, cap = 4096;
	struct prof_entry *ent;
	char name[KSYM_NAME_LEN];

	mutex_lock(&prof_lock);
	if (running) {
		mutex_unlock(&prof_lock);
		return -EBUSY;
	}
	n = min_t(unsigned int, atomic_read(&nr_samples), max_samples);
	ent = kvcalloc(cap, sizeof(*ent), GFP_KERNEL);
	if (!ent) {
		mutex_unlock(&prof_lock);
		return -ENOMEM;
	}
	sort(samples, n, sizeof(*samples), cmp_ulong, NULL);
	for (i = 0; i < n; i++) {
		if (i && samples[i] == samples[i - 1]) {
			ent[nent - 1].count++;
			continue;
		}
		name_of(samples[i], name);
		if (nent && !strcmp(ent[nent - 1].name, name)) {
			ent[nent - 1].count++;
			continue;
		}
		if (nent == cap)
			break;
		strscpy(ent[nent].name, name, KSYM_NAME_LEN);
		ent[nent++].count = 1;
	}
	sort(ent, nent, sizeof(*ent), cmp_entry, NULL);
	seq_printf(s, "%u samples (%d lost), period %u ns\n", n,
		   max(0, atomic_read(&nr_samples) - (int)n), period_ns);
	for (i = 0; i < nent; i++)
		seq_printf(s, "%lu %s\n", ent[i].count, ent[i].name);
	for (i = 0; detail && *detail && i < n; i++) {
		unsigned int j = i;

		if (samples[i] <= IP_NONE)
			continue;
		while (j + 1 < n && samples[j + 1] == samples[i])
			j++;
		sprint_symbol(name, samples[i]);
		if (strstr(name, detail))
			seq_printf(s, "%u @%s\n", j - i + 1, name);
		i = j;
	}
	kvfree(ent);
	mutex_unlock(&prof_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(report);

static int __init prof_init(void)
{
	samples = vmalloc_array(max_samples, sizeof(*samples));
	if (!samples)
		return -ENOMEM;
	prof_dir = debugfs_create_dir("zsmod_prof", NULL);
	debugfs_create_file("enable", 0200, prof_dir, NULL, &enable_fops);
	debugfs_create_file("report", 0400, prof_dir, NULL, &report_fops);
	return 0;
}

static void __exit prof_exit(void)
{
	debugfs_remove_recursive(prof_dir);
	mutex_lock(&prof_lock);
	if (running)
		prof_stop();
	mutex_unlock(&prof_lock);
	vfree(samples);
}

module_init(prof_init);
module_exit(prof_exit);
MODULE_DESCRIPTION("Sampling profiler of kernel time for the zsmalloc_mod benchmarks");
MODULE_LICENSE("GPL");
