/* SPDX-License-Identifier: MIT */
/* The worker loops of cbomcs (locks/cbomcs.h), its lock and unlock inlined. */
#include "../../locks/cbomcs.h"
#include "../loop.h"

LB_LOOPS(cbomcs, cbomcs_lock, cbomcs_unlock, cbomcs_lock, cbomcs_unlock);
