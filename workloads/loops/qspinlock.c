/* SPDX-License-Identifier: MIT */
/* The worker loops of qspinlock (locks/qspinlock.h), its lock and unlock
 * inlined. */
#include "../../locks/qspinlock.h"
#include "../loop.h"

LB_LOOPS(qspinlock, qspinlock_lock, qspinlock_unlock, qspinlock_lock, qspinlock_unlock);
