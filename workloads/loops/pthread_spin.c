/* SPDX-License-Identifier: MIT */
/* The worker loops of pthread_spin (locks/pthread_locks.h), its lock and
 * unlock inlined. */
#include "../../locks/pthread_locks.h"
#include "../loop.h"

LB_LOOPS(pthread_spin, pspin_lock, pspin_unlock, pspin_lock, pspin_unlock);
