/* SPDX-License-Identifier: MIT */
/* The worker loops of pthread_rwlock (locks/pthread_locks.h), its lock
 * and unlock inlined.  pthread_rwlock_wpref shares them: the two differ
 * only in the attributes the rwlock is made with. */
#include "../../locks/pthread_locks.h"
#include "../loop.h"

LB_LOOPS(pthread_rwlock, prw_write_lock, prw_unlock, prw_read_lock, prw_unlock);
LB_LOOPS_SHARED(pthread_rwlock_wpref, pthread_rwlock);
