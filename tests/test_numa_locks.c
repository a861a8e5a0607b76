/* SPDX-License-Identifier: MIT */
/*
 * test_numa_locks - drives qspinlock, cna, qrwlock and qrwlock_steal
 * through their lock_ops tables with real threads, without the harness.
 *
 * Staged tests build an exact queue (holder, pending owner, queued
 * waiters on chosen fake nodes) and assert the exact counters of the
 * paths that queue must take: qspinlock's pending and queued paths,
 * CNA's moves to the secondary queue, local and remote hand-offs and
 * splices (main queue empty, count bound, time bound), and qrwlock's
 * writer fairness against qrwlock_steal's reader stealing.  Stress
 * tests check mutual exclusion (owner field + unprotected counter) with
 * 4 threads on fake nodes tid % 2 and tid % 4, and that readers share.
 *
 * Oversubscribed spinning is slow on a 2-CPU machine, so the test
 * threads wait with sched_yield() and yield now and then between
 * acquisitions, never inside the locks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <pthread.h>
#include <sched.h>

#include "lockbench/lock.h"
#include "testlib.h"

extern const struct lock_ops lock_qspinlock_ops;
extern const struct lock_ops lock_cna_ops;
extern const struct lock_ops lock_qrwlock_ops;
extern const struct lock_ops lock_qrwlock_steal_ops;

#define NTHREADS 4
#define TOTAL_ACQ 50000  /* per stress test; four of them */
#define STRESS_SECONDS 2 /* cap on each stress test */
#define CS_DELAY 30      /* cpu_relax() calls in and after a critical section */
#define YIELD_EVERY 8    /* stress iterations between sched_yield() calls */
#define READ_DELAY 1000  /* cpu_relax() calls inside a read section */
#define MAX_COUNTERS 16

static void *t_alloc(size_t size)
{
	size_t sz = (size + LB_CACHELINE - 1) / LB_CACHELINE * LB_CACHELINE;
	void *p = aligned_alloc(LB_CACHELINE, sz ? sz : LB_CACHELINE);

	if (p)
		memset(p, 0, sz ? sz : LB_CACHELINE);
	return p;
}

static void t_free(void *p, size_t size)
{
	(void)size;
	free(p);
}

/* A lock instance as the harness would set it up. */
struct rig {
	const struct lock_ops *ops;
	void *lock;
	char *ctx;           /* nthreads contexts, stride ctx_stride */
	size_t ctx_stride;
	unsigned nthreads, nnodes;
	pthread_barrier_t go;
	/* Shared check state, each on its own line. */
	LB_ALIGNED _Atomic unsigned owner;
	LB_ALIGNED uint64_t counter;     /* unprotected: the lock protects it */
	LB_ALIGNED _Atomic unsigned readers;
	LB_ALIGNED _Atomic unsigned max_readers;
	_Atomic bool meet_tried;         /* a reader has waited for another */
	LB_ALIGNED _Atomic unsigned violations;
	LB_ALIGNED _Atomic unsigned stop;
	time_t deadline;
};

struct worker {
	struct rig *rig;
	unsigned tid;
	unsigned iters;
	bool reader;
	unsigned done;   /* acquisitions made */
};

static struct rig *rig_new(const struct lock_ops *ops, unsigned nthreads,
			   unsigned nnodes, const uint64_t *opt)
{
	struct rig *r = t_alloc(sizeof(*r));
	uint64_t defs[8];
	struct lock_init in = {
		.nthreads = nthreads, .nnodes = nnodes, .opt = defs,
		.alloc = t_alloc, .free_mem = t_free,
	};

	assert_non_null(r);
	assert_true(ops->nopts <= 8);
	for (unsigned i = 0; i < ops->nopts; i++)
		defs[i] = opt ? opt[i] : ops->opts[i].def;
	r->ops = ops;
	r->nthreads = nthreads;
	r->nnodes = nnodes;
	r->lock = t_alloc(ops->lock_size);
	r->ctx_stride = (ops->ctx_size + LB_CACHELINE - 1) / LB_CACHELINE *
			LB_CACHELINE;
	r->ctx = t_alloc(r->ctx_stride * nthreads);
	assert_non_null(r->lock);
	assert_non_null(r->ctx);
	if (ops->init)
		assert_int_equal(ops->init(r->lock, &in), 0);
	pthread_barrier_init(&r->go, NULL, nthreads);
	return r;
}

static void rig_free(struct rig *r)
{
	pthread_barrier_destroy(&r->go);
	if (r->ops->destroy)
		r->ops->destroy(r->lock);
	free(r->ctx);
	free(r->lock);
	free(r);
}

static void *rig_ctx(struct rig *r, unsigned tid)
{
	return r->ctx + (size_t)tid * r->ctx_stride;
}

/* thread_init on the calling thread, then wait for everybody: all
 * thread_init calls happen-before any lock operation. */
static void worker_start(struct worker *w)
{
	struct rig *r = w->rig;
	struct lock_thread t = {
		.tid = w->tid, .nthreads = r->nthreads, .cpu = -1,
		.node = w->tid % r->nnodes, .nnodes = r->nnodes,
	};

	if (r->ops->thread_init &&
	    r->ops->thread_init(r->lock, rig_ctx(r, w->tid), &t))
		atomic_fetch_add(&r->violations, 1000000);
	pthread_barrier_wait(&r->go);
}

/* Exclusive section: claim the owner field, bump the counter. */
static void check_exclusive(struct rig *r, unsigned tid)
{
	if (atomic_exchange_explicit(&r->owner, tid + 1, memory_order_relaxed))
		atomic_fetch_add(&r->violations, 1);
	if (atomic_load_explicit(&r->readers, memory_order_relaxed))
		atomic_fetch_add(&r->violations, 1);
	r->counter++;
	atomic_store_explicit(&r->owner, 0, memory_order_relaxed);
}

/*
 * The stress tests stop early once STRESS_SECONDS have passed: on a
 * loaded machine every preempted queued waiter costs a scheduler tick,
 * and the point is exclusion under contention, not a fixed amount of
 * work.  Checked every 256 iterations, by every thread.
 */
static bool stress_over(struct rig *r, unsigned i)
{
	if (i % 256 || atomic_load_explicit(&r->stop, memory_order_relaxed))
		return atomic_load_explicit(&r->stop, memory_order_relaxed);
	if (time(NULL) >= r->deadline)
		atomic_store(&r->stop, 1);
	return atomic_load_explicit(&r->stop, memory_order_relaxed);
}

static void *mutex_worker(void *arg)
{
	struct worker *w = arg;
	struct rig *r = w->rig;
	void *ctx = rig_ctx(r, w->tid);

	worker_start(w);
	for (unsigned i = 0; i < w->iters && !stress_over(r, i); i++) {
		r->ops->lock(r->lock, ctx);
		check_exclusive(r, w->tid);
		w->done++;
		for (unsigned k = 0; k < CS_DELAY; k++)
			cpu_relax();
		r->ops->unlock(r->lock, ctx);
		for (unsigned k = 0; k < CS_DELAY; k++)
			cpu_relax();
		/* Give the CPU to the other threads now and then: with more
		 * threads than CPUs, a preempted queued waiter stalls
		 * everybody until the next tick. */
		if (i % YIELD_EVERY == 0)
			sched_yield();
	}
	return NULL;
}

/* Shared section: count ourselves in, stay a few microseconds so that
 * readers on the other CPU get in too, and check no writer is inside.
 * A busy delay, not a yield: a reader that yields here hands its CPU to
 * a spinning waiter and stalls everybody for a scheduler tick. */
/* Seconds a reader waits inside for a second one, and the writer for
 * two readers to have met, before the run goes on (see rw_worker). */
#define MEET_S 5

/* Yield until *v reaches 2 or MEET_S seconds have passed. */
static void wait_for_two(_Atomic unsigned *v)
{
	time_t end = time(NULL) + MEET_S;

	while (atomic_load(v) < 2 && time(NULL) < end)
		sched_yield();
}

static void check_shared(struct rig *r)
{
	unsigned n = atomic_fetch_add(&r->readers, 1) + 1;
	unsigned m = atomic_load(&r->max_readers);

	while (n > m && !atomic_compare_exchange_weak(&r->max_readers, &m, n))
		;
	if (atomic_load(&r->max_readers) < 2 && !atomic_exchange(&r->meet_tried, true))
		wait_for_two(&r->readers);
	if (atomic_load(&r->owner))
		atomic_fetch_add(&r->violations, 1);
	for (unsigned i = 0; i < READ_DELAY; i++)
		cpu_relax();
	if (atomic_load(&r->owner))
		atomic_fetch_add(&r->violations, 1);
	atomic_fetch_sub(&r->readers, 1);
}

/*
 * Readers and a writer.  That the lock lets two readers in at once is
 * checked by making them meet, not left to the scheduler (under qemu
 * one reader can finish all its sections before the next starts): the
 * first reader inside waits there (once) for a second, and the writer
 * starts once two have met (a waiting writer holds new readers back in
 * a fair rwlock).  Both waits give up after MEET_S seconds, so a lock
 * that never admits two readers fails the check instead of hanging.
 */
static void *rw_worker(void *arg)
{
	struct worker *w = arg;
	struct rig *r = w->rig;
	void *ctx = rig_ctx(r, w->tid);

	worker_start(w);
	if (!w->reader)
		wait_for_two(&r->max_readers);
	for (unsigned i = 0; i < w->iters; i++) {
		if (w->reader) {
			r->ops->read_lock(r->lock, ctx);
			check_shared(r);
			r->ops->read_unlock(r->lock, ctx);
		} else {
			r->ops->lock(r->lock, ctx);
			check_exclusive(r, w->tid);
			r->ops->unlock(r->lock, ctx);
			sched_yield();
		}
	}
	return NULL;
}

/* Run nthreads workers of @fn; threads with tid < nreaders read.
 * Returns the acquisitions the workers made. */
static uint64_t rig_run(struct rig *r, void *(*fn)(void *), unsigned iters,
			unsigned nreaders)
{
	uint64_t done = 0;

	pthread_t th[NTHREADS];
	struct worker w[NTHREADS];

	assert_true(r->nthreads <= NTHREADS);
	for (unsigned i = 0; i < r->nthreads; i++) {
		w[i] = (struct worker){r, i, iters, i < nreaders, 0};
		assert_int_equal(pthread_create(&th[i], NULL, fn, &w[i]), 0);
	}
	for (unsigned i = 0; i < r->nthreads; i++) {
		pthread_join(th[i], NULL);
		done += w[i].done;
	}
	return done;
}


static void print_counters(struct rig *r, const char *what)
{
	uint64_t out[MAX_COUNTERS];

	r->ops->read_counters(r->lock, out);
	print_message("%s %s:", r->ops->name, what);
	for (unsigned i = 0; i < r->ops->ncounters; i++)
		print_message(" %s=%llu", r->ops->counter_names[i],
			      (unsigned long long)out[i]);
	print_message("\n");
}

/*
 * Stress: NTHREADS threads, TOTAL_ACQ acquisitions in all.  Asserts
 * exclusion and the final counter only: whether the slow paths run here
 * depends on the scheduler, so the staged tests below cover them.
 */
static void run_mutex(struct rig *r)
{
	uint64_t done;

	r->deadline = time(NULL) + STRESS_SECONDS;
	done = rig_run(r, mutex_worker, TOTAL_ACQ / r->nthreads, 0);
	print_message("%s: %llu acquisitions\n", r->ops->name,
		      (unsigned long long)done);
	assert_int_equal(atomic_load(&r->violations), 0);
	assert_true(done > 0);
	assert_int_equal(r->counter, done);
}

static void test_qspinlock_stress(void **state)
{
	struct rig *r = rig_new(&lock_qspinlock_ops, NTHREADS, 1, NULL);

	(void)state;
	run_mutex(r);
	print_counters(r, "stress");
	rig_free(r);
}

/* CNA over @nnodes fake nodes with a small count bound.  Splices need
 * a preceding move, so splices <= moves whatever the schedule. */
static void run_cna_stress(unsigned nnodes)
{
	const uint64_t opt[] = {1000000, 4};
	struct rig *r = rig_new(&lock_cna_ops, NTHREADS, nnodes, opt);

	run_mutex(r);
	print_counters(r, nnodes == 2 ? "stress, 2 nodes" : "stress, 4 nodes");
	assert_true(tl_counter(r->ops, r->lock, "splices_empty_main") +
			    tl_counter(r->ops, r->lock, "splices_fairness") <=
		    tl_counter(r->ops, r->lock, "moves_to_secondary"));
	rig_free(r);
}

static void test_cna_stress_two_nodes(void **state)
{
	(void)state;
	run_cna_stress(2);
}

static void test_cna_stress_four_nodes(void **state)
{
	(void)state;
	run_cna_stress(4);
}

static void test_qrwlock_stress(void **state)
{
	struct rig *r = rig_new(&lock_qrwlock_ops, NTHREADS, 1, NULL);

	(void)state;
	run_mutex(r);
	rig_free(r);
}

/*
 * Staged queues.  The main thread (tid 0) holds the lock and starts
 * workers 1..STAGED_WORKERS one at a time, each only once the previous
 * one is visibly waiting: worker 1 as the pending owner, the others as
 * the queue tail, in tid order.  The queue is then known exactly, and so
 * is every decision the lock takes when main lets go: the counters are
 * asserted as exact values.  White box: qspinlock, cna and qrwlock all
 * start with their 32-bit lock word, in the kernel's layout.
 */
#define STAGED_WORKERS 5
#define STAGED_ROUNDS 5
#define Q_PENDING (1u << 8)
#define Q_TAIL_TID(w) (((w) >> 18) - 1)
#define QW_WAITING 0x100u

static uint32_t lock_word(struct rig *r)
{
	return atomic_load_explicit((_Atomic uint32_t *)r->lock,
				    memory_order_relaxed);
}

/* Yield until @done(r, arg); a lock bug that never gets there fails
 * the test after a minute instead of hanging it. */
static void wait_for(struct rig *r, bool (*done)(struct rig *, uint64_t),
		     uint64_t arg)
{
	time_t limit = time(NULL) + 60;

	while (!done(r, arg)) {
		if (time(NULL) > limit)
			fail_msg("%s: stuck at word %#x", r->ops->name,
				 lock_word(r));
		sched_yield();
	}
}

static bool is_pending(struct rig *r, uint64_t arg)
{
	(void)arg;
	return lock_word(r) & Q_PENDING;
}

static bool tail_is(struct rig *r, uint64_t tid)
{
	return Q_TAIL_TID(lock_word(r)) == tid;
}

static bool moves_reach(struct rig *r, uint64_t n)
{
	return tl_counter(r->ops, r->lock, "moves_to_secondary") >= n;
}

/* thread_init for every tid on the main thread, as the harness would
 * before any lock operation (these locks do nothing thread-local). */
static void rig_init_threads(struct rig *r)
{
	for (unsigned tid = 0; tid < r->nthreads; tid++) {
		struct lock_thread t = {
			.tid = tid, .nthreads = r->nthreads, .cpu = -1,
			.node = tid % r->nnodes, .nnodes = r->nnodes,
		};

		assert_int_equal(r->ops->thread_init(r->lock, rig_ctx(r, tid),
						     &t), 0);
	}
}

static void *staged_worker(void *arg)
{
	struct worker *w = arg;
	struct rig *r = w->rig;
	void *ctx = rig_ctx(r, w->tid);

	r->ops->lock(r->lock, ctx);
	check_exclusive(r, w->tid);
	r->ops->unlock(r->lock, ctx);
	return NULL;
}

/*
 * One round: main locks, workers queue up behind it in tid order, then
 * (CNA) main waits until the queue head has moved @moves waiters to the
 * secondary queue, and lets go.
 */
static void staged_round(struct rig *r, uint64_t moves)
{
	pthread_t th[STAGED_WORKERS + 1];
	struct worker w[STAGED_WORKERS + 1];
	void *ctx = rig_ctx(r, 0);

	r->ops->lock(r->lock, ctx);
	for (unsigned i = 1; i <= STAGED_WORKERS; i++) {
		w[i] = (struct worker){r, i, 1, false, 0};
		assert_int_equal(
			pthread_create(&th[i], NULL, staged_worker, &w[i]), 0);
		if (i == 1)
			wait_for(r, is_pending, 0);
		else
			wait_for(r, tail_is, i);
	}
	if (moves)
		wait_for(r, moves_reach, moves);
	check_exclusive(r, 0);
	r->ops->unlock(r->lock, ctx);
	for (unsigned i = 1; i <= STAGED_WORKERS; i++)
		pthread_join(th[i], NULL);
}

static struct rig *staged_rig(const struct lock_ops *ops, unsigned nnodes,
			      const uint64_t *opt)
{
	struct rig *r = rig_new(ops, STAGED_WORKERS + 1, nnodes, opt);

	rig_init_threads(r);
	return r;
}

static void staged_check_done(struct rig *r)
{
	assert_int_equal(atomic_load(&r->violations), 0);
	assert_int_equal(r->counter, STAGED_ROUNDS * (STAGED_WORKERS + 1));
	assert_int_equal(lock_word(r), 0);
}

/* qspinlock: worker 1 takes the pending path, 2..5 queue. */
static void test_qspinlock_staged(void **state)
{
	struct rig *r = staged_rig(&lock_qspinlock_ops, 1, NULL);

	(void)state;
	for (unsigned i = 0; i < STAGED_ROUNDS; i++)
		staged_round(r, 0);
	staged_check_done(r);
	assert_int_equal(tl_counter(r->ops, r->lock, "pending"), STAGED_ROUNDS);
	assert_int_equal(tl_counter(r->ops, r->lock, "queued"),
			 STAGED_ROUNDS * (STAGED_WORKERS - 1));
	rig_free(r);
}

/* Expected CNA counters per round. */
struct cna_expect {
	uint64_t moves, local, remote, splice_empty, splice_fair;
};

static void run_cna_staged(unsigned nnodes, uint64_t thr_ns, uint64_t thr_cnt,
			   const struct cna_expect *e)
{
	const uint64_t opt[] = {thr_ns, thr_cnt};
	struct rig *r = staged_rig(&lock_cna_ops, nnodes, opt);

	for (unsigned i = 1; i <= STAGED_ROUNDS; i++)
		staged_round(r, i * e->moves);
	print_counters(r, "staged");
	staged_check_done(r);
	assert_int_equal(tl_counter(r->ops, r->lock, "pending"), STAGED_ROUNDS);
	assert_int_equal(tl_counter(r->ops, r->lock, "queued"),
			 STAGED_ROUNDS * (STAGED_WORKERS - 1));
	assert_int_equal(tl_counter(r->ops, r->lock, "moves_to_secondary"),
			 STAGED_ROUNDS * e->moves);
	assert_int_equal(tl_counter(r->ops, r->lock, "local_handoffs"), STAGED_ROUNDS * e->local);
	assert_int_equal(tl_counter(r->ops, r->lock, "remote_handoffs"),
			 STAGED_ROUNDS * e->remote);
	assert_int_equal(tl_counter(r->ops, r->lock, "splices_empty_main"),
			 STAGED_ROUNDS * e->splice_empty);
	assert_int_equal(tl_counter(r->ops, r->lock, "splices_fairness"),
			 STAGED_ROUNDS * e->splice_fair);
	rig_free(r);
}

/*
 * Nodes tid % 2, no bounds.  Holder 0 (node 0), pending 1, queue 2 3 4 5
 * on nodes 0 1 0 1.  Head 2 moves 3 aside and hands to 4 (local); 4
 * finds only 5 (remote, not movable: it is the tail) and hands to it
 * with node 0 still preferred; 5 is last, so it splices 3 back (main
 * queue empty) and hands to it (remote).
 */
static void test_cna_staged_two_nodes(void **state)
{
	const struct cna_expect e = {1, 1, 2, 1, 0};

	(void)state;
	run_cna_staged(2, 0, 0, &e);
}

/*
 * As above with threshold_count 1: 4 got the lock by a local hand-off
 * with 3 waiting aside, so it splices 3 in front of 5 (fairness) and
 * hands to it (remote); 3 (node 1) hands to 5 (node 1, local).
 */
static void test_cna_staged_count_bound(void **state)
{
	const struct cna_expect e = {1, 2, 1, 0, 1};

	(void)state;
	run_cna_staged(2, 0, 1, &e);
}

/* The same with the time bound at 1 ns: it has always expired. */
static void test_cna_staged_time_bound(void **state)
{
	const struct cna_expect e = {1, 2, 1, 0, 1};

	(void)state;
	run_cna_staged(2, 1, 0, &e);
}

/*
 * Nodes tid % 4: queue 2 3 4 5 on nodes 2 3 0 1.  Head 2 moves 3 and 4
 * aside and hands to 5 (remote); 5 is last and splices 3 4 back (remote
 * hand-off to 3); 3 finds 4 on another node and hands to it (remote).
 */
static void test_cna_staged_four_nodes(void **state)
{
	const struct cna_expect e = {2, 0, 3, 1, 0};

	(void)state;
	run_cna_staged(4, 0, 0, &e);
}

/* Three readers (the first two made to meet inside a read section) and
 * one writer that yields after each write section. */
static void run_rw(const struct lock_ops *ops)
{
	struct rig *r = rig_new(ops, NTHREADS, 1, NULL);
	const unsigned iters = 400;

	rig_run(r, rw_worker, iters, NTHREADS - 1);
	assert_int_equal(atomic_load(&r->violations), 0);
	assert_int_equal(r->counter, iters);
	assert_true(atomic_load(&r->max_readers) > 1);
	assert_int_equal(atomic_load(&r->readers), 0);
	rig_free(r);
}

static void test_qrwlock_rw(void **state)
{
	(void)state;
	run_rw(&lock_qrwlock_ops);
}

static void test_qrwlock_steal_rw(void **state)
{
	(void)state;
	run_rw(&lock_qrwlock_steal_ops);
}

/*
 * Writer fairness, staged: main (tid 0) holds a read lock, a writer
 * (tid 1) waits with WAITING set, then a new reader (tid 2) arrives.
 * qrwlock queues the reader behind the writer; qrwlock_steal lets it in
 * at once.  The order of the two sections is recorded in seq.
 */
struct order {
	struct rig *r;
	_Atomic unsigned seq, writer_at, reader_at;
};

static void *order_writer(void *arg)
{
	struct order *o = arg;

	o->r->ops->lock(o->r->lock, rig_ctx(o->r, 1));
	atomic_store(&o->writer_at, atomic_fetch_add(&o->seq, 1) + 1);
	o->r->ops->unlock(o->r->lock, rig_ctx(o->r, 1));
	return NULL;
}

static void *order_reader(void *arg)
{
	struct order *o = arg;

	o->r->ops->read_lock(o->r->lock, rig_ctx(o->r, 2));
	atomic_store(&o->reader_at, atomic_fetch_add(&o->seq, 1) + 1);
	o->r->ops->read_unlock(o->r->lock, rig_ctx(o->r, 2));
	return NULL;
}

static bool writer_waiting(struct rig *r, uint64_t arg)
{
	(void)arg;
	return lock_word(r) & QW_WAITING;
}

static bool reader_slow(struct rig *r, uint64_t arg)
{
	return tl_counter(r->ops, r->lock, "read_slowpath") >= arg;
}

static struct order *order_obj;

static bool reader_done(struct rig *r, uint64_t arg)
{
	(void)r;
	(void)arg;
	return atomic_load(&order_obj->reader_at) != 0;
}

static void run_order(const struct lock_ops *ops, bool steal)
{
	struct order o = {.r = rig_new(ops, 3, 1, NULL)};
	pthread_t tw, tr;

	rig_init_threads(o.r);
	order_obj = &o;
	ops->read_lock(o.r->lock, rig_ctx(o.r, 0));
	assert_int_equal(pthread_create(&tw, NULL, order_writer, &o), 0);
	wait_for(o.r, writer_waiting, 0);
	assert_int_equal(pthread_create(&tr, NULL, order_reader, &o), 0);
	/* Fair: the reader is headed for the queue; steal: it gets in
	 * while we still hold our read lock and the writer waits. */
	wait_for(o.r, steal ? reader_done : reader_slow, 1);
	ops->read_unlock(o.r->lock, rig_ctx(o.r, 0));
	pthread_join(tw, NULL);
	pthread_join(tr, NULL);
	assert_int_equal(atomic_load(&o.writer_at), steal ? 2 : 1);
	assert_int_equal(atomic_load(&o.reader_at), steal ? 1 : 2);
	assert_int_equal(tl_counter(o.r->ops, o.r->lock, "read_slowpath"), steal ? 0 : 1);
	assert_int_equal(tl_counter(o.r->ops, o.r->lock, "write_slowpath"), 1);
	assert_int_equal(lock_word(o.r), 0);
	rig_free(o.r);
}

static void test_qrwlock_writer_first(void **state)
{
	(void)state;
	run_order(&lock_qrwlock_ops, false);
}

static void test_qrwlock_steal_reader_first(void **state)
{
	(void)state;
	run_order(&lock_qrwlock_steal_ops, true);
}

/* Single thread: trylock takes a free lock and fails on a held one;
 * for the rwlocks a reader blocks write trylock. */
static void check_trylock(const struct lock_ops *ops)
{
	struct rig *r = rig_new(ops, 1, 1, NULL);
	void *ctx = rig_ctx(r, 0);

	rig_init_threads(r);
	assert_true(ops->trylock(r->lock, ctx));
	assert_false(ops->trylock(r->lock, ctx));
	ops->unlock(r->lock, ctx);
	ops->lock(r->lock, ctx);
	assert_false(ops->trylock(r->lock, ctx));
	ops->unlock(r->lock, ctx);
	if (ops->caps & LOCK_CAP_RW) {
		ops->read_lock(r->lock, ctx);
		ops->read_lock(r->lock, ctx);
		assert_false(ops->trylock(r->lock, ctx));
		ops->read_unlock(r->lock, ctx);
		ops->read_unlock(r->lock, ctx);
	}
	assert_true(ops->trylock(r->lock, ctx));
	ops->unlock(r->lock, ctx);
	assert_int_equal(lock_word(r), 0);
	rig_free(r);
}

static void test_trylock(void **state)
{
	(void)state;
	check_trylock(&lock_qspinlock_ops);
	check_trylock(&lock_cna_ops);
	check_trylock(&lock_qrwlock_ops);
	check_trylock(&lock_qrwlock_steal_ops);
}

/* init refuses more threads than the 14 tail cpu bits can name. */
static void test_too_many_threads(void **state)
{
	void *lock = t_alloc(lock_qspinlock_ops.lock_size);
	struct lock_init in = {
		.nthreads = 1u << 14, .nnodes = 1, .alloc = t_alloc,
		.free_mem = t_free,
	};

	(void)state;
	assert_int_equal(lock_qspinlock_ops.init(lock, &in), -EINVAL);
	free(lock);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trylock),
		cmocka_unit_test(test_too_many_threads),
		cmocka_unit_test(test_qspinlock_staged),
		cmocka_unit_test(test_cna_staged_two_nodes),
		cmocka_unit_test(test_cna_staged_count_bound),
		cmocka_unit_test(test_cna_staged_time_bound),
		cmocka_unit_test(test_cna_staged_four_nodes),
		cmocka_unit_test(test_qrwlock_writer_first),
		cmocka_unit_test(test_qrwlock_steal_reader_first),
		cmocka_unit_test(test_qspinlock_stress),
		cmocka_unit_test(test_cna_stress_two_nodes),
		cmocka_unit_test(test_cna_stress_four_nodes),
		cmocka_unit_test(test_qrwlock_stress),
		cmocka_unit_test(test_qrwlock_rw),
		cmocka_unit_test(test_qrwlock_steal_rw),
	};

	/* Optional argument: run only the tests matching this glob. */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
