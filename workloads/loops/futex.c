/* SPDX-License-Identifier: MIT */
/* The worker loops of futex (locks/futex.h), its lock and unlock inlined. */
#include "../../locks/futex.h"
#include "../loop.h"

LB_LOOPS(futex, futex_lock, futex_unlock, futex_lock, futex_unlock);
