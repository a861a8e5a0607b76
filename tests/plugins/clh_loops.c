/* SPDX-License-Identifier: MIT */
/*
 * A CLH queue lock as a plugin on the built-ins' loop, its per-thread
 * context private to the thread (<lockbench/loops.h>):
 *   clh_inline  LOCKBENCH_PLUGIN_LOOPS_PRIVATE(): the loop runs the
 *               context in a local, as the built-in clh's does
 *   clh_plain   the same functions with LOCKBENCH_PLUGIN_LOOPS(): the
 *               loop runs them on the worker's context
 * The algorithm: T. Craig, "Building FIFO and priority-queuing spin
 * locks from atomic swap" (TR 93-02-02, U. Washington, 1993), and
 * P. Magnusson, A. Landin, E. Hagersten, "Queue locks on cache coherent
 * multiprocessors" (IPPS 1994).  Each thread owns one queue node at a
 * time, which lives outside its context (other threads spin on it); the
 * context holds only the two node pointers, so a copy of it is the
 * thread's whole state.  The lock starts with one released node as its
 * tail; a thread queues its node by swapping it into the tail, spins on
 * the node it displaced, and on release leaves its own node to its
 * successor and takes the displaced one as its next node.
 * Built with -DCLH_LOOPS_CTX_SIZE=N, clh_inline declares a context of N
 * bytes instead, which its private loops do not match
 * (tests/e2e_plugin.sh: the loader warns and runs the generic loop).
 */
#include <errno.h>

#include <lockbench/loops.h>

struct cl_node {
	LB_ALIGNED _Atomic uint32_t busy; /* 1 while its owner waits or holds */
};

struct cl_lock {
	LB_ALIGNED _Atomic(struct cl_node *) tail; /* the last node queued */
	/* read-only after init */
	LB_ALIGNED struct cl_node *pool;           /* nthreads + 1 nodes */
	size_t pool_bytes;
	void (*free_mem)(void *p, size_t size);
};

struct cl_ctx {
	struct cl_node *mine; /* the node this thread queues next */
	struct cl_node *prev; /* the node it spins on, then takes over */
};

#ifndef CLH_LOOPS_CTX_SIZE
#define CLH_LOOPS_CTX_SIZE sizeof(struct cl_ctx)
#endif

/* Node 0 is the released node the queue starts from; thread t starts
 * with node t + 1. */
static int cl_init(void *lock, const struct lock_init *in)
{
	struct cl_lock *l = lock;

	l->pool_bytes = ((size_t)in->nthreads + 1) * sizeof(struct cl_node);
	l->pool = in->alloc(l->pool_bytes);
	if (!l->pool)
		return -ENOMEM;
	l->free_mem = in->free_mem;
	atomic_store_explicit(&l->tail, &l->pool[0], lb_rlx);
	return 0;
}

static void cl_destroy(void *lock)
{
	struct cl_lock *l = lock;

	l->free_mem(l->pool, l->pool_bytes);
}

static int cl_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	struct cl_lock *l = lock;
	struct cl_ctx *c = ctx;

	c->mine = &l->pool[t->tid + 1];
	c->prev = NULL;
	return 0;
}

static inline void cl_lock(void *lock, void *ctx)
{
	struct cl_lock *l = lock;
	struct cl_ctx *c = ctx;
	struct cl_node *n = c->mine, *p;

	/* Nobody looks at our node until the swap below publishes it. */
	atomic_store_explicit(&n->busy, 1, lb_rlx);
	/* Queue behind the last node.  Release: a successor that finds our
	 * node in the tail sees busy = 1.  Acquire: the predecessor's own
	 * busy = 1, stored before it queued, is not read stale below. */
	p = atomic_exchange_explicit(&l->tail, n, lb_ar);
	c->prev = p;
	/* Its owner's release store of 0 hands us the lock; the acquire
	 * orders our section after its section. */
	while (atomic_load_explicit(&p->busy, lb_acq))
		cpu_relax();
}

static inline void cl_unlock(void *lock, void *ctx)
{
	struct cl_ctx *c = ctx;

	(void)lock;
	/* Our successor (if any) spins on our node: release it and the
	 * section with it.  The node is the successor's to take now; the
	 * predecessor's, which nobody will read again, becomes ours. */
	atomic_store_explicit(&c->mine->busy, 0, lb_rel);
	c->mine = c->prev;
}

static const struct lock_ops clh_inline = {
	.name = "clh_inline",
	.desc = "CLH queue lock, private context on the inline loop (test plugin)",
	.ref = "Craig 1993; Magnusson, Landin, Hagersten, IPPS 1994",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct cl_lock),
	.ctx_size = CLH_LOOPS_CTX_SIZE,
	.init = cl_init,
	.destroy = cl_destroy,
	.thread_init = cl_thread_init,
	.lock = cl_lock,
	.unlock = cl_unlock,
};

static const struct lock_ops clh_plain = {
	.name = "clh_plain",
	.desc = "CLH queue lock on the inline loop, context shared (test plugin)",
	.ref = "Craig 1993; Magnusson, Landin, Hagersten, IPPS 1994",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct cl_lock),
	.ctx_size = sizeof(struct cl_ctx),
	.init = cl_init,
	.destroy = cl_destroy,
	.thread_init = cl_thread_init,
	.lock = cl_lock,
	.unlock = cl_unlock,
};

LOCKBENCH_PLUGIN(&clh_inline, &clh_plain);
LOCKBENCH_PLUGIN_LOOPS_PRIVATE(clh_inline, struct cl_ctx, cl_lock, cl_unlock);
LOCKBENCH_PLUGIN_LOOPS(clh_plain, cl_lock, cl_unlock);
