/* SPDX-License-Identifier: MIT */
/* The worker loops of null (locks/null.h), its lock and unlock inlined. */
#include "../../locks/null.h"
#include "../loop.h"

LB_LOOPS(null, null_lock, null_lock, null_lock, null_lock);
