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

/* Check that an ops table is usable: 0 or -EINVAL, with *why set. */
int lock_ops_check(const struct lock_ops *ops, const char **why);
/* Human name of a family. */
const char *lock_family_name(enum lock_family f);

#endif
