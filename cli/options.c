/* SPDX-License-Identifier: MIT */
/*
 * The option table of `lockbench [run]`.  One row per option: its
 * default is written here once, as the string a user would type, and
 * parsed by the same parser (opt.c).  Help, getopt's tables, range
 * checks and the completion file (`lockbench help completion`) come from
 * these rows; tests/test_cli.c checks the JSON config echo against them.
 * The workloads' own options are declared in their files and become
 * rows here when the table is first asked for (run_options()).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/workload.h"
#include "err.h"
#include "options.h"

/* A thread id + 1 fits below the count in the counter word. */
_Static_assert(MAX_THREADS < (1u << WL_SEQ_SHIFT), "thread ids overflow the counter word");
_Static_assert(MAX_THREADS == WL_MAX_THREADS, "-t and the workloads agree on the most threads");

#define F(field) offsetof(struct cli, field)
#define G(field) OPT_GIVEN(struct cli, field)

static void set_runs(void *dst, const char *a)
{
	struct cli *c = dst;
	static const struct opt runs = {.name = "runs", .min = 1, .max = 10000,
					.type = OPT_UINT, .off = F(runs)};

	c->runs_auto = !strcmp(a, "auto");
	if (!c->runs_auto)
		opt_set(&runs, c, a);
}

static void set_freq(void *dst, const char *a)
{
	struct cli *c = dst;

	if (machine_parse_freq(a, &c->machine))
		cli_die("--freq (%s): valid: auto, off, or a frequency such as "
			"1500MHz, 1.5GHz, 1500000kHz", a);
}

static void set_numa_balancing(void *dst, const char *a)
{
	struct cli *c = dst;

	if (!strcmp(a, "auto"))
		c->machine.numa_balancing = NB_AUTO;
	else if (!strcmp(a, "off"))
		c->machine.numa_balancing = NB_OFF;
	else if (!strcmp(a, "keep"))
		c->machine.numa_balancing = NB_KEEP;
	else
		cli_die("--numa-balancing (%s): valid: auto, off, keep", a);
}

static void set_no_tune(void *dst, const char *a)
{
	(void)a;
	set_freq(dst, "off");
	set_numa_balancing(dst, "keep");
}

static const char *const tune_options[] = {"freq", "numa-balancing", NULL};
static const char *const orders[] = {"interleaved", "sequential", NULL};
static const char *const ncs_dists[] = {"exp", "fixed", NULL};

static const struct opt rows[] = {
	{.name = "locks", .sname = 'l', .type = OPT_STR, .arg = "LIST",
	 .def = DEFAULT_LOCKS, .off = F(locks), .given = G(locks_given),
	 .group = "What",
	 .help = "locks to compare, in column order (see `list locks`)"},
	{.name = "workload", .sname = 'w', .type = OPT_STR, .arg = "NAME",
	 .def = "cs", .off = F(workload),
	 .help = "what each thread does (see `list workloads`)"},
	{.name = "baseline", .type = OPT_STR, .arg = "LOCK",
	 .shown = "first lock", .off = F(baseline),
	 .help = "variant the rel% column is computed against"},
	{.name = "include-broken", .type = OPT_FLAG,
	 .off = F(include_broken),
	 .help = "allow deliberately broken locks (busted)"},
	{.name = "lock-opt", .type = OPT_MULTI, .arg = "LOCK.KEY=V",
	 .off = F(lock_opts),
	 .help = "set a lock tunable (repeatable; see `list locks -v`)"},
	{.name = "plugin", .type = OPT_MULTI, .arg = "[TAG=]FILE",
	 .off = F(plugins),
	 .help = "add the locks of a shared object (repeatable; TAG renames each to NAME_TAG)"},
	{.name = "kernel-tree", .type = OPT_MULTI, .arg = "[TAG=]DIR",
	 .off = F(ktrees),
	 .help = "build a kernel tree's qspinlock, qrwlock, osq into NAME_TAG locks (repeatable)"},
	{.name = "lock-events", .type = OPT_FLAG, .off = F(lock_events),
	 .help = "count a kernel tree's own lock events (CONFIG_LOCK_EVENT_COUNTS; costs)"},
	{.name = "threads", .sname = 't', .type = OPT_STR, .arg = "LIST",
	 .shown = "1,2,4,..,max", .off = F(threads),
	 .group = "How many",
	 .help = "thread counts: 1,2,4  1-8  0-64:8  max (all usable CPUs); spinning locks: 16 per CPU at most"},
	{.name = "warmup", .type = OPT_SECONDS, .arg = "S",
	 .def = "0.25", .min = 0, .max = 3600, .off = F(warmup),
	 .group = "How long",
	 .help = "seconds of warm-up before each window"},
	{.name = "duration", .sname = 'd', .type = OPT_SECONDS, .arg = "S",
	 .def = "0.5", .min = 0.01, .max = 86400, .off = F(duration),
	 .given = G(duration_given),
	 .help = "seconds of the measured window"},
	{.name = "runs", .sname = 'r', .type = OPT_CALL, .arg = "N",
	 .def = "10", .min = 1, .max = 10000, .off = F(runs), .set = set_runs,
	 .help = "runs per (lock, thread count) point, or auto (until --ci-target)"},
	{.name = "ci-target", .type = OPT_PERCENT, .arg = "PCT",
	 .def = "1%", .min = 0, .max = 100, .off = F(ci_target), .given = G(ci_target_given),
	 .help = "-r auto: stop when every 95% CI half-width is within PCT of its mean"},
	{.name = "max-runs", .type = OPT_UINT, .arg = "N",
	 .def = "30", .min = 2, .max = 10000, .off = F(max_runs), .given = G(max_runs_given),
	 .help = "-r auto: at most N runs per point"},
	{.name = "min-runs", .type = OPT_UINT, .arg = "N",
	 .def = "3", .min = 2, .max = 10000, .off = F(min_runs), .given = G(min_runs_given),
	 .help = "-r auto: at least N runs per point"},
	{.name = "time-budget", .type = OPT_SECONDS, .arg = "S",
	 .shown = "none", .min = 0.01, .max = 1e7, .off = F(time_budget), .given = G(time_budget_given),
	 .help = "-r auto: stop adding rounds before the sweep takes longer"},
	{.name = "stat-interval", .type = OPT_SECONDS, .arg = "S",
	 .def = "1", .min = 0.01, .max = 86400, .off = F(interval),
	 .help = "time-series interval inside the window"},
	{.name = "watchdog", .type = OPT_SECONDS, .arg = "S",
	 .def = "10", .min = 0.1, .max = 86400, .off = F(watchdog),
	 .help = "end a run whose threads make no progress this long"},
	{.name = "order", .type = OPT_ENUM, .arg = "ORDER",
	 .def = "interleaved", .off = F(order), .choices = orders,
	 .help = "interleaved (run k of every lock, shuffled) or sequential"},
	{.name = "seed", .type = OPT_STR, .arg = "N",
	 .shown = "time", .off = F(seed),
	 .help = "seed of the interleaving shuffle (recorded in JSON)"},
	{.name = "cs-ns", .type = OPT_NS, .arg = "NS,..", .list = true,
	 .def = "0", .min = 0, .max = 1e9, .off = F(cs_ns),
	 .group = "Critical and parallel sections",
	 .help = "busy time inside the critical section"},
	{.name = "ncs-ns", .type = OPT_NS, .arg = "NS,..", .list = true,
	 .def = "100", .min = 0, .max = 1e9, .off = F(ncs_ns),
	 .help = "mean busy time between releases and acquisitions"},
	{.name = "ncs-dist", .type = OPT_ENUM, .arg = "DIST",
	 .def = "exp", .off = F(ncs_dist), .choices = ncs_dists,
	 .help = "parallel-section length: exp (exponential) or fixed"},
	{.name = "cs-lines", .type = OPT_UINT, .arg = "N,..", .list = true,
	 .def = "1", .min = 0, .max = 4096, .off = F(cs_lines),
	 .help = "shared cache lines written inside the critical section"},
	{.name = "cs-write-pct", .type = OPT_UINT, .arg = "P,..", .list = true,
	 .def = "100", .min = 0, .max = 100, .off = F(cs_write_pct),
	 .help = "share of the --cs-lines written (the rest only read)"},
	/* Here: the workloads' options (WL_ROWS), this section's first rows. */
	{.group = "Workloads (list workloads -v)"},
	{.name = "lat-sample", .type = OPT_UINT, .arg = "N",
	 .def = "256", .min = 0, .max = 1e9, .off = F(lat_sample),
	 .help = "time 1 acquisition in N (JSON latency; 0: off)"},
	{.name = "placement", .sname = 'p', .type = OPT_STR, .arg = "POLICY",
	 .def = "cores", .off = F(placement),
	 .group = "Where",
	 .help = "cores, smt, spread, node:N[,M], cpus:LIST, none"},
	{.name = "isolated", .type = OPT_FLAG,
	 .off = F(isolated),
	 .help = "also use isolated CPUs (isolcpus)"},
	{.name = "mem-node", .type = OPT_STR, .arg = "N",
	 .shown = "first thread's", .off = F(mem_node),
	 .help = "NUMA node of the lock and CS data: N, local or interleave"},
	{.name = "topology", .type = OPT_STR, .arg = "SPEC",
	 .shown = "this machine", .off = F(topology),
	 .help = "hwloc synthetic string or XML file (with --dry-run or --map-topology)"},
	{.name = "map-topology", .type = OPT_FLAG, .off = F(map_topology),
	 .help = "run here over --topology's placement: worker i on usable CPU i mod N"},
	{.name = "fake-nodes", .type = OPT_UINT, .arg = "N",
	 .def = "0", .min = 0, .max = 1024, .off = F(fake_nodes),
	 .help = "pretend thread t is on node t%N (tests NUMA-aware paths)"},
	{.name = "freq", .type = OPT_CALL, .arg = "F",
	 .def = "auto", .set = set_freq,
	 .group = "Machine",
	 .help = "auto (freeze where permitted), off, or e.g. 1500MHz (else exit 3)"},
	{.name = "numa-balancing", .type = OPT_CALL, .arg = "M",
	 .def = "auto", .set = set_numa_balancing,
	 .help = "auto (off where permitted), off (else exit 3), keep"},
	{.name = "no-tune", .type = OPT_CALL,
	 .set = set_no_tune, .conflicts = tune_options,
	 .help = "touch nothing: same as --freq off --numa-balancing keep"},
	{.name = "no-probe", .type = OPT_FLAG,
	 .off = F(no_probe),
	 .group = "Noise",
	 .help = "read no noise: no `!` and no run left out for it"},
	{.name = "min-effect", .type = OPT_PERCENT, .arg = "PCT",
	 .min = 0, .max = 1000, .off = F(min_effect),
	 .help = "a change below PCT is never marked significant (the A/A floor)"},
	{.name = "floor", .type = OPT_STR, .arg = "FILE|PCT",
	 .off = F(floor),
	 .help = "record the invocation floor (a `system check` JSON file, or PCT) "
		 "for compare"},
	{.name = "c2c", .type = OPT_FLAG,
	 .off = F(c2c),
	 .help = "topo: print the core-to-core latency matrix"},
	{.name = "counters", .type = OPT_STR, .arg = "LIST",
	 .def = "auto", .off = F(counters),
	 .group = "Counters",
	 .help = "perf events per operation, as `perf list` names them; auto or off"},
	{.name = "format", .sname = 'f', .type = OPT_STR, .arg = "LIST",
	 .def = "table", .off = F(formats), .given = G(formats_given),
	 .group = "Output",
	 .help = "output formats, e.g. table,json (see `list formats`)"},
	{.name = "output", .sname = 'o', .type = OPT_STR, .arg = "FILE",
	 .shown = "stdout", .off = F(output),
	 .help = "FILE (.json, .csv, .txt: the format without -f), FMT=FILE,..., or -"},
	{.name = "label", .type = OPT_STR, .arg = "TEXT",
	 .off = F(label),
	 .help = "name of this run (e.g. the kernel), used by compare"},
	{.name = "unit", .type = OPT_STR, .arg = "UNIT",
	 .def = "kops/s", .off = F(unit),
	 .help = "ops/s, kops/s, Mops/s, jpm; ns: per op of one thread (table, csv); "
		 "handovers/s, ns/handover: the lock passing between threads (table)"},
	{.name = "row-name", .type = OPT_STR, .arg = "NAME",
	 .def = "threads", .off = F(row_name), .given = G(row_name_given),
	 .help = "heading of the thread-count rows (e.g. nwriters_stress)"},
	{.name = "rows", .type = OPT_STR, .arg = "DIM",
	 .def = "threads", .off = F(rows),
	 .help = "rows of text tables: threads or a swept option (a table per rest)"},
	{.name = "no-marks", .type = OPT_FLAG,
	 .off = F(no_marks),
	 .help = "print tables without ? ~ # _ * marks and notes"},
	{.name = "header", .type = OPT_FLAG,
	 .off = F(header),
	 .help = "above text tables: kernel, CPU, lockbench, command; what was measured"},
	{.name = "width", .type = OPT_UINT, .arg = "COLS",
	 .def = "80", .min = 0, .max = 100000, .off = F(width),
	 .help = "split wider tables by columns, baseline repeated (0: never)"},
	{.name = "dry-run", .type = OPT_FLAG,
	 .off = F(dry_run),
	 .help = "print the plan (points, placement, duration) and exit"},
	{.name = "resume", .type = OPT_STR, .arg = "FILE",
	 .off = F(resume),
	 .help = "continue the interrupted sweep saved in FILE (same options)"},
	{.name = "quiet", .sname = 'q', .type = OPT_FLAG,
	 .off = F(quiet),
	 .help = "no progress on stderr"},
	{.name = "verbose", .sname = 'v', .type = OPT_FLAG,
	 .off = F(verbose),
	 .help = "every note under tables in full, a machine summary; list -v: more"},
	OPT_HELP_ROW(struct cli, help),
	{.name = "version", .sname = 'V', .type = OPT_FLAG, .off = F(version),
	 .help = "print the version"},
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* The built table: rows[] with the marker row replaced by the workloads'
 * options, wl_first.. wl_first + nwl - 1; decl[] the declaration of each
 * of those (in the first workload that declares it), who[] their names. */
static struct opt table[NROWS - 1 + MAX_WL_OPTIONS];
static const struct wl_option *decl[MAX_WL_OPTIONS];
static char who[MAX_WL_OPTIONS][128], help[MAX_WL_OPTIONS][256];
static unsigned wl_first, nwl;
static struct opt_cmd cmd;

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Two workloads' declarations of one option: everything but the owner alike. */
static bool same_option(const struct wl_option *a, const struct wl_option *b)
{
	return a->type == b->type && same_str(a->arg, b->arg) && same_str(a->def, b->def) &&
	       a->min == b->min && a->max == b->max && a->list == b->list &&
	       a->off == b->off && a->choices == b->choices &&
	       a->nchoices == b->nchoices && same_str(a->help, b->help);
}

/* The row of workload option w, its value in slot s of struct cli's wl[]. */
static struct opt wl_row(const struct wl_option *w, unsigned s)
{
	static const enum opt_type types[] = {
		[WL_OPT_UINT] = OPT_UINT, [WL_OPT_MS] = OPT_MS,
		[WL_OPT_SECONDS] = OPT_SECONDS, [WL_OPT_VARIANTS] = OPT_STR,
	};
	size_t at = F(wl) + s * sizeof(struct cli_wlval);

	return (struct opt){
		.name = w->name, .type = types[w->type], .arg = w->arg, .def = w->def,
		.min = w->min, .max = w->max, .list = w->list, .help = help[s],
		.off = at + (w->type == WL_OPT_SECONDS ? offsetof(struct cli_wlval, d) :
			     w->type == WL_OPT_VARIANTS ? offsetof(struct cli_wlval, s) :
							  offsetof(struct cli_wlval, u)),
		.given = at + offsetof(struct cli_wlval, given) + 1,
	};
}

/* Whether the front end has a row of this name itself. */
static bool own_row(const char *name)
{
	for (unsigned i = 0; i < NROWS; i++)
		if (rows[i].name && !strcmp(rows[i].name, name))
			return true;
	return false;
}

/* A declaration the table cannot take is a bug of its workload: one line. */
static void check_wl_option(const struct workload_ops *wl, const struct wl_option *w)
{
	const char *why = own_row(w->name) ? "is a run option already" :
			  nwl == MAX_WL_OPTIONS ? "is one too many (MAX_WL_OPTIONS)" :
			  (unsigned)w->type > WL_OPT_VARIANTS ? "has no valid .type" :
			  !w->arg || !w->help ? "lacks .arg or .help" :
			  w->type == WL_OPT_VARIANTS && !w->nchoices ? "has no .choices" :
			  NULL;

	if (why)
		cli_die("workload %s: option --%s %s", wl->name, w->name, why);
}

/* Workload wl's option w: a new row at table[*n], or a second owner. */
static void add_wl_option(const struct workload_ops *wl, const struct wl_option *w,
			  unsigned *n)
{
	unsigned s = 0;

	while (s < nwl && strcmp(decl[s]->name, w->name))
		s++;
	if (s < nwl && !same_option(decl[s], w))
		cli_die("workload %s declares --%s unlike workload %s", wl->name,
			w->name, who[s]);
	if (s == nwl) {
		check_wl_option(wl, w);
		decl[nwl++] = w;
		table[(*n)++] = wl_row(w, s);
	}
	if (snprintf(who[s] + strlen(who[s]), sizeof(who[s]) - strlen(who[s]), "%s%s",
		     *who[s] ? ", " : "", wl->name) >= (int)(sizeof(who[s]) - strlen(who[s])))
		cli_die("workload %s: option --%s has too many owners", wl->name, w->name);
}

/* The workloads' rows at table[*n], in registry order; the first takes
 * the marker's group heading. */
static void add_wl_rows(const struct opt *marker, unsigned *n)
{
	wl_first = *n;
	for (unsigned k = 0; workloads[k]; k++)
		for (const struct wl_option *w = workloads[k]->options; w && w->name; w++)
			add_wl_option(workloads[k], w, n);
	for (unsigned s = 0; s < nwl; s++)
		if (snprintf(help[s], sizeof(help[s]), "%s: %s", who[s], decl[s]->help) >=
		    (int)sizeof(help[s]))
			cli_die("workload option --%s: help too long", decl[s]->name);
	if (*n > wl_first)
		table[wl_first].group = marker->group;
}

const struct opt_cmd *run_options(void)
{
	const char *group = NULL;
	unsigned n = 0;

	if (cmd.opts)
		return &cmd;
	for (unsigned i = 0; i < NROWS; i++) {
		if (rows[i].name) {
			table[n] = rows[i];
			if (group && !table[n].group)
				table[n].group = group;
			group = NULL;
			n++;
			continue;
		}
		add_wl_rows(&rows[i], &n);
		if (n == wl_first)
			group = rows[i].group;
	}
	cmd = (struct opt_cmd){"", table, n, G(dims), G(said)};
	return &cmd;
}

const struct wl_option *cli_wl_option(const struct opt *o)
{
	uintptr_t first = (uintptr_t)(run_options()->opts + wl_first);

	if ((uintptr_t)o < first || (uintptr_t)o >= first + nwl * sizeof(*o))
		return NULL;
	return decl[((uintptr_t)o - first) / sizeof(*o)];
}

const struct cli_wlval *cli_wl_value(const struct cli *c, const char *name)
{
	run_options();
	for (unsigned s = 0; s < nwl; s++)
		if (!strcmp(decl[s]->name, name))
			return &c->wl[s];
	return NULL;
}

double cli_time_scale(void)
{
	const char *s = getenv("LOCKBENCH_TIME_SCALE");
	char *end;
	double f;

	if (!s || !*s)
		return 1;
	f = strtod(s, &end);
	if (*end || !(f > 0 && f <= 1))
		cli_die("LOCKBENCH_TIME_SCALE (%s): a factor above 0 and at most 1 that "
			"shortens every duration (for tests)", s);
	return f;
}

void cli_parse(struct cli *c, int argc, char **argv)
{
	double f;

	memset(c, 0, sizeof(*c));
	opt_defaults(run_options(), c);
	c->argv_base = opt_parse(run_options(), c, argc, argv, &c->argc);
	f = cli_time_scale();
	c->warmup *= f;
	/* not below -d's least (0.01 s) */
	c->duration = c->duration * f < 0.01 && f < 1 ? 0.01 : c->duration * f;
	c->argv = c->argv_base;
	c->full_argc = argc;
	c->full_argv = argv;
}

/* Whether name is one of the NULL-terminated list l. */
static bool listed(const char *const *l, const char *name)
{
	for (; l && *l; l++)
		if (!strcmp(*l, name))
			return true;
	return false;
}

void cli_only(const struct cli *c, const char *cmd, const char *const *takes)
{
	const struct opt_cmd *t = run_options();

	for (unsigned i = 0; c->said && i < t->n; i++) {
		const struct opt *o = &t->opts[i];
		char sname[8] = "";

		if (!c->said[i] || listed(takes, o->name) || !strcmp(o->name, "help") ||
		    !strcmp(o->name, "version") || !strcmp(o->name, "quiet"))
			continue;
		if (o->sname)
			snprintf(sname, sizeof(sname), "-%c/", o->sname);
		cli_die("%s: %s--%s is not an option of '%s' (it would be ignored); "
			"see 'lockbench help %.*s'", cmd, sname, o->name, cmd,
			(int)strcspn(cmd, " "), cmd);
	}
}

void cli_free(struct cli *c)
{
	free(c->argv_base);
	free(c->said);
	free(c->lock_opts.v);
	free(c->plugins.v);
	free(c->ktrees.v);
	opt_dims_free(&c->dims);
}

void cli_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench [run] [options]          run the sweep (default)\n"
		"       lockbench list [locks|workloads|formats|placements] [-v] [--plugin FILE]\n"
		"       lockbench build-kernel-lock DIR [--lock L] [-o FILE.so]\n"
		"       lockbench topo [--topology SPEC] [-p POLICY] [-t N] [--c2c] [-f json]\n"
		"       lockbench system [show|tune|reset] [-f json] [--freq F] [--numa-balancing M] [--dry-run]\n"
		"       lockbench system check [-f json] [-o FILE] [-d S]\n"
		"       lockbench compare [-f FORMAT] [--baseline LABEL] [-l LOCKS] A.json B.json ...\n"
		"       lockbench merge [-o OUT.json] A.json B.json ...\n"
		"       lockbench import locktorture [--label L] [-o OUT.json] dmesg.log ...\n"
		"       lockbench locktorture [-t LIST] [--torture-type T] [-r N] [-o OUT.json]\n"
		"       lockbench rerun FILE.json [options]\n"
		"       lockbench completion [bash]\n"
		"       lockbench help [COMMAND]\n"
		"\n"
		"With no option: a short sweep of " DEFAULT_LOCKS "\n"
		"over 1,2,4,..,all CPUs, printed as a locktorture-style table.\n");
	opt_help(run_options(), f);
	fprintf(f,
		"\nDurations take a unit: -d 500ms, --warmup 1s, --cs-ns 1us, --long-hold 2s\n"
		"(a plain number counts in the unit shown: S seconds, NS ns, MS ms).\n"
		"Options shown with a list (NS,..) and --lock-opt values sweep:\n"
		"--cs-ns 0,100,1us --cs-lines 1,4 runs every lock at each combination,\n"
		"one table per combination (--rows cs-ns puts cs-ns in the rows).\n"
		"'lockbench help COMMAND' shows the options of another command.\n"
		"\nExit status: 0 success; 1 a lock failed its mutual-exclusion check,\n"
		"hung, or the sweep was interrupted; 2 bad usage or input, a failed\n"
		"write (the results then saved to a rescue file, named), or a lock\n"
		"that could not be set up; 3 a requested machine setting (--freq F,\n"
		"--numa-balancing off) could not be applied; 128+N after a second\n"
		"signal N (130: two Ctrl-C), the completed points still written.\n"
		"LOCKBENCH_SYSROOT moves every /sys and /proc path (tests);\n"
		"LOCKBENCH_STATE names the machine state file; LOCKBENCH_MAX_INPUT\n"
		"sets the input size limits (64M results, 512M logs, 4M --floor files).\n"
		"See lockbench(1).\n");
}
