/* SPDX-License-Identifier: MIT */
/* The worker loops of every rtmutex variant (locks/rtmutex.h), each with
 * its own lock and the shared unlock inlined. */
#include "../../locks/rtmutex.h"
#include "../loop.h"

#define RTM_VARIANT_LOOPS(sfx, v, d)                                           \
	LB_LOOPS(sfx, rtm_lock_##sfx, rtm_unlock, rtm_lock_##sfx, rtm_unlock);
RTM_VARIANTS(RTM_VARIANT_LOOPS)
