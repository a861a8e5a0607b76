/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../topology/host/clock.h"
#include "../topology/mem.h"
#include "noise_run.h"
#include "runner.h"

/*
 * The monitor's sleep between two looks at the workers; in the window,
 * when noise is measured, a shorter one, so that a stop of the process
 * shows in its wake-ups to within that much.  A wake-up later than
 * LATE_SLACK_S (a scheduling delay: sched(7)) counts as time the
 * process did not run (docs/method.md, "Noise").
 */
#define MONITOR_SLICE_S 0.05
#define MONITOR_WINDOW_SLICE_S 0.01
#define LATE_SLACK_S 0.005

/* How long the workers get to leave once a stop signal came; then the
 * run is abandoned (its memory left to them) so that the
 * signal is obeyed within a second however slowly an oversubscribed
 * FIFO spin lock drains (docs/method.md, "Oversubscription"). */
#define STOP_GRACE_S 0.3

/* The lock contract promises LB_CACHELINE-aligned memory (lock.h). */
_Static_assert(MEM_COLOUR % LB_CACHELINE == 0, "colours keep lines aligned");

/* State shared by the monitor and the workers for one run.  The flags
 * each sit on their own line so the workers' polling of `stop` never
 * collides with the counters or with each other. */
struct run_state {
	LB_ALIGNED _Atomic uint32_t stop;
	_Atomic uint32_t window;   /* inside the measured window (read-mostly) */
	_Atomic uint32_t pause;    /* torture --stutter (read-mostly) */
	LB_ALIGNED _Atomic uint32_t go;
	LB_ALIGNED _Atomic uint32_t ready;
	_Atomic uint32_t failed;   /* a thread_init failed */
	/* Workers that reached thread_init (and so hold their context): a
	 * worker not yet scheduled is never given up on, as it is about to
	 * read the run's memory; never-started ones count as entered. */
	_Atomic uint32_t entered;
	_Atomic uint32_t exited;
	int mem_node;
};

/*
 * Workers that wait (for the release, for every other worker to leave)
 * sleep on the word rather than yield in a loop: thousands of yielding
 * threads on a few CPUs slow the start of the next one, and every other
 * thread of the process, to a crawl.  futex(2), FUTEX_WAIT_PRIVATE: the
 * kernel re-checks the word, so a wake that came first is not lost.
 */
static void word_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void word_wake_all(_Atomic uint32_t *w)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Release the workers waiting for `go` (run_state). */
static void go_set(struct run_state *rs)
{
	atomic_store_explicit(&rs->go, 1, lb_rel);
	word_wake_all(&rs->go);
}

/* @k more of the @n workers have left; the last wakes the waiting ones. */
static void exited_add(struct run_state *rs, unsigned n, unsigned k)
{
	if (atomic_fetch_add_explicit(&rs->exited, k, lb_rel) + k >= n)
		word_wake_all(&rs->exited);
}

struct thread_arg {
	const struct run_spec *spec;
	struct run_state *rs;
	void *lock;
	struct wl_shared *sh;      /* shared CS data (or NULL: private) */
	struct worker_slot *slot;
	unsigned tid;
	pthread_t th;
	bool started;
	int err;       /* thread_init's result */
	int pin_errno; /* sched_setaffinity's errno, 0 when pinned */
	struct run_lat *lat;       /* where the worker merges its histogram */
	struct wnoise *wn; /* noise measurements (noise_run.h) or NULL */
	pid_t os_tid;      /* the worker's thread id, for its perf counters */
	const uint64_t *holder_ids; /* wl_holder_id() of every thread */
};

/* ---- sampled latency, extra counters, stutter ------------------------ */

/* The run's merged latency histogram; workers merge into it on exit. */
struct run_lat {
	pthread_mutex_t mx;
	struct hist h;
};

/* A worker's latency histogram on its own node; NULL when not sampled. */
static struct hist *lat_get(const struct run_spec *sp)
{
	return sp->params->lat_sample ? mem_alloc(sizeof(struct hist), MEM_NODE_LOCAL)
				      : NULL;
}

/* After the loop: merge the worker's histogram into the run's, free it. */
static void lat_put(struct run_lat *rl, struct hist *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&rl->mx);
	hist_merge(&rl->h, h);
	pthread_mutex_unlock(&rl->mx);
	mem_free(h, sizeof(*h));
}

/* Copy every worker's slot (the monitor's view of its counters). */
static void slots_copy(const struct worker_slot *slot, unsigned n,
		       struct worker_slot *out)
{
	for (unsigned i = 0; i < n; i++) {
		const struct worker_slot *s = &slot[i];

		atomic_init(&out[i].ops, atomic_load_explicit(&s->ops, lb_rlx));
		atomic_init(&out[i].reads, atomic_load_explicit(&s->reads, lb_rlx));
		atomic_init(&out[i].hand_n, atomic_load_explicit(&s->hand_n, lb_rlx));
		atomic_init(&out[i].same_node, atomic_load_explicit(&s->same_node, lb_rlx));
		atomic_init(&out[i].same_l3, atomic_load_explicit(&s->same_l3, lb_rlx));
		atomic_init(&out[i].same_core, atomic_load_explicit(&s->same_core, lb_rlx));
		atomic_init(&out[i].xfer, atomic_load_explicit(&s->xfer, lb_rlx));
	}
}

#define SLOT_DELTA(b, a, f) \
	(atomic_load_explicit(&(b)->f, lb_rlx) - atomic_load_explicit(&(a)->f, lb_rlx))

/*
 * The workload metrics of the window into `out`: reads per thread and
 * in all, handovers (exclusive workloads), the merged latency.  x0/x1
 * are the slots at the start/end of the window.
 */
static void metrics_fill(const struct run_spec *sp, struct run_sample *out,
			 const struct worker_slot *x0, const struct worker_slot *x1,
			 const struct run_lat *rl)
{
	out->has_rw = sp->wl->flags & WL_RW;
	out->has_hand = !(sp->wl->flags & WL_NOLOCK) && !(sp->ops->caps & LOCK_CAP_NOLOCK);
	if (out->has_rw) {
		out->thread_reads = calloc(sp->nthreads, sizeof(uint64_t));
		out->thread_kind = malloc(sp->nthreads);
	}
	for (unsigned i = 0; out->thread_kind && i < sp->nthreads; i++)
		out->thread_kind[i] = !sp->params->fixed_roles ? 'm' :
			wl_is_reader(sp->params, i, sp->nthreads) ? 'r' : 'w';
	for (unsigned i = 0; i < sp->nthreads; i++) {
		uint64_t rd = SLOT_DELTA(&x1[i], &x0[i], reads);

		out->read_ops += rd;
		if (out->thread_reads)
			out->thread_reads[i] = rd;
		out->hand_n += SLOT_DELTA(&x1[i], &x0[i], hand_n);
		out->hand_node += SLOT_DELTA(&x1[i], &x0[i], same_node);
		out->hand_l3 += SLOT_DELTA(&x1[i], &x0[i], same_l3);
		out->hand_core += SLOT_DELTA(&x1[i], &x0[i], same_core);
		out->hand_xfer += SLOT_DELTA(&x1[i], &x0[i], xfer);
	}
	/* The handover counters (and with empty sections the operation
	 * count) reach the slot on the loop's sampled operations
	 * (workloads/loop.h), so at each edge of the window they lag by
	 * less than one sampling period per thread; the read count is
	 * stored on every read, before the operation count, so it can run
	 * a few operations ahead of it.  Clamp what either could invert,
	 * against the window's operations as reported (out->ops, snapshot
	 * just before x1 was copied) where that is fewer. */
	{
		uint64_t ops = 0;

		for (unsigned i = 0; i < sp->nthreads; i++)
			ops += SLOT_DELTA(&x1[i], &x0[i], ops);
		ops = out->ops < ops ? out->ops : ops;
		out->hand_n = out->hand_n < ops ? out->hand_n : ops;
		out->read_ops = out->read_ops < ops ? out->read_ops : ops;
	}
	out->hand_node = out->hand_node < out->hand_n ? out->hand_node : out->hand_n;
	out->hand_l3 = out->hand_l3 < out->hand_n ? out->hand_l3 : out->hand_n;
	out->hand_core = out->hand_core < out->hand_n ? out->hand_core : out->hand_n;
	out->hand_xfer = out->hand_xfer < out->hand_n ? out->hand_xfer : out->hand_n;
	out->lat_sample = sp->params->lat_sample;
	if (out->lat_sample && (out->lat = malloc(sizeof(*out->lat))))
		*out->lat = rl->h;
}

/* Stutter (torture): the monitor raises `pause` for S s every S s. */
static void stutter_tick(const struct run_spec *sp, struct run_state *rs,
			 double t0, double t)
{
	double s = sp->params->stutter_s;

	if (s > 0)
		atomic_store_explicit(&rs->pause, (unsigned)((t - t0) / s) & 1, lb_rlx);
}

/* ---- end of the workload-metric helpers ------------------------------ */

/*
 * The longest operation of the run, in seconds: its section, its
 * parallel section at the longest exponential draw (lb_exp_table: 1599
 * in 256) and a torture long hold.  Each thread's operation in progress
 * is finished before it sees the stop, so a stop waits for that much
 * beyond the watchdog, and with threads queued on the lock for each
 * one's section in turn (stop_wait_s()).
 */
static double op_max_s(const struct run_spec *sp)
{
	const struct wl_params *p = sp->params;

	return ((double)p->cs_ns + (double)p->ncs_ns * 1599 / 256 +
		(double)p->long_hold_ms * 1e6) * 1e-9;
}

/* How long the workers get to leave after the window (or a failed
 * start) before they are taken for stuck. */
static double stop_wait_s(const struct run_spec *sp)
{
	return sp->watchdog_s + op_max_s(sp) +
	       (double)sp->nthreads * (double)sp->params->cs_ns * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static size_t shared_size(const struct run_spec *sp)
{
	return sizeof(struct wl_shared) +
	       workload_lines(sp->wl, sp->params) * sizeof(struct cs_line);
}

static void *lock_alloc_cb(size_t size)
{
	return mem_alloc(size, MEM_NODE_LOCAL);
}

/* The loop a run's workers execute: the lock's own inlined loop for
 * this workload when it carries one, else the workload's generic one. */
static void (*runner_loop(const struct run_spec *sp))(struct worker *)
{
	enum wl_loop_kind k = sp->wl->inline_loop;

	if (sp->loops && k != WL_LOOP_NONE && sp->loops->loop[k])
		return sp->loops->loop[k];
	return sp->wl->loop;
}

bool runner_inlined(const struct run_spec *sp)
{
	return runner_loop(sp) != sp->wl->loop;
}

/* Where every thread runs, packed as the handover statistics compare it
 * (node: --fake-nodes too, as the lock sees it). */
static uint64_t *holder_ids_get(const struct run_spec *sp)
{
	uint64_t *id = calloc(sp->nthreads, sizeof(*id));

	for (unsigned i = 0; id && i < sp->nthreads; i++)
		id[i] = wl_holder_id(sp->fake_nodes ? i % sp->fake_nodes
						    : sp->place[i].node,
				     sp->place[i].l3, sp->place[i].core);
	return id;
}

/* Pin the calling worker to its CPU (none: -1), so its context is
 * first-touched on its node.  (The thread pins itself rather than
 * inheriting the CPU from a pthread attribute: that path hangs under
 * qemu-user.) */
static void worker_pin(struct thread_arg *a, int cpu)
{
	/* A set sized for this CPU: cpu_set_t holds CPU_SETSIZE (1024)
	 * CPUs only, and machines have more (CPU_ALLOC(3)). */
	cpu_set_t *set;
	size_t size;

	if (cpu < 0)
		return;
	set = CPU_ALLOC((size_t)cpu + 1);
	size = CPU_ALLOC_SIZE((size_t)cpu + 1);
	if (set) {
		CPU_ZERO_S(size, set);
		CPU_SET_S((size_t)cpu, size, set);
	}
	if (!set || sched_setaffinity(0, size, set)) {
		a->pin_errno = set ? errno : ENOMEM;
		atomic_store_explicit(&a->rs->failed, 1, lb_rlx);
	}
	if (set)
		CPU_FREE(set);
}

/* What the lock's thread_init learns about the calling worker. */
static struct lock_thread worker_lock_thread(const struct thread_arg *a)
{
	const struct run_spec *sp = a->spec;
	const struct thread_place *pl = &sp->place[a->tid];
	struct lock_thread lt = {
		.tid = a->tid, .nthreads = sp->nthreads, .cpu = pl->cpu,
		.node = sp->fake_nodes ? a->tid % sp->fake_nodes : pl->node,
		.nnodes = sp->fake_nodes ? sp->fake_nodes : 1,
		.l3 = pl->l3, .core = pl->core, .package = pl->package,
	};

	if (!sp->fake_nodes)
		for (unsigned i = 0; i < sp->nthreads; i++)
			if (sp->place[i].node + 1 > lt.nnodes)
				lt.nnodes = sp->place[i].node + 1;
	return lt;
}

/* Worker side: context on our own node, thread_init, wait for go, loop. */
static void *worker_main(void *argp)
{
	struct thread_arg *a = argp;
	const struct run_spec *sp = a->spec;
	size_t ctx_size = sp->ops->ctx_size;
	size_t priv = (sp->ops->caps & LOCK_CAP_NOLOCK) && !(sp->wl->flags & WL_NOLOCK)
		      ? shared_size(sp) : 0;
	struct lock_thread lt = worker_lock_thread(a);
	struct hist *lat;
	void *ctx;
	struct worker w;

	worker_pin(a, lt.cpu);
	ctx = mem_alloc(ctx_size + priv, MEM_NODE_LOCAL);
	lat = lat_get(sp);
	atomic_fetch_add_explicit(&a->rs->entered, 1, lb_rel);
	if (!ctx || (sp->params->lat_sample && !lat))
		a->err = -ENOMEM;
	else if (sp->ops->thread_init)
		a->err = sp->ops->thread_init(a->lock, ctx, &lt);
	if (a->err)
		atomic_store_explicit(&a->rs->failed, 1, lb_rlx);
	w = (struct worker){
		.lat = lat,
		.nthreads = sp->nthreads, .node = lt.node, .nnodes = lt.nnodes,
		.l3 = lt.l3, .core = lt.core, .holder_ids = a->holder_ids,
		.window = &a->rs->window, .pause = &a->rs->pause,
		.ops = sp->ops, .lock = a->lock, .ctx = ctx,
		/* The `null` lock excludes nobody: give it private data so
		 * its loop does the same work without a data race. */
		.sh = priv ? (struct wl_shared *)((char *)ctx + ctx_size) : a->sh,
		.p = sp->params, .stop = &a->rs->stop, .slot = a->slot,
		.tid = a->tid, .check = !priv,
		.rng = 0x9e3779b97f4a7c15ull * (a->tid + 1) + 1,
		.samp = noise_worker_setup(a->wn, lt.cpu),
	};
	a->os_tid = gettid();
	/* Release our thread_init to the other threads; the acquire of `go`
	 * below then orders every thread_init before any lock operation. */
	atomic_fetch_add_explicit(&a->rs->ready, 1, lb_ar);
	while (!atomic_load_explicit(&a->rs->go, lb_acq))
		word_wait(&a->rs->go, 0);
	if (!atomic_load_explicit(&a->rs->failed, lb_rlx)) {
		noise_worker_begin(a->wn);
		runner_loop(sp)(&w);
		noise_worker_end(a->wn);
	}
	lat_put(a->lat, w.lat);
	exited_add(a->rs, sp->nthreads, 1);
	/* The context is freed by its own thread once nobody can use it:
	 * every thread has left the loop only after `stop`, but a queue
	 * lock's successor may still read our node, so wait for all. */
	for (uint32_t k; (k = atomic_load_explicit(&a->rs->exited, lb_acq)) < sp->nthreads;)
		word_wait(&a->rs->exited, k);
	mem_free(ctx, ctx_size + priv);
	return NULL;
}

/* Start every worker: 0, the failed pthread_create's -errno, or
 * RUN_INTERRUPTED when a stop signal comes meanwhile (thousands of
 * threads take seconds to start on a busy machine; the signal is
 * answered at once, not after the last). */
static int start_threads(const struct run_spec *sp, struct thread_arg *a,
			 char *err, size_t errlen)
{
	for (unsigned i = 0; i < sp->nthreads; i++) {
		int rc;

		if (sp->interrupted && *sp->interrupted) {
			snprintf(err, errlen, "lockbench: interrupted");
			return RUN_INTERRUPTED;
		}
		rc = pthread_create(&a[i].th, NULL, worker_main, &a[i]);

		if (rc) {
			snprintf(err, errlen,
				 "lockbench: starting thread %u of %u (cpu %d) failed: %s",
				 i, sp->nthreads, sp->place[i].cpu, strerror(rc));
			return -rc;
		}
		a[i].started = true;
	}
	return 0;
}

static uint64_t snapshot(const struct worker_slot *slot, unsigned n, uint64_t *per)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t v = atomic_load_explicit(&slot[i].ops, lb_rlx);

		if (per)
			per[i] = v;
		sum += v;
	}
	return sum;
}

/* Monitor state while a run is in progress. */
struct monitor {
	const struct run_spec *sp;
	struct worker_slot *slot;
	struct run_state *rs;
	struct worker_slot *x0, *x1;   /* slots at window start / end */
	struct perf_run *perf;         /* the workers' counters, or NULL */
	struct thread_arg *args;       /* the workers (their threads' schedstat) */
	bool noise;                    /* noise measured: watch the wake-ups */
	bool in_window;
	double late_s;                 /* late wake-ups in the window, seconds */
	double wait_s;                 /* the monitor's own wait for a CPU so far */
	double t0;
	uint64_t last_sum;
	double last_progress;
};

/*
 * One slice of monitor_wait()'s sleep from `t`.  In the window, how
 * late it woke less the time it spent waiting for a CPU meanwhile (its
 * schedstat, read at every wake-up: a lateness the scheduler explains
 * is no stop); beyond LATE_SLACK_S, into m->late_s.
 */
static void monitor_sleep(struct monitor *m, double t, double until)
{
	double slice = m->noise && m->in_window ? MONITOR_WINDOW_SLICE_S : MONITOR_SLICE_S;
	double d = until - t < slice ? until - t : slice, late, cpu, wait;

	sleep_s(d);
	if (!m->noise || !m->in_window)
		return;
	late = lb_mono_s() - t - d;
	if (noise_schedstat(0, &cpu, &wait)) {
		late -= wait - m->wait_s;
		m->wait_s = wait;
	}
	if (late > LATE_SLACK_S)
		m->late_s += late;
}

/* The window starts: late wake-ups count from here, against the
 * monitor's wait for a CPU from here. */
static void monitor_in_window(struct monitor *m)
{
	double cpu;

	m->in_window = true;
	if (m->noise && !noise_schedstat(0, &cpu, &m->wait_s))
		m->wait_s = 0;
}

/*
 * Sleep until `until`, in slices, watching for an interrupt and for a
 * stall.  Returns RUN_OK, RUN_INTERRUPTED or RUN_HUNG.
 */
static int monitor_wait(struct monitor *m, double until)
{
	for (;;) {
		double t = lb_mono_s();
		uint64_t sum;

		if (m->sp->interrupted && *m->sp->interrupted)
			return RUN_INTERRUPTED;
		stutter_tick(m->sp, m->rs, m->t0, t);
		sum = snapshot(m->slot, m->sp->nthreads, NULL);
		if (sum != m->last_sum || atomic_load_explicit(&m->rs->pause, lb_rlx)) {
			m->last_sum = sum;
			m->last_progress = t;
		} else if (t - m->last_progress > m->sp->watchdog_s + op_max_s(m->sp)) {
			return RUN_HUNG;
		}
		if (t >= until)
			return RUN_OK;
		monitor_sleep(m, t, until);
	}
}

/* At the window's start (end false) and end: each worker's CPU time
 * and wait for its CPU, as the kernel accounts them, into its noise
 * data (noise_worker_window()). */
static void window_cpu(struct monitor *m, bool end, double wall)
{
	for (unsigned i = 0; m->noise && i < m->sp->nthreads; i++)
		noise_worker_window(m->args[i].wn, m->args[i].os_tid, end, wall);
}

/* Warm-up, then the window with its interval snapshots. */
static int measure(struct monitor *m, struct run_sample *out, uint64_t *w0)
{
	const struct run_spec *sp = m->sp;
	double t0 = lb_mono_s(), tw, tend, tick;
	uint64_t prev;
	unsigned cap;
	int rc;

	m->last_progress = m->t0 = t0;
	rc = monitor_wait(m, t0 + sp->warmup_s);
	if (rc)
		return rc;
	window_cpu(m, false, 0);
	tw = lb_mono_s();
	prev = snapshot(m->slot, sp->nthreads, w0);
	slots_copy(m->slot, sp->nthreads, m->x0);
	perf_run_enable(m->perf);
	atomic_store_explicit(&m->rs->window, 1, lb_rlx);
	monitor_in_window(m);
	tend = tw + sp->duration_s;
	cap = (unsigned)(sp->duration_s / sp->interval_s) + 2;
	out->series = calloc(cap, sizeof(double));
	for (tick = tw; tick < tend - 1e-9 && out->series;) {
		double next = tick + sp->interval_s < tend ? tick + sp->interval_s : tend;
		uint64_t cur;

		rc = monitor_wait(m, next);
		if (rc)
			return rc;
		cur = snapshot(m->slot, sp->nthreads, NULL);
		if (out->nseries < cap)
			out->series[out->nseries++] = (double)(cur - prev) / (lb_mono_s() - tick);
		prev = cur;
		tick = lb_mono_s();
	}
	snapshot(m->slot, sp->nthreads, out->thread_ops);
	m->in_window = false;
	atomic_store_explicit(&m->rs->window, 0, lb_rlx);
	perf_run_disable(m->perf);
	slots_copy(m->slot, sp->nthreads, m->x1);
	out->window_s = lb_mono_s() - tw;
	window_cpu(m, true, out->window_s);
	return RUN_OK;
}

/* 1 when @sp's run is interrupted now and was not at @was. */
static bool newly_interrupted(const struct run_spec *sp, sig_atomic_t was)
{
	return sp->interrupted && *sp->interrupted && !was;
}

/*
 * Wait for the workers to leave; false if they did not in time, or when
 * a stop signal arrives meanwhile (one that was there already when the
 * wait began, the usual end of an interrupted window, does not count:
 * the first signal is never ignored, and the second one, RUN_HURRY,
 * always cuts the wait short).  A signal gives up on the workers 0.1 s
 * after the last one left, or STOP_GRACE_S after it came; once it came
 * the workers that have all left are not joined either.  False leaves
 * the run's memory, its own spec included (struct run_own), to the
 * workers: the caller leaks it.
 * @unready_stuck: the workers were never released because some did not
 * get ready (stuck in thread_init, or a signal came first): once every
 * ready one has left and every other is inside thread_init, the others
 * are not waited for.
 */
static bool join_all(const struct run_spec *sp, struct thread_arg *a,
		     struct run_state *rs, unsigned n, double timeout,
		     bool unready_stuck)
{
	double until = lb_mono_s() + timeout, moved = lb_mono_s(), since = 0;
	sig_atomic_t was = sp->interrupted ? *sp->interrupted : 0;
	unsigned seen = 0, k;

	while ((k = atomic_load_explicit(&rs->exited, lb_acq)) < n) {
		double t = lb_mono_s();
		bool signalled = newly_interrupted(sp, was) ||
				 (sp->interrupted && (*sp->interrupted & RUN_HURRY));

		if (sp->interrupted && *sp->interrupted && !since)
			since = t;
		if (k != seen) {
			seen = k;
			moved = t;
		} else if (signalled && t - moved > 0.1) {
			return false;
		}
		/* A stop signal is obeyed within STOP_GRACE_S even while
		 * workers still trickle out of a FIFO queue whose waiters
		 * are preempted: those are abandoned. */
		if (t > until || (since && t - since > STOP_GRACE_S))
			return false;
		if (unready_stuck && k >= atomic_load_explicit(&rs->ready, lb_acq) &&
		    atomic_load_explicit(&rs->entered, lb_acq) >= n)
			return false;
		sleep_s(0.001);
	}
	/* Interrupted: every worker has left the run (they still free
	 * their contexts and end), and the process is about to write and
	 * exit; thousands of threads' ends on a few busy CPUs take
	 * seconds, so they are not waited for: the run's memory is left
	 * to them, as when they are abandoned. */
	if (sp->interrupted && *sp->interrupted)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (a[i].started)
			pthread_join(a[i].th, NULL);
	return true;
}

/* Shared-mode operations of the whole run, warm-up included. */
static uint64_t total_reads(const struct worker_slot *slot, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += atomic_load_explicit(&slot[i].reads, lb_rlx);
	return sum;
}

static void finish_sample(const struct run_spec *sp, struct run_sample *out,
			  const uint64_t *w0, struct wl_shared *sh,
			  struct worker_slot *slot, void *lock)
{
	out->nthreads = sp->nthreads;
	out->ops = 0;
	for (unsigned i = 0; i < sp->nthreads; i++) {
		out->thread_ops[i] -= w0[i];
		out->ops += out->thread_ops[i];
	}
	out->ops_per_sec = out->window_s > 0 ? (double)out->ops / out->window_s : 0;
	out->total_ops = snapshot(slot, sp->nthreads, NULL);
	out->counter = WL_SEQ(atomic_load_explicit(&sh->counter, lb_rlx));
	out->violations = atomic_load_explicit(&sh->violations, lb_rlx);
	out->lock_node = mem_node_of(lock);
	out->exclusion_checked = !(sp->ops->caps & LOCK_CAP_NOLOCK) &&
				 !(sp->wl->flags & WL_NOLOCK);
	/* Reads (rw) do not bump the counter: it must equal the writes. */
	out->exclusion_ok = !out->exclusion_checked ||
			    (out->violations == 0 &&
			     out->counter == out->total_ops - total_reads(slot, sp->nthreads));
	if (sp->ops->ncounters && sp->ops->read_counters) {
		out->counters = calloc(sp->ops->ncounters, sizeof(uint64_t));
		if (out->counters) {
			out->ncounters = sp->ops->ncounters;
			sp->ops->read_counters(lock, out->counters);
		}
	}
}

/*
 * The run's own copy of its spec, with the placement and the workload
 * parameters it points to: the workers read it until they have left,
 * and a run whose workers are abandoned (a stop signal, the watchdog)
 * leaks it with the rest of its memory, so that nothing a late worker
 * reads goes away when the caller's spec does (docs/method.md,
 * "Oversubscription").
 */
struct run_own {
	struct run_spec spec;
	struct wl_params params;
	struct thread_place place[]; /* spec.nthreads */
};

static struct run_own *run_own_get(const struct run_spec *sp)
{
	struct run_own *o = malloc(sizeof(*o) + (size_t)sp->nthreads * sizeof(o->place[0]));

	if (!o)
		return NULL;
	o->spec = *sp;
	o->params = *sp->params;
	memcpy(o->place, sp->place, (size_t)sp->nthreads * sizeof(o->place[0]));
	o->spec.params = &o->params;
	o->spec.place = o->place;
	return o;
}

/* Everything one run allocates, so one exit path can free it. */
struct run_mem {
	struct run_own *own;       /* the spec everything below reads */
	struct run_state *rs;
	void *lock;
	struct wl_shared *sh;
	struct worker_slot *slot;
	struct thread_arg *args;
	uint64_t *w0;
	size_t lock_size, sh_size, slot_size;
	bool lock_inited;
	bool stuck;                /* a thread may still use it: leak it */
	struct worker_slot *x;     /* 2 * nthreads: window start, end */
	struct run_lat *lat;
	uint64_t *holder_ids;
};

/* One call of the lock's init() on a thread of its own (it is leaked
 * with the lock when init() never returns). */
struct init_call {
	const struct lock_ops *ops;
	void *lock;
	struct lock_init in;
	int rc;
	_Atomic int done;
};

static void *init_main(void *p)
{
	struct init_call *ic = p;

	ic->rc = ic->ops->init(ic->lock, &ic->in);
	atomic_store_explicit(&ic->done, 1, lb_rel);
	return NULL;
}

/*
 * The lock's init() under the watchdog: a plugin's init() that never
 * returns is caught as a stuck worker is, and a stop signal is answered
 * meanwhile.  Returns 0, the init's -errno (@err says so), or
 * RUN_ABORT / RUN_INTERRUPTED with m->stuck set: init() still runs, so
 * the lock's memory must not be freed.
 */
static int lock_init_watched(const struct run_spec *sp, struct run_mem *m,
			     const struct lock_init *in, char *err, size_t errlen)
{
	struct init_call *ic;
	double until = lb_mono_s() + sp->watchdog_s;
	pthread_t th;
	int rc;

	if (!sp->ops->init)
		return 0;
	ic = calloc(1, sizeof(*ic));
	if (!ic) {
		snprintf(err, errlen, "lockbench: %s: out of memory", sp->ops->name);
		return -ENOMEM;
	}
	*ic = (struct init_call){.ops = sp->ops, .lock = m->lock, .in = *in};
	rc = pthread_create(&th, NULL, init_main, ic);
	if (rc) {
		free(ic);
		snprintf(err, errlen, "lockbench: %s: starting a thread for init() failed: %s",
			 sp->ops->name, strerror(rc));
		return RUN_ABORT;
	}
	while (!atomic_load_explicit(&ic->done, lb_acq)) {
		if (lb_mono_s() > until || newly_interrupted(sp, 0)) {
			pthread_detach(th);
			m->stuck = true;
			if (newly_interrupted(sp, 0)) {
				snprintf(err, errlen, "lockbench: interrupted");
				return RUN_INTERRUPTED;
			}
			snprintf(err, errlen, "lockbench: %s: init() did not return within %.1f s",
				 sp->ops->name, sp->watchdog_s);
			return RUN_ABORT;
		}
		sleep_s(0.0005);
	}
	pthread_join(th, NULL);
	rc = ic->rc;
	free(ic);
	if (rc)
		snprintf(err, errlen, "lockbench: %s: init failed: %s",
			 sp->ops->name, strerror(-rc));
	return rc;
}

static int run_mem_get(const struct run_spec *sp, struct run_mem *m,
		       struct run_sample *out, char *err, size_t errlen)
{
	struct lock_init in = {
		.nthreads = sp->nthreads, .nnodes = 1, .opt = sp->lock_opt,
		.alloc = lock_alloc_cb, .free_mem = mem_free,
	};
	int rc;

	for (unsigned i = 0; i < sp->nthreads; i++)
		if (sp->place[i].node + 1 > in.nnodes)
			in.nnodes = sp->place[i].node + 1;
	if (sp->fake_nodes)
		in.nnodes = sp->fake_nodes;
	m->lock_size = sp->ops->lock_size ? sp->ops->lock_size : 1;
	m->sh_size = shared_size(sp);
	m->slot_size = sp->nthreads * sizeof(struct worker_slot);
	mem_colour_reset(); /* the same colours, run after run */
	m->rs = mem_alloc(sizeof(*m->rs), sp->mem_node);
	m->lock = mem_alloc(m->lock_size, sp->mem_node);
	m->sh = mem_alloc(m->sh_size, sp->mem_node);
	m->slot = mem_alloc(m->slot_size, MEM_NODE_LOCAL);
	m->args = calloc(sp->nthreads, sizeof(*m->args));
	m->w0 = calloc(sp->nthreads, sizeof(*m->w0));
	out->thread_ops = calloc(sp->nthreads, sizeof(uint64_t));
	m->x = mem_alloc(2 * m->slot_size, MEM_NODE_LOCAL);
	m->lat = calloc(1, sizeof(*m->lat));
	m->holder_ids = holder_ids_get(sp);
	lb_clock_rate(); /* measured once, before any worker reads it */
	if (m->lat)
		pthread_mutex_init(&m->lat->mx, NULL);
	if (!m->rs || !m->lock || !m->sh || !m->slot || !m->args || !m->w0 ||
	    !out->thread_ops || !m->x || !m->lat || !m->holder_ids) {
		snprintf(err, errlen, "lockbench: %s: out of memory", sp->ops->name);
		return -ENOMEM;
	}
	rc = lock_init_watched(sp, m, &in, err, errlen);
	if (rc == 0)
		m->lock_inited = true;
	return rc;
}

static void run_mem_put(const struct run_spec *sp, struct run_mem *m)
{
	if (m->lock_inited && sp->ops->destroy)
		sp->ops->destroy(m->lock);
	mem_free(m->rs, sizeof(*m->rs));
	mem_free(m->lock, m->lock_size);
	mem_free(m->sh, m->sh_size);
	mem_free(m->slot, m->slot_size);
	free(m->args);
	free(m->w0);
	mem_free(m->x, 2 * m->slot_size);
	if (m->lat)
		pthread_mutex_destroy(&m->lat->mx);
	free(m->lat);
	free(m->holder_ids);
	free(m->own);
}

/* Release the workers and wait for all of them to be ready first. */
static int release_workers(const struct run_spec *sp, struct run_mem *m,
			   char *err, size_t errlen)
{
	double until = lb_mono_s() + 10 + sp->nthreads * 0.1;

	while (atomic_load_explicit(&m->rs->ready, lb_acq) < sp->nthreads) {
		if (newly_interrupted(sp, 0))
			return RUN_INTERRUPTED;
		if (lb_mono_s() > until) {
			unsigned late = sp->nthreads -
					atomic_load_explicit(&m->rs->ready, lb_acq);

			snprintf(err, errlen,
				 "lockbench: %s: %u of %u thread%s did not start within %.0f s "
				 "(thread_init did not return)", sp->ops->name, late,
				 sp->nthreads, sp->nthreads == 1 ? "" : "s",
				 10 + sp->nthreads * 0.1);
			return RUN_ABORT;	/* stuck in a plugin's thread_init */
		}
		sleep_s(0.0005);
	}
	go_set(m->rs);
	if (atomic_load_explicit(&m->rs->failed, lb_rlx)) {
		for (unsigned i = 0; i < sp->nthreads; i++) {
			if (m->args[i].pin_errno) {
				snprintf(err, errlen, "lockbench: pinning thread %u to cpu %d "
					 "failed: %s", i, sp->place[i].cpu,
					 strerror(m->args[i].pin_errno));
				return RUN_ABORT;	/* the placement: every point */
			}
			if (m->args[i].err) {
				snprintf(err, errlen, "lockbench: %s: thread_init of thread %u "
					 "failed: %s", sp->ops->name, i, strerror(-m->args[i].err));
				return RUN_ERROR;
			}
		}
		snprintf(err, errlen, "lockbench: %s: thread setup failed", sp->ops->name);
		return RUN_ERROR;
	}
	return RUN_OK;
}

/* Open the workers' counters (they are all ready, so their ids are
 * known); RUN_OK or RUN_ERROR. */
static int perf_open(const struct run_spec *sp, struct run_mem *m,
		     struct perf_run **pr, char *err, size_t errlen)
{
	pid_t *tids;
	int rc;

	*pr = NULL;
	if (!sp->perf || !sp->perf->n)
		return RUN_OK;
	tids = malloc(sp->nthreads * sizeof(*tids));
	if (!tids) {
		snprintf(err, errlen, "lockbench: counters: out of memory");
		return RUN_ERROR;
	}
	for (unsigned i = 0; i < sp->nthreads; i++)
		tids[i] = m->args[i].os_tid;
	rc = perf_run_open(sp->perf, tids, sp->nthreads, pr, err, errlen);
	free(tids);
	return rc ? RUN_ERROR : RUN_OK;
}

/* The window's counter totals into out->perf; RUN_OK or RUN_ERROR. */
static int perf_collect(const struct run_spec *sp, struct perf_run *pr,
			struct run_sample *out, char *err, size_t errlen)
{
	if (!pr)
		return RUN_OK;
	out->perf = calloc(sp->perf->n, sizeof(double));
	if (!out->perf || perf_run_read(pr, out->perf, &out->perf_scaled)) {
		snprintf(err, errlen, "lockbench: counters: reading them failed");
		return RUN_ERROR;
	}
	out->nperf = sp->perf->n;
	return RUN_OK;
}

/* measure() with the workers' perf counters around the window. */
static int measure_counted(struct run_mem *m, struct monitor *mon,
			   struct run_sample *out, char *err, size_t errlen)
{
	int rc = perf_open(mon->sp, m, &mon->perf, err, errlen);

	if (!rc)
		rc = measure(mon, out, m->w0);
	if (!rc)
		rc = perf_collect(mon->sp, mon->perf, out, err, errlen);
	perf_run_close(mon->perf);
	mon->perf = NULL;
	return rc;
}

/*
 * Why the watchdog fired, as the end of its message: `plain` unless the
 * run had more threads than CPUs and the lock's waiters spin.  Then a
 * preempted waiter (or holder) stalls everyone until the scheduler runs
 * it again, and in a FIFO lock (ticket, MCS, CLH, qspinlock, ...) every
 * waiter queued behind it waits as well: progress comes a time slice at
 * a time, which the watchdog can take for a hang (docs/method.md,
 * "Oversubscription").
 */
static const char *hung_why(const struct run_spec *sp, char *buf, size_t len,
			    const char *plain)
{
	unsigned cpus = 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	bool pinned = true;

	for (unsigned i = 0; i < sp->nthreads; i++) {
		bool seen = sp->place[i].cpu < 0;

		pinned &= sp->place[i].cpu >= 0;
		for (unsigned k = 0; k < i && !seen; k++)
			seen = sp->place[k].cpu == sp->place[i].cpu;
		cpus += !seen;
	}
	if (!pinned)
		cpus = online > 0 ? (unsigned)online : sp->nthreads;
	if ((sp->ops->caps & LOCK_CAP_SLEEPS) || sp->nthreads <= cpus || !cpus)
		return plain;
	snprintf(buf, len, "(oversubscribed: %u threads on %u CPU%s; a preempted "
		 "spinning waiter holds up the queue until it runs again, and in a "
		 "FIFO lock every waiter behind it, so this may be the "
		 "oversubscription, not a deadlock; try at most %u threads, a longer "
		 "--watchdog, or a lock that sleeps)",
		 sp->nthreads, cpus, cpus == 1 ? "" : "s", cpus);
	return buf;
}

/* The watchdog's line when the window saw no progress. */
static void hung_msg(const struct run_spec *sp, char *err, size_t errlen)
{
	char why[512];

	snprintf(err, errlen, "lockbench: %s at %u thread%s made no progress for %.1f s %s",
		 sp->ops->name, sp->nthreads, sp->nthreads == 1 ? "" : "s",
		 sp->watchdog_s + op_max_s(sp),
		 hung_why(sp, why, sizeof(why), "(deadlock or lost wakeup?)"));
}

/*
 * Not every thread started: let the started ones through and out again.
 * The ones never started count as gone, so the started ones' wait for
 * every thread to leave (worker_main) ends.  False when they did not
 * leave in time (a thread_init stuck in a plugin) or a stop signal came.
 */
static bool start_abort(const struct run_spec *sp, struct run_mem *m)
{
	unsigned started = 0;

	for (unsigned i = 0; i < sp->nthreads; i++)
		started += m->args[i].started;
	atomic_store_explicit(&m->rs->failed, 1, lb_rlx);
	atomic_store_explicit(&m->rs->stop, 1, lb_rlx);
	atomic_fetch_add_explicit(&m->rs->entered, sp->nthreads - started, lb_rel);
	exited_add(m->rs, sp->nthreads, sp->nthreads - started);
	go_set(m->rs);
	return join_all(sp, m->args, m->rs, sp->nthreads, stop_wait_s(sp), false);
}

/*
 * The workers did not leave: stuck, or a stop signal came while waiting
 * for them.  Says why in @err (unless it holds the run's own reason) and
 * returns the run's status, given its status so far @rc.
 */
static int run_stuck(const struct run_spec *sp, int rc, char *err, size_t errlen)
{
	bool intr = sp->interrupted && *sp->interrupted;
	char why[512];

	if (!*err && intr)
		snprintf(err, errlen, "lockbench: interrupted");
	else if (!*err)
		snprintf(err, errlen,
			 "lockbench: %s at %u thread%s: workers did not stop "
			 "within %.1f s of the end of the window %s",
			 sp->ops->name, sp->nthreads, sp->nthreads == 1 ? "" : "s",
			 stop_wait_s(sp), hung_why(sp, why, sizeof(why), "(deadlock?)"));
	if (rc == RUN_ERROR || rc == RUN_ABORT)
		return RUN_ABORT;
	return intr && rc != RUN_HUNG ? RUN_INTERRUPTED : RUN_HUNG;
}

/* The window of a run whose workers are released: the monitor over the
 * run's memory (with the workers' schedstat when noise is measured),
 * then measure_counted(). */
static int watch(const struct run_spec *sp, struct run_mem *m, struct monitor *mon,
		 bool noise, struct run_sample *out, char *err, size_t errlen)
{

	mon->slot = m->slot;
	mon->rs = m->rs;
	mon->x0 = m->x;
	mon->x1 = m->x + sp->nthreads;
	mon->args = m->args;
	mon->noise = noise;
	return measure_counted(m, mon, out, err, errlen);
}

/* The distinct CPUs the run's threads are pinned to; 0 when some are
 * not pinned. */
static unsigned run_cpus(const struct run_spec *sp)
{
	unsigned cpus = 0;

	for (unsigned i = 0; i < sp->nthreads; i++) {
		bool seen = false;

		if (sp->place[i].cpu < 0)
			return 0;
		for (unsigned k = 0; k < i && !seen; k++)
			seen = sp->place[k].cpu == sp->place[i].cpu;
		cpus += !seen;
	}
	return cpus;
}

/* The monitor's scheduling before monitor_raise(), to go back to. */
struct monitor_prio {
	int policy;
	struct sched_param param;
	bool raised;
};

/*
 * With more threads than CPUs, the monitor (the calling thread) is put
 * above the workers, SCHED_FIFO 1, where the system allows it
 * (CAP_SYS_NICE or RLIMIT_RTPRIO, sched(7)): its watchdog and its answer
 * to a stop signal then never wait for a CPU among spinning workers.  It
 * sleeps but for the snapshots, so the workers lose microseconds every
 * 50 ms.  Elsewhere the --threads bound of spinning locks (cli/config.c)
 * keeps that wait short.  Workers started before the raise inherit none
 * of it.  After a run whose workers were abandoned it stays raised (the
 * process then only writes what it measured and exits).
 */
static void monitor_raise(const struct run_spec *sp, struct monitor_prio *mp)
{
	struct sched_param fifo = {.sched_priority = 1};
	unsigned cpus = run_cpus(sp);

	mp->raised = false;
	if (cpus && sp->nthreads <= cpus)
		return;
	if (pthread_getschedparam(pthread_self(), &mp->policy, &mp->param) ||
	    mp->policy != SCHED_OTHER)
		return;
	mp->raised = !pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo);
}

static void monitor_lower(const struct monitor_prio *mp)
{
	if (mp->raised)
		pthread_setschedparam(pthread_self(), mp->policy, &mp->param);
}

/* Release the started workers, watch the window, stop them and take the
 * sample: runner_run() from its workers started on. */
static int run_started(const struct run_spec *sp, struct run_mem *m,
		       struct noise_run *nr, struct run_sample *out,
		       char *err, size_t errlen)
{
	struct monitor mon = {.sp = sp};
	struct monitor_prio mp;
	int rc;

	monitor_raise(sp, &mp);
	rc = release_workers(sp, m, err, errlen);
	if (rc != RUN_OK) {	/* the ready ones go straight out again */
		atomic_store_explicit(&m->rs->failed, 1, lb_rlx);
		go_set(m->rs);
	}
	if (!rc)
		rc = watch(sp, m, &mon, noise_run_measures(nr), out, err, errlen);
	atomic_store_explicit(&m->rs->stop, 1, lb_rlx);
	if (rc == RUN_HUNG && !*err)
		hung_msg(sp, err, errlen);
	if (!join_all(sp, m->args, m->rs, sp->nthreads, stop_wait_s(sp),
		      rc == RUN_ABORT || rc == RUN_INTERRUPTED))
		/* Leak: threads may be inside.  The monitor stays raised:
		 * what is left of the process, beside workers that may spin
		 * on, is writing what it measured and its exit. */
		return run_stuck(sp, rc, err, errlen);
	monitor_lower(&mp);
	noise_run_end(nr, sp, rc == RUN_OK ? out : NULL, mon.late_s);
	if (rc == RUN_OK) {
		finish_sample(sp, out, m->w0, m->sh, m->slot, m->lock);
		metrics_fill(sp, out, mon.x0, mon.x1, m->lat);
	}
	else if (rc == RUN_INTERRUPTED)
		snprintf(err, errlen, "lockbench: interrupted");
	run_mem_put(sp, m);
	return rc;
}

int runner_run(const struct run_spec *spec, struct run_sample *out, char *err,
	       size_t errlen)
{
	struct run_mem m = {.own = run_own_get(spec)};
	const struct run_spec *sp;
	struct noise_run *nr;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!m.own) {
		snprintf(err, errlen, "lockbench: %s: out of memory", spec->ops->name);
		return RUN_ERROR;
	}
	sp = &m.own->spec;	/* the run's own, kept while a worker may read it */
	rc = run_mem_get(sp, &m, out, err, errlen);
	if (rc) {
		if (m.stuck)	/* init() still runs: its memory stays */
			return rc == RUN_INTERRUPTED ? RUN_INTERRUPTED : RUN_ABORT;
		run_mem_put(sp, &m);
		return rc == RUN_ABORT ? RUN_ABORT : RUN_ERROR;
	}
	nr = noise_run_begin(sp);
	for (unsigned i = 0; i < sp->nthreads; i++)
		m.args[i] = (struct thread_arg){.spec = sp, .rs = m.rs, .lock = m.lock,
						.sh = m.sh, .slot = m.slot + i, .tid = i,
						.lat = m.lat, .wn = noise_run_worker(nr, i),
						.holder_ids = m.holder_ids};
	rc = start_threads(sp, m.args, err, errlen);
	if (rc) {
		/* Out of threads (ulimit -u, -v): the next points would fail
		 * alike, so the sweep ends with what it measured; or a stop
		 * signal came while they started. */
		rc = rc == RUN_INTERRUPTED ? RUN_INTERRUPTED : RUN_ABORT;
		if (!start_abort(sp, &m))
			return rc;	/* leak: threads may be stuck */
		noise_run_end(nr, sp, NULL, 0);
		run_mem_put(sp, &m);
		return rc;
	}
	return run_started(sp, &m, nr, out, err, errlen);
}
