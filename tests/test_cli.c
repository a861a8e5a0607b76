/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the command line: the option engine (durations, parsing
 * argv into the table's fields), "did you mean", the run option table
 * itself (well-formed, defaults as documented, every workload option a
 * row) and the JSON config echo checked against the table.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../cli/config.h"
#include "../cli/opt.h"
#include "../cli/options.h"
#include "../cli/outfile.h"
#include "../cli/rundoc.h"
#include "../cli/suggest.h"
#include "../workloads/workload.h"

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(edit_distance("kitten", "sitting"), 3);
	assert_int_equal(edit_distance("", "abc"), 3);
	assert_int_equal(edit_distance("mcs", "mcs"), 0);
	assert_int_equal(edit_distance("qspinlok", "qspinlock"), 1);
	assert_int_equal(edit_distance("tciket", "ticket"), 1); /* a swap is one */
}

static void test_suggest(void **state)
{
	static const char *const locks[] = {"ticket", "mcs", "qspinlock", "qrwlock",
					    "rtmutex", "rtmutex_readonce"};
	static const char *const orders[] = {"interleaved", "sequential"};
	char buf[64];

	(void)state;
	assert_string_equal(suggest("qspinlok", locks, 6), "qspinlock");
	assert_string_equal(suggest("tciket", locks, 6), "ticket");
	assert_null(suggest("zzzzzzzz", locks, 6));
	assert_null(suggest("mcs", locks, 6));             /* exact: nothing to say */
	assert_string_equal(suggest("seq", orders, 2), "sequential"); /* prefix */
	assert_string_equal(suggest("rtmutex_r", locks, 6), "rtmutex_readonce");
	assert_string_equal(suggest_text(buf, sizeof(buf), "mcz", locks, 6),
			    "did you mean mcs? ");
	assert_string_equal(suggest_text(buf, sizeof(buf), "zzzzzz", locks, 6), "");
}

static void test_durations(void **state)
{
	double ns;

	(void)state;
	assert_int_equal(opt_parse_duration("500ms", 1e9, &ns), 0);
	assert_true(ns == 5e8);
	assert_int_equal(opt_parse_duration("1.5", 1e9, &ns), 0);
	assert_true(ns == 1.5e9);
	assert_int_equal(opt_parse_duration("1us", 1, &ns), 0);
	assert_true(ns == 1000);
	assert_int_equal(opt_parse_duration("250", 1, &ns), 0);
	assert_true(ns == 250);
	assert_int_equal(opt_parse_duration("2m", 1e9, &ns), 0);
	assert_true(ns == 120e9);
	assert_int_equal(opt_parse_duration("5x", 1e9, &ns), -1);
	assert_int_equal(opt_parse_duration("-1s", 1e9, &ns), -1);
	assert_int_equal(opt_parse_duration("s", 1e9, &ns), -1);
	assert_int_equal(opt_parse_duration("1 s", 1e9, &ns), -1);
}

/* Defaults as --help documents them (and as before the table). */
static void test_run_defaults(void **state)
{
	struct cli c;
	char *argv[] = {"lockbench", NULL};

	(void)state;
	cli_parse(&c, 1, argv);
	assert_string_equal(c.locks, DEFAULT_LOCKS);
	assert_string_equal(c.workload, "cs");
	assert_true(c.warmup == 0.25 && c.duration == 0.5 && c.interval == 1 &&
		    c.watchdog == 10);
	assert_int_equal(c.runs, 10);
	assert_false(c.runs_auto);
	assert_int_equal(c.max_runs, 30);
	assert_true(c.ci_target == 0.01 && !c.no_probe);
	assert_int_equal(c.cs_ns, 0);
	assert_int_equal(c.ncs_ns, 100);
	assert_int_equal(c.cs_lines, 1);
	assert_int_equal(c.cs_write_pct, 100);
	assert_int_equal(cli_wl_value(&c, "read-pct")->u, 90);
	assert_int_equal(c.lat_sample, 256);
	assert_string_equal(cli_wl_value(&c, "layouts")->s, "packed,aligned,per_node");
	assert_string_equal(c.order, "interleaved");
	assert_string_equal(c.ncs_dist, "exp");
	assert_string_equal(c.formats, "table");
	assert_string_equal(c.unit, "kops/s");
	assert_int_equal(c.machine.freq, FREQ_AUTO);
	assert_int_equal(c.machine.numa_balancing, NB_AUTO);
	assert_false(c.locks_given || cli_wl_value(&c, "read-pct")->given ||
		     cli_wl_value(&c, "layouts")->given);
	assert_null(cli_wl_value(&c, "threads"));   /* not a workload's */
	assert_int_equal(c.argc, 0);
	cli_free(&c);
}

static void test_parse_argv(void **state)
{
	struct cli c;
	char *argv[] = {"lockbench", "-l", "tas", "list", "-d", "500ms", "--cs-ns", "1us",
			"--lock-opt", "a.b=1", "--lock-opt=c.d=2", "--no-tune", "-qv",
			"--long-hold", "2s", "extra", NULL};

	(void)state;
	cli_parse(&c, 16, argv);
	assert_string_equal(c.locks, "tas");
	assert_true(c.locks_given);
	assert_true(c.duration == 0.5);
	assert_int_equal(c.cs_ns, 1000);
	assert_int_equal(cli_wl_value(&c, "long-hold")->u, 2000);
	assert_true(cli_wl_value(&c, "long-hold")->given);
	assert_false(cli_wl_value(&c, "stutter")->given);
	assert_int_equal(c.lock_opts.n, 2);
	assert_string_equal(c.lock_opts.v[1], "c.d=2");
	assert_int_equal(c.machine.freq, FREQ_OFF);
	assert_int_equal(c.machine.numa_balancing, NB_KEEP);
	assert_true(c.quiet && c.verbose);
	assert_int_equal(c.argc, 2);
	assert_string_equal(c.argv[0], "list");
	assert_string_equal(c.argv[1], "extra");
	cli_free(&c);
}

/* The table is well formed: names unique, metavars, help, choices. */
static void test_table_sane(void **state)
{
	const struct opt_cmd *t = run_options();
	char *argv[] = {"lockbench", NULL};
	struct cli c;

	(void)state;
	for (unsigned i = 0; i < t->n; i++) {
		const struct opt *o = &t->opts[i];

		assert_non_null(o->help);
		assert_true((o->type == OPT_FLAG) == (o->arg == NULL) || o->type == OPT_CALL);
		assert_true(o->type != OPT_ENUM || o->choices);
		assert_true(o->type != OPT_CALL || o->set);
		for (unsigned k = 0; k < i; k++) {
			assert_string_not_equal(o->name, t->opts[k].name);
			assert_true(!o->sname || o->sname != t->opts[k].sname);
		}
	}
	cli_parse(&c, 1, argv);         /* every default parses */
	cli_free(&c);
}

/* Row o carries workload wl's declaration w: its type, default, range,
 * list-ness, a "given" flag, and help prefixed with wl's name. */
static void check_wl_row(const struct opt *o, const struct workload_ops *wl,
			 const struct wl_option *w)
{
	static const enum opt_type types[] = {OPT_UINT, OPT_MS, OPT_SECONDS, OPT_STR};
	const char *who = strstr(o->help, wl->name);

	assert_non_null(o);
	assert_string_equal(cli_wl_option(o)->name, w->name);
	assert_int_equal(o->type, types[w->type]);
	assert_string_equal(o->arg, w->arg);
	assert_true(o->def == w->def || !strcmp(o->def, w->def));
	assert_true(o->min == w->min && o->max == w->max && o->list == w->list);
	assert_true(o->given != 0);
	assert_true(who && who < strstr(o->help, ": "));
	assert_string_equal(strstr(o->help, ": ") + 2, w->help);
}

/* Every option a workload declares is a row of the run table, as
 * declared, and only those rows stand for one. */
static void test_workload_options(void **state)
{
	const struct opt_cmd *t = run_options();
	const char *names[MAX_WL_OPTIONS];
	unsigned rows = 0, distinct = 0;

	(void)state;
	for (unsigned k = 0; workloads[k]; k++)
		for (const struct wl_option *w = workloads[k]->options; w && w->name; w++) {
			unsigned i = 0;

			check_wl_row(opt_find(t, w->name), workloads[k], w);
			while (i < distinct && strcmp(names[i], w->name))
				i++;
			if (i == distinct)
				names[distinct++] = w->name;
		}
	for (unsigned i = 0; i < t->n; i++)
		rows += cli_wl_option(&t->opts[i]) != NULL;
	assert_int_equal(rows, distinct);
	assert_true(distinct >= 6);
	assert_null(cli_wl_option(opt_find(t, "lat-sample")));
	assert_null(cli_wl_option(opt_find(t, "cs-ns")));
	/* As they were when they were rows of cli/options.c. */
	assert_string_equal(opt_find(t, "read-pct")->help,
			    "rw, layout: share of operations that read (per operation)");
	assert_string_equal(opt_find(t, "read-pct")->def, "90");
	assert_true(opt_find(t, "readers")->max == MAX_THREADS);
	assert_true(opt_find(t, "writers")->max == MAX_THREADS);
	assert_null(opt_find(t, "readers")->def);
	assert_true(opt_find(t, "long-hold")->max == 10000);
	assert_true(opt_find(t, "stutter")->max == 3600);
	/* Together, where --help has always shown them. */
	assert_string_equal(opt_find(t, "readers")->group, "Workloads (list workloads -v)");
	assert_ptr_equal(opt_find(t, "readers") - 1, opt_find(t, "cs-write-pct"));
	assert_ptr_equal(opt_find(t, "readers") + distinct, opt_find(t, "lat-sample"));
}

/* A workload option reaches struct wl_params through the same parser:
 * units, the default, the variants, the roles. */
static void test_workload_values(void **state)
{
	char *a1[] = {"lockbench", "-w", "torture", "-l", "tas", "--long-hold", "2s",
		      "--stutter", "500ms", NULL};
	char *a2[] = {"lockbench", "-w", "layout", "--layouts", "per_node,packed",
		      "--read-pct", "40", NULL};
	char *a3[] = {"lockbench", "-w", "rw", "-l", "tas", "--readers", "1",
		      "--writers", "1", NULL};
	struct cli c;
	struct topo t;
	struct config cf;
	char err[256];

	(void)state;
	assert_int_equal(topo_load(&t, "package:1 core:2 pu:1", NULL, err, sizeof(err)), 0);
	cli_parse(&c, 9, a1);
	config_build(&cf, &c, &t, NULL);
	assert_int_equal(cf.params.long_hold_ms, 2000);
	assert_true(cf.params.stutter_s == 0.5);
	assert_int_equal(cf.params.read_pct, 90);        /* the default */
	config_free(&cf);
	cli_free(&c);
	cli_parse(&c, 7, a2);
	config_build(&cf, &c, &t, NULL);
	assert_int_equal(cf.nvariants, 2);
	assert_int_equal(cf.v[0].layout, WL_LAYOUT_PER_NODE);
	assert_string_equal(cf.v[1].name, "packed");
	assert_int_equal(cf.params.read_pct, 40);
	/* Each variant's parameters hold its layout; no sweep: each is
	 * against the baseline and has no swept values. */
	assert_int_equal(cf.v[0].params.layout, WL_LAYOUT_PER_NODE);
	assert_int_equal(cf.v[1].params.layout, WL_LAYOUT_PACKED);
	assert_int_equal(cf.v[1].params.read_pct, 40);
	assert_int_equal(cf.v[1].base, cf.baseline);
	assert_null(cf.v[1].swept);
	assert_string_equal(cf.v[0].lock->ops->name, "null");
	config_free(&cf);
	cli_free(&c);
	cli_parse(&c, 9, a3);
	config_build(&cf, &c, &t, NULL);
	assert_true(cf.params.fixed_roles && cf.params.writers_set);
	assert_true(cf.v[0].params.fixed_roles && cf.v[0].params.writers_set);
	assert_int_equal(cf.params.readers, 1);
	assert_int_equal(cf.params.writers, 1);
	assert_int_equal(cf.nthreads, 1);
	assert_int_equal(cf.threads[0], 2);              /* -t is their sum */
	config_free(&cf);
	cli_free(&c);
	topo_free(&t);
}

/* --layouts defaults to every layout, in the registry's order. */
static void test_layouts_default(void **state)
{
	const struct opt *o = opt_find(run_options(), "layouts");
	char all[256] = "";

	(void)state;
	for (unsigned i = 0; i < WL_NLAYOUTS; i++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
			 i ? "," : "", wl_layout_names[i]);
	assert_non_null(o);
	assert_string_equal(o->def, all);
}

/*
 * The JSON config echo, checked against the table: every row is either
 * echoed under a config key or listed as recorded elsewhere (or not a
 * property of the results); a new row must be classified here.  A
 * workload's option needs no entry: it is echoed under its result key
 * (opt_param_key(): "long_hold_ms"), which the test checks.
 */
static const char *const echoed[][2] = {
	{"locks", "locks"}, {"workload", "workload"}, {"baseline", "baseline"},
	{"lock-opt", "lock_opts"}, {"threads", "threads"}, {"warmup", "warmup_s"},
	{"duration", "duration_s"}, {"runs", "runs"}, {"stat-interval", "stat_interval_s"},
	{"watchdog", "watchdog_s"}, {"order", "order"}, {"seed", "seed"},
	{"cs-ns", "cs_ns"}, {"ncs-ns", "ncs_ns"}, {"ncs-dist", "ncs_dist"},
	{"cs-lines", "cs_lines"}, {"cs-write-pct", "cs_write_lines"},
	{"lat-sample", "lat_sample"}, {"placement", "placement"}, {"isolated", "isolated"},
	{"mem-node", "mem_node"}, {"fake-nodes", "fake_nodes"}, {"unit", "unit"},
	{"counters", "counters"},
};
static const char *const elsewhere[] = {
	"include-broken", "plugin", "kernel-tree",      /* variants: origin, sha256, source */
	"lock-events",          /* variants: source.lock_events, cflags */
	"ci-target", "min-runs", "max-runs", "time-budget", "no-probe", /* "noise" */
	"min-effect",                                   /* "significance" */
	"floor",                                        /* "invocation_floor" */
	"topology", "freq", "numa-balancing", "no-tune", /* "machine" */
	"map-topology",         /* config.map_topology, placement.mapped: when given */
	"label", "row-name",                            /* top level */
	"c2c", "format", "output", "no-marks", "header", "width", "dry-run", "resume", "quiet",
	"rows",
	"verbose", "help", "version",                   /* not results */
};

/* Every workload option's result key is a member of the config echo
 * (with -w cs too), the defaults as declared. */
static void config_echo_wl(const json_t *j)
{
	const struct opt_cmd *t = run_options();
	char key[160];

	for (unsigned i = 0; i < t->n; i++)
		if (cli_wl_option(&t->opts[i]) &&
		    !json_object_get(j, opt_param_key(&t->opts[i], key, sizeof(key))))
			fail_msg("config echo lacks %s (--%s)", key, t->opts[i].name);
	assert_int_equal(json_integer_value(json_object_get(j, "read_pct")), 90);
	assert_int_equal(json_integer_value(json_object_get(j, "long_hold_ms")), 0);
	assert_true(json_is_real(json_object_get(j, "stutter_s")));
	assert_true(json_is_null(json_object_get(j, "readers")));
	assert_true(json_is_null(json_object_get(j, "layouts")));
}

static void test_config_echo(void **state)
{
	char *argv[] = {"lockbench", "-l", "tas,mcs", NULL};
	struct cli c;
	struct topo t;
	struct config cf;
	struct outputs o;
	char err[256];
	json_t *j;

	(void)state;
	for (unsigned i = 0; i < run_options()->n; i++) {
		const char *name = run_options()->opts[i].name;
		unsigned hits = 0;

		for (unsigned k = 0; k < sizeof(echoed) / sizeof(echoed[0]); k++)
			hits += !strcmp(echoed[k][0], name);
		for (unsigned k = 0; k < sizeof(elsewhere) / sizeof(elsewhere[0]); k++)
			hits += !strcmp(elsewhere[k], name);
		hits += cli_wl_option(&run_options()->opts[i]) != NULL;
		if (hits != 1)
			fail_msg("option --%s: classify it in test_config_echo", name);
	}
	cli_parse(&c, 3, argv);
	assert_int_equal(topo_load(&t, "package:1 core:2 pu:1", NULL, err, sizeof(err)), 0);
	config_build(&cf, &c, &t, NULL);
	outputs_parse(&o, c.formats, c.unit, NULL, true);
	j = config_json(&cf, &o);
	assert_non_null(j);
	for (unsigned k = 0; k < sizeof(echoed) / sizeof(echoed[0]); k++)
		if (!json_object_get(j, echoed[k][1]))
			fail_msg("config echo lacks %s (--%s)", echoed[k][1], echoed[k][0]);
	config_echo_wl(j);
	assert_int_equal(json_integer_value(json_object_get(j, "ncs_ns")), 100);
	json_decref(j);
	config_free(&cf);
	topo_free(&t);
	cli_free(&c);
}

/* A list-valued row: each element parsed by the row's own parser. */
static void test_list_values(void **state)
{
	const struct opt ns = {.name = "x-ns", .type = OPT_NS, .list = true, .max = 1e9};
	const struct opt sec = {.name = "x", .type = OPT_SECONDS, .list = true, .max = 60};
	const struct opt ms = {.name = "hold", .type = OPT_MS, .list = true, .max = 1e6};
	unsigned long long v = 7;
	double d = 0;
	struct opt_dim dim;
	char key[64];

	(void)state;
	assert_int_equal(opt_set_list(&ns, &v, "250", &dim), 0);  /* one value */
	assert_int_equal(v, 250);
	assert_int_equal(opt_set_list(&ns, &v, "0,100,1us", &dim), 3);
	assert_int_equal(v, 0);                                    /* the first */
	assert_ptr_equal(dim.o, &ns);
	assert_int_equal(dim.v[1].u, 100);                         /* parsed */
	assert_int_equal(dim.v[2].u, 1000);
	free(dim.v);
	assert_int_equal(opt_set_list(&sec, &d, "500ms,2", &dim), 2);
	assert_true(d == 0.5);
	assert_true(dim.v[0].d == 0.5 && dim.v[1].d == 2);
	free(dim.v);
	assert_string_equal(opt_param_key(&ns, key, sizeof(key)), "x_ns");
	assert_string_equal(opt_param_key(&sec, key, sizeof(key)), "x_s");
	assert_string_equal(opt_param_key(&ms, key, sizeof(key)), "hold_ms");
}

/* The command line records each list as a dimension, in its order. */
static void test_list_argv(void **state)
{
	char *argv[] = {"lockbench", "--cs-lines", "1,4", "--cs-ns", "0,100,1us",
			"--ncs-ns", "2us", NULL};
	struct cli c;

	(void)state;
	cli_parse(&c, 7, argv);
	assert_int_equal(c.dims.n, 2);
	assert_string_equal(c.dims.d[0].o->name, "cs-lines");
	assert_int_equal(c.dims.d[0].n, 2);
	assert_string_equal(c.dims.d[1].o->name, "cs-ns");
	assert_int_equal(c.dims.d[1].n, 3);
	assert_int_equal(c.dims.d[1].v[2].u, 1000);
	assert_int_equal(c.cs_ns, 0);
	assert_int_equal(c.cs_lines, 1);
	assert_int_equal(c.ncs_ns, 2000);          /* a single value: no dimension */
	cli_free(&c);
}

/* The variants of a sweep: locks x combinations, named, paired, each
 * with its own workload parameters. */
static void test_sweep_config(void **state)
{
	char *argv[] = {"lockbench", "-l", "tas,mcs", "--cs-ns", "0,100,1us",
			"--cs-lines", "1,4", "--cs-write-pct", "50", NULL};
	struct cli c;
	struct topo t;
	struct config cf;
	char err[256];

	(void)state;
	cli_parse(&c, 9, argv);
	assert_int_equal(topo_load(&t, "package:1 core:2 pu:1", NULL, err, sizeof(err)), 0);
	config_build(&cf, &c, &t, NULL);
	assert_int_equal(cf.nvariants, 12);
	assert_string_equal(cf.v[0].name, "tas cs_ns=0 cs_lines=1");
	assert_string_equal(cf.v[3].name, "tas cs_ns=100 cs_lines=4");
	assert_string_equal(cf.v[11].name, "mcs cs_ns=1000 cs_lines=4");
	assert_string_equal(cf.v[11].lock->ops->name, "mcs");
	assert_int_equal(cf.v[3].params.cs_ns, 100);
	assert_int_equal(cf.v[3].params.cs_lines, 4);
	assert_int_equal(cf.v[3].params.cs_write_lines, 2);  /* 50% of 4 */
	assert_int_equal(cf.v[10].params.cs_lines, 1);
	assert_int_equal(json_integer_value(json_object_get(cf.v[5].swept, "cs_ns")), 1000);
	/* mcs at (100, 4) against tas at (100, 4); tas is its own baseline. */
	assert_int_equal(cf.baseline, 0);
	assert_int_equal(cf.v[9].base, 3);
	assert_int_equal(cf.v[3].base, 3);
	assert_int_equal(json_array_size(json_object_get(cf.sweep, "cs_ns")), 3);
	config_free(&cf);
	topo_free(&t);
	cli_free(&c);
}

/* A sweep of a workload's seconds and of a lock's option: each value
 * parsed once, each variant with its own option values and parameters. */
static void test_sweep_typed(void **state)
{
	char *argv[] = {"lockbench", "-l", "tas,ttas", "--lock-opt",
			"ttas.backoff_max=2048,4096", "-w", "torture", "--stutter",
			"100ms,0.2", NULL};
	struct cli c;
	struct topo t;
	struct config cf;
	char err[256];
	json_t *a;

	(void)state;
	cli_parse(&c, 9, argv);
	assert_int_equal(topo_load(&t, "package:1 core:2 pu:1", NULL, err, sizeof(err)), 0);
	config_build(&cf, &c, &t, NULL);
	assert_int_equal(cf.nvariants, 6);
	assert_string_equal(cf.v[1].name, "tas stutter_s=0.2");
	assert_string_equal(cf.v[3].name, "ttas backoff_max=4096 stutter_s=0.1");
	assert_true(cf.v[1].params.stutter_s == 0.2 && cf.v[4].params.stutter_s == 0.2);
	assert_true(cf.v[3].params.stutter_s == 0.1);
	assert_int_equal(cf.v[3].opt[1], 4096);
	assert_int_equal(cf.v[4].opt[1], 2048);
	assert_int_equal(cf.v[4].opt[0], 4);                 /* the default */
	assert_int_equal(cf.v[4].base, 1);                   /* tas at 0.2 s */
	assert_int_equal(cf.v[3].base, 0);
	assert_int_equal(json_object_size(cf.v[0].swept), 1);
	assert_int_equal(json_integer_value(json_object_get(cf.v[5].swept,
							    "ttas.backoff_max")), 4096);
	assert_true(json_real_value(json_object_get(cf.v[5].swept, "stutter_s")) == 0.2);
	a = json_object_get(cf.sweep, "stutter_s");
	assert_true(json_real_value(json_array_get(a, 0)) == 0.1);
	a = json_object_get(cf.sweep, "ttas.backoff_max");
	assert_int_equal(json_integer_value(json_array_get(a, 1)), 4096);
	config_free(&cf);
	topo_free(&t);
	cli_free(&c);
}

/* Run cli_parse + config_build on argv in a child: its exit status and
 * how many lines it wrote to stderr. */
static int child_status(char **argv, int argc, unsigned *lines)
{
	int fd[2], st;
	char buf[4096];
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct cli c;
		struct topo t;
		struct config cf;
		char err[256];

		dup2(fd[1], 2);
		close(fd[0]);
		cli_parse(&c, argc, argv);
		if (topo_load(&t, "package:1 core:2 pu:1", NULL, err, sizeof(err)))
			_exit(3);
		config_build(&cf, &c, &t, NULL);
		_exit(0);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd[0]);
	buf[got] = 0;
	*lines = 0;
	for (char *p = buf; *p; p++)
		*lines += *p == '\n';
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Bad lists: one line and exit 2. */
static void test_list_refused(void **state)
{
	static char *bad[][4] = {
		{"--cs-ns", "0,,100"}, {"--cs-ns", "0,100,"}, {"--cs-ns", ",1"},
		{"--cs-ns", "1us,1000"},        /* the same value twice */
		{"--cs-lines", "1,x"}, {"-d", "1,2"}, {"--runs", "2,3"},
		{"--lock-opt", "mcs.nope=1,2"}, {"--lock-opt", "tas.x=1,2"},
	};
	unsigned lines;

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = {"lockbench", "-l", "tas,mcs", bad[i][0], bad[i][1], NULL};

		assert_int_equal(child_status(argv, 5, &lines), 2);
		assert_int_equal(lines, 1);
	}
}

/* "--" ends the options: every word after it is an argument, however
 * many (the parser once wrote past its array), and an option's value may
 * be "--" itself. */
static void test_double_dash(void **state)
{
	struct cli c;
	char *argv[] = {"lockbench", "-q", "--", "-l", "tas", "--dry-run", "x", NULL};
	char *val[] = {"lockbench", "--label", "--", "-l", "tas", "--", "-d", NULL};
	char *many[64] = {"lockbench", "--"};

	(void)state;
	cli_parse(&c, 7, argv);
	assert_true(c.quiet);
	assert_false(c.locks_given || c.dry_run);
	assert_int_equal(c.argc, 4);
	assert_string_equal(c.argv[0], "-l");
	assert_string_equal(c.argv[3], "x");
	cli_free(&c);
	cli_parse(&c, 7, val);
	assert_string_equal(c.label, "--");
	assert_string_equal(c.locks, "tas");
	assert_int_equal(c.argc, 1);
	assert_string_equal(c.argv[0], "-d");
	cli_free(&c);
	for (unsigned i = 2; i < 63; i++)
		many[i] = i % 2 ? "-l" : "word";
	cli_parse(&c, 63, many);
	assert_int_equal(c.argc, 61);
	assert_false(c.locks_given);
	cli_free(&c);
}

/* Every list option: an empty or repeated element is one line, exit 2;
 * free text over OPT_TEXT_MAX too; a number over its limit likewise. */
static void test_items_refused(void **state)
{
	static char *bad[][2] = {
		{"-l", "tas,"}, {"-l", "mcs,,ticket"}, {"-l", ""}, {"-l", "tas,tas"},
		{"-t", "1,1"}, {"-t", "1,"}, {"--counters", "cycles,cycles"},
		{"-f", "table,"}, {"-p", "cpus:0,,1"}, {"--lock-opt", "tas.x=1,,2"},
		{"--cs-ns", "99999999999"}, {"-t", "99999999999999999999"},
	};
	static char label[OPT_TEXT_MAX + 2];
	unsigned lines;

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = {"lockbench", bad[i][0], bad[i][1], NULL};

		assert_int_equal(child_status(argv, 3, &lines), 2);
		assert_int_equal(lines, 1);
	}
	memset(label, 'x', OPT_TEXT_MAX + 1);
	{
		char *argv[] = {"lockbench", "--label", label, NULL};

		assert_int_equal(child_status(argv, 3, &lines), 2);
		assert_int_equal(lines, 1);
		label[OPT_TEXT_MAX] = '\0';
		assert_int_equal(child_status(argv, 3, &lines), 0);
	}
}

/* Workload options misused: one line and exit 2, as when they were the
 * front end's own rows; and accepted where they belong. */
static void test_workload_refused(void **state)
{
	static char *bad[][6] = {
		{"-w", "cs", "--long-hold", "5"},            /* only with -w torture */
		{"-w", "rw", "--layouts", "packed"},         /* only with -w layout */
		{"-w", "rw", "--read-pct", "101"},           /* range */
		{"-w", "torture", "--long-hold", "1us"},     /* not whole ms */
		{"-w", "torture", "--stutter", "20"},        /* >= --watchdog 10 */
		{"-w", "layout", "--layouts", "packd"},      /* unknown (did you mean) */
		{"-w", "layout", "--layouts", "packed,packed"},
		{"-w", "layout", "--layouts", ","},
		{"-w", "rw", "--readers", "1", "--read-pct", "50"},
		{"-w", "rw", "--readers", "2", "-t", "1"},
		{"-w", "rw", "--readers", "1", "--readers", "2"}, /* twice */
	};
	char *good[] = {"lockbench", "-w", "layout", "--layouts", "aligned", "--read-pct",
			"0,100", NULL};
	unsigned lines;

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[8] = {"lockbench"};
		int n = 1;

		while (n <= 6 && bad[i][n - 1])
			argv[n] = bad[i][n - 1], n++;
		assert_int_equal(child_status(argv, n, &lines), 2);
		assert_int_equal(lines, 1);
	}
	assert_int_equal(child_status(good, 7, &lines), 0);
	assert_int_equal(lines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_run_defaults),
		cmocka_unit_test(test_parse_argv),
		cmocka_unit_test(test_table_sane),
		cmocka_unit_test(test_workload_options),
		cmocka_unit_test(test_workload_values),
		cmocka_unit_test(test_layouts_default),
		cmocka_unit_test(test_config_echo),
		cmocka_unit_test(test_list_values),
		cmocka_unit_test(test_list_argv),
		cmocka_unit_test(test_sweep_config),
		cmocka_unit_test(test_sweep_typed),
		cmocka_unit_test(test_list_refused),
		cmocka_unit_test(test_workload_refused),
		cmocka_unit_test(test_double_dash),
		cmocka_unit_test(test_items_refused),
	};

	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
