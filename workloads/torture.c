/* SPDX-License-Identifier: MIT */
/*
 * torture - locktorture's writer loop (kernel/locking/locktorture.c,
 * lock_torture_writer() and torture_spin_lock_write_delay()) as a stress
 * shape: inside the lock, with probability 1 / (nthreads * 400) a short
 * 2 us delay, and with probability 1 / (nthreads * 2000 * long_hold) a
 * long hold of --long-hold ms (off by default, as a measurement should
 * be); outside it, --stutter S stands every thread still for S seconds
 * every S seconds (a shared flag the monitor thread flips, read outside
 * the lock).  Scheduling points, shuffling and CPU hotplug are not
 * reproduced: user space has no business calling the scheduler in the
 * timed loop.
 */
#include "cs_body.h"

/* The rare delays inside the critical section. */
static inline void torture_delay(struct worker *w)
{
	const struct wl_params *p = w->p;
	uint64_t n = w->nthreads;

	if (p->long_hold_ms && !(lb_rand(&w->rng) % (n * 2000 * p->long_hold_ms)))
		lb_delay(p->long_loops);
	if (!(lb_rand(&w->rng) % (n * 200 * 2)))
		lb_delay(p->short_loops);
}

/* Stutter: wait outside the lock while the pause flag is up. */
static inline void torture_stutter(struct worker *w)
{
	while (atomic_load_explicit(w->pause, lb_rlx) &&
	       !atomic_load_explicit(w->stop, lb_rlx))
		cpu_relax();
}

static void torture_loop(struct worker *w)
{
	const struct lock_ops *ops = w->ops;
	struct wl_hand h = {0};
	uint64_t n = 0;

	while (!atomic_load_explicit(w->stop, lb_rlx)) {
		torture_stutter(w);
		wl_acquire(w, ops->lock);
		cs_enter(w);
		wl_handover(w, &h);
		torture_delay(w);
		lb_delay(w->p->cs_loops);
		cs_leave(w);
		ops->unlock(w->lock, w->ctx);
		wl_ncs_body(w);
		wl_publish(w, ++n, 0, &h);
	}
}

static const char *const torture_options[] = {"long-hold", "stutter", NULL};

const struct workload_ops workload_torture_ops = {
	.name = "torture",
	.options = torture_options,
	.desc = "locktorture's writer loop: rare 2 us delays, --long-hold MS, "
		"--stutter S (a stress test)",
	.long_desc =
		"locktorture's writer loop as a stress shape, NOT the recommended\n"
		"benchmark.  Inside the lock a 2 us delay with probability\n"
		"1/(400*threads) and, with --long-hold MS, an MS-long hold with\n"
		"probability 1/(2000*threads*MS); --stutter S pauses every thread\n"
		"every S seconds for S seconds.  The locking maintainers' point\n"
		"(docs/method.md): these random long holds and pauses dominate the\n"
		"numbers -- one 100 ms hold per 200,000 acquisitions caps a\n"
		"spinlock near 2000 kops/s whatever the lock does -- so torture\n"
		"finds bugs, and cs measures locks.  --long-hold defaults to 0\n"
		"(off); use --ncs-ns 0 for locktorture's back-to-back writers.",
	.needs_caps = 0,
	.loop = torture_loop,
};
