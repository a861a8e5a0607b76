/* SPDX-License-Identifier: MIT */
/* The worker loops of qrwlock and qrwlock_steal (locks/qrwlock.h), their
 * lock and unlock inlined. */
#include "../../locks/qrwlock.h"
#include "../loop.h"

LB_LOOPS(qrwlock, qrw_write_lock, qrw_write_unlock, qrw_read_lock, qrw_read_unlock);
LB_LOOPS(qrwlock_steal, qrw_write_lock, qrw_write_unlock, qrw_steal_read_lock, qrw_read_unlock);
