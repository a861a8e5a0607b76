/* SPDX-License-Identifier: MIT */
/*
 * busted - claims to be a lock, excludes nobody.  The negative control of
 * the mutual-exclusion check (locktorture's lock_busted): with two or more
 * threads the harness must report it FAILED.  Hidden unless
 * --include-broken is given.
 */
#include "busted.h"
#include "registry.h"

const struct lock_ops lock_busted_ops = {
	LOCK_KIND(busted, CONTROL, LOCK_CAP_EXCLUSIVE | LOCK_CAP_BROKEN),
	.desc = "does not exclude: negative control for the exclusion check",
	.ref = "kernel/locking/locktorture.c (lock_busted)",
	.lock_size = sizeof(struct busted),
	LOCK_CALLS(busted_lock, busted_unlock, NULL),
};
