/* SPDX-License-Identifier: MIT */
/*
 * test_lit_locks - the literature locks (anderson, clh, ticket_prop,
 * cbomcs, hmcs, pthread_adaptive, pthread_rwlock[_wpref],
 * rwlock_classic) driven straight through their ops tables by real
 * pthreads, without the harness.
 *
 * Exclusion is checked two ways inside every critical section: an owner
 * word swapped in and out (any overlap is seen by one of the two
 * threads), and a plain counter whose final value must equal the number
 * of write acquisitions (an overlap loses increments).  Reader-writer
 * locks also count the readers inside: a writer must find none, a
 * reader must find no writer, and at least two readers must have been
 * inside together once.
 *
 * Four threads share two CPUs, so each thread yields after every
 * operation (never inside a lock): a FIFO lock would otherwise wait a
 * whole time slice for each preempted waiter it hands over to.  The NUMA
 * locks' hand-off counters are checked on a scripted pair of node mates,
 * which makes both kinds of release certain rather than likely.
 * LIT_TEST=<glob> runs only the matching tests.
 *
 * Build: gcc -std=gnu11 -O2 -Ilocks tests/test_lit_locks.c \
 *        locks/{anderson,clh,ticket_prop,cbomcs,hmcs,pthread_adaptive,\
 *        pthread_rwlock,rwlock_classic}.c -lcmocka -pthread
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lockbench/lock.h"
#include "ticket.h"

extern const struct lock_ops lock_anderson_ops;
extern const struct lock_ops lock_clh_ops;
extern const struct lock_ops lock_ticket_prop_ops;
extern const struct lock_ops lock_ticket_ops;
extern const struct lock_ops lock_cbomcs_ops;
extern const struct lock_ops lock_hmcs_ops;
extern const struct lock_ops lock_pthread_adaptive_ops;
extern const struct lock_ops lock_pthread_rwlock_ops;
extern const struct lock_ops lock_pthread_rwlock_wpref_ops;
extern const struct lock_ops lock_rwlock_classic_ops;

#define MAX_THREADS 8
#define MAX_OPTS 8

/* One test run: a lock, its threads' contexts and the shared checks. */
struct run {
	const struct lock_ops *ops;
	void *lock;
	void *ctx[MAX_THREADS];
	unsigned nthreads;
	unsigned nnodes;     /* node of thread i = i % nnodes */
	unsigned long iters; /* operations per thread */
	unsigned write_every; /* every n-th op writes; 1: all, 0: none */
	unsigned linger;      /* readers wait (yields) for company */
	pthread_barrier_t start;

	_Atomic unsigned owner;       /* tid + 1 of the writer inside */
	_Atomic int readers;          /* readers inside */
	_Atomic int max_readers;      /* most readers seen inside together */
	_Atomic unsigned long violations;
	_Atomic unsigned long writes; /* write sections entered */
	unsigned long counter;        /* plain, guarded by the lock */
};

struct worker {
	struct run *r;
	unsigned tid;
};

/* Zeroed, 128-byte aligned memory, as the harness gives. */
static void *lit_alloc(size_t size)
{
	size_t n = (size + LB_CACHELINE - 1) / LB_CACHELINE * LB_CACHELINE;
	void *p = aligned_alloc(LB_CACHELINE, n ? n : LB_CACHELINE);

	if (p)
		memset(p, 0, n ? n : LB_CACHELINE);
	return p;
}

static void lit_free(void *p, size_t size)
{
	(void)size;
	free(p);
}

/* Fill in the options: defaults, then the overrides "name", value. */
static void opts_fill(const struct lock_ops *ops, uint64_t *opt,
		      const char *name, uint64_t val)
{
	assert_true(ops->nopts <= MAX_OPTS);
	for (unsigned i = 0; i < ops->nopts; i++) {
		opt[i] = ops->opts[i].def;
		if (name && !strcmp(ops->opts[i].name, name))
			opt[i] = val;
	}
}

/* Allocate and init the lock and the contexts, as the harness would. */
static void run_setup(struct run *r, const struct lock_ops *ops,
		      unsigned nthreads, unsigned nnodes, const uint64_t *opt)
{
	struct lock_init in = {
		.nthreads = nthreads,
		.nnodes = nnodes,
		.opt = opt,
		.alloc = lit_alloc,
		.free_mem = lit_free,
	};

	memset(r, 0, sizeof(*r));
	assert_true(nthreads <= MAX_THREADS);
	r->ops = ops;
	r->nthreads = nthreads;
	r->nnodes = nnodes;
	r->lock = lit_alloc(ops->lock_size);
	assert_non_null(r->lock);
	for (unsigned i = 0; i < nthreads; i++) {
		r->ctx[i] = lit_alloc(ops->ctx_size);
		assert_non_null(r->ctx[i]);
	}
	if (ops->init)
		assert_int_equal(ops->init(r->lock, &in), 0);
}

static void run_teardown(struct run *r)
{
	if (r->ops->destroy)
		r->ops->destroy(r->lock);
	for (unsigned i = 0; i < r->nthreads; i++)
		free(r->ctx[i]);
	free(r->lock);
}

/* Record n as the most readers seen together, if it is. */
static void note_readers(struct run *r, int n)
{
	int m = atomic_load(&r->max_readers);

	while (n > m && !atomic_compare_exchange_weak(&r->max_readers, &m, n))
		;
}

/* A write (exclusive) critical section: nobody else may be inside. */
static void write_section(struct run *r, unsigned tid)
{
	if (atomic_exchange(&r->owner, tid + 1) != 0)
		atomic_fetch_add(&r->violations, 1);
	if (atomic_load(&r->readers) != 0)
		atomic_fetch_add(&r->violations, 1);
	r->counter++;
	atomic_fetch_add_explicit(&r->writes, 1, memory_order_relaxed);
	if (atomic_exchange(&r->owner, 0) != tid + 1)
		atomic_fetch_add(&r->violations, 1);
}

/*
 * A read section: no writer may be inside.  When asked, linger for up to
 * r->linger yields until another reader is seen, so that readers get the
 * chance to overlap even when the threads outnumber the CPUs.
 */
static void read_section(struct run *r)
{
	int n = atomic_fetch_add(&r->readers, 1) + 1;

	if (atomic_load(&r->owner) != 0)
		atomic_fetch_add(&r->violations, 1);
	note_readers(r, n);
	for (unsigned k = 0; k < r->linger && atomic_load(&r->readers) < 2;
	     k++)
		sched_yield();
	note_readers(r, atomic_load(&r->readers));
	if (atomic_load(&r->owner) != 0)
		atomic_fetch_add(&r->violations, 1);
	atomic_fetch_sub(&r->readers, 1);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	const struct lock_ops *ops = r->ops;
	void *lock = r->lock, *ctx = r->ctx[w->tid];
	struct lock_thread t = {
		.tid = w->tid,
		.nthreads = r->nthreads,
		.cpu = -1,
		.node = w->tid % r->nnodes,
		.nnodes = r->nnodes,
	};

	if (ops->thread_init && ops->thread_init(lock, ctx, &t))
		atomic_fetch_add(&r->violations, 1000000);
	/* Every thread_init happens before any lock operation. */
	pthread_barrier_wait(&r->start);
	for (unsigned long i = 0; i < r->iters; i++) {
		if (!r->write_every || (i + w->tid) % r->write_every) {
			ops->read_lock(lock, ctx);
			read_section(r);
			ops->read_unlock(lock, ctx);
		} else {
			ops->lock(lock, ctx);
			write_section(r, w->tid);
			ops->unlock(lock, ctx);
		}
		/* Let a preempted thread on our CPU run: with more threads
		 * than CPUs, a FIFO lock otherwise waits a whole time slice
		 * for the descheduled waiter it has just handed over to. */
		sched_yield();
	}
	return NULL;
}

/* Start the threads, wait for them and check what they saw. */
static void run_threads(struct run *r)
{
	pthread_t th[MAX_THREADS];
	struct worker w[MAX_THREADS];

	assert_int_equal(pthread_barrier_init(&r->start, NULL, r->nthreads),
			 0);
	for (unsigned i = 0; i < r->nthreads; i++) {
		w[i].r = r;
		w[i].tid = i;
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]),
				 0);
	}
	for (unsigned i = 0; i < r->nthreads; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&r->start);
	assert_int_equal(atomic_load(&r->violations), 0);
	assert_int_equal(atomic_load(&r->owner), 0);
	assert_int_equal(atomic_load(&r->readers), 0);
	assert_int_equal(r->counter, atomic_load(&r->writes));
}

/* Exclusive torture: every op is lock/unlock; the counter must be exact. */
static void torture_exclusive(const struct lock_ops *ops, unsigned nthreads,
			      unsigned nnodes, const uint64_t *opt,
			      unsigned long iters, struct run *r)
{
	run_setup(r, ops, nthreads, nnodes, opt);
	r->iters = iters;
	r->write_every = 1;
	run_threads(r);
	assert_int_equal(r->counter, (unsigned long)nthreads * iters);
}

/*
 * A scripted hand-off between two threads of node 0 (tids 0 and 2 of
 * three, fake nodes tid % 2), for the NUMA locks' counters.  Each round:
 * the first thread takes the lock, waits until the second has announced
 * that it is calling lock(), gives it PAIR_YIELDS yields to queue, and
 * unlocks, which must pass the lock within the node; the second then
 * unlocks with nobody queued, which must release the top level.
 */
#define PAIR_ROUNDS 10
#define PAIR_YIELDS 50

struct pair {
	struct run *r;
	_Atomic unsigned held;   /* round the first thread holds the lock in */
	_Atomic unsigned queued; /* round the second thread called lock() in */
	_Atomic unsigned done;   /* round the second thread finished */
};

static void pair_thread_init(struct run *r, unsigned tid)
{
	struct lock_thread t = {
		.tid = tid,
		.nthreads = r->nthreads,
		.cpu = -1,
		.node = tid % r->nnodes,
		.nnodes = r->nnodes,
	};

	if (r->ops->thread_init &&
	    r->ops->thread_init(r->lock, r->ctx[tid], &t))
		atomic_fetch_add(&r->violations, 1000000);
}

static void yield_until(_Atomic unsigned *v, unsigned want)
{
	while (atomic_load(v) != want)
		sched_yield();
}

static void *pair_first(void *arg)
{
	struct pair *p = arg;
	struct run *r = p->r;

	for (unsigned i = 1; i <= PAIR_ROUNDS; i++) {
		r->ops->lock(r->lock, r->ctx[0]);
		atomic_store(&p->held, i);
		yield_until(&p->queued, i);
		for (int k = 0; k < PAIR_YIELDS; k++)
			sched_yield();
		write_section(r, 0);
		r->ops->unlock(r->lock, r->ctx[0]);
		yield_until(&p->done, i);
	}
	return NULL;
}

static void *pair_second(void *arg)
{
	struct pair *p = arg;
	struct run *r = p->r;

	for (unsigned i = 1; i <= PAIR_ROUNDS; i++) {
		yield_until(&p->held, i);
		atomic_store(&p->queued, i);
		r->ops->lock(r->lock, r->ctx[2]);
		write_section(r, 2);
		r->ops->unlock(r->lock, r->ctx[2]);
		atomic_store(&p->done, i);
	}
	return NULL;
}

/* Run the script on a fresh lock and read its two counters into cnt. */
static void cohort_pair(const struct lock_ops *ops, const uint64_t *opt,
			uint64_t *cnt)
{
	struct run r;
	struct pair p = {.r = &r};
	pthread_t a, b;

	run_setup(&r, ops, 3, 2, opt);
	pair_thread_init(&r, 0);
	pair_thread_init(&r, 1);
	pair_thread_init(&r, 2);
	assert_int_equal(pthread_create(&a, NULL, pair_first, &p), 0);
	assert_int_equal(pthread_create(&b, NULL, pair_second, &p), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert_int_equal(atomic_load(&r.violations), 0);
	assert_int_equal(r.counter, 2 * PAIR_ROUNDS);
	ops->read_counters(r.lock, cnt);
	run_teardown(&r);
}

/* One thread: lock, trylock fails, unlock, trylock succeeds. */
static void check_trylock(const struct lock_ops *ops, const uint64_t *opt)
{
	struct run r;
	struct lock_thread t = {.nthreads = 1, .nnodes = 1, .cpu = -1};

	run_setup(&r, ops, 1, 1, opt);
	if (ops->thread_init)
		assert_int_equal(ops->thread_init(r.lock, r.ctx[0], &t), 0);
	for (int i = 0; i < 3; i++) {
		ops->lock(r.lock, r.ctx[0]);
		assert_false(ops->trylock(r.lock, r.ctx[0]));
		ops->unlock(r.lock, r.ctx[0]);
		assert_true(ops->trylock(r.lock, r.ctx[0]));
		ops->unlock(r.lock, r.ctx[0]);
	}
	run_teardown(&r);
}

/* The table is complete and says what it implements. */
static void check_table(const struct lock_ops *ops, const char *name,
			unsigned caps)
{
	assert_string_equal(ops->name, name);
	assert_non_null(ops->desc);
	assert_non_null(ops->ref);
	assert_int_equal(ops->caps, caps);
	assert_non_null(ops->lock);
	assert_non_null(ops->unlock);
	assert_true(!(caps & LOCK_CAP_TRYLOCK) == !ops->trylock);
	assert_true(!(caps & LOCK_CAP_RW) == !ops->read_lock);
	assert_true(!(caps & LOCK_CAP_RW) == !ops->read_unlock);
}

static void test_anderson(void **state)
{
	struct run r;

	(void)state;
	check_table(&lock_anderson_ops, "anderson", LOCK_CAP_EXCLUSIVE);
	/* 4 threads, 4 slots: 120k acquisitions wrap the array 30k times. */
	torture_exclusive(&lock_anderson_ops, 4, 1, NULL, 30000, &r);
	run_teardown(&r);
	/* 3 threads round up to 4 slots: the wrap still lines up. */
	torture_exclusive(&lock_anderson_ops, 3, 1, NULL, 20000, &r);
	run_teardown(&r);
}

static void test_clh(void **state)
{
	struct run r;

	(void)state;
	check_table(&lock_clh_ops, "clh", LOCK_CAP_EXCLUSIVE);
	/* Every acquisition moves a node to another thread: 120k of them
	 * with the exclusion check still exact means none was reused early. */
	torture_exclusive(&lock_clh_ops, 4, 1, NULL, 30000, &r);
	run_teardown(&r);
	/* A single thread ping-pongs between its node and the dummy. */
	torture_exclusive(&lock_clh_ops, 1, 1, NULL, 1000, &r);
	run_teardown(&r);
}

/* ticket: one word, head (now serving) in the low half, tail (next
 * ticket) in the high half; trylock is a CAS of the word when they are
 * equal, the release a 16-bit store of head.  Both across the 16-bit
 * wrap, where head's store must not carry into tail; then the table,
 * trylock through it and exclusion at 4 threads. */
static void test_ticket(void **state)
{
	struct ticket t = {.val = 0xfffefffeu};
	struct run r;

	(void)state;
	for (int i = 0; i < 4; i++) {
		ticket_lock(&t, NULL);
		assert_false(ticket_trylock(&t, NULL));
		ticket_unlock(&t, NULL);
		assert_true(ticket_trylock(&t, NULL));
		ticket_unlock(&t, NULL);
	}
	assert_int_equal(atomic_load(&t.val), 0x00060006u);
	/* A ticket taken and not yet served: trylock must fail. */
	atomic_store(&t.val, 0x00070006u);
	assert_false(ticket_trylock(&t, NULL));
	check_table(&lock_ticket_ops, "ticket", LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK);
	check_trylock(&lock_ticket_ops, NULL);
	torture_exclusive(&lock_ticket_ops, 4, 1, NULL, 30000, &r);
	run_teardown(&r);
}

static void test_ticket_prop(void **state)
{
	uint64_t opt[MAX_OPTS];
	struct run r;

	(void)state;
	check_table(&lock_ticket_prop_ops, "ticket_prop",
		    LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK);
	opts_fill(&lock_ticket_prop_ops, opt, NULL, 0);
	assert_int_equal(opt[0], 32);
	check_trylock(&lock_ticket_prop_ops, opt);
	torture_exclusive(&lock_ticket_prop_ops, 4, 1, opt, 30000, &r);
	run_teardown(&r);
	/* unit = 0 degenerates to a plain ticket lock. */
	opts_fill(&lock_ticket_prop_ops, opt, "unit", 0);
	torture_exclusive(&lock_ticket_prop_ops, 4, 1, opt, 30000, &r);
	run_teardown(&r);
}

/*
 * Two fake nodes (tid % 2) and a batch of 4: every unlock is exactly one
 * of the two hand-off kinds, no cohort keeps the lock for more than
 * batch + 1 acquisitions in a row, and the scripted pair sees both.
 */
static void test_cbomcs(void **state)
{
	const unsigned long iters = 10000, total = 4 * iters;
	uint64_t opt[MAX_OPTS], cnt[2];
	struct run r;

	(void)state;
	check_table(&lock_cbomcs_ops, "cbomcs",
		    LOCK_CAP_EXCLUSIVE | LOCK_CAP_NUMA);
	assert_int_equal(lock_cbomcs_ops.ncounters, 2);
	assert_string_equal(lock_cbomcs_ops.counter_names[0], "local_passes");
	assert_string_equal(lock_cbomcs_ops.counter_names[1],
			    "global_releases");
	opts_fill(&lock_cbomcs_ops, opt, NULL, 0);
	assert_int_equal(opt[0], 100);
	opts_fill(&lock_cbomcs_ops, opt, "batch", 4);

	torture_exclusive(&lock_cbomcs_ops, 4, 2, opt, iters, &r);
	lock_cbomcs_ops.read_counters(r.lock, cnt);
	run_teardown(&r);
	assert_int_equal(cnt[0] + cnt[1], total);
	assert_true(cnt[1] * 5 >= total);

	cohort_pair(&lock_cbomcs_ops, opt, cnt);
	assert_true(cnt[0] > 0);
	assert_true(cnt[1] > 0);
	assert_int_equal(cnt[0] + cnt[1], 2 * PAIR_ROUNDS);

	/* batch 0: never pass within the node. */
	opts_fill(&lock_cbomcs_ops, opt, "batch", 0);
	cohort_pair(&lock_cbomcs_ops, opt, cnt);
	assert_int_equal(cnt[0], 0);
	assert_int_equal(cnt[1], 2 * PAIR_ROUNDS);
}

/* As cbomcs: a batch is at most `threshold` acquisitions. */
static void test_hmcs(void **state)
{
	const unsigned long iters = 10000, total = 4 * iters;
	uint64_t opt[MAX_OPTS], cnt[2];
	struct run r;

	(void)state;
	check_table(&lock_hmcs_ops, "hmcs", LOCK_CAP_EXCLUSIVE | LOCK_CAP_NUMA);
	assert_int_equal(lock_hmcs_ops.ncounters, 2);
	assert_string_equal(lock_hmcs_ops.counter_names[0], "local_passes");
	assert_string_equal(lock_hmcs_ops.counter_names[1], "system_releases");
	opts_fill(&lock_hmcs_ops, opt, "threshold", 4);

	torture_exclusive(&lock_hmcs_ops, 4, 2, opt, iters, &r);
	lock_hmcs_ops.read_counters(r.lock, cnt);
	run_teardown(&r);
	assert_int_equal(cnt[0] + cnt[1], total);
	assert_true(cnt[1] * 4 >= total);

	cohort_pair(&lock_hmcs_ops, opt, cnt);
	assert_true(cnt[0] > 0);
	assert_true(cnt[1] > 0);
	assert_int_equal(cnt[0] + cnt[1], 2 * PAIR_ROUNDS);

	/* threshold 1: a batch is one acquisition, no local passing. */
	opts_fill(&lock_hmcs_ops, opt, "threshold", 1);
	cohort_pair(&lock_hmcs_ops, opt, cnt);
	assert_int_equal(cnt[0], 0);
	assert_int_equal(cnt[1], 2 * PAIR_ROUNDS);

	/* One node: a plain MCS lock underneath. */
	opts_fill(&lock_hmcs_ops, opt, NULL, 0);
	torture_exclusive(&lock_hmcs_ops, 4, 1, opt, 10000, &r);
	run_teardown(&r);
}

/* An allocator that always fails, and one that records what it gave. */
static size_t lit_given, lit_taken;

static void *lit_alloc_none(size_t size)
{
	(void)size;
	return NULL;
}

static void *lit_alloc_noted(size_t size)
{
	lit_given = size;
	return lit_alloc(size);
}

static void lit_free_noted(void *p, size_t size)
{
	lit_taken = size;
	free(p);
}

/*
 * The cohort locks' set-up: no node or more than 4096 is -EINVAL, no
 * memory -ENOMEM; a thread on a node beyond the lock's is -EINVAL;
 * destroy gives back the array it took, one element per node, and the
 * counters read after it are 0.
 */
static void cohort_edges(const struct lock_ops *ops)
{
	uint64_t opt[MAX_OPTS], cnt[2] = {7, 7};
	void *lock = lit_alloc(ops->lock_size), *ctx = lit_alloc(ops->ctx_size);
	struct lock_init in = {.nthreads = 2, .opt = opt, .alloc = lit_alloc,
			       .free_mem = lit_free};
	struct lock_thread t = {.nthreads = 2, .nnodes = 3, .cpu = -1};
	size_t one;

	opts_fill(ops, opt, NULL, 0);
	assert_int_equal(ops->init(lock, &in), -EINVAL);
	in.nnodes = 4097;
	assert_int_equal(ops->init(lock, &in), -EINVAL);
	in.nnodes = 3;
	in.alloc = lit_alloc_none;
	assert_int_equal(ops->init(lock, &in), -ENOMEM);
	in.nnodes = 1;
	in.alloc = lit_alloc_noted;
	in.free_mem = lit_free_noted;
	assert_int_equal(ops->init(lock, &in), 0);
	one = lit_given;
	ops->destroy(lock);
	assert_int_equal(lit_taken, one);
	memset(lock, 0, ops->lock_size);
	in.nnodes = 3;
	assert_int_equal(ops->init(lock, &in), 0);
	assert_int_equal(lit_given, 3 * one);
	assert_true(one >= 2 * LB_CACHELINE);
	t.node = 2;
	assert_int_equal(ops->thread_init(lock, ctx, &t), 0);
	t.node = 3;
	assert_int_equal(ops->thread_init(lock, ctx, &t), -EINVAL);
	ops->destroy(lock);
	assert_int_equal(lit_taken, 3 * one);
	ops->read_counters(lock, cnt);
	assert_int_equal(cnt[0], 0);
	assert_int_equal(cnt[1], 0);
	free(ctx);
	free(lock);
}

static void test_cohort_edges(void **state)
{
	(void)state;
	cohort_edges(&lock_cbomcs_ops);
	cohort_edges(&lock_hmcs_ops);
}

static void test_pthread_adaptive(void **state)
{
	struct run r;

	(void)state;
	check_table(&lock_pthread_adaptive_ops, "pthread_adaptive",
		    LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS);
	check_trylock(&lock_pthread_adaptive_ops, NULL);
	torture_exclusive(&lock_pthread_adaptive_ops, 4, 1, NULL, 30000, &r);
	run_teardown(&r);
}

/*
 * Reader-writer torture: readers share the lock, writers exclude readers
 * and writers, and the write trylock fails under a read share.
 */
static void torture_rw(const struct lock_ops *ops)
{
	struct run r;
	struct lock_thread t = {.nthreads = 1, .nnodes = 1, .cpu = -1};

	/* One thread: a read share keeps the writer's trylock out. */
	run_setup(&r, ops, 1, 1, NULL);
	if (ops->thread_init)
		assert_int_equal(ops->thread_init(r.lock, r.ctx[0], &t), 0);
	ops->read_lock(r.lock, r.ctx[0]);
	assert_false(ops->trylock(r.lock, r.ctx[0]));
	ops->read_unlock(r.lock, r.ctx[0]);
	check_trylock(ops, NULL);
	run_teardown(&r);

	/* Readers only, each waiting a little for company: they share. */
	run_setup(&r, ops, 4, 1, NULL);
	r.iters = 200;
	r.write_every = 0;
	r.linger = 8;
	run_threads(&r);
	assert_true(atomic_load(&r.max_readers) >= 2);
	assert_int_equal(atomic_load(&r.writes), 0);
	run_teardown(&r);

	/* One op in four writes: writers exclude everyone. */
	run_setup(&r, ops, 4, 1, NULL);
	r.iters = 2000;
	r.write_every = 4;
	run_threads(&r);
	assert_int_equal(atomic_load(&r.writes), 4 * 2000 / 4);
	run_teardown(&r);
}

static void test_pthread_rwlock(void **state)
{
	const unsigned caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_RW |
			      LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS;

	(void)state;
	check_table(&lock_pthread_rwlock_ops, "pthread_rwlock", caps);
	check_table(&lock_pthread_rwlock_wpref_ops, "pthread_rwlock_wpref",
		    caps);
	torture_rw(&lock_pthread_rwlock_ops);
	torture_rw(&lock_pthread_rwlock_wpref_ops);
}

static void test_rwlock_classic(void **state)
{
	(void)state;
	check_table(&lock_rwlock_classic_ops, "rwlock_classic",
		    LOCK_CAP_EXCLUSIVE | LOCK_CAP_RW | LOCK_CAP_TRYLOCK);
	torture_rw(&lock_rwlock_classic_ops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anderson),
		cmocka_unit_test(test_clh),
		cmocka_unit_test(test_ticket),
		cmocka_unit_test(test_ticket_prop),
		cmocka_unit_test(test_cbomcs),
		cmocka_unit_test(test_hmcs),
		cmocka_unit_test(test_cohort_edges),
		cmocka_unit_test(test_pthread_adaptive),
		cmocka_unit_test(test_pthread_rwlock),
		cmocka_unit_test(test_rwlock_classic),
	};

	/* LIT_TEST=test_clh runs one test (a glob) while debugging. */
	if (getenv("LIT_TEST"))
		cmocka_set_test_filter(getenv("LIT_TEST"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
