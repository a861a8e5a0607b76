/* SPDX-License-Identifier: MIT */
/* The worker loops of ticket (locks/ticket.h), its lock and unlock inlined. */
#include "../../locks/ticket.h"
#include "../loop.h"

LB_LOOPS(ticket, ticket_lock, ticket_unlock, ticket_lock, ticket_unlock);
