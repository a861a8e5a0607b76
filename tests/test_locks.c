/* SPDX-License-Identifier: MIT */
/*
 * Registry-driven lock validation: every registered lock goes through
 * the same runner and mutual-exclusion check at several thread counts
 * (oversubscribing this 2-CPU machine), NUMA-aware locks also with
 * pretend nodes; `busted` must be caught.  No per-lock copy of the test.
 * Each lock runs its own inlined loop (workloads/loop.h) at every
 * thread count and the generic loop plugins use at the first.
 *
 * Environment: LB_VALIDATE_THREADS (default "2,8,32"),
 * LB_VALIDATE_SECONDS (window, default 0.2), LB_SKIP_BROKEN=1 (TSan:
 * busted races by design), LB_ONLY=a,b (only these locks),
 * LB_PLUGINS=a.so:TAG=b.so (plugins to load first, as --plugin loads
 * them: their locks are validated like the built-in ones),
 * LB_INLINE=a,b (plugin locks that must run their own inline loops) and
 * LB_PRIVATE=a (of those, the ones whose loops keep the context private:
 * LOCKBENCH_PLUGIN_LOOPS_PRIVATE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../locks/plugin.h"
#include "../locks/registry.h"
#include "../topology/cpulist.h"
#include "../topology/mem.h"
#include "../workloads/loop_api.h"
#include "../workloads/loops/loops.h"
#include "../workloads/runner.h"

static unsigned *thread_counts, nthread_counts;
static double window_s = 0.2;
static struct topo topo;

/* One run of lock `e` at n threads, in its inlined loop or the generic
 * one; fills s and returns the runner's code. */
static int run_once(const struct lock_entry *e, bool inlined, unsigned n,
		    unsigned fake_nodes, uint64_t cs_ns, struct run_sample *s,
		    char *err, size_t errlen)
{
	const struct lock_ops *ops = e->ops;
	struct placement_policy p;
	struct thread_place *pl = calloc(n, sizeof(*pl));
	uint64_t *opt = calloc(ops->nopts + 1, sizeof(*opt));
	struct wl_params wp = {.cs_lines = 2, .cs_ns = cs_ns, .ncs_ns = 50};
	struct run_spec sp;
	int rc;

	assert_non_null(pl);
	assert_non_null(opt);
	for (unsigned i = 0; i < ops->nopts; i++)
		opt[i] = ops->opts[i].def;
	assert_int_equal(placement_parse("cores", &p, err, errlen), 0);
	assert_int_equal(placement_assign(&topo, &p, n, pl, err, errlen), 0);
	sp = (struct run_spec){
		.ops = ops, .loops = inlined ? wl_loops_find(ops) : NULL, .lock_opt = opt,
		.wl = workload_find("cs"), .params = &wp,
		.nthreads = n, .place = pl, .fake_nodes = fake_nodes,
		.mem_node = MEM_NODE_LOCAL, .warmup_s = 0.05, .duration_s = window_s,
		.interval_s = window_s, .watchdog_s = 20,
	};
	assert_int_equal(runner_inlined(&sp), inlined);
	rc = runner_run(&sp, s, err, errlen);
	free(pl);
	free(opt);
	placement_policy_free(&p);
	return rc;
}

static void validate(const struct lock_entry *e, bool inlined, unsigned n,
		     unsigned fake_nodes)
{
	const struct lock_ops *ops = e->ops;
	const char *loop = inlined ? "" : " (generic loop)";
	struct run_sample s;
	char err[512] = "";
	int rc = run_once(e, inlined, n, fake_nodes, 0, &s, err, sizeof(err));

	if (rc != RUN_OK)
		fail_msg("%s at %u threads%s: %s", ops->name, n, loop, err);
	if (!s.exclusion_ok)
		fail_msg("%s at %u threads%s%s: mutual exclusion violated: counter %llu, "
			 "ops %llu, violations caught in the act %llu", ops->name, n, loop,
			 fake_nodes ? " (fake nodes)" : "",
			 (unsigned long long)s.counter, (unsigned long long)s.total_ops,
			 (unsigned long long)s.violations);
	/* Every thread must have made progress in the window or at least
	 * over the whole run, and the counter must have counted them all. */
	assert_true(s.total_ops > 0);
	if (s.exclusion_checked)
		assert_int_equal(s.counter, s.total_ops);
	run_sample_free(&s);
}

static bool in_list(const char *list, const char *name);

/* The entry of a plugin lock's loops in its plugin's chain, or NULL. */
static const struct lockbench_loops *loops_entry(const struct lock_ops *ops)
{
	const struct lock_ops *orig = NULL;
	const struct lockbench_loops *l = plugin_loops(ops, &orig);

	while (l && l->ops != orig)
		l = l->next;
	return l;
}

/* LB_INLINE: plugin locks that must run their own inline loops
 * (LOCKBENCH_PLUGIN_LOOPS*), on a private context when in LB_PRIVATE
 * (LOCKBENCH_PLUGIN_LOOPS_PRIVATE: the loops' context type is the
 * lock's ctx_size) and on the worker's context otherwise. */
static void check_plugin_loops(const struct lock_entry *e, bool inlined)
{
	const char *want = getenv("LB_INLINE"), *priv = getenv("LB_PRIVATE");
	const struct lockbench_loops *l;

	if (!want || !in_list(want, e->ops->name))
		return;
	if (!inlined)
		fail_msg("%s: runs the generic loop, not its own inline loops", e->ops->name);
	l = loops_entry(e->ops);
	assert_non_null(l);
	if (priv && in_list(priv, e->ops->name))
		assert_int_equal(l->ctx_private, e->ops->ctx_size);
	else
		assert_int_equal(l->ctx_private, 0);
}

static void test_lock(void **state)
{
	const struct lock_entry *e = *state;
	/* A built-in lock has its inlined loop (and is also checked once in
	 * the generic one); a plugin (LB_PLUGINS) has one when it carries
	 * its own (LOCKBENCH_PLUGIN_LOOPS), else only the generic one. */
	bool inlined = wl_loops_find(e->ops) != NULL;

	if (!e->origin)
		assert_true(inlined);
	check_plugin_loops(e, inlined);
	for (unsigned i = 0; i < nthread_counts; i++) {
		validate(e, inlined, thread_counts[i], 0);
		if (e->ops->caps & LOCK_CAP_NUMA) {
			validate(e, inlined, thread_counts[i], 2);
			validate(e, inlined, thread_counts[i], 4);
		}
	}
	if (nthread_counts && inlined)
		validate(e, false, thread_counts[0], 0);
}

/* The negative control: the check must catch a lock that excludes
 * nobody (a longer critical section makes overlaps likely).  An overlap
 * needs both workers on a CPU at once, which a machine busy with other
 * work may deny for a whole short window, so each loop gets up to
 * BUSTED_TRIES windows; a run that overlapped must be reported, and one
 * of them must overlap. */
#define BUSTED_TRIES 20
static void test_busted_is_caught(void **state)
{
	const struct lock_entry *e = *state;
	struct run_sample s;
	char err[512];

	for (int inlined = 1; inlined >= 0; inlined--) {
		bool caught = false;

		for (int k = 0; k < BUSTED_TRIES && !caught; k++) {
			assert_int_equal(run_once(e, inlined, 2, 0, 500, &s, err,
						  sizeof(err)), RUN_OK);
			assert_true(s.exclusion_checked);
			caught = !s.exclusion_ok;
			if (caught)
				assert_true(s.violations > 0 || s.counter != s.total_ops);
			else
				assert_true(s.violations == 0 && s.counter == s.total_ops);
			run_sample_free(&s);
		}
		if (!caught)
			fail_msg("%s%s: no violation caught in %d runs", e->ops->name,
				 inlined ? "" : " (generic loop)", BUSTED_TRIES);
	}
}

/* Load each plugin of the ':'-separated list; 0 or -errno with err set. */
static int load_plugins(const char *list, char *err, size_t len)
{
	char *copy, *save = NULL;
	int rc = 0;

	if (!list || !*list)
		return 0;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (char *p = strtok_r(copy, ":", &save); p && !rc; p = strtok_r(NULL, ":", &save))
		rc = plugin_load(p, err, len);
	free(copy);
	return rc;
}

/* Is `name` one of the comma-separated `list`? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (!p[n] || p[n] == ','))
			return true;
	return false;
}

int main(void)
{
	const char *tc = getenv("LB_VALIDATE_THREADS"), *ws = getenv("LB_VALIDATE_SECONDS");
	const char *only = getenv("LB_ONLY");
	bool skip_broken = getenv("LB_SKIP_BROKEN") != NULL;
	unsigned n, k = 0;
	struct CMUnitTest *tests;
	char err[512];

	if (topo_load(&topo, NULL, NULL, err, sizeof(err)) ||
	    numlist_parse(tc ? tc : "2,8,32", 0, 4096, &thread_counts,
			  &nthread_counts, err, sizeof(err)) ||
	    load_plugins(getenv("LB_PLUGINS"), err, sizeof(err))) {
		fprintf(stderr, "test_locks: setup failed: %s\n", err);
		return 1;
	}
	if (ws)
		window_s = atof(ws);
	n = lock_registry_count();
	tests = calloc(n, sizeof(*tests));
	if (!tests)
		return 1;
	for (unsigned i = 0; i < n; i++) {
		const struct lock_ops *ops = lock_registry_at(i)->ops;

		if (only && !in_list(only, ops->name))
			continue;
		if ((ops->caps & LOCK_CAP_BROKEN) && skip_broken)
			continue;
		tests[k].name = ops->name;
		tests[k].test_func = ops->caps & LOCK_CAP_BROKEN ? test_busted_is_caught
								 : test_lock;
		tests[k].initial_state = (void *)lock_registry_at(i);
		k++;
	}
	if (only && !k) {
		fprintf(stderr, "test_locks: LB_ONLY=%s: no such lock\n", only);
		return 1;
	}
	return _cmocka_run_group_tests("locks", tests, k, NULL, NULL);
}
