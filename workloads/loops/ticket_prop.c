/* SPDX-License-Identifier: MIT */
/* The worker loops of ticket_prop (locks/ticket_prop.h), its lock and
 * unlock inlined. */
#include "../../locks/ticket_prop.h"
#include "../loop.h"

LB_LOOPS(ticket_prop, tprop_lock, tprop_unlock, tprop_lock, tprop_unlock);
