/* SPDX-License-Identifier: MIT */
/*
 * test_sleep_locks - the sleeping locks (futex, mutex_spin, pi_mutex and
 * the rtmutex variants) driven through their ops tables by real pthreads,
 * without the harness.
 *
 *  - uncontended: lock/unlock/trylock on one thread take only the fast
 *    paths (every slow-path counter stays 0), and a held lock refuses a
 *    trylock from another thread;
 *  - wake: a thread that blocks behind the main thread is woken by its
 *    unlock; the counters show exactly one sleep-and-wake cycle;
 *  - torture: 8 threads pinned on 2 CPUs, short critical sections with
 *    an occasional yield inside, a fixed number of acquisitions each;
 *    mutual exclusion is checked with an owner field and an unprotected
 *    counter, and a lost wake-up shows as a thread that does not finish
 *    before a 20 s deadline (pthread_timedjoin_np): the test fails
 *    instead of hanging.
 *
 * Build: gcc -std=gnu11 -O2 -Ilocks tests/test_sleep_locks.c
 *        locks/futex.c locks/mutex_spin.c locks/pi_mutex.c locks/rtmutex.c
 *        -lcmocka -pthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "lockbench/lock.h"
#include "testlib.h"

extern const struct lock_ops lock_futex_ops, lock_mutex_spin_ops,
	lock_pi_mutex_ops, lock_rtmutex_ops, lock_rtmutex_relaxed_owner_ops,
	lock_rtmutex_readonce_ops, lock_rtmutex_fetch_or_ops,
	lock_rtmutex_relaxed_owner_readonce_ops,
	lock_rtmutex_relaxed_owner_fetch_or_ops;

/* Overridable with -D for longer soak runs. */
#ifndef NTHREADS
#define NTHREADS 8
#endif
#define NCPUS 2
#ifndef ITERS
#define ITERS 4000
#endif
#ifndef YIELD_EVERY
#define YIELD_EVERY 128 /* one yield inside the critical section per N */
#endif
#define DEADLINE_S 20
#define MAXCNT 8

/* One test case: a lock and optionally one option value. */
struct tcase {
	const struct lock_ops *ops;
	const char *opt;
	uint64_t val;
};

/* A lock with NTHREADS contexts, laid out as the harness does. */
struct inst {
	const struct lock_ops *ops;
	void *lock;
	void *ctx[NTHREADS];
	uint64_t opt[8];
};

static size_t round_line(size_t n)
{
	return (n + LB_CACHELINE - 1) / LB_CACHELINE * LB_CACHELINE;
}

static void *zalloc(size_t size)
{
	void *p = aligned_alloc(LB_CACHELINE, round_line(size ? size : 1));

	if (p)
		memset(p, 0, round_line(size ? size : 1));
	return p;
}

static void zfree(void *p, size_t size)
{
	(void)size;
	free(p);
}

/* Allocate and init() a lock for nthreads; fail the test on error. */
static struct inst *inst_new(const struct tcase *tc, unsigned nthreads)
{
	const struct lock_ops *ops = tc->ops;
	struct inst *in = calloc(1, sizeof(*in));
	struct lock_init li = {
		.nthreads = nthreads,
		.nnodes = 1,
		.alloc = zalloc,
		.free_mem = zfree,
	};

	assert_non_null(in);
	assert_true(ops->nopts <= 8);
	in->ops = ops;
	for (unsigned i = 0; i < ops->nopts; i++) {
		in->opt[i] = ops->opts[i].def;
		if (tc->opt && !strcmp(tc->opt, ops->opts[i].name))
			in->opt[i] = tc->val;
	}
	li.opt = in->opt;
	in->lock = zalloc(ops->lock_size);
	assert_non_null(in->lock);
	for (unsigned i = 0; i < nthreads; i++) {
		in->ctx[i] = zalloc(ops->ctx_size);
		assert_non_null(in->ctx[i]);
	}
	if (ops->init)
		assert_int_equal(ops->init(in->lock, &li), 0);
	return in;
}

static void inst_free(struct inst *in)
{
	if (in->ops->destroy)
		in->ops->destroy(in->lock);
	free(in->lock);
	for (unsigned i = 0; i < NTHREADS; i++)
		free(in->ctx[i]);
	free(in);
}

static int inst_thread_init(struct inst *in, unsigned tid, unsigned n)
{
	struct lock_thread t = {.tid = tid, .nthreads = n, .cpu = -1,
				.nnodes = 1};

	if (!in->ops->thread_init)
		return 0;
	return in->ops->thread_init(in->lock, in->ctx[tid], &t);
}


static void deadline_in(struct timespec *ts, unsigned s)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += s;
}

/* Join th before the deadline or fail the test (never hang). */
static void join_or_fail(pthread_t th, const struct timespec *dl,
			 const char *what)
{
	int err = pthread_timedjoin_np(th, NULL, dl);

	if (err == ETIMEDOUT)
		fail_msg("%s: thread stuck after %d s (lost wake-up?)", what,
			 DEADLINE_S);
	assert_int_equal(err, 0);
}

/* ---- uncontended ------------------------------------------------------ */

struct tryarg {
	struct inst *in;
	int err;
	bool got;
};

static void *try_from_other(void *p)
{
	struct tryarg *a = p;

	a->err = inst_thread_init(a->in, 1, 2);
	if (a->err)
		return NULL;
	a->got = a->in->ops->trylock(a->in->lock, a->in->ctx[1]);
	if (a->got)
		a->in->ops->unlock(a->in->lock, a->in->ctx[1]);
	return NULL;
}

static void uncontended(void **state)
{
	const struct tcase *tc = *state;
	struct inst *in = inst_new(tc, 2);
	const struct lock_ops *ops = in->ops;
	struct tryarg a = {.in = in};
	struct timespec dl;
	pthread_t th;
	uint64_t v[MAXCNT];

	assert_int_equal(inst_thread_init(in, 0, 2), 0);
	for (unsigned i = 0; i < 1000; i++) {
		ops->lock(in->lock, in->ctx[0]);
		ops->unlock(in->lock, in->ctx[0]);
	}
	assert_true(ops->trylock(in->lock, in->ctx[0]));
	ops->unlock(in->lock, in->ctx[0]);

	/* Held: another thread's trylock must fail. */
	ops->lock(in->lock, in->ctx[0]);
	deadline_in(&dl, DEADLINE_S);
	assert_int_equal(pthread_create(&th, NULL, try_from_other, &a), 0);
	join_or_fail(th, &dl, ops->name);
	assert_int_equal(a.err, 0);
	assert_false(a.got);
	ops->unlock(in->lock, in->ctx[0]);

	/* Free again: it succeeds. */
	assert_int_equal(pthread_create(&th, NULL, try_from_other, &a), 0);
	join_or_fail(th, &dl, ops->name);
	assert_true(a.got);

	/* Nothing above contended: only fast paths ran.  (The failed
	 * trylock of a rtmutex looks at the owner without the wait_lock.) */
	assert_true(ops->ncounters <= MAXCNT);
	if (ops->ncounters)
		ops->read_counters(in->lock, v);
	for (unsigned i = 0; i < ops->ncounters; i++)
		assert_int_equal(v[i], 0);
	inst_free(in);
}

/* ---- one sleep, one wake-up --------------------------------------------- */

struct blockarg {
	struct inst *in;
	_Atomic int done;
	int err;
};

static void *block_behind_main(void *p)
{
	struct blockarg *a = p;

	a->err = inst_thread_init(a->in, 1, 2);
	if (a->err) {
		atomic_store(&a->done, -1);
		return NULL;
	}
	a->in->ops->lock(a->in->lock, a->in->ctx[1]);
	a->in->ops->unlock(a->in->lock, a->in->ctx[1]);
	atomic_store(&a->done, 1);
	return NULL;
}

/* Wait (1 ms steps, up to the deadline) until the named counter > 0. */
static void wait_counter(struct inst *in, const char *name)
{
	struct timespec ms = {0, 1000000};

	for (unsigned i = 0; i < DEADLINE_S * 1000; i++) {
		if (tl_counter(in->ops, in->lock, name))
			return;
		nanosleep(&ms, NULL);
	}
	fail_msg("%s: counter %s stayed 0", in->ops->name, name);
}

/*
 * Main holds the lock; a second thread blocks in lock(); once it has
 * gone to sleep (its counter says so) main unlocks and the thread must
 * get the lock.  Returns the instance for the per-lock counter checks.
 */
static struct inst *sleep_and_wake(const struct tcase *tc, const char *sleeps)
{
	struct inst *in = inst_new(tc, 2);
	struct blockarg a = {.in = in};
	struct timespec dl;
	pthread_t th;

	assert_int_equal(inst_thread_init(in, 0, 2), 0);
	in->ops->lock(in->lock, in->ctx[0]);
	deadline_in(&dl, DEADLINE_S);
	assert_int_equal(pthread_create(&th, NULL, block_behind_main, &a), 0);
	wait_counter(in, sleeps);
	assert_int_equal(atomic_load(&a.done), 0);
	in->ops->unlock(in->lock, in->ctx[0]);
	join_or_fail(th, &dl, in->ops->name);
	assert_int_equal(a.err, 0);
	assert_int_equal(atomic_load(&a.done), 1);
	return in;
}

static void wake_futex(void **state)
{
	struct inst *in = sleep_and_wake(*state, "futex_waits");

	/* Mutex3: the woken thread marks the word contended again (it
	 * cannot know it was the last), so its own unlock wakes too. */
	assert_int_equal(tl_counter(in->ops, in->lock, "futex_waits"), 1);
	assert_int_equal(tl_counter(in->ops, in->lock, "futex_wakes"), 2);
	inst_free(in);
}

static void wake_mutex_spin(void **state)
{
	struct inst *in = sleep_and_wake(*state, "sleeps");

	/* Released (not handed over): nobody stole it, so the woken first
	 * waiter took it at once, without asking for HANDOFF. */
	assert_int_equal(tl_counter(in->ops, in->lock, "sleeps"), 1);
	assert_int_equal(tl_counter(in->ops, in->lock, "wakeups"), 1);
	assert_int_equal(tl_counter(in->ops, in->lock, "handoffs"), 0);
	assert_int_equal(tl_counter(in->ops, in->lock, "spin_acquired"), 0);
	inst_free(in);
}

static void wake_rtmutex(void **state)
{
	struct inst *in = sleep_and_wake(*state, "sleeps");

	/* One slow lock that slept once; main's unlock found HAS_WAITERS
	 * and woke the top waiter; the waiter's own unlock was fast (no
	 * waiters left, fixup cleared the bit). */
	assert_int_equal(tl_counter(in->ops, in->lock, "slowlock"), 1);
	assert_int_equal(tl_counter(in->ops, in->lock, "sleeps"), 1);
	assert_int_equal(tl_counter(in->ops, in->lock, "wakeups"), 1);
	assert_int_equal(tl_counter(in->ops, in->lock, "slowunlock"), 1);
	assert_int_equal(tl_counter(in->ops, in->lock, "mark_retries"), 0);
	assert_int_equal(tl_counter(in->ops, in->lock, "owner_spins"), 0);
	inst_free(in);
}

/* ---- torture -------------------------------------------------------------- */

struct torture {
	struct inst *in;
	pthread_barrier_t start;
	int cpus[NCPUS];
	unsigned ncpus;
	LB_ALIGNED _Atomic uint32_t owner;
	LB_ALIGNED uint64_t counter; /* protected by the lock only */
	LB_ALIGNED _Atomic uint64_t violations;
	_Atomic int init_err;
	_Atomic uint64_t done[NTHREADS];
};

struct worker {
	struct torture *t;
	unsigned tid;
};

static void pin(struct torture *t, unsigned tid)
{
	cpu_set_t set;

	if (!t->ncpus)
		return;
	CPU_ZERO(&set);
	CPU_SET(t->cpus[tid % t->ncpus], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The critical section: claim the owner field, bump the counter,
 * sometimes yield the CPU while holding the lock, release the field. */
static void critical(struct torture *t, unsigned tid, unsigned i)
{
	uint32_t me = tid + 1, exp = 0;

	if (!atomic_compare_exchange_strong_explicit(&t->owner, &exp, me,
						     lb_rlx, lb_rlx))
		atomic_fetch_add(&t->violations, 1);
	t->counter++;
	if (i % YIELD_EVERY == tid)
		sched_yield();
	for (unsigned k = 0; k < 20; k++)
		lb_barrier();
	exp = me;
	if (!atomic_compare_exchange_strong_explicit(&t->owner, &exp, 0,
						     lb_rlx, lb_rlx))
		atomic_fetch_add(&t->violations, 1);
}

static void *torture_worker(void *p)
{
	struct worker *w = p;
	struct torture *t = w->t;
	struct inst *in = t->in;
	const struct lock_ops *ops = in->ops;
	void *ctx = in->ctx[w->tid];
	bool try = ops->caps & LOCK_CAP_TRYLOCK;

	pin(t, w->tid);
	if (inst_thread_init(in, w->tid, NTHREADS))
		atomic_store(&t->init_err, 1);
	pthread_barrier_wait(&t->start);
	for (unsigned i = 0; i < ITERS; i++) {
		/* Every 8th acquisition tries trylock first. */
		if (!(try && i % 8 == 0 && ops->trylock(in->lock, ctx)))
			ops->lock(in->lock, ctx);
		critical(t, w->tid, i);
		ops->unlock(in->lock, ctx);
		atomic_store_explicit(&t->done[w->tid], i + 1, lb_rlx);
	}
	return NULL;
}

/* The first NCPUS CPUs we may run on. */
static void pick_cpus(struct torture *t)
{
	cpu_set_t set;

	t->ncpus = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE && t->ncpus < NCPUS; c++)
		if (CPU_ISSET(c, &set))
			t->cpus[t->ncpus++] = c;
}

/*
 * Run NTHREADS x ITERS acquisitions and check exclusion; copy the lock's
 * counters to cnt (MAXCNT entries).  On a timeout the threads are
 * abandoned with their state (leaked on purpose: they still use it).
 */
static void torture(const struct tcase *tc, uint64_t *cnt)
{
	struct torture *t = aligned_alloc(LB_CACHELINE, round_line(sizeof(*t)));
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	struct timespec dl;
	char what[96];

	assert_non_null(t);
	memset(t, 0, sizeof(*t));
	t->in = inst_new(tc, NTHREADS);
	pick_cpus(t);
	assert_int_equal(pthread_barrier_init(&t->start, NULL, NTHREADS), 0);
	deadline_in(&dl, DEADLINE_S);
	for (unsigned i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){t, i};
		assert_int_equal(pthread_create(&th[i], NULL, torture_worker,
						&w[i]), 0);
	}
	for (unsigned i = 0; i < NTHREADS; i++) {
		snprintf(what, sizeof(what), "%s: thread %u at %llu/%u ops",
			 tc->ops->name, i,
			 (unsigned long long)atomic_load(&t->done[i]), ITERS);
		join_or_fail(th[i], &dl, what);
	}
	assert_int_equal(atomic_load(&t->init_err), 0);
	assert_int_equal(atomic_load(&t->violations), 0);
	assert_int_equal(t->counter, (uint64_t)NTHREADS * ITERS);
	memset(cnt, 0, MAXCNT * sizeof(*cnt));
	assert_true(tc->ops->ncounters <= MAXCNT);
	if (tc->ops->ncounters)
		tc->ops->read_counters(t->in->lock, cnt);
	pthread_barrier_destroy(&t->start);
	inst_free(t->in);
	free(t);
}

static void torture_test(void **state)
{
	uint64_t cnt[MAXCNT];

	torture(*state, cnt);
}

/*
 * rtmutex variants: also check that the slow path really ran: with 8
 * threads on 2 CPUs and holders that yield, lockers queue and sleep,
 * and every sleep is ended by a wake-up from an unlock.
 */
static void torture_rtmutex(void **state)
{
	const struct tcase *tc = *state;
	const struct lock_ops *ops = tc->ops;
	uint64_t cnt[MAXCNT];

	torture(tc, cnt);
	assert_true(cnt[tl_counter_index(ops, "slowlock")] > 0);
	assert_true(cnt[tl_counter_index(ops, "sleeps")] > 0);
	assert_true(cnt[tl_counter_index(ops, "wakeups")] > 0);
	assert_true(cnt[tl_counter_index(ops, "slowunlock")] >=
		    cnt[tl_counter_index(ops, "wakeups")]);
	if (strstr(ops->name, "fetch_or"))
		assert_int_equal(cnt[tl_counter_index(ops, "mark_retries")], 0);
}

static const struct tcase c_futex = {.ops = &lock_futex_ops};
static const struct tcase c_pi = {.ops = &lock_pi_mutex_ops};
static const struct tcase c_msp = {.ops = &lock_mutex_spin_ops};
static const struct tcase c_msp_nospin = {&lock_mutex_spin_ops, "spin_max", 0};
static const struct tcase c_msp_short = {&lock_mutex_spin_ops, "spin_max", 5};
static const struct tcase c_rtm_nospin = {&lock_rtmutex_ops, "spin_max", 0};
static const struct tcase c_rtm[] = {
	{.ops = &lock_rtmutex_ops},
	{.ops = &lock_rtmutex_relaxed_owner_ops},
	{.ops = &lock_rtmutex_readonce_ops},
	{.ops = &lock_rtmutex_fetch_or_ops},
	{.ops = &lock_rtmutex_relaxed_owner_readonce_ops},
	{.ops = &lock_rtmutex_relaxed_owner_fetch_or_ops},
};

/* A test function and its case; named "<fn>/<lock>[.<opt>=<val>]". */
struct tdef {
	const char *fn_name;
	CMUnitTestFunction fn;
	const struct tcase *tc;
};

#define T(fn, tc) {#fn, fn, &(tc)}

static const struct tdef tdefs[] = {
	T(uncontended, c_futex),
	T(uncontended, c_pi),
	T(uncontended, c_msp),
	T(uncontended, c_rtm[0]),
	T(uncontended, c_rtm[3]),
	T(wake_futex, c_futex),
	T(wake_mutex_spin, c_msp),
	T(wake_mutex_spin, c_msp_nospin),
	T(wake_rtmutex, c_rtm[0]),
	T(wake_rtmutex, c_rtm[1]),
	T(wake_rtmutex, c_rtm[2]),
	T(wake_rtmutex, c_rtm[3]),
	T(wake_rtmutex, c_rtm[4]),
	T(wake_rtmutex, c_rtm[5]),
	T(wake_rtmutex, c_rtm_nospin),
	T(torture_test, c_futex),
	T(torture_test, c_pi),
	T(torture_test, c_msp),
	T(torture_test, c_msp_nospin),
	T(torture_test, c_msp_short),
	T(torture_rtmutex, c_rtm[0]),
	T(torture_rtmutex, c_rtm[1]),
	T(torture_rtmutex, c_rtm[2]),
	T(torture_rtmutex, c_rtm[3]),
	T(torture_rtmutex, c_rtm[4]),
	T(torture_rtmutex, c_rtm[5]),
	T(torture_rtmutex, c_rtm_nospin),
};

#define NTESTS (sizeof(tdefs) / sizeof(tdefs[0]))

int main(void)
{
	static struct CMUnitTest tests[NTESTS];
	static char names[NTESTS][96];

	for (unsigned i = 0; i < NTESTS; i++) {
		const struct tcase *tc = tdefs[i].tc;

		if (tc->opt)
			snprintf(names[i], sizeof(names[i]), "%s/%s.%s=%llu",
				 tdefs[i].fn_name, tc->ops->name, tc->opt,
				 (unsigned long long)tc->val);
		else
			snprintf(names[i], sizeof(names[i]), "%s/%s",
				 tdefs[i].fn_name, tc->ops->name);
		tests[i] = (struct CMUnitTest){
			.name = names[i],
			.test_func = tdefs[i].fn,
			.initial_state = (void *)tc,
		};
	}
	return _cmocka_run_group_tests("sleep_locks", tests, NTESTS, NULL,
				       NULL);
}
