/* SPDX-License-Identifier: MIT */
/*
 * The test-and-set acquisition the small test plugins share: a CAS of
 * `held` from 0 to 1 with acquire ordering, spinning with cpu_relax().
 */
#ifndef TEST_PLUGIN_TAS_ACQUIRE_H
#define TEST_PLUGIN_TAS_ACQUIRE_H

#include <lockbench/lock.h>

static inline void tas_acquire(_Atomic uint32_t *held)
{
	uint32_t free_ = 0;

	while (!atomic_compare_exchange_weak_explicit(held, &free_, 1, lb_acq, lb_rlx)) {
		free_ = 0;
		cpu_relax();
	}
}

#endif
