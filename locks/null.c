/* SPDX-License-Identifier: MIT */
/*
 * null - no lock at all.  The worker loop runs exactly as for a real
 * lock, so its cost per operation is the harness's own overhead, which
 * every other lock's figure includes.
 */
#include "null.h"
#include "registry.h"

const struct lock_ops lock_null_ops = {
	LOCK_KIND(null, CONTROL, LOCK_CAP_NOLOCK | LOCK_CAP_TRYLOCK | LOCK_CAP_RW),
	.desc = "no lock: measures the harness loop (overhead per operation)",
	.ref = "lockbench control",
	.lock_size = 1,
	LOCK_CALLS(null_lock, null_lock, null_trylock),
	.read_lock = null_lock,
	.read_unlock = null_lock,
};
