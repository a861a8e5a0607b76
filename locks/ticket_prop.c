/* SPDX-License-Identifier: MIT */
/*
 * ticket_prop - ticket lock with proportional backoff.  A waiter knows
 * how many holders are ahead of it (its ticket minus now-serving), so
 * instead of hammering the shared word it pauses for that distance times
 * a unit before looking again.  Now-serving is the low half of one
 * 64-bit word, the next ticket its high half, so trylock is one CAS.
 * J. M. Mellor-Crummey and M. L. Scott, "Algorithms for scalable
 * synchronization on shared-memory multiprocessors", ACM TOCS 9(1), 1991
 * (section 2.2, "ticket lock with proportional backoff").
 */
#include "ticket_prop.h"
#include "registry.h"

enum { TPROP_OPT_UNIT };

static const struct lock_opt tprop_opts[] = {
	[TPROP_OPT_UNIT] = {"unit", "pause iterations per holder ahead of us", 32, 0, 1u << 16},
};

static int tprop_init(void *lock, const struct lock_init *in)
{
	struct ticket_prop *l = lock;

	l->unit = (uint32_t)in->opt[TPROP_OPT_UNIT];
	return 0;
}

const struct lock_ops lock_ticket_prop_ops = {
	LOCK_KIND(ticket_prop, SPIN, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK),
	.desc = "ticket lock with backoff proportional to the queue position",
	.ref = "Mellor-Crummey & Scott, ACM TOCS 1991",
	.lock_size = sizeof(struct ticket_prop),
	.init = tprop_init,
	LOCK_CALLS(tprop_lock, tprop_unlock, tprop_trylock),
	LOCK_OPTIONS(tprop_opts),
};
