/* SPDX-License-Identifier: MIT */
/* The worker loops of busted (locks/busted.h), its lock and unlock inlined. */
#include "../../locks/busted.h"
#include "../loop.h"

LB_LOOPS(busted, busted_lock, busted_unlock, busted_lock, busted_unlock);
