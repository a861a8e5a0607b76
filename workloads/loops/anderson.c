/* SPDX-License-Identifier: MIT */
/* The worker loops of anderson (locks/anderson.h), its lock and unlock
 * inlined. */
#include "../../locks/anderson.h"
#include "../loop.h"

LB_LOOPS_PRIVATE(anderson, struct anderson_ctx, anderson_lock, anderson_unlock, anderson_lock, anderson_unlock);
