/* SPDX-License-Identifier: MIT */
/* The worker loops of pthread_mutex (locks/pthread_locks.h), its lock and
 * unlock inlined.  pthread_adaptive and pi_mutex share them: the three
 * differ only in the attributes the mutex is made with. */
#include "../../locks/pthread_locks.h"
#include "../loop.h"

LB_LOOPS(pthread_mutex, pmutex_lock, pmutex_unlock, pmutex_lock, pmutex_unlock);
LB_LOOPS_SHARED(pthread_adaptive, pthread_mutex);
LB_LOOPS_SHARED(pi_mutex, pthread_mutex);
