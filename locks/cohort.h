/* SPDX-License-Identifier: MIT */
/*
 * What the two cohort locks (cbomcs, hmcs) share besides the idea: an
 * array with one element per NUMA node in use, taken from the harness's
 * allocator; a bound on local hand-offs in a row (cbomcs' batch, hmcs'
 * threshold); and in each element two counters, hand-offs within the
 * node and releases of the upper (global, system) lock, which
 * read_counters() sums.  Each lock's struct starts with a struct cohort,
 * so that cohort_destroy() and cohort_read_counters() serve as its ops
 * (COHORT_OPS()).  The queues and the hand-off rules are each lock's own
 * (locks/cbomcs.h, locks/hmcs.h).
 */
#ifndef LOCKBENCH_LOCK_COHORT_H
#define LOCKBENCH_LOCK_COHORT_H

#include <errno.h>
#include <stddef.h>

#include "lockbench/lock.h"

/* The most NUMA nodes a cohort lock takes (ids are dense, 0..n-1). */
#define COHORT_MAX_NODES 4096

/* A cohort lock's one option: the bound on local hand-offs in a row. */
enum { COHORT_OPT_LIMIT };

/* A node's counters: written only by the holder of the node's lock
 * (relaxed atomics so that read_counters() may look at them). */
struct cohort_counts {
	_Atomic uint64_t local_passes; /* hand-offs within the node */
	_Atomic uint64_t releases;     /* releases of the upper lock */
};

/* The first member of a cohort lock; read-only after init. */
struct cohort {
	void *nodes; /* nnodes elements of `each` bytes (COHORT_NODE()) */
	unsigned nnodes;
	uint32_t limit; /* local hand-offs in a row: batch, threshold */
	size_t bytes;   /* of nodes, for free_mem */
	void (*free_mem)(void *p, size_t size);
	size_t each;      /* bytes per element */
	size_t counts_at; /* offset of its struct cohort_counts */
};

/* Element i of the node array of cohort c, as a `type`. */
#define COHORT_NODE(c, type, i) ((type *)(c)->nodes + (i))

/*
 * Allocate the node array of the cohort at `lock`, `each` bytes per NUMA
 * node of in with the counters at offset counts_at, and note the
 * hand-off bound.  Returns 0, -EINVAL (no node, or more than
 * COHORT_MAX_NODES) or -ENOMEM.
 */
static inline int cohort_init(void *lock, const struct lock_init *in,
			      size_t each, size_t counts_at)
{
	struct cohort *c = lock;

	if (!in->nnodes || in->nnodes > COHORT_MAX_NODES)
		return -EINVAL;
	c->bytes = (size_t)in->nnodes * each;
	c->nodes = in->alloc(c->bytes);
	if (!c->nodes)
		return -ENOMEM;
	c->free_mem = in->free_mem;
	c->nnodes = in->nnodes;
	c->limit = (uint32_t)in->opt[COHORT_OPT_LIMIT];
	c->each = each;
	c->counts_at = counts_at;
	return 0;
}

/* The lock's destroy(): give the node array back. */
static inline void cohort_destroy(void *lock)
{
	struct cohort *c = lock;

	if (c->nodes)
		c->free_mem(c->nodes, c->bytes);
	c->nodes = NULL;
}

/* The lock's read_counters(): out[0] the local passes, out[1] the
 * releases, summed over the nodes; called when no thread runs. */
static inline void cohort_read_counters(void *lock, uint64_t *out)
{
	struct cohort *c = lock;

	out[0] = out[1] = 0;
	for (unsigned i = 0; c->nodes && i < c->nnodes; i++) {
		struct cohort_counts *n = (struct cohort_counts *)(
			(char *)c->nodes + i * c->each + c->counts_at);

		out[0] += atomic_load_explicit(&n->local_passes, lb_rlx);
		out[1] += atomic_load_explicit(&n->releases, lb_rlx);
	}
}

/*
 * The ops-table lines the cohort locks share, for lock `n` with thread
 * context ctx_t and the name of its upper lock's release counter:
 * exclusive NUMA locks with n_opts (COHORT_OPT_LIMIT), n_init(),
 * n_thread_init(), n_lock() and n_unlock(), and no trylock.
 */
#define COHORT_OPS(n, ctx_t, releases)                                        \
	LOCK_KIND(n, NUMA, LOCK_CAP_EXCLUSIVE | LOCK_CAP_NUMA),                \
	LOCK_SIZES(struct n, ctx_t),                                           \
	LOCK_SETUP(n##_init, cohort_destroy, n##_thread_init),                 \
	LOCK_CALLS(n##_lock, n##_unlock, NULL), LOCK_OPTIONS(n##_opts),        \
	LOCK_COUNTERS(((const char *const[]){"local_passes", releases}),      \
		      cohort_read_counters)

#endif
