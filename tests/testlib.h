/* SPDX-License-Identifier: MIT */
/*
 * Small helpers several unit tests share.  Include after <cmocka.h> and
 * the headers of what a helper uses (the lock ops, the renderers).
 */
#ifndef LOCKBENCH_TESTLIB_H
#define LOCKBENCH_TESTLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LOCKBENCH_LOCK_H
/* Index of the lock's counter `name`; fails the test if it has none. */
static inline unsigned tl_counter_index(const struct lock_ops *ops, const char *name)
{
	for (unsigned i = 0; i < ops->ncounters; i++)
		if (!strcmp(ops->counter_names[i], name))
			return i;
	fail_msg("%s has no counter %s", ops->name, name);
	return 0;
}

/* The current value of the lock's counter `name`. */
static inline uint64_t tl_counter(const struct lock_ops *ops, void *lock, const char *name)
{
	uint64_t v[64];

	assert_true(ops->ncounters <= 64);
	ops->read_counters(lock, v);
	return v[tl_counter_index(ops, name)];
}
#endif

#ifdef LOCKBENCH_RENDER_H
/* The `table` format of r in kops/s, as a malloc'ed string. */
static inline char *tl_render_table(const struct results *r, bool marks)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	/* -v: every note in full (the tests read their texts). */
	struct render_opts o = {.unit = UNIT_KOPS, .marks = marks, .verbose = true};

	assert_non_null(f);
	assert_int_equal(render_table(r, &o, f), 0);
	fclose(f);
	return buf;
}
#endif

#endif
