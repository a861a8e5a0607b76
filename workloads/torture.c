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
#include "loop.h"

/* The generic loop (plugins): the template through the ops table. */
static void torture_loop(struct worker *w)
{
	wl_torture_loop_t(w, w->ops->lock, w->ops->unlock, NULL, 0);
}

static const struct wl_option torture_options[] = {
	{.name = "long-hold", .arg = "MS,..", .type = WL_OPT_MS, .list = true,
	 .def = "0", .max = 10000, .off = offsetof(struct wl_params, long_hold_ms),
	 .help = "the rare long hold in ms (0: off)"},
	{.name = "stutter", .arg = "S,..", .type = WL_OPT_SECONDS, .list = true,
	 .def = "0", .max = 3600, .off = offsetof(struct wl_params, stutter_s),
	 .help = "pause all threads every S s for S s (0: off)"},
	{0},
};

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
	.inline_loop = WL_LOOP_TORTURE,
};
