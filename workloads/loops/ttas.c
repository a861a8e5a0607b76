/* SPDX-License-Identifier: MIT */
/* The worker loops of ttas (locks/ttas.h), its lock and unlock inlined. */
#include "../../locks/ttas.h"
#include "../loop.h"

LB_LOOPS(ttas, ttas_lock, ttas_unlock, ttas_lock, ttas_unlock);
