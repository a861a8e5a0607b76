/* SPDX-License-Identifier: MIT */
/* The worker loops of mcs (locks/mcs.h), its lock and unlock inlined. */
#include "../../locks/mcs.h"
#include "../loop.h"

LB_LOOPS(mcs, mcs_lock, mcs_unlock, mcs_lock, mcs_unlock);
