/* SPDX-License-Identifier: MIT */
/*
 * cna - Compact NUMA-aware lock: the qspinlock word and fast path with
 * the CNA slow path.  The MCS queue is split in two: a main queue of
 * waiters on the lock holder's node and a secondary queue of the others.
 * The queue head, while it waits for the lock anyway, moves waiters of
 * other nodes off the main queue onto the secondary queue, so the MCS
 * hand-off goes to a waiter on the same node; the secondary queue is
 * spliced back when the main queue runs dry or a fairness bound expires.
 *
 * D. Dice and A. Kogan, "Compact NUMA-aware locks", EuroSys 2019
 * (arXiv:1810.05600); the Linux patch series "Add NUMA-awareness to
 * qspinlock" by A. Kogan, v15 (May 2021), kernel/locking/qspinlock_cna.h,
 * never merged upstream.
 *
 * Encoding, as in the patch: a node's `locked` field is 0 while it waits,
 * 1 when it becomes head with no secondary queue, and otherwise the
 * encoded tail of the secondary queue, which is a circular list (its
 * tail's next points at its head), so append and splice are O(1):
 *
 *   head: locked = tail_2nd       next -> main -> main -> ... -> NULL
 *   tail_2nd -> head_2nd -> ... -> tail_2nd                 (secondary)
 *
 * Fairness bounds (lock options):
 *  - threshold_ns (v15): once the secondary queue has existed for this
 *    long, the next head splices it in front of the main queue.  Time is
 *    read with clock_gettime(CLOCK_MONOTONIC), the user-space equivalent
 *    of the patch's local_clock(): a vDSO call of a few tens of ns with a
 *    stable TSC or arch timer, made exactly where the patch calls
 *    local_clock(): when a secondary queue is created and once per queue
 *    head while one exists, i.e. only on the slow path, never on the fast
 *    path or in the spin loops.  A cycle counter would be cheaper but
 *    needs per-architecture code and a frequency to convert ns; the
 *    contended hand-off already costs cache misses of the same order.
 *    0 disables the time bound.
 *  - threshold_count (pre-v15 rule, 2^16 there): splice back after that
 *    many local hand-offs since the secondary queue was created; 0
 *    disables it.  Both may be on; whichever expires first wins.
 *
 * The node is the thread context; its NUMA node comes from
 * lock_thread.node (so --fake-nodes exercises the queue split).
 */
#include <time.h>

#include "cna.h"
#include "registry.h"

enum { CNA_OPT_NS, CNA_OPT_COUNT };

static const struct lock_opt cna_opts[] = {
	[CNA_OPT_NS] = {"threshold_ns",
			"splice the secondary queue back after it has waited this long (0: off)",
			1000000, 0, 10000000000ull},
	[CNA_OPT_COUNT] = {"threshold_count",
			   "splice the secondary queue back after this many local hand-offs (0: off)",
			   0, 0, UINT32_MAX},
};

/* lock_ops glue. */

static int cna_init(void *lock, const struct lock_init *in)
{
	struct cna *c = lock;

	c->threshold_ns = in->opt[CNA_OPT_NS];
	c->threshold_count = in->opt[CNA_OPT_COUNT];
	return qspin_table_init(&c->q, in);
}

static void cna_destroy(void *lock)
{
	struct cna *c = lock;

	qspin_table_destroy(&c->q);
}

static int cna_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	struct cna *c = lock;
	struct cna_node *cn = ctx;

	cn->real_numa_node = t->node;
	return qspin_table_register(&c->q, &cn->mcs, t);
}

static const char *const cna_counter_names[] = {
	"pending",            /* acquired as the pending owner */
	"queued",             /* queued on the MCS queue */
	"local_handoffs",     /* head role passed within the preferred node */
	"remote_handoffs",    /* head role passed to another node */
	"moves_to_secondary", /* waiters moved to the secondary queue */
	"splices_empty_main", /* secondary queue back: main queue ran dry */
	"splices_fairness",   /* secondary queue back: threshold expired */
};

static const unsigned cna_counter_slots[] = {
	QSTAT_PENDING,  QSTAT_QUEUED,       CSTAT_LOCAL,      CSTAT_REMOTE,
	CSTAT_MOVED,    CSTAT_SPLICE_EMPTY, CSTAT_SPLICE_FAIR,
};


static void cna_read_counters(void *lock, uint64_t *out)
{
	struct cna *c = lock;

	qspin_sum_stats(&c->q, cna_counter_slots,
			LOCK_NELEMS(cna_counter_slots), out);
}

const struct lock_ops lock_cna_ops = {
	LOCK_KIND(cna, NUMA, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_NUMA),
	.desc = "compact NUMA-aware lock: qspinlock with main and secondary queues",
	.ref = "Dice & Kogan, EuroSys 2019 (arXiv:1810.05600); Linux CNA patch v15, kernel/locking/qspinlock_cna.h",
	LOCK_SIZES(struct cna, struct cna_node),
	LOCK_SETUP(cna_init, cna_destroy, cna_thread_init),
	LOCK_CALLS(cna_lock, cna_unlock, cna_trylock),
	LOCK_OPTIONS(cna_opts),
	LOCK_COUNTERS(cna_counter_names, cna_read_counters),
};
