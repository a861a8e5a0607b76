/* SPDX-License-Identifier: MIT */
/* The worker loops of cna (locks/cna.h), its lock and unlock inlined. */
#include "../../locks/cna.h"
#include "../loop.h"

LB_LOOPS(cna, cna_lock, cna_unlock, cna_lock, cna_unlock);
