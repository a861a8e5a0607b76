/* SPDX-License-Identifier: MIT */
/* The worker loops of clh (locks/clh.h), its lock and unlock inlined. */
#include "../../locks/clh.h"
#include "../loop.h"

LB_LOOPS_PRIVATE(clh, struct clh_ctx, clh_lock, clh_unlock, clh_lock, clh_unlock);
