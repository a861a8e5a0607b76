/* SPDX-License-Identifier: MIT */
/*
 * The glue between a kernel tree's lock and lockbench's lock contract:
 * compiled with the tree's files into one plugin by `lockbench
 * build-kernel-lock` (kernel/tree/ktree.c), which generates a small file
 * that defines LB_KC_IDENTITY (the build's identity, a JSON object) and
 * one of LB_KC_QSPINLOCK, LB_KC_QRWLOCK, LB_KC_OSQ, then includes this.
 *
 * Each worker thread is a CPU: its thread_init makes it CPU `tid`
 * (lb_k_cpu_enter(), <lockbench/kernel.h>), so the tree's per-CPU queue
 * nodes are the worker's own and smp_processor_id() is its index.  The
 * lock object is the tree's own type, zeroed by the harness, which is
 * its unlocked value (__ARCH_SPIN_LOCK_UNLOCKED, __ARCH_RW_LOCK_UNLOCKED,
 * OSQ_LOCK_UNLOCKED are all zero).
 *
 * With LB_KC_LOOPS (defined by the builder when it found the worker-loop
 * template of the lockbench that builds, <lockbench/loop_template.h>,
 * with that lockbench's loop ABI), each lock carries its own worker
 * loops (<lockbench/loops.h>, LOCKBENCH_PLUGIN_LOOPS()): the wrappers
 * below, and the tree's inline fast path under them, are inlined into
 * the timed loop as a built-in lock's are, instead of being called
 * through the ops table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kconfig.h>
#ifdef LB_KC_LOOPS
#include <lockbench/loops.h>
#define KC_LOOPS(...) LOCKBENCH_PLUGIN_LOOPS(__VA_ARGS__)
#else
#define KC_LOOPS(...) _Static_assert(1, "")
#endif

#ifdef LB_KC_QSPINLOCK
#ifdef CONFIG_NUMA_AWARE_SPINLOCKS
/* The CNA series (kernel/locking/qspinlock_cna.h) builds a second slow
 * path, __cna_queued_spin_lock_slowpath, and x86 switches to it at boot
 * by patching the paravirt call of the fast path; here the tree's own
 * fast path calls it directly. */
#define queued_spin_lock_slowpath __cna_queued_spin_lock_slowpath
#endif
#include <asm/qspinlock.h>
#endif
#ifdef LB_KC_QRWLOCK
/* As kernel code reaches it: the arch's spinlock types first. */
#include <linux/spinlock.h>
#endif
#ifdef LB_KC_OSQ
#include <linux/osq_lock.h>
#endif

/*
 * The tree's own lock event counters (kernel/locking/lock_events.h,
 * built with CONFIG_LOCK_EVENT_COUNTS: `--lock-events`).  The kernel
 * defines them per CPU in lock_events.c and sums them over the CPUs when
 * debugfs is read; here a CPU is a worker thread, so each worker counts
 * in its own copy, adds it to the run's totals as it exits (a
 * pthread key's destructor, which runs before the thread's storage
 * goes), and the totals, by the names of the tree's
 * lock_events_list.h, are the lock's counters (lock_ops.read_counters).
 * Both headers are the tree's kernel/locking/ ones (on the include path,
 * last, for this build only).
 */
#if defined(CONFIG_LOCK_EVENT_COUNTS) && (defined(LB_KC_QSPINLOCK) || defined(LB_KC_QRWLOCK))
#include <pthread.h>
#include <lock_events.h>

DEFINE_PER_CPU(unsigned long, lockevents[lockevent_num]);

static const char *const kc_event_names[] = {
#undef LOCK_EVENT
#define LOCK_EVENT(name) #name,
#include <lock_events_list.h>
#undef LOCK_EVENT
};

static uint64_t kc_event_total[lockevent_num];
static pthread_key_t kc_event_key;
static pthread_once_t kc_event_once = PTHREAD_ONCE_INIT;

static void kc_events_fold(void *unused)
{
	(void)unused;
	for (unsigned i = 0; i < lockevent_num; i++)
		__atomic_fetch_add(&kc_event_total[i], lockevents[i], __ATOMIC_RELAXED);
}

static void kc_events_key(void)
{
	if (pthread_key_create(&kc_event_key, kc_events_fold))
		abort();
}

static int kc_events_thread(void)
{
	pthread_once(&kc_event_once, kc_events_key);
	return pthread_setspecific(kc_event_key, kc_event_names) ? -ENOMEM : 0;
}

static void kc_events_read(void *lock, uint64_t *out)
{
	(void)lock;
	for (unsigned i = 0; i < lockevent_num; i++)
		out[i] = __atomic_load_n(&kc_event_total[i], __ATOMIC_RELAXED);
}

#define KC_EVENTS_RESET() memset(kc_event_total, 0, sizeof(kc_event_total))
#define KC_EVENTS_THREAD() kc_events_thread()
#define KC_EVENTS_OPS                                                          \
	.counter_names = kc_event_names, .ncounters = lockevent_num,           \
	.read_counters = kc_events_read,
#else
#define KC_EVENTS_RESET() ((void)0)
#define KC_EVENTS_THREAD() 0
#define KC_EVENTS_OPS
#endif

#if defined(CONFIG_NUMA_AWARE_SPINLOCKS) && defined(LB_KC_QSPINLOCK)
#include <pthread.h>
#include <time.h>
#include <asm/paravirt.h>

/* What the layer's CNA shims read (<linux/topology.h>, <asm/paravirt.h>,
 * <linux/sched/clock.h>, <asm/mcs_spinlock.h>): each worker's node from
 * the placement, the run's nodes, the paravirt slot, the clock, and the
 * handoffs counted per worker, summed as the worker exits (as the lock
 * events are above). */
unsigned lb_kc_cpu_node[CONFIG_NR_CPUS];
unsigned lb_kc_nr_nodes = 1;
struct lb_kc_pv_ops pv_ops = {{native_queued_spin_lock_slowpath}};
__thread unsigned long lb_kc_cna_handoff[2];

unsigned long *lb_kc_param_numa_spinlock_threshold_ns(void);
int lb_kc_setup_numa_spinlock_setup(char *s);
void cna_configure_spin_lock_slowpath(void);

u64 lb_kc_local_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000u + (u64)ts.tv_nsec;
}

static const char *const kc_cna_names[] = {"mcs_handoff", "mcs_handoff_2nd"};
static uint64_t kc_cna_total[2];
static pthread_key_t kc_cna_key;
static pthread_once_t kc_cna_once = PTHREAD_ONCE_INIT;

static void kc_cna_fold(void *unused)
{
	(void)unused;
	for (unsigned i = 0; i < 2; i++)
		__atomic_fetch_add(&kc_cna_total[i], lb_kc_cna_handoff[i], __ATOMIC_RELAXED);
}

static void kc_cna_key_make(void)
{
	if (pthread_key_create(&kc_cna_key, kc_cna_fold))
		abort();
}

static void kc_cna_read(void *lock, uint64_t *out)
{
	(void)lock;
	for (unsigned i = 0; i < 2; i++)
		out[i] = __atomic_load_n(&kc_cna_total[i], __ATOMIC_RELAXED);
}

/* init: the threshold (`--lock-opt`, the tree's module parameter), the
 * run's nodes, and the boot parameter numa_spinlock=on (CNA whatever the
 * node count, as the table compares the two slow paths). */
static int kc_cna_init(const struct lock_init *in)
{
	*lb_kc_param_numa_spinlock_threshold_ns() = (unsigned long)in->opt[0];
	lb_kc_nr_nodes = in->nnodes ? in->nnodes : 1;
	memset(kc_cna_total, 0, sizeof(kc_cna_total));
	return lb_kc_setup_numa_spinlock_setup((char[]){"on"}) == 1 ? 0 : -EINVAL;
}

/* A worker: its CPU's node, then the tree's boot-time set-up of that
 * CPU's queue nodes (<linux/cpumask.h>: for its own CPU). */
static int kc_cna_thread(const struct lock_thread *t)
{
	lb_kc_cpu_node[t->tid] = t->node;
	lb_kc_cna_handoff[0] = lb_kc_cna_handoff[1] = 0;
	cna_configure_spin_lock_slowpath();
	pthread_once(&kc_cna_once, kc_cna_key_make);
	return pthread_setspecific(kc_cna_key, kc_cna_names) ? -ENOMEM : 0;
}

/* The qspinlock's first option (in->opt[0] above). */
#define KC_CNA_OPT                                                             \
	{"numa_spinlock_threshold_ns", "CNA: time a secondary queue may wait " \
	 "before the lock goes to another node (the tree's module parameter)", \
	 1000000, 1, 1ull << 40},

#define KC_CNA_INIT(in) kc_cna_init(in)
#define KC_CNA_THREAD(t) kc_cna_thread(t)
#if defined(CONFIG_LOCK_EVENT_COUNTS)
#define KC_CNA_OPS
#else
#define KC_CNA_OPS                                                             \
	.counter_names = kc_cna_names, .ncounters = 2, .read_counters = kc_cna_read,
#endif
#else
#define KC_CNA_OPT
#define KC_CNA_INIT(in) 0
#define KC_CNA_THREAD(t) 0
#define KC_CNA_OPS
#endif

/* Every tree lock's last option: its spin waits give up the CPU
 * (<linux/kconfig.h>, lb_kc_relax(); docs/kernel-tree.md).  A build
 * with LB_KC_NO_SPIN_YIELD has waits that never yield: 0 only. */
#ifdef LB_KC_NO_SPIN_YIELD
#define KC_YIELD_MAX 0
#else
#define KC_YIELD_MAX 1
#endif
#define KC_YIELD_OPT                                                           \
	{"spin_yield", "1: the tree's spin waits call sched_yield(), as a "   \
	 "kernel waiter is never preempted (for more threads than CPUs)",       \
	 0, 0, KC_YIELD_MAX}

/* The build's identity (compiler, flags, tree, files and their hashes),
 * read by the loader into the results' provenance. */
const char lockbench_plugin_identity[] = LB_KC_IDENTITY;

__thread unsigned long lb_kc_resched_budget;
int lb_kc_spin_yield;

/* yield: the index of the lock's spin_yield option (KC_YIELD_OPT). */
static int kc_init(const struct lock_init *in, unsigned yield)
{
	KC_EVENTS_RESET();
	__atomic_store_n(&lb_kc_spin_yield, in->opt[yield] != 0, __ATOMIC_RELAXED);
	return in->nthreads > CONFIG_NR_CPUS ? -ERANGE : 0;
}

static int kc_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	(void)lock;
	(void)ctx;
	if (lb_k_cpu_enter(t->tid))
		return -ERANGE;
	return KC_CNA_THREAD(t) ? -ENOMEM : KC_EVENTS_THREAD();
}

#define KC_OPS(lname, what, file, fam, capbits, type)                          \
	.name = lname, .desc = what, .ref = file, .family = fam,               \
	.caps = capbits, .lock_size = sizeof(type),                             \
	.thread_init = kc_thread_init

#ifdef LB_KC_QSPINLOCK
#ifdef CONFIG_NUMA_AWARE_SPINLOCKS
#define KC_QSPIN_DESC "the tree's queued spinlock, CNA slow path (CONFIG_NUMA_AWARE_SPINLOCKS)"
#else
#define KC_QSPIN_DESC "the tree's queued spinlock, native path"
#endif

static const struct lock_opt kc_qspin_opts[] = {KC_CNA_OPT KC_YIELD_OPT};

static int kc_qspin_init(void *lock, const struct lock_init *in)
{
	int e = kc_init(in, ARRAY_SIZE(kc_qspin_opts) - 1);

	(void)lock;
	return e ? e : KC_CNA_INIT(in);
}

static inline void kc_spin_lock(void *l, void *c)
{
	(void)c;
	queued_spin_lock(l);
}

static inline void kc_spin_unlock(void *l, void *c)
{
	(void)c;
	queued_spin_unlock(l);
}

static inline bool kc_spin_trylock(void *l, void *c)
{
	(void)c;
	return queued_spin_trylock(l);
}

static const struct lock_ops kc_qspinlock_ops = {
	KC_OPS("qspinlock", KC_QSPIN_DESC,
	       "kernel/locking/qspinlock.c", LOCK_FAMILY_SPIN,
	       LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK, struct qspinlock),
	.opts = kc_qspin_opts,
	.nopts = ARRAY_SIZE(kc_qspin_opts),
	.init = kc_qspin_init,
	.lock = kc_spin_lock,
	.unlock = kc_spin_unlock,
	.trylock = kc_spin_trylock,
	KC_EVENTS_OPS
	KC_CNA_OPS
};
LOCKBENCH_PLUGIN(&kc_qspinlock_ops);
KC_LOOPS(kc_qspinlock_ops, kc_spin_lock, kc_spin_unlock);
#endif

#ifdef LB_KC_QRWLOCK
static const struct lock_opt kc_qrw_opts[] = {KC_YIELD_OPT};

static int kc_qrw_init(void *lock, const struct lock_init *in)
{
	(void)lock;
	return kc_init(in, 0);
}

static inline void kc_write_lock(void *l, void *c)
{
	(void)c;
	queued_write_lock(l);
}

static inline void kc_write_unlock(void *l, void *c)
{
	(void)c;
	queued_write_unlock(l);
}

static inline bool kc_write_trylock(void *l, void *c)
{
	(void)c;
	return queued_write_trylock(l);
}

static inline void kc_read_lock(void *l, void *c)
{
	(void)c;
	queued_read_lock(l);
}

static inline void kc_read_unlock(void *l, void *c)
{
	(void)c;
	queued_read_unlock(l);
}

static const struct lock_ops kc_qrwlock_ops = {
	KC_OPS("qrwlock", "the tree's queued rwlock (its wait lock the tree's qspinlock)",
	       "kernel/locking/qrwlock.c", LOCK_FAMILY_RW,
	       LOCK_CAP_EXCLUSIVE | LOCK_CAP_RW | LOCK_CAP_TRYLOCK, struct qrwlock),
	.opts = kc_qrw_opts,
	.nopts = ARRAY_SIZE(kc_qrw_opts),
	.init = kc_qrw_init,
	.lock = kc_write_lock,
	.unlock = kc_write_unlock,
	.trylock = kc_write_trylock,
	.read_lock = kc_read_lock,
	.read_unlock = kc_read_unlock,
	KC_EVENTS_OPS
};
LOCKBENCH_PLUGIN(&kc_qrwlock_ops);
KC_LOOPS(kc_qrwlock_ops, kc_write_lock, kc_write_unlock, kc_read_lock, kc_read_unlock);
#endif

#ifdef LB_KC_OSQ
static const struct lock_opt kc_osq_opts[] = {
	{"spins", "need_resched() polls before a waiter gives up its queue "
		  "place and queues again (0: never)", 1u << 16, 0, 1ull << 40},
	KC_YIELD_OPT,
};

struct kc_osq {
	struct optimistic_spin_queue q;
	unsigned long spins;
};

static int kc_osq_init(void *lock, const struct lock_init *in)
{
	((struct kc_osq *)lock)->spins = (unsigned long)in->opt[0];
	return kc_init(in, 1);
}

/* osq_lock() returns false when it gave up (need_resched()); then it
 * has left the queue, and queues again with a fresh budget. */
static inline void kc_osq_lock(void *l, void *c)
{
	struct kc_osq *o = l;

	(void)c;
	do
		lb_kc_resched_budget = o->spins;
	while (!osq_lock(&o->q));
}

static inline void kc_osq_unlock(void *l, void *c)
{
	(void)c;
	osq_unlock(&((struct kc_osq *)l)->q);
}

static const struct lock_ops kc_osq_ops = {
	KC_OPS("osq", "the tree's optimistic spin queue, spinning then giving up",
	       "kernel/locking/osq_lock.c", LOCK_FAMILY_SPIN, LOCK_CAP_EXCLUSIVE,
	       struct kc_osq),
	.opts = kc_osq_opts,
	.nopts = ARRAY_SIZE(kc_osq_opts),
	.init = kc_osq_init,
	.lock = kc_osq_lock,
	.unlock = kc_osq_unlock,
};
LOCKBENCH_PLUGIN(&kc_osq_ops);
KC_LOOPS(kc_osq_ops, kc_osq_lock, kc_osq_unlock);
#endif
