/* SPDX-License-Identifier: MIT */
/*
 * The lock registry: the built-in locks of registry.def, plus locks that
 * plugins add at start-up (before any thread runs; read-only after).
 */
#ifndef LOCKBENCH_REGISTRY_H
#define LOCKBENCH_REGISTRY_H

#include "lockbench/lock.h"

struct lock_entry {
	const struct lock_ops *ops;
	const char *origin; /* NULL for built-in, else the plugin path */
	char sha256[65];    /* plugin file hash, "" for built-in */
	/* What the plugin says it was built from (its optional
	 * `lockbench_plugin_identity`, a JSON object: a kernel tree's lock
	 * records the tree, its files and hashes, compiler and flags), or
	 * NULL. */
	const char *identity;
};

/* Number of registered locks, built-in first. */
unsigned lock_registry_count(void);
/* Entry i (0 <= i < count). */
const struct lock_entry *lock_registry_at(unsigned i);
/* Entry named `name`, or NULL. */
const struct lock_entry *lock_registry_find(const char *name);
/*
 * Add a lock from a plugin.  Returns 0, -EEXIST when the name is taken,
 * -EINVAL when the ops table is incomplete, -ENOMEM.
 */
int lock_registry_add(const struct lock_ops *ops, const char *origin,
		      const char *sha256, const char *identity);
/* Replace the identity of plugin entry i (the caller keeps `identity`
 * alive): a kernel tree's lock loaded from a cache entry that another
 * tree of the same content built names the tree it was asked for. */
void lock_registry_set_identity(unsigned i, const char *identity);
/* The longest lock name (a plugin's, with its tag): it heads a table
 * column, and a longer one is refused when the plugin loads. */
#define LOCK_NAME_MAX 128
#define LOCK_NAME_MAX_TEXT "128"

/*
 * Fields of a built-in lock's table (the last thing in locks/<name>.c)
 * that go together, one group a line; counts come from their arrays so
 * they cannot disagree with them.  Pass NULL for a function a lock has
 * not got.
 */
#define LOCK_NELEMS(a) (sizeof(a) / sizeof((a)[0]))
/* Its name (the ops symbol's middle), family and capabilities. */
#define LOCK_KIND(n, fam, cap)                                                 \
	.name = #n, .family = LOCK_FAMILY_##fam, .caps = (cap)
/* What the harness allocates: the lock object, a thread's context. */
#define LOCK_SIZES(lock_t, ctx_t)                                              \
	.lock_size = sizeof(lock_t), .ctx_size = sizeof(ctx_t)
#define LOCK_SETUP(init_fn, destroy_fn, thread_init_fn)                        \
	.init = (init_fn), .destroy = (destroy_fn),                            \
	.thread_init = (thread_init_fn)
#define LOCK_CALLS(lock_fn, unlock_fn, trylock_fn)                             \
	.lock = (lock_fn), .unlock = (unlock_fn), .trylock = (trylock_fn)
#define LOCK_OPTIONS(opts_array)                                               \
	.opts = (opts_array), .nopts = LOCK_NELEMS(opts_array)
#define LOCK_COUNTERS(names_array, read_fn)                                    \
	.counter_names = (names_array), .ncounters = LOCK_NELEMS(names_array), \
	.read_counters = (read_fn)

/* Check that an ops table is usable: 0 or -EINVAL, with *why set. */
int lock_ops_check(const struct lock_ops *ops, const char **why);
/* Human name of a family. */
const char *lock_family_name(enum lock_family f);

#endif
