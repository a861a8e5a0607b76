/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

#define LOCK(n) extern const struct lock_ops lock_##n##_ops;
#include "registry.def"
#undef LOCK

static const struct lock_ops *const builtin[] = {
#define LOCK(n) &lock_##n##_ops,
#include "registry.def"
#undef LOCK
};

#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))

static struct lock_entry *entries;
static unsigned nentries;

static int registry_fill(void)
{
	if (entries)
		return 0;
	entries = calloc(NBUILTIN, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	for (unsigned i = 0; i < NBUILTIN; i++)
		entries[i].ops = builtin[i];
	nentries = NBUILTIN;
	return 0;
}

unsigned lock_registry_count(void)
{
	return registry_fill() ? 0 : nentries;
}

const struct lock_entry *lock_registry_at(unsigned i)
{
	if (registry_fill() || i >= nentries)
		return NULL;
	return &entries[i];
}

const struct lock_entry *lock_registry_find(const char *name)
{
	for (unsigned i = 0; i < lock_registry_count(); i++)
		if (!strcmp(entries[i].ops->name, name))
			return &entries[i];
	return NULL;
}

int lock_ops_check(const struct lock_ops *ops, const char **why)
{
	const char *w = NULL;

	if (!ops->name || !*ops->name ||
	    strspn(ops->name, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
		    strlen(ops->name))
		w = "name must be [a-z0-9_]+";
	else if (strlen(ops->name) > LOCK_NAME_MAX)
		w = "name longer than " LOCK_NAME_MAX_TEXT " characters (it heads a "
		    "table column)";
	else if (!ops->desc || !ops->ref)
		w = "desc and ref are required";
	else if (!ops->lock || !ops->unlock)
		w = "lock and unlock are required";
	else if ((ops->caps & LOCK_CAP_RW) &&
		 (!ops->read_lock || !ops->read_unlock))
		w = "LOCK_CAP_RW without read_lock/read_unlock";
	else if ((ops->caps & LOCK_CAP_TRYLOCK) && !ops->trylock)
		w = "LOCK_CAP_TRYLOCK without trylock";
	else if (ops->nopts && !ops->opts)
		w = "nopts without opts";
	else if (ops->ncounters && (!ops->counter_names || !ops->read_counters))
		w = "ncounters without counter_names/read_counters";
	else if (ops->lock_size == 0)
		w = "lock_size 0 (the harness allocates the lock from it)";
	else if (ops->lock_size > (1u << 20) || ops->ctx_size > (1u << 20))
		w = "lock_size or ctx_size above 1 MiB";
	else if (ops->nopts > 64 || ops->ncounters > 64)
		w = "more than 64 options or counters";
	for (unsigned i = 0; !w && i < ops->ncounters; i++)
		if (!ops->counter_names[i] || !*ops->counter_names[i])
			w = "a counter without a name";
	for (unsigned i = 0; !w && i < ops->nopts; i++)
		if (!ops->opts[i].name || !*ops->opts[i].name || !ops->opts[i].help)
			w = "an option without a name or help";
		else if (ops->opts[i].min > ops->opts[i].max ||
		    ops->opts[i].def < ops->opts[i].min ||
		    ops->opts[i].def > ops->opts[i].max)
			w = "option default outside [min, max]";
	if (why)
		*why = w;
	return w ? -EINVAL : 0;
}

int lock_registry_add(const struct lock_ops *ops, const char *origin,
		      const char *sha256, const char *identity)
{
	struct lock_entry *n;

	if (registry_fill())
		return -ENOMEM;
	if (lock_ops_check(ops, NULL))
		return -EINVAL;
	if (lock_registry_find(ops->name))
		return -EEXIST;
	n = realloc(entries, (nentries + 1) * sizeof(*entries));
	if (!n)
		return -ENOMEM;
	entries = n;
	memset(&entries[nentries], 0, sizeof(entries[nentries]));
	entries[nentries].ops = ops;
	entries[nentries].origin = origin;
	entries[nentries].identity = identity;
	if (sha256)
		strncpy(entries[nentries].sha256, sha256,
			sizeof(entries[nentries].sha256) - 1);
	nentries++;
	return 0;
}

void lock_registry_set_identity(unsigned i, const char *identity)
{
	if (i < nentries && entries[i].origin)
		entries[i].identity = identity;
}

const char *lock_family_name(enum lock_family f)
{
	switch (f) {
	case LOCK_FAMILY_SPIN:
		return "spin";
	case LOCK_FAMILY_SLEEP:
		return "sleep";
	case LOCK_FAMILY_RW:
		return "reader-writer";
	case LOCK_FAMILY_NUMA:
		return "NUMA-aware";
	case LOCK_FAMILY_CONTROL:
		return "control";
	}
	return "?";
}
