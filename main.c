/* SPDX-License-Identifier: MIT */
/*
 * lockbench - measure lock algorithms the way kernel lock developers
 * argue about them.
 *
 * main(): parse -> validate -> set up the machine -> run -> render ->
 * restore.  Every option lives in one declarative table (opts[]) from
 * which getopt_long's table and --help are generated.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "locks/plugin.h"
#include "locks/registry.h"
#include "output/results/noise_json.h"
#include "output/render/render.h"
#include "output/cmds.h"
#include "topology/cpulist.h"
#include "topology/machine.h"
#include "topology/mem.h"
#include "topology/placement.h"
#include "topology/sysfs.h"
#include "output/results/json_read.h"
#include "output/results/resume.h"
#include "workloads/layout.h"
#include "workloads/probe.h"
#include "workloads/sweep.h"

#define MAX_THREADS 1024
#define DEFAULT_LOCKS "pthread_mutex,ticket,mcs,qspinlock"

enum opt_id {
	O_LOCKS = 'l', O_WORKLOAD = 'w', O_THREADS = 't', O_RUNS = 'r',
	O_DURATION = 'd', O_PLACEMENT = 'p', O_FORMAT = 'f', O_OUTPUT = 'o',
	O_QUIET = 'q', O_HELP = 'h', O_VERSION = 'V', O_VERBOSE = 'v',
	O_BASELINE = 256, O_WARMUP, O_INTERVAL, O_WATCHDOG, O_CS_NS, O_NCS_NS,
	O_CS_LINES, O_NCS_DIST, O_ISOLATED, O_MEM_NODE, O_TOPOLOGY,
	O_FAKE_NODES, O_LOCK_OPT, O_ORDER, O_SEED, O_LABEL, O_UNIT,
	O_NO_MARKS, O_ROW_NAME, O_INCLUDE_BROKEN, O_DRY_RUN, O_FREQ,
	O_NUMA_BALANCING, O_NO_TUNE, O_PLUGIN,
	/* issue 6: workloads and metrics */
	O_CS_WRITE_PCT, O_READERS, O_WRITERS, O_READ_PCT, O_LONG_HOLD,
	O_STUTTER, O_LAYOUTS, O_LAT_SAMPLE, O_RESUME,
	/* noise handling (issue 8) */
	O_CI_TARGET, O_MAX_RUNS, O_TIME_BUDGET, O_PROBE_FACTOR, O_NO_PROBE,
	O_EXCLUDE_FLAGGED, O_C2C,
};

struct optdef {
	const char *name;
	int id;
	const char *arg;    /* NULL: no argument */
	const char *def;    /* default shown in --help */
	const char *help;
	const char *group;  /* starts a new --help section when set */
};

static const struct optdef opts[] = {
	{"locks", O_LOCKS, "LIST", DEFAULT_LOCKS, "locks to compare, in column order (see `list locks`)", "What"},
	{"workload", O_WORKLOAD, "NAME", "cs", "what each thread does (see `list workloads`)", NULL},
	{"baseline", O_BASELINE, "LOCK", "first lock", "variant the rel% column is computed against", NULL},
	{"include-broken", O_INCLUDE_BROKEN, NULL, NULL, "allow deliberately broken locks (busted)", NULL},
	{"lock-opt", O_LOCK_OPT, "LOCK.KEY=V", NULL, "set a lock tunable (repeatable; see `list locks -v`)", NULL},
	{"plugin", O_PLUGIN, "[TAG=]FILE", NULL, "add the locks of a shared object (repeatable; TAG renames each to NAME_TAG)", NULL},
	{"threads", O_THREADS, "LIST", "1,2,4,..,max", "thread counts: 1,2,4  1-8  0-64:8  max (all usable CPUs)", "How many"},
	{"warmup", O_WARMUP, "S", "0.5", "seconds of warm-up before each window", "How long"},
	{"duration", O_DURATION, "S", "1", "seconds of the measured window", NULL},
	{"runs", O_RUNS, "N", "3", "runs per (lock, thread count) point, or auto (until --ci-target)", NULL},
	{"ci-target", O_CI_TARGET, "PCT", "1%", "-r auto: stop when every 95% CI half-width is within PCT of its mean", NULL},
	{"max-runs", O_MAX_RUNS, "N", "30", "-r auto: at most N runs per point", NULL},
	{"time-budget", O_TIME_BUDGET, "S", "none", "-r auto: stop adding rounds before the sweep takes longer", NULL},
	{"stat-interval", O_INTERVAL, "S", "1", "time-series interval inside the window", NULL},
	{"watchdog", O_WATCHDOG, "S", "10", "end a run whose threads make no progress this long", NULL},
	{"order", O_ORDER, "ORDER", "interleaved", "interleaved (run k of every lock, shuffled) or sequential", NULL},
	{"seed", O_SEED, "N", "time", "seed of the interleaving shuffle (recorded in JSON)", NULL},
	{"cs-ns", O_CS_NS, "NS", "0", "busy time inside the critical section", "Critical and parallel sections"},
	{"ncs-ns", O_NCS_NS, "NS", "100", "mean busy time between releases and acquisitions", NULL},
	{"ncs-dist", O_NCS_DIST, "DIST", "exp", "parallel-section length: exp (exponential) or fixed", NULL},
	{"cs-lines", O_CS_LINES, "N", "1", "shared cache lines written inside the critical section", NULL},
	{"cs-write-pct", O_CS_WRITE_PCT, "P", "100", "share of the --cs-lines written (the rest only read)", NULL},
	{"readers", O_READERS, "N", NULL, "rw: N threads read (the rest write, or --writers)", "Workloads (list workloads -v)"},
	{"writers", O_WRITERS, "N", NULL, "rw: N threads write (threads 0..N-1)", NULL},
	{"read-pct", O_READ_PCT, "P", "90", "rw, layout: share of operations that read (per operation)", NULL},
	{"long-hold", O_LONG_HOLD, "MS", "0", "torture: the rare long hold in ms (0: off)", NULL},
	{"stutter", O_STUTTER, "S", "0", "torture: pause all threads every S s for S s (0: off)", NULL},
	{"layouts", O_LAYOUTS, "LIST", "packed,aligned,per_node", "layout: the variants (columns)", NULL},
	{"lat-sample", O_LAT_SAMPLE, "N", "64", "time 1 acquisition in N (JSON latency; 0: off)", NULL},
	{"placement", O_PLACEMENT, "POLICY", "cores", "cores, smt, spread, node:N[,M], cpus:LIST, none", "Where"},
	{"isolated", O_ISOLATED, NULL, NULL, "also use isolated CPUs (isolcpus)", NULL},
	{"mem-node", O_MEM_NODE, "N", "first thread's", "NUMA node of the lock and CS data: N, local or interleave", NULL},
	{"topology", O_TOPOLOGY, "SPEC", "this machine", "hwloc synthetic string or XML file (with --dry-run)", NULL},
	{"fake-nodes", O_FAKE_NODES, "N", "0", "pretend thread t is on node t%N (tests NUMA-aware paths)", NULL},
	{"freq", O_FREQ, "F", "auto", "auto (freeze where permitted), off, or e.g. 1500MHz (else exit 3)", "Machine"},
	{"numa-balancing", O_NUMA_BALANCING, "M", "auto", "auto (off where permitted), off (else exit 3), keep", NULL},
	{"no-tune", O_NO_TUNE, NULL, NULL, "touch nothing: same as --freq off --numa-balancing keep", NULL},
	{"probe-factor", O_PROBE_FACTOR, "X", "1.5", "flag a run whose core-to-core probe moved by more than X", "Noise"},
	{"no-probe", O_NO_PROBE, NULL, NULL, "no core-to-core probe before and after each run", NULL},
	{"exclude-flagged", O_EXCLUDE_FLAGGED, NULL, NULL, "statistics without flagged runs (kept in JSON, marked)", NULL},
	{"c2c", O_C2C, NULL, NULL, "topo: print the core-to-core latency matrix", NULL},
	{"format", O_FORMAT, "LIST", "table", "output formats, e.g. table,json (see `list formats`)", "Output"},
	{"output", O_OUTPUT, "FILE", "stdout", "write JSON (or the only format) here; others go to stdout", NULL},
	{"label", O_LABEL, "TEXT", NULL, "name of this run (e.g. the kernel), used by compare", NULL},
	{"unit", O_UNIT, "UNIT", "kops/s", "ops/s, kops/s, Mops/s or jpm in text formats", NULL},
	{"row-name", O_ROW_NAME, "NAME", "threads", "heading of the row dimension (e.g. nwriters_stress)", NULL},
	{"no-marks", O_NO_MARKS, NULL, NULL, "print tables without ? ~ * marks and notes", NULL},
	{"dry-run", O_DRY_RUN, NULL, NULL, "print the plan (points, placement, duration) and exit", NULL},
	{"resume", O_RESUME, "FILE", NULL, "continue the interrupted sweep saved in FILE (same options)", NULL},
	{"quiet", O_QUIET, NULL, NULL, "no progress on stderr", NULL},
	{"verbose", O_VERBOSE, NULL, NULL, "more detail (list locks -v)", NULL},
	{"help", O_HELP, NULL, NULL, "this help", NULL},
	{"version", O_VERSION, NULL, NULL, "print the version", NULL},
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static volatile sig_atomic_t interrupted;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench [run] [options]          run the sweep (default)\n"
		"       lockbench list [locks|workloads|formats|placements] [-v] [--plugin FILE]\n"
		"       lockbench topo [--topology SPEC] [-p POLICY] [-t N]\n"
		"       lockbench system [show|tune|reset] [--freq F] [--numa-balancing M]\n"
		"       lockbench compare [-f FORMAT] [--baseline LABEL] [-l LOCKS] A.json B.json ...\n"
		"       lockbench import locktorture [--label L] [-o OUT.json] dmesg.log ...\n"
		"\n"
		"With no option: a short sweep of " DEFAULT_LOCKS "\n"
		"over 1,2,4,..,all CPUs, printed as a locktorture-style table.\n");
	for (unsigned i = 0; i < NOPTS; i++) {
		const struct optdef *o = &opts[i];
		char lhs[64];

		if (o->group)
			fprintf(f, "\n%s:\n", o->group);
		snprintf(lhs, sizeof(lhs), "%s%c%s--%s%s%s",
			 o->id < 256 ? "-" : "", o->id < 256 ? o->id : ' ',
			 o->id < 256 ? ", " : "  ", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %-28s %s", lhs + (o->id < 256 ? 0 : 1), o->help);
		if (o->def)
			fprintf(f, " [%s]", o->def);
		fputc('\n', f);
	}
	fprintf(f,
		"\nExit status: 0 success; 1 a lock failed its mutual-exclusion check,\n"
		"hung, or the sweep was interrupted; 2 bad usage or input; 3 a\n"
		"requested machine setting (--freq F, --numa-balancing off) could not\n"
		"be applied.  LOCKBENCH_SYSROOT moves every /sys and /proc path (tests);\n"
		"LOCKBENCH_STATE names the machine state file.\n"
		"See lockbench(1).\n");
}

/* One clear line on stderr, exit 2. */
static void __attribute__((noreturn, format(printf, 1, 2))) die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("lockbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

/* What the command line said, before validation. */
struct cli {
	const char *locks, *threads, *formats, *output, *mem_node, *placement;
	const char *topology, *workload, *baseline, *unit, *row_name, *order;
	const char *seed, *ncs_dist, *label, *freq, *numa_balancing;
	const char **lock_opts, **plugins;
	unsigned nlock_opts, nplugins;
	/* issue 6 */
	const char *layouts, *resume;
	unsigned long cs_write_pct, readers, writers, read_pct, long_hold, lat_sample;
	double stutter;
	bool locks_set, readers_set, writers_set, read_pct_set;
	double warmup, duration, interval, watchdog;
	unsigned long runs, cs_lines, fake_nodes;
	unsigned long long cs_ns, ncs_ns;
	bool include_broken, isolated, no_marks, dry_run, quiet, verbose;
	bool help, version;
	/* noise handling (issue 8) */
	bool runs_auto, no_probe, exclude_flagged, c2c;
	const char *ci_target;
	double probe_factor, time_budget;
	unsigned long max_runs;
	int argc;
	char **argv;            /* positional arguments after the command */
	char **argv_base;       /* the allocation argv points into */
};

static double parse_seconds(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		die_usage("--%s (%s): must be a number of seconds in [%g, %g]",
			  opt, s, min, max);
	return v;
}

static unsigned long long parse_uint(const char *opt, const char *s,
				     unsigned long long min, unsigned long long max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		die_usage("--%s (%s): must be a whole number in [%llu, %llu]",
			  opt, s, min, max);
	return v;
}

/* A ratio above 1 (--probe-factor). */
static double parse_factor(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 1 || v > 1000)
		die_usage("--%s (%s): must be a ratio above 1, e.g. 1.5", opt, s);
	return v;
}

/* --ci-target: "1%", "0.5%" or "1" (percent); a fraction of the mean. */
static double parse_percent(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 100)
		die_usage("--%s (%s): must be a percentage in (0, 100], e.g. 1%%",
			  opt, s);
	return v / 100;
}

/* The noise options (issue 8) into cf->noise; exits 2 on bad usage. */
static void config_noise(struct config *cf, const struct cli *c)
{
	struct noise_opts *n = &cf->noise;

	noise_opts_default(n);
	n->probe = !c->no_probe;
	n->probe_factor = c->probe_factor;
	n->exclude_flagged = c->exclude_flagged;
	n->adaptive = c->runs_auto;
	if (!c->runs_auto && (c->ci_target || c->time_budget > 0 || c->max_runs != 30))
		die_usage("--ci-target, --max-runs and --time-budget need -r auto");
	if (c->runs_auto && cf->order != ORDER_INTERLEAVED)
		die_usage("-r auto needs --order interleaved (it adds whole rounds)");
	if (c->ci_target)
		n->ci_target = parse_percent("ci-target", c->ci_target);
	n->max_runs = (unsigned)c->max_runs;
	n->min_runs = n->max_runs < 3 ? n->max_runs : 3;
	n->time_budget_s = c->time_budget;
	if (c->runs_auto)
		cf->runs = n->max_runs;
}

static const struct option *long_options(void)
{
	static struct option lo[NOPTS + 1];

	for (unsigned i = 0; i < NOPTS; i++)
		lo[i] = (struct option){opts[i].name,
					opts[i].arg ? required_argument : no_argument,
					NULL, opts[i].id};
	return lo;
}

static const char *short_options(void)
{
	static char so[2 * NOPTS + 2];
	size_t k = 0;

	so[k++] = '+';
	for (unsigned i = 0; i < NOPTS; i++)
		if (opts[i].id < 256) {
			so[k++] = (char)opts[i].id;
			if (opts[i].arg)
				so[k++] = ':';
		}
	return so;
}

static void cli_defaults(struct cli *c)
{
	*c = (struct cli){
		.locks = DEFAULT_LOCKS, .formats = "table", .placement = "cores",
		.workload = "cs", .unit = "kops/s", .row_name = "threads",
		.order = "interleaved", .ncs_dist = "exp", .freq = "auto",
		.numa_balancing = "auto",
		.warmup = 0.5, .duration = 1, .interval = 1, .watchdog = 10,
		.runs = 3, .cs_lines = 1, .ncs_ns = 100,
		.cs_write_pct = 100, .read_pct = 90, .lat_sample = 64,
		.layouts = "packed,aligned,per_node",
		.probe_factor = 1.5, .max_runs = 30,
	};
}

static void cli_option(struct cli *c, int id, const char *a)
{
	switch (id) {
	case O_LOCKS: c->locks = a; c->locks_set = true; break;
	case O_WORKLOAD: c->workload = a; break;
	case O_BASELINE: c->baseline = a; break;
	case O_INCLUDE_BROKEN: c->include_broken = true; break;
	case O_LOCK_OPT:
		c->lock_opts = realloc(c->lock_opts, (c->nlock_opts + 1) * sizeof(char *));
		if (!c->lock_opts)
			die_usage("out of memory");
		c->lock_opts[c->nlock_opts++] = a;
		break;
	case O_PLUGIN:
		c->plugins = realloc(c->plugins, (c->nplugins + 1) * sizeof(char *));
		if (!c->plugins)
			die_usage("out of memory");
		c->plugins[c->nplugins++] = a;
		break;
	case O_THREADS: c->threads = a; break;
	case O_WARMUP: c->warmup = parse_seconds("warmup", a, 0, 3600); break;
	case O_DURATION: c->duration = parse_seconds("duration", a, 0.01, 86400); break;
	case O_RUNS:
		c->runs_auto = !strcmp(a, "auto");
		if (!c->runs_auto)
			c->runs = parse_uint("runs", a, 1, 10000);
		break;
	case O_INTERVAL: c->interval = parse_seconds("stat-interval", a, 0.01, 86400); break;
	case O_WATCHDOG: c->watchdog = parse_seconds("watchdog", a, 0.1, 86400); break;
	case O_ORDER: c->order = a; break;
	case O_SEED: c->seed = a; break;
	case O_CS_NS: c->cs_ns = parse_uint("cs-ns", a, 0, 1000000000); break;
	case O_NCS_NS: c->ncs_ns = parse_uint("ncs-ns", a, 0, 1000000000); break;
	case O_NCS_DIST: c->ncs_dist = a; break;
	case O_CS_LINES: c->cs_lines = parse_uint("cs-lines", a, 0, 4096); break;
	case O_CS_WRITE_PCT: c->cs_write_pct = parse_uint("cs-write-pct", a, 0, 100); break;
	case O_READERS:
		c->readers = parse_uint("readers", a, 0, MAX_THREADS);
		c->readers_set = true;
		break;
	case O_WRITERS:
		c->writers = parse_uint("writers", a, 0, MAX_THREADS);
		c->writers_set = true;
		break;
	case O_READ_PCT:
		c->read_pct = parse_uint("read-pct", a, 0, 100);
		c->read_pct_set = true;
		break;
	case O_LONG_HOLD: c->long_hold = parse_uint("long-hold", a, 0, 10000); break;
	case O_STUTTER: c->stutter = parse_seconds("stutter", a, 0, 3600); break;
	case O_LAYOUTS: c->layouts = a; break;
	case O_LAT_SAMPLE: c->lat_sample = parse_uint("lat-sample", a, 0, 1000000000); break;
	case O_RESUME: c->resume = a; break;
	case O_PLACEMENT: c->placement = a; break;
	case O_ISOLATED: c->isolated = true; break;
	case O_MEM_NODE: c->mem_node = a; break;
	case O_TOPOLOGY: c->topology = a; break;
	case O_FAKE_NODES: c->fake_nodes = parse_uint("fake-nodes", a, 0, 1024); break;
	case O_FREQ: c->freq = a; break;
	case O_NUMA_BALANCING: c->numa_balancing = a; break;
	case O_NO_TUNE: c->freq = "off"; c->numa_balancing = "keep"; break;
	case O_FORMAT: c->formats = a; break;
	case O_OUTPUT: c->output = a; break;
	case O_LABEL: c->label = a; break;
	case O_UNIT: c->unit = a; break;
	case O_ROW_NAME: c->row_name = a; break;
	case O_NO_MARKS: c->no_marks = true; break;
	case O_DRY_RUN: c->dry_run = true; break;
	case O_QUIET: c->quiet = true; break;
	case O_VERBOSE: c->verbose = true; break;
	case O_CI_TARGET: c->ci_target = a; break;
	case O_MAX_RUNS: c->max_runs = parse_uint("max-runs", a, 2, 10000); break;
	case O_TIME_BUDGET: c->time_budget = parse_seconds("time-budget", a, 0.01, 1e7); break;
	case O_PROBE_FACTOR: c->probe_factor = parse_factor("probe-factor", a); break;
	case O_NO_PROBE: c->no_probe = true; break;
	case O_EXCLUDE_FLAGGED: c->exclude_flagged = true; break;
	case O_C2C: c->c2c = true; break;
	case O_HELP: c->help = true; break;
	case O_VERSION: c->version = true; break;
	default:
		die_usage("unknown or incomplete option; try 'lockbench --help'");
	}
}

/* Parse options anywhere on the line; positional words are kept. */
static void cli_parse(struct cli *c, int argc, char **argv)
{
	const struct option *lo = long_options();
	const char *so = short_options();
	char **pos = calloc((size_t)argc + 1, sizeof(char *));
	int id, npos = 0;

	if (!pos)
		die_usage("out of memory");
	opterr = 0;
	while (optind < argc) {
		id = getopt_long(argc, argv, so, lo, NULL);
		if (id == -1) {
			pos[npos++] = argv[optind++];
			continue;
		}
		if (id == '?') {
			if (optopt && optopt < 256)
				die_usage("-%c: unknown option or missing argument; "
					  "try 'lockbench --help'", optopt);
			die_usage("%s: unknown option or missing argument; "
				  "try 'lockbench --help'", argv[optind - 1]);
		}
		cli_option(c, id, optarg);
	}
	c->argc = npos;
	c->argv = pos;
	c->argv_base = pos;
}

static void cli_free(struct cli *c)
{
	free(c->argv_base);
	free(c->lock_opts);
	free(c->plugins);
}

static void config_free(struct config *cf)
{
	for (unsigned i = 0; cf->lock_opt && i < cf->nlocks; i++)
		free(cf->lock_opt[i]);
	free(cf->lock_opt);
	free(cf->locks);
	free(cf->layouts);
	free(cf->threads);
	placement_policy_free(&cf->placement);
}

/* Every registered lock name, for "valid choices" messages. */
static void lock_names(char *buf, size_t len, bool broken)
{
	size_t k = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < lock_registry_count() && k < len; i++) {
		const struct lock_ops *o = lock_registry_at(i)->ops;

		if ((o->caps & LOCK_CAP_BROKEN) && !broken)
			continue;
		k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", o->name);
	}
}

static void config_locks(struct config *cf, const struct cli *c)
{
	char *list = strdup(c->locks), *save = NULL, names[4096];
	unsigned n = 0;

	cf->locks = calloc(strlen(c->locks) + 1, sizeof(*cf->locks));
	if (!list || !cf->locks)
		die_usage("out of memory");
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct lock_entry *e = lock_registry_find(t);

		if (!e || ((e->ops->caps & LOCK_CAP_BROKEN) && !c->include_broken)) {
			lock_names(names, sizeof(names), c->include_broken);
			die_usage("unknown lock (%s)%s: valid: %s", t,
				  e ? " without --include-broken" : "", names);
		}
		for (unsigned i = 0; i < n; i++)
			if (cf->locks[i] == e)
				die_usage("lock listed twice (%s)", t);
		if ((c->workload && cf->workload &&
		     (e->ops->caps & cf->workload->needs_caps) != cf->workload->needs_caps))
			die_usage("lock %s cannot run workload %s", t, cf->workload->name);
		cf->locks[n++] = e;
	}
	if (!n)
		die_usage("--locks: empty list");
	cf->nlocks = n;
	free(list);
}

static uint64_t *opt_values(const struct lock_ops *o)
{
	uint64_t *v = calloc(o->nopts + 1, sizeof(*v));

	if (!v)
		die_usage("out of memory");
	for (unsigned i = 0; i < o->nopts; i++)
		v[i] = o->opts[i].def;
	return v;
}

/* Apply one --lock-opt LOCK.KEY=V to the variants running LOCK. */
static void config_lock_opt(struct config *cf, const char *s)
{
	const char *dot = strchr(s, '.'), *eq = strchr(s, '=');
	char lock[64], key[64];
	const struct lock_entry *e;
	unsigned long long v;
	unsigned k;

	if (!dot || !eq || eq < dot || dot - s >= 64 || eq - dot - 1 >= 64)
		die_usage("--lock-opt (%s): expected LOCK.KEY=VALUE", s);
	snprintf(lock, sizeof(lock), "%.*s", (int)(dot - s), s);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - dot - 1), dot + 1);
	e = lock_registry_find(lock);
	if (!e)
		die_usage("--lock-opt (%s): unknown lock %s", s, lock);
	for (k = 0; k < e->ops->nopts && strcmp(e->ops->opts[k].name, key); k++)
		;
	if (k == e->ops->nopts)
		die_usage("--lock-opt (%s): %s has no option %s (see "
			  "'lockbench list locks -v')", s, lock, key);
	v = parse_uint("lock-opt", eq + 1, e->ops->opts[k].min, e->ops->opts[k].max);
	for (unsigned i = 0; i < cf->nlocks; i++)
		if (cf->locks[i] == e)
			cf->lock_opt[i][k] = v;
}

/* Default thread list: 1, 2, 4, ... below n, then n. */
static void default_threads(struct config *cf, unsigned n)
{
	cf->threads = calloc(34, sizeof(unsigned));
	if (!cf->threads)
		die_usage("out of memory");
	cf->nthreads = 0;
	for (unsigned t = 1; t < n; t *= 2)
		cf->threads[cf->nthreads++] = t;
	cf->threads[cf->nthreads++] = n;
}

static void config_threads(struct config *cf, const struct cli *c, unsigned usable)
{
	char why[256];

	if (!c->threads) {
		default_threads(cf, usable);
		return;
	}
	if (numlist_parse(c->threads, usable, MAX_THREADS, &cf->threads,
			  &cf->nthreads, why, sizeof(why)))
		die_usage("--threads (%s): %s; use e.g. 1,2,4  1-8  max "
			  "(1 to %d threads)", c->threads, why, MAX_THREADS);
	for (unsigned i = 0; i < cf->nthreads; i++)
		if (!cf->threads[i])
			die_usage("--threads (%s): a thread count must be at least 1",
				  c->threads);
}

static void config_memnode(struct config *cf, const struct cli *c,
			   const struct topo *t)
{
	cf->mem_node = MEM_NODE_LOCAL;
	if (!c->mem_node || !strcmp(c->mem_node, "local"))
		return;
	if (!strcmp(c->mem_node, "interleave")) {
		cf->mem_node = MEM_NODE_INTERLEAVE;
		return;
	}
	cf->mem_node = (int)parse_uint("mem-node", c->mem_node, 0, 4095);
	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].node_os == cf->mem_node)
			return;
	die_usage("--mem-node (%s): no such NUMA node on this machine "
		  "(valid: a node number, local, interleave)", c->mem_node);
}

/* ---- issue 6: workload options ---------------------------------------- */

/* -w layout: one variant per --layouts entry, each run with `null`. */
static void config_layouts(struct config *cf, const struct cli *c)
{
	char *list = strdup(c->layouts), *save = NULL;
	const struct lock_entry *null = lock_registry_find("null");
	unsigned n = 0;

	if (c->locks_set)
		die_usage("-w layout: the columns are --layouts, not locks (drop -l %s)",
			  c->locks);
	cf->locks = calloc(WL_NLAYOUTS, sizeof(*cf->locks));
	cf->layouts = calloc(WL_NLAYOUTS, sizeof(*cf->layouts));
	if (!list || !cf->locks || !cf->layouts || !null)
		die_usage("out of memory");
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int l = layout_parse(t);

		if (l < 0)
			die_usage("unknown layout (%s): valid: packed, aligned, per_node", t);
		for (unsigned i = 0; i < n; i++)
			if (cf->layouts[i] == (unsigned)l)
				die_usage("layout listed twice (%s)", t);
		cf->locks[n] = null;
		cf->layouts[n++] = (unsigned)l;
	}
	if (!n)
		die_usage("--layouts: empty list");
	cf->nlocks = n;
	free(list);
}

/* Options one workload reads are refused with the others. */
static void config_wl_only(const struct cli *c, const char *wl)
{
	const char *bad = NULL, *which = NULL;

	if ((c->readers_set || c->writers_set) && strcmp(wl, "rw"))
		bad = c->readers_set ? "readers" : "writers", which = "-w rw";
	else if (c->read_pct_set && strcmp(wl, "rw") && strcmp(wl, "layout"))
		bad = "read-pct", which = "-w rw or -w layout";
	else if ((c->long_hold || c->stutter > 0) && strcmp(wl, "torture"))
		bad = c->long_hold ? "long-hold" : "stutter", which = "-w torture";
	else if (strcmp(c->layouts, "packed,aligned,per_node") && strcmp(wl, "layout"))
		bad = "layouts", which = "-w layout";
	if (bad)
		die_usage("--%s: only with %s (workload is %s)", bad, which, wl);
}

/* rw with --readers/--writers: fixed roles that must fit every thread
 * count (both given: -t defaults to, and must be, their sum). */
static void config_rw_roles(struct config *cf, const struct cli *c)
{
	unsigned long sum = c->readers + c->writers;

	if (!c->readers_set && !c->writers_set)
		return;
	if (c->read_pct_set)
		die_usage("--read-pct: per-operation roles exclude --readers/--writers");
	if (c->readers_set && c->writers_set && !c->threads) {
		if (!sum || sum > MAX_THREADS)
			die_usage("--readers %lu --writers %lu: 1 to %d threads in all",
				  c->readers, c->writers, MAX_THREADS);
		cf->nthreads = 1;
		cf->threads[0] = (unsigned)sum;
	}
	for (unsigned i = 0; i < cf->nthreads; i++) {
		unsigned t = cf->threads[i];

		if (c->readers_set && c->writers_set && t != sum)
			die_usage("--threads (%u): with --readers %lu --writers %lu the "
				  "thread count must be %lu", t, c->readers, c->writers, sum);
		if ((c->readers_set && c->readers > t) || (c->writers_set && c->writers > t))
			die_usage("--threads (%u): fewer threads than --%s %lu", t,
				  c->readers_set && c->readers > t ? "readers" : "writers",
				  c->readers_set && c->readers > t ? c->readers : c->writers);
	}
	cf->params.fixed_roles = true;
	cf->params.readers = (unsigned)c->readers;
	cf->params.writers = (unsigned)c->writers;
	cf->params.writers_set = c->writers_set;
}

/* The workload parameters of issue 6 (after cf->params is set). */
static void config_wl_params(struct config *cf, const struct cli *c)
{
	struct wl_params *p = &cf->params;

	config_wl_only(c, cf->workload->name);
	p->cs_write_lines = (unsigned)((c->cs_lines * c->cs_write_pct + 50) / 100);
	p->read_pct = (unsigned)c->read_pct;
	p->lat_sample = (unsigned)c->lat_sample;
	p->long_hold_ms = (unsigned)c->long_hold;
	p->stutter_s = c->stutter;
	if (p->stutter_s > 0 && p->stutter_s >= c->watchdog)
		die_usage("--stutter (%g): must be shorter than --watchdog (%g)",
			  p->stutter_s, c->watchdog);
	config_rw_roles(cf, c);
}

/* ---- end of issue 6 options -------------------------------------------- */

/* Validate everything that can be checked before a thread starts. */
static void config_build(struct config *cf, const struct cli *c,
			 const struct topo *t)
{
	unsigned *order, usable;
	char err[512];

	memset(cf, 0, sizeof(*cf));
	cf->workload = workload_find(c->workload);
	if (!cf->workload)
		die_usage("unknown workload (%s): valid: cs, rw, torture, layout", c->workload);
	if (cf->workload->flags & WL_NOLOCK)
		config_layouts(cf, c);
	else
		config_locks(cf, c);
	cf->lock_opt = calloc(cf->nlocks, sizeof(*cf->lock_opt));
	if (!cf->lock_opt)
		die_usage("out of memory");
	for (unsigned i = 0; i < cf->nlocks; i++)
		cf->lock_opt[i] = opt_values(cf->locks[i]->ops);
	for (unsigned i = 0; i < c->nlock_opts; i++)
		config_lock_opt(cf, c->lock_opts[i]);
	for (unsigned i = 0; c->baseline && i <= cf->nlocks; i++) {
		if (i == cf->nlocks)
			die_usage("--baseline (%s): not one of --locks (%s)",
				  c->baseline, c->locks);
		if (!strcmp(config_variant_name(cf, i), c->baseline)) {
			cf->baseline = i;
			break;
		}
	}
	if (placement_parse(c->placement, &cf->placement, err, sizeof(err)))
		die_usage("%s", err + strlen("lockbench: "));
	cf->placement.use_isolated = c->isolated;
	if (placement_order(t, &cf->placement, &order, &usable, err, sizeof(err)))
		die_usage("%s", err + strlen("lockbench: "));
	for (unsigned i = 0; i < usable; i++)
		if (!t->pu[order[i]].allowed)
			fprintf(stderr, "lockbench: warning: cpu %d (placement %s) is not in "
				"the allowed set (taskset/cgroup cpuset): pinning will fail\n",
				t->pu[order[i]].os, cf->placement.text);
	free(order);
	config_threads(cf, c, usable);
	config_memnode(cf, c, t);
	if (!strcmp(c->order, "interleaved"))
		cf->order = ORDER_INTERLEAVED;
	else if (!strcmp(c->order, "sequential"))
		cf->order = ORDER_SEQUENTIAL;
	else
		die_usage("--order (%s): valid: interleaved, sequential", c->order);
	cf->seed = c->seed ? parse_uint("seed", c->seed, 0, ULLONG_MAX)
			   : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (strcmp(c->ncs_dist, "exp") && strcmp(c->ncs_dist, "fixed"))
		die_usage("--ncs-dist (%s): valid: exp, fixed", c->ncs_dist);
	cf->params = (struct wl_params){
		.cs_ns = c->cs_ns, .ncs_ns = c->ncs_ns, .cs_lines = (unsigned)c->cs_lines,
		.ncs_fixed = !strcmp(c->ncs_dist, "fixed"),
	};
	cf->runs = (unsigned)c->runs;
	cf->warmup_s = c->warmup;
	cf->duration_s = c->duration;
	cf->interval_s = c->interval;
	cf->watchdog_s = c->watchdog;
	cf->topology = c->topology;
	cf->fake_nodes = (unsigned)c->fake_nodes;
	cf->label = c->label;
	cf->row_heading = c->row_name;
	cf->quiet = c->quiet;
	config_wl_params(cf, c);
	config_noise(cf, c);
}

/* Where each requested format goes: JSON (or a lone format) to -o. */
struct outputs {
	const struct format_info *fmt[8];
	unsigned n;
	int to_file;            /* index of the format written to -o, or -1 */
	const char *path;
	char tmp[PATH_MAX];
	FILE *file;
	struct render_opts ropts;
};

static void outputs_parse(struct outputs *o, const struct cli *c)
{
	char *list = strdup(c->formats), *save = NULL;

	memset(o, 0, sizeof(*o));
	o->to_file = -1;
	if (!list)
		die_usage("out of memory");
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct format_info *f = format_find(t);
		char names[256] = "";

		if (!f) {
			for (unsigned i = 0; formats[i].name; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", i ? ", " : "", formats[i].name);
			die_usage("unknown format (%s): valid: %s", t, names);
		}
		if (o->n == 8)
			die_usage("--format (%s): too many formats", c->formats);
		o->fmt[o->n++] = f;
	}
	free(list);
	if (!o->n)
		die_usage("--format: empty list");
	if (unit_parse(c->unit, &o->ropts.unit))
		die_usage("--unit (%s): valid: ops/s, kops/s, Mops/s, jpm", c->unit);
	o->ropts.marks = !c->no_marks;
	o->path = c->output;
	if (o->path) {
		o->to_file = 0;
		for (unsigned i = 0; i < o->n; i++)
			if (!strcmp(o->fmt[i]->name, "json"))
				o->to_file = (int)i;
	}
}

/* Create the -o file's temporary twin now, so an unwritable path fails
 * before the sweep, and a crash never leaves a file that looks whole. */
static void outputs_open(struct outputs *o)
{
	int fd;

	if (!o->path)
		return;
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", o->path);
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->file = fdopen(fd, "w")))
		die_usage("cannot write output (%s): %s", o->path, strerror(errno));
}

static void outputs_discard(struct outputs *o)
{
	if (o->file) {
		fclose(o->file);
		unlink(o->tmp);
		o->file = NULL;
	}
}

/* Render every format; returns 0 or 2 (output could not be written). */
static int outputs_write(struct outputs *o, const struct results *r)
{
	for (unsigned i = 0; i < o->n; i++) {
		FILE *f = (int)i == o->to_file ? o->file : stdout;

		if (i && f == stdout)
			fputc('\n', stdout);
		if (o->fmt[i]->render(r, &o->ropts, f)) {
			fprintf(stderr, "lockbench: writing %s output failed\n", o->fmt[i]->name);
			outputs_discard(o);
			return 2;
		}
	}
	fflush(stdout);
	if (o->file) {
		if (fflush(o->file) || fsync(fileno(o->file)) || fclose(o->file) ||
		    rename(o->tmp, o->path)) {
			fprintf(stderr, "lockbench: cannot write output (%s): %s\n",
				o->path, strerror(errno));
			unlink(o->tmp);
			o->file = NULL;
			return 2;
		}
		o->file = NULL;
	}
	return 0;
}

/* Can every requested format show results of this shape (its variants;
 * checked before the sweep and before any file is made)?  Exit 2 if not. */
static void outputs_check(const struct outputs *o, const struct config *cf)
{
	struct results shape = {.nvariants = cf->nlocks, .nrows = cf->nthreads};
	char err[256];

	for (unsigned i = 0; i < o->n; i++)
		if (format_check(o->fmt[i], &shape, err, sizeof(err)))
			die_usage("%s", err);
}

/*
 * First SIGINT/SIGTERM/SIGHUP: set the flag; the sweep stops, writes what
 * it measured and restores the machine on the normal path.  A second
 * one (a stuck run, an insistent user): restore with async-signal-safe
 * calls only and die by the signal.
 */
static void on_signal(int sig)
{
	if (interrupted) {
		machine_restore_signal_safe();
		signal(sig, SIG_DFL);
		raise(sig);
	}
	interrupted = sig;
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void restore_atexit(void)
{
	machine_restore();
}

/* Parse --freq / --numa-balancing; exits 2 on bad values. */
static void machine_request(const struct cli *c, struct machine_req *req)
{
	if (machine_parse_freq(c->freq, req))
		die_usage("--freq (%s): valid: auto, off, or a frequency such as "
			  "1500MHz, 1.5GHz, 1500000kHz", c->freq);
	if (!strcmp(c->numa_balancing, "auto"))
		req->numa_balancing = NB_AUTO;
	else if (!strcmp(c->numa_balancing, "off"))
		req->numa_balancing = NB_OFF;
	else if (!strcmp(c->numa_balancing, "keep"))
		req->numa_balancing = NB_KEEP;
	else
		die_usage("--numa-balancing (%s): valid: auto, off, keep", c->numa_balancing);
}

/* The isolated CPU list (isolcpus), through the sysfs root. */
static const char *isolated_cpus(void)
{
	static char buf[4096];

	return sysfs_read_str("/sys/devices/system/cpu/isolated", buf, sizeof(buf))
		       ? NULL : buf;
}

static json_t *json_or_null(json_t *j)
{
	return j ? j : json_null();
}

static json_t *machine_json(const struct topo *t)
{
	struct utsname u;
	char host[256] = "";

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s}",
			 "hostname", host, "kernel", u.release, "kernel_version", u.version,
			 "arch", u.machine, "cpu_model", t->cpu_model,
			 "pus", t->npu, "cores", t->ncores, "l3_groups", t->nl3,
			 "numa_nodes", t->nnodes, "packages", t->npackages,
			 "topology", t->source);
}

static json_t *config_json(const struct config *cf, const struct cli *c,
			   const struct outputs *o)
{
	json_t *locks = json_array(), *threads = json_array(), *lopts = json_object();
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (unsigned i = 0; i < cf->nlocks; i++) {
		const struct lock_ops *op = cf->locks[i]->ops;
		json_t *v = json_object();

		json_array_append_new(locks, json_string(op->name));
		for (unsigned k = 0; k < op->nopts; k++)
			json_object_set_new(v, op->opts[k].name,
					    json_integer((json_int_t)cf->lock_opt[i][k]));
		json_object_set_new(lopts, op->name, v);
	}
	for (unsigned i = 0; i < cf->nthreads; i++)
		json_array_append_new(threads, json_integer(cf->threads[i]));
	return json_pack("{s:s, s:o, s:o, s:s, s:o, s:i, s:f, s:f, s:f, s:f, s:I, s:I, s:s,"
			 " s:i, s:s, s:b, s:s, s:i, s:s, s:I, s:s, s:s}",
			 "created", when, "locks", locks, "lock_opts", lopts,
			 "baseline", cf->locks[cf->baseline]->ops->name,
			 "threads", threads, "runs", cf->runs, "warmup_s", cf->warmup_s,
			 "duration_s", cf->duration_s, "stat_interval_s", cf->interval_s,
			 "watchdog_s", cf->watchdog_s, "cs_ns", (json_int_t)cf->params.cs_ns,
			 "ncs_ns", (json_int_t)cf->params.ncs_ns, "ncs_dist", c->ncs_dist,
			 "cs_lines", cf->params.cs_lines, "placement", cf->placement.text,
			 "isolated", cf->placement.use_isolated,
			 "mem_node", c->mem_node ? c->mem_node : "first thread's node",
			 "fake_nodes", cf->fake_nodes, "order", c->order,
			 "seed", (json_int_t)cf->seed, "unit", unit_name(o->ropts.unit),
			 "workload", cf->workload->name);
}

/* The issue-6 members of the config object (workload options). */
static void config_json_wl(json_t *j, const struct config *cf)
{
	const struct wl_params *p = &cf->params;
	json_t *lay = json_null();

	if (!j)
		return;
	if (cf->layouts) {
		lay = json_array();
		for (unsigned i = 0; i < cf->nlocks; i++)
			json_array_append_new(lay, json_string(config_variant_name(cf, i)));
	}
	json_object_set_new(j, "cs_write_lines", json_integer(p->cs_write_lines));
	json_object_set_new(j, "read_pct", p->fixed_roles ? json_null()
							   : json_integer(p->read_pct));
	json_object_set_new(j, "readers", p->fixed_roles && !p->writers_set ?
			    json_integer(p->readers) : json_null());
	json_object_set_new(j, "writers", p->writers_set ? json_integer(p->writers)
							  : json_null());
	json_object_set_new(j, "lat_sample", json_integer(p->lat_sample));
	json_object_set_new(j, "long_hold_ms", json_integer(p->long_hold_ms));
	json_object_set_new(j, "stutter_s", json_real(p->stutter_s));
	json_object_set_new(j, "layouts", lay);
}

/* Placement of the largest thread count (every smaller count is a
 * prefix of it). */
static json_t *placement_json(const struct config *cf, const struct topo *t)
{
	unsigned maxthr = 0;
	struct thread_place *pl;
	json_t *a = json_array();
	char err[256];

	for (unsigned i = 0; i < cf->nthreads; i++)
		maxthr = cf->threads[i] > maxthr ? cf->threads[i] : maxthr;
	pl = calloc(maxthr, sizeof(*pl));
	if (!pl || placement_assign(t, &cf->placement, maxthr, pl, err, sizeof(err))) {
		free(pl);
		return json_null();
	}
	for (unsigned i = 0; i < maxthr; i++)
		json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:b}",
			"thread", i, "cpu", pl[i].cpu, "core", pl[i].core, "l3", pl[i].l3,
			"node", cf->fake_nodes ? i % cf->fake_nodes : pl[i].node,
			"node_os", pl[i].node_os, "package", pl[i].package,
			"shared_cpu", pl[i].shared, "not_allowed", pl[i].not_allowed));
	free(pl);
	return json_pack("{s:s, s:o}", "policy", cf->placement.text, "threads", a);
}

static json_t *run_order_json(const struct config *cf)
{
	unsigned n;
	struct plan_step *p = plan_build(cf, &n);
	json_t *a = json_array();

	for (unsigned i = 0; p && i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:i}",
			"variant", config_variant_name(cf, p[i].variant),
			"threads", cf->threads[p[i].row], "run", p[i].run + 1));
	free(p);
	return a;
}

static unsigned usable_cpus(const struct config *cf, const struct topo *t)
{
	unsigned *order, n = 0;
	char err[256];

	if (!placement_order(t, &cf->placement, &order, &n, err, sizeof(err)))
		free(order);
	return n;
}

/* --dry-run: the plan, its placement and how long it will take. */
static int dry_run(const struct config *cf, const struct topo *t)
{
	unsigned n, usable = usable_cpus(cf, t);
	double each = cf->warmup_s + cf->duration_s + 0.05;
	struct plan_step *p = plan_build(cf, &n);

	free(p);
	printf("topology: %s (%u PUs, %u cores, %u NUMA nodes, %u packages)\n",
	       t->source, t->npu, t->ncores, t->nnodes, t->npackages);
	printf("locks: ");
	for (unsigned i = 0; i < cf->nlocks; i++)
		printf("%s%s%s", i ? ", " : "", config_variant_name(cf, i),
		       i == cf->baseline ? " (baseline)" : "");
	printf("\nworkload: %s  cs-ns %llu  ncs-ns %llu  cs-lines %u\n",
	       cf->workload->name, (unsigned long long)cf->params.cs_ns,
	       (unsigned long long)cf->params.ncs_ns, cf->params.cs_lines);
	printf("points: %u locks x %u thread counts x %u runs = %u runs, %s order\n",
	       cf->nlocks, cf->nthreads, cf->runs, n,
	       cf->order == ORDER_INTERLEAVED ? "interleaved" : "sequential");
	if (cf->noise.adaptive)
		printf("-r auto: %u runs per point at most (at least %u), fewer once every "
		       "95%% CI is within %g%% of its mean\n", cf->noise.max_runs,
		       cf->noise.min_runs, cf->noise.ci_target * 100);
	printf("estimated duration: %s%.0f s (%.2f s warm-up + %.2f s window per run)\n",
	       cf->noise.adaptive ? "at most " : "", n * each, cf->warmup_s, cf->duration_s);
	for (unsigned i = 0; i < cf->nthreads; i++) {
		unsigned nt = cf->threads[i];
		struct thread_place *pl = calloc(nt, sizeof(*pl));
		char err[256];

		if (!pl || placement_assign(t, &cf->placement, nt, pl, err, sizeof(err))) {
			free(pl);
			continue;
		}
		printf("threads %u%s: cpus", nt, nt > usable ? " (oversubscribed)" : "");
		for (unsigned k = 0; k < nt; k++)
			printf("%s%d", k ? "," : " ", pl[k].cpu);
		printf("\n");
		free(pl);
	}
	return 0;
}

static void results_setup(struct results *r, const struct config *cf,
			  const struct cli *c, const struct topo *t,
			  const struct outputs *o, const struct calibration *cal)
{
	if (results_init(r, cf->nlocks, cf->nthreads))
		die_usage("out of memory");
	for (unsigned i = 0; i < cf->nlocks; i++) {
		const struct lock_entry *e = cf->locks[i];
		struct variant *v = &r->variants[i];

		v->name = strdup(config_variant_name(cf, i));
		v->lock = strdup(e->ops->name);
		v->label = cf->label ? strdup(cf->label) : NULL;
		v->origin = e->origin ? strdup(e->origin) : NULL;
		v->sha256 = e->origin ? strdup(e->sha256) : NULL;
		v->counter_names = calloc(e->ops->ncounters + 1, sizeof(char *));
		for (unsigned k = 0; v->counter_names && k < e->ops->ncounters; k++)
			v->counter_names[k] = strdup(e->ops->counter_names[k]);
		v->ncounters = v->counter_names ? e->ops->ncounters : 0;
	}
	memcpy(r->rows, cf->threads, cf->nthreads * sizeof(unsigned));
	r->baseline = cf->baseline;
	r->variant_heading = strdup(cf->layouts ? "Layout" : "Lock");
	r->row_heading = strdup(cf->row_heading);
	r->label = cf->label ? strdup(cf->label) : NULL;
	r->workload = strdup(cf->workload->name);
	r->ncpus = usable_cpus(cf, t);
	r->machine = machine_json(t);
	r->config = config_json(cf, c, o);
	config_json_wl(r->config, cf);
	r->placement = placement_json(cf, t);
	r->run_order = run_order_json(cf);
	r->noise.opts = cf->noise;
	r->calibration = json_pack("{s:f, s:f, s:f, s:i, s:I, s:I, s:I}",
		"loops_per_ns", cal->loops_per_ns, "ns_per_loop", cal->ns_per_loop,
		"spread", cal->spread, "trials", cal->trials,
		"loops_per_trial", (json_int_t)cal->loops_per_trial,
		"cs_loops", (json_int_t)cf->params.cs_loops,
		"ncs_loops", (json_int_t)cf->params.ncs_loops);
}

/* The distinct CPUs the sweep pins onto (all allowed ones for -p none). */
static int *used_cpus(const struct config *cf, const struct topo *t, unsigned *n)
{
	unsigned maxthr = 0, k = 0;
	struct thread_place *pl;
	int *cpus;
	char err[256];

	for (unsigned i = 0; i < cf->nthreads; i++)
		maxthr = cf->threads[i] > maxthr ? cf->threads[i] : maxthr;
	pl = calloc(maxthr, sizeof(*pl));
	cpus = calloc(maxthr + t->npu, sizeof(*cpus));
	if (!pl || !cpus || placement_assign(t, &cf->placement, maxthr, pl, err, sizeof(err)))
		maxthr = 0;
	for (unsigned i = 0; i < maxthr; i++) {
		int cpu = pl[i].cpu >= 0 ? pl[i].cpu : t->pu[pl[i].pu].os;
		bool seen = false;

		for (unsigned j = 0; j < k; j++)
			seen |= cpus[j] == cpu;
		if (!seen)
			cpus[k++] = cpu;
	}
	free(pl);
	*n = k;
	return cpus;
}

/* Freeze what --freq / --numa-balancing ask for; exit 3 when an explicit
 * request cannot be met.  Returns the JSON list of changes. */
static json_t *machine_setup(const struct cli *c, const int *cpus, unsigned n)
{
	struct machine_req req = {0};
	json_t *changes = NULL;
	char msg[512] = "";
	int rc;

	machine_request(c, &req);
	atexit(restore_atexit);
	rc = machine_tune(&req, cpus, n, &changes, msg, sizeof(msg));
	if (rc < 0) {
		fprintf(stderr, "%s\n", *msg ? msg : "lockbench: machine tuning failed");
		exit(3);
	}
	if (rc == 1 && *msg && !c->quiet)
		fprintf(stderr, "%s\n", msg);
	return changes ? changes : json_array();
}

/* ---- --resume ------------------------------------------------------- */

static struct results resume_old;
static bool resume_loaded;

/* --resume FILE read once: exits 2 when it cannot be read. */
static struct results *resume_file(const struct cli *c)
{
	struct results *old = &resume_old;
	char err[512];

	if (!resume_loaded) {
		if (results_from_json(c->resume, old, err, sizeof(err)))
			die_usage("--resume: %s", err);
		resume_loaded = true;
	}
	return old;
}

/* Free the file read by resume_file(), if it was. */
static void resume_release(void)
{
	if (resume_loaded)
		results_free(&resume_old);
	resume_loaded = false;
}

/* Without --seed, the resumed sweep keeps the file's run order. */
static void resume_seed(const struct cli *c, struct config *cf)
{
	json_t *seed;

	if (!c->resume || c->seed)
		return;
	seed = json_object_get(resume_file(c)->config, "seed");
	if (json_is_integer(seed))
		cf->seed = (uint64_t)json_integer_value(seed);
}

/* Refuse a different configuration before anything runs (exit 2). */
static void resume_check(const struct cli *c, const struct config *cf,
			 const struct outputs *o)
{
	json_t *cfg;
	char err[512];

	if (!c->resume)
		return;
	cfg = config_json(cf, c, o);
	config_json_wl(cfg, cf);
	if (results_resume_check(cfg, resume_file(c), c->resume, err, sizeof(err)))
		die_usage("%s", err);
	json_decref(cfg);
}

/* Keep the file's completed runs (checked by resume_check already). */
static void resume_apply(const struct cli *c, struct results *r)
{
	struct results *old;
	char err[512];

	if (!c->resume)
		return;
	old = resume_file(c);
	if (results_resume(r, old, c->resume, err, sizeof(err)))
		die_usage("%s", err);
	resume_release();
}

/* ---- end of --resume ------------------------------------------------- */

static int cmd_run(struct cli *c)
{
	struct topo t;
	struct config cf;
	struct outputs o;
	struct calibration cal;
	struct results r;
	char err[512] = "";
	json_t *before, *changes;
	unsigned ncpus;
	int rc, wrc, *cpus;

	if (c->argc)
		die_usage("unexpected argument (%s); try 'lockbench --help'", c->argv[0]);
	if (topo_load(&t, c->topology, isolated_cpus(), err, sizeof(err)))
		die_usage("%s", err + strlen("lockbench: "));
	config_build(&cf, c, &t);
	resume_seed(c, &cf);
	outputs_parse(&o, c);
	outputs_check(&o, &cf);
	resume_check(c, &cf, &o);
	if (c->dry_run) {
		rc = dry_run(&cf, &t);
		resume_release();
		config_free(&cf);
		topo_free(&t);
		return rc;
	}
	if (!t.real)
		die_usage("--topology (%s) describes another machine: use it with "
			  "--dry-run or 'lockbench topo'", c->topology);
	{
		struct machine_req req;

		machine_request(c, &req); /* bad values exit 2 before anything runs */
	}
	outputs_open(&o);
	install_signals();
	cpus = used_cpus(&cf, &t, &ncpus);
	before = machine_describe(cpus, ncpus);
	changes = machine_setup(c, cpus, ncpus);
	calibrate_delay(&cal);
	cf.params.cs_loops = calibrate_loops(&cal, cf.params.cs_ns);
	cf.params.ncs_loops = calibrate_loops(&cal, cf.params.ncs_ns);
	cf.params.long_loops = calibrate_loops(&cal, cf.params.long_hold_ms * 1000000ull);
	cf.params.short_loops = calibrate_loops(&cal, 2000); /* locktorture's 2 us */
	results_setup(&r, &cf, c, &t, &o, &cal);
	resume_apply(c, &r);
	json_object_set_new(r.machine, "state_before", before ? before : json_null());
	json_object_set_new(r.machine, "changes", changes);
	rc = sweep_run(&cf, &t, &cal, &r, &interrupted, err, sizeof(err));
	json_object_set_new(r.machine, "state_after", json_or_null(machine_describe(cpus, ncpus)));
	if (cf.noise.adaptive)
		noise_prune_run_order(&r);
	machine_restore();
	if (rc)
		fprintf(stderr, "%s\n", err);
	if (interrupted)
		fprintf(stderr, "lockbench: interrupted: writing the points measured so far\n");
	results_finalize(&r);
	wrc = outputs_write(&o, &r);
	results_free(&r);
	topo_free(&t);
	config_free(&cf);
	free(cpus);
	return wrc ? wrc : rc ? 1 : 0;
}

/* `lockbench system show|tune|reset`. */
static int cmd_system(struct cli *c)
{
	const char *sub = c->argc ? c->argv[0] : "show";
	char msg[512] = "";
	int rc;

	if (c->argc > 1)
		die_usage("system: unexpected argument (%s)", c->argv[1]);
	if (!strcmp(sub, "show")) {
		json_t *d = machine_describe(NULL, 0);

		rc = d ? render_machine_report(d, stdout) : -1;
		json_decref(d);
		return rc < 0 ? 1 : 0;
	}
	if (!strcmp(sub, "tune")) {
		struct machine_req req = {0};
		json_t *changes = NULL;

		machine_request(c, &req);
		rc = machine_tune(&req, NULL, 0, &changes, msg, sizeof(msg));
		if (*msg)
			fprintf(stderr, "%s\n", msg);
		if (rc < 0)
			return 3;
		machine_tune_persist();
		printf("lockbench: machine tuned (%zu settings changed); undo with "
		       "'lockbench system reset'\n", changes ? json_array_size(changes) : 0);
		json_decref(changes);
		return 0;
	}
	if (!strcmp(sub, "reset")) {
		rc = machine_reset_from_state(msg, sizeof(msg));
		if (*msg)
			fprintf(rc ? stderr : stdout, "%s\n", msg);
		return rc ? 1 : 0;
	}
	die_usage("system (%s): valid: show, tune, reset", sub);
}

/* `topo --c2c`: probe every pair of the CPUs the placement may use. */
static void topo_c2c(const struct topo *t, const struct placement_policy *p)
{
	unsigned *order, n = 0, reps = 5;
	int *cpus;
	double *m;
	char err[256];

	if (!t->real)
		die_usage("--c2c measures this machine: not with --topology");
	if (placement_order(t, p, &order, &n, err, sizeof(err)))
		die_usage("%s", err + strlen("lockbench: "));
	cpus = calloc(n + 1, sizeof(*cpus));
	m = calloc((size_t)n * n + 1, sizeof(*m));
	if (!cpus || !m)
		die_usage("out of memory");
	for (unsigned i = 0; i < n; i++)
		cpus[i] = t->pu[order[i]].os;
	if (probe_matrix(cpus, n, reps, m))
		fprintf(stderr, "lockbench: core-to-core probe failed\n");
	print_c2c(cpus, n, m, reps, stdout);
	free(order);
	free(cpus);
	free(m);
}

/* The -t of `topo`: one thread count (or max); exits 2 otherwise. */
static unsigned topo_threads(const struct cli *c, const struct topo *t,
			     const struct placement_policy *p)
{
	unsigned *l = NULL, usable = 0, *order, n = 0;
	char err[512];

	if (placement_order(t, p, &order, &usable, err, sizeof(err)))
		die_usage("%s", err + strlen("lockbench: "));
	free(order);
	if (numlist_parse(c->threads, usable, MAX_THREADS, &l, &n, err, sizeof(err)) ||
	    n != 1 || !l[0])
		die_usage("-t (%s): topo takes one thread count, 1 to %d or max",
			  c->threads, MAX_THREADS);
	n = l[0];
	free(l);
	return n;
}

static int cmd_topo(struct cli *c)
{
	struct topo t;
	struct placement_policy p;
	char err[512];
	unsigned n = 0;

	if (topo_load(&t, c->topology, isolated_cpus(),
		      err, sizeof(err)))
		die_usage("%s", err + strlen("lockbench: "));
	if (placement_parse(c->placement, &p, err, sizeof(err)))
		die_usage("%s", err + strlen("lockbench: "));
	p.use_isolated = c->isolated;
	/* Validate everything before printing anything: bad input gets one
	 * line and exit 2, not a half-printed report. */
	if (c->threads)
		n = topo_threads(c, &t, &p);
	print_topo(&t, stdout);
	if (c->c2c)
		topo_c2c(&t, &p);
	if (n && print_placement(&t, &p, n, stdout, err, sizeof(err)))
		die_usage("%s", err + strlen("lockbench: "));
	placement_policy_free(&p);
	topo_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c;
	const char *cmd = "run";
	char err[PATH_MAX + 512];
	int rc;

	if (argc > 1 && (!strcmp(argv[1], "compare") || !strcmp(argv[1], "import")))
		return (!strcmp(argv[1], "compare") ? cmd_compare : cmd_import)(argc - 1, argv + 1);
	cli_defaults(&c);
	cli_parse(&c, argc, argv);
	if (c.help || c.version) {
		if (c.help)
			usage(stdout);
		else
			printf("lockbench %s\n", LOCKBENCH_VERSION);
		cli_free(&c);
		return 0;
	}
	sysfs_set_root(getenv("LOCKBENCH_SYSROOT"));
	machine_set_state_path(getenv("LOCKBENCH_STATE"));
	if (plugins_load(c.plugins, c.nplugins, err, sizeof(err)))
		die_usage("%s", err);
	if (c.argc && (!strcmp(c.argv[0], "run") || !strcmp(c.argv[0], "list") ||
		       !strcmp(c.argv[0], "topo") || !strcmp(c.argv[0], "system"))) {
		cmd = c.argv[0];
		c.argc--;
		c.argv++;
	}
	if (!strcmp(cmd, "list"))
		rc = cmd_list(c.argc ? c.argv[0] : NULL, c.argc > 1 ? c.argv[1] : NULL,
			      c.verbose, c.include_broken);
	else if (!strcmp(cmd, "topo"))
		rc = cmd_topo(&c);
	else if (!strcmp(cmd, "system"))
		rc = cmd_system(&c);
	else
		rc = cmd_run(&c);
	cli_free(&c);
	return rc;
}
