/* SPDX-License-Identifier: MIT */
/* The worker loops of anderson (locks/anderson.h), its lock and unlock
 * inlined. */
#include "../../locks/anderson.h"
#include "../loop.h"

LB_LOOPS(anderson, anderson_lock, anderson_unlock, anderson_lock, anderson_unlock);
