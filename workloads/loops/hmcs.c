/* SPDX-License-Identifier: MIT */
/* The worker loops of hmcs (locks/hmcs.h), its lock and unlock inlined. */
#include "../../locks/hmcs.h"
#include "../loop.h"

LB_LOOPS(hmcs, hmcs_lock, hmcs_unlock, hmcs_lock, hmcs_unlock);
