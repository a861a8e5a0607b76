/* SPDX-License-Identifier: MIT */
/* The worker loops of mutex_spin (locks/mutex_spin.h), its lock and unlock
 * inlined. */
#include "../../locks/mutex_spin.h"
#include "../loop.h"

LB_LOOPS(mutex_spin, msp_lock, msp_unlock, msp_lock, msp_unlock);
