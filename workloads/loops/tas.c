/* SPDX-License-Identifier: MIT */
/* The worker loops of tas (locks/tas.h), its lock and unlock inlined. */
#include "../../locks/tas.h"
#include "../loop.h"

LB_LOOPS(tas, tas_lock, tas_unlock, tas_lock, tas_unlock);
