/* SPDX-License-Identifier: MIT */
#include "clock.h"
#include "corespeed.h"

#define CHAIN_TURNS 4096 /* x 8 additions: ~33k cycles, ~8-16 us */
#define TRIALS 7

/* CHAIN_TURNS x 8 dependent additions: each needs the one before, so the
 * chain runs at one addition per cycle whatever the core's width. */
static void chain(void)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < CHAIN_TURNS; i++) {
#if defined(__x86_64__)
		__asm__ __volatile__("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
				     "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
				     "add $1, %0\n\tadd $1, %0"
				     : "+r"(x));
#elif defined(__aarch64__)
		__asm__ __volatile__("add %0, %0, #1\n\tadd %0, %0, #1\n\t"
				     "add %0, %0, #1\n\tadd %0, %0, #1\n\t"
				     "add %0, %0, #1\n\tadd %0, %0, #1\n\t"
				     "add %0, %0, #1\n\tadd %0, %0, #1"
				     : "+r"(x));
#else
		x = x * 3 + 1, x = x * 3 + 1, x = x * 3 + 1, x = x * 3 + 1;
		x = x * 3 + 1, x = x * 3 + 1, x = x * 3 + 1, x = x * 3 + 1;
		__asm__ __volatile__("" : "+r"(x));
#endif
	}
}

double core_speed_probe(void)
{
	const struct lb_tick_rate *r = lb_clock_rate();

	return core_speed_per_tick() / r->ns_per_tick;
}

double core_speed_per_tick(void)
{
	uint64_t best = UINT64_MAX;

	chain(); /* warm the code and the branch predictor */
	for (unsigned i = 0; i < TRIALS; i++) {
		uint64_t t0 = lb_ticks(), t;

		chain();
		t = lb_ticks() - t0;
		if (t < best)
			best = t;
	}
	if (!best || best == UINT64_MAX)
		return 0;
	return (double)CHAIN_TURNS * 8 / (double)best;
}

uint64_t core_issue_probe(void)
{
	uint64_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, t0 = lb_ticks_ordered(), t1;

	for (unsigned i = 0; i < CORE_ISSUE_ADDS / 12; i++) {
#if defined(__x86_64__)
		__asm__ __volatile__("add $1, %0\n\tadd $1, %1\n\tadd $1, %2\n\t"
				     "add $1, %3\n\tadd $1, %4\n\tadd $1, %5\n\t"
				     "add $1, %0\n\tadd $1, %1\n\tadd $1, %2\n\t"
				     "add $1, %3\n\tadd $1, %4\n\tadd $1, %5"
				     : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f));
#elif defined(__aarch64__)
		__asm__ __volatile__("add %0, %0, #1\n\tadd %1, %1, #1\n\t"
				     "add %2, %2, #1\n\tadd %3, %3, #1\n\t"
				     "add %4, %4, #1\n\tadd %5, %5, #1\n\t"
				     "add %0, %0, #1\n\tadd %1, %1, #1\n\t"
				     "add %2, %2, #1\n\tadd %3, %3, #1\n\t"
				     "add %4, %4, #1\n\tadd %5, %5, #1"
				     : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f));
#else
		a += 2, b += 2, c += 2, d += 2, e += 2, f += 2;
		__asm__ __volatile__("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f));
#endif
	}
	t1 = lb_ticks_ordered();
	return t1 > t0 ? t1 - t0 : 1;
}
