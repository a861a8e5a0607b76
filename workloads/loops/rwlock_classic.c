/* SPDX-License-Identifier: MIT */
/* The worker loops of rwlock_classic (locks/rwlock_classic.h), its lock
 * and unlock inlined. */
#include "../../locks/rwlock_classic.h"
#include "../loop.h"

LB_LOOPS(rwlock_classic, rwc_write_lock, rwc_write_unlock, rwc_read_lock, rwc_read_unlock);
