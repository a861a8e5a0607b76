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
