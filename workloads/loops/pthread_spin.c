/* SPDX-License-Identifier: MIT */
/* The worker loops of pthread_spin (locks/pthread_spin.h), its lock and
 * unlock inlined. */
#include "../../locks/pthread_spin.h"
#include "../loop.h"

LB_LOOPS(pthread_spin, pspin_lock, pspin_unlock, pspin_lock, pspin_unlock);
