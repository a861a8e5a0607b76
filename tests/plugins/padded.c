/* SPDX-License-Identifier: MIT */
/*
 * padded - a test-and-test-and-set spinlock that can be made slower on
 * purpose: after taking the lock it spins `pad` iterations of an empty
 * loop the compiler must keep.  Loaded twice (--plugin a=padded.so
 * --plugin b=padded.so) it is the same lock twice (an A/A comparison);
 * with `--lock-opt padded_b.pad=N` one copy is a known amount slower,
 * which is how scripts/aa-significance.sh measures the false-significance
 * rate and the power of lockbench's tests.  `pad` is work counted in
 * loop turns, so in core cycles: where the host moves the core clock the
 * slowdown moves with it.  `tpad=T` adds time instead: every 16th
 * acquisition spins 16 T ticks of the CPU's counter (the invariant TSC,
 * the arm64 virtual counter, else CLOCK_MONOTONIC in ns), T per
 * acquisition on average, whatever the core clock does.
 */
#include <time.h>

#include <lockbench/lock.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

struct padded {
	_Atomic uint32_t held;
	uint32_t pad, tpad; /* written by init only */
	uint32_t n;         /* acquisitions, written by the holder only */
};

static const struct lock_opt padded_opts[] = {
	{"pad", "empty-loop iterations added to every acquisition", 0, 0, 1u << 20},
	{"tpad", "counter ticks added per acquisition (16 x every 16th)", 0, 0, 1u << 20},
};

static int padded_init(void *lock, const struct lock_init *in)
{
	struct padded *l = lock;

	l->pad = (uint32_t)in->opt[0];
	l->tpad = (uint32_t)in->opt[1];
	l->n = 0;
	return 0;
}

static uint64_t padded_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* tpad: every 16th acquisition (the holder's count), spin 16 tpad ticks. */
static void padded_time(struct padded *l)
{
	uint64_t t0;

	if (!l->tpad || ++l->n % 16)
		return;
	t0 = padded_ticks();
	while (padded_ticks() - t0 < 16 * (uint64_t)l->tpad)
		;
}

static void padded_lock(void *lock, void *ctx)
{
	struct padded *l = lock;

	(void)ctx;
	for (;;) {
		/* Acquire pairs with the release in unlock. */
		if (!atomic_exchange_explicit(&l->held, 1, lb_acq))
			break;
		while (atomic_load_explicit(&l->held, lb_rlx))
			cpu_relax();
	}
	/* The extra work: an empty loop kept by the asm barrier. */
	for (uint32_t i = 0; i < l->pad; i++)
		__asm__ __volatile__("" ::: "memory");
	padded_time(l);
}

static void padded_unlock(void *lock, void *ctx)
{
	struct padded *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->held, 0, lb_rel);
}

static const struct lock_ops padded_ops = {
	.name = "padded",
	.desc = "test-and-test-and-set with optional extra work (test plugin)",
	.ref = "lockbench tests/plugins/padded.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct padded),
	.opts = padded_opts,
	.nopts = sizeof(padded_opts) / sizeof(padded_opts[0]),
	.init = padded_init,
	.lock = padded_lock,
	.unlock = padded_unlock,
};

LOCKBENCH_PLUGIN(&padded_ops);
