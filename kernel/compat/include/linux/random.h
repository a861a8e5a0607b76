/* SPDX-License-Identifier: MIT */
/* <linux/random.h> as CNA uses it: next_pseudo_random32(), the kernel's
 * linear congruential step (include/linux/prandom.h: seed * 1664525 +
 * 1013904223, the constants of Numerical Recipes' ranqd1). */
#ifndef LB_KCOMPAT_LINUX_RANDOM_H
#define LB_KCOMPAT_LINUX_RANDOM_H
#include <linux/kconfig.h>

static inline u32 next_pseudo_random32(u32 seed)
{
	return seed * 1664525u + 1013904223u;
}
#endif
