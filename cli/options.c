/* SPDX-License-Identifier: MIT */
/*
 * The option table of `lockbench [run]`.  One row per option: its
 * default is written here once, as the string a user would type, and
 * parsed by the same parser (opt.c).  Help, getopt's tables, range
 * checks, the completion file (`lockbench help --completion`) and the
 * man-page test all come from these rows.
 */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "options.h"

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

static const char *const orders[] = {"interleaved", "sequential", NULL};
static const char *const ncs_dists[] = {"exp", "fixed", NULL};

static const struct opt rows[] = {
	{"locks", 'l', OPT_STR, "LIST", DEFAULT_LOCKS, NULL, 0, 0, F(locks), G(locks_given), NULL, NULL,
	 "locks to compare, in column order (see `list locks`)", "What"},
	{"workload", 'w', OPT_STR, "NAME", "cs", NULL, 0, 0, F(workload), 0, NULL, NULL,
	 "what each thread does (see `list workloads`)", NULL},
	{"baseline", 0, OPT_STR, "LOCK", NULL, "first lock", 0, 0, F(baseline), 0, NULL, NULL,
	 "variant the rel% column is computed against", NULL},
	{"include-broken", 0, OPT_FLAG, NULL, NULL, NULL, 0, 0, F(include_broken), 0, NULL, NULL,
	 "allow deliberately broken locks (busted)", NULL},
	{"lock-opt", 0, OPT_MULTI, "LOCK.KEY=V", NULL, NULL, 0, 0, F(lock_opts), 0, NULL, NULL,
	 "set a lock tunable (repeatable; see `list locks -v`)", NULL},
	{"plugin", 0, OPT_MULTI, "[TAG=]FILE", NULL, NULL, 0, 0, F(plugins), 0, NULL, NULL,
	 "add the locks of a shared object (repeatable; TAG renames each to NAME_TAG)", NULL},
	{"threads", 't', OPT_STR, "LIST", NULL, "1,2,4,..,max", 0, 0, F(threads), 0, NULL, NULL,
	 "thread counts: 1,2,4  1-8  0-64:8  max (all usable CPUs)", "How many"},
	{"warmup", 0, OPT_SECONDS, "S", "0.5", NULL, 0, 3600, F(warmup), 0, NULL, NULL,
	 "seconds of warm-up before each window", "How long"},
	{"duration", 'd', OPT_SECONDS, "S", "1", NULL, 0.01, 86400, F(duration), 0, NULL, NULL,
	 "seconds of the measured window", NULL},
	{"runs", 'r', OPT_CALL, "N", "3", NULL, 1, 10000, F(runs), 0, NULL, set_runs,
	 "runs per (lock, thread count) point, or auto (until --ci-target)", NULL},
	{"ci-target", 0, OPT_PERCENT, "PCT", "1%", NULL, 0, 100, F(ci_target), G(ci_target_given), NULL, NULL,
	 "-r auto: stop when every 95% CI half-width is within PCT of its mean", NULL},
	{"max-runs", 0, OPT_UINT, "N", "30", NULL, 2, 10000, F(max_runs), G(max_runs_given), NULL, NULL,
	 "-r auto: at most N runs per point", NULL},
	{"time-budget", 0, OPT_SECONDS, "S", NULL, "none", 0.01, 1e7, F(time_budget), G(time_budget_given), NULL, NULL,
	 "-r auto: stop adding rounds before the sweep takes longer", NULL},
	{"stat-interval", 0, OPT_SECONDS, "S", "1", NULL, 0.01, 86400, F(interval), 0, NULL, NULL,
	 "time-series interval inside the window", NULL},
	{"watchdog", 0, OPT_SECONDS, "S", "10", NULL, 0.1, 86400, F(watchdog), 0, NULL, NULL,
	 "end a run whose threads make no progress this long", NULL},
	{"order", 0, OPT_ENUM, "ORDER", "interleaved", NULL, 0, 0, F(order), 0, orders, NULL,
	 "interleaved (run k of every lock, shuffled) or sequential", NULL},
	{"seed", 0, OPT_STR, "N", NULL, "time", 0, 0, F(seed), 0, NULL, NULL,
	 "seed of the interleaving shuffle (recorded in JSON)", NULL},
	{"cs-ns", 0, OPT_NS, "NS", "0", NULL, 0, 1e9, F(cs_ns), 0, NULL, NULL,
	 "busy time inside the critical section", "Critical and parallel sections"},
	{"ncs-ns", 0, OPT_NS, "NS", "100", NULL, 0, 1e9, F(ncs_ns), 0, NULL, NULL,
	 "mean busy time between releases and acquisitions", NULL},
	{"ncs-dist", 0, OPT_ENUM, "DIST", "exp", NULL, 0, 0, F(ncs_dist), 0, ncs_dists, NULL,
	 "parallel-section length: exp (exponential) or fixed", NULL},
	{"cs-lines", 0, OPT_UINT, "N", "1", NULL, 0, 4096, F(cs_lines), 0, NULL, NULL,
	 "shared cache lines written inside the critical section", NULL},
	{"cs-write-pct", 0, OPT_UINT, "P", "100", NULL, 0, 100, F(cs_write_pct), 0, NULL, NULL,
	 "share of the --cs-lines written (the rest only read)", NULL},
	{"readers", 0, OPT_UINT, "N", NULL, NULL, 0, MAX_THREADS, F(readers), G(readers_given), NULL, NULL,
	 "rw: N threads read (the rest write, or --writers)", "Workloads (list workloads -v)"},
	{"writers", 0, OPT_UINT, "N", NULL, NULL, 0, MAX_THREADS, F(writers), G(writers_given), NULL, NULL,
	 "rw: N threads write (threads 0..N-1)", NULL},
	{"read-pct", 0, OPT_UINT, "P", "90", NULL, 0, 100, F(read_pct), G(read_pct_given), NULL, NULL,
	 "rw, layout: share of operations that read (per operation)", NULL},
	{"long-hold", 0, OPT_MS, "MS", "0", NULL, 0, 10000, F(long_hold), G(long_hold_given), NULL, NULL,
	 "torture: the rare long hold in ms (0: off)", NULL},
	{"stutter", 0, OPT_SECONDS, "S", "0", NULL, 0, 3600, F(stutter), G(stutter_given), NULL, NULL,
	 "torture: pause all threads every S s for S s (0: off)", NULL},
	{"layouts", 0, OPT_STR, "LIST", "packed,aligned,per_node", NULL, 0, 0, F(layouts), G(layouts_given), NULL, NULL,
	 "layout: the variants (columns)", NULL},
	{"lat-sample", 0, OPT_UINT, "N", "64", NULL, 0, 1e9, F(lat_sample), 0, NULL, NULL,
	 "time 1 acquisition in N (JSON latency; 0: off)", NULL},
	{"placement", 'p', OPT_STR, "POLICY", "cores", NULL, 0, 0, F(placement), 0, NULL, NULL,
	 "cores, smt, spread, node:N[,M], cpus:LIST, none", "Where"},
	{"isolated", 0, OPT_FLAG, NULL, NULL, NULL, 0, 0, F(isolated), 0, NULL, NULL,
	 "also use isolated CPUs (isolcpus)", NULL},
	{"mem-node", 0, OPT_STR, "N", NULL, "first thread's", 0, 0, F(mem_node), 0, NULL, NULL,
	 "NUMA node of the lock and CS data: N, local or interleave", NULL},
	{"topology", 0, OPT_STR, "SPEC", NULL, "this machine", 0, 0, F(topology), 0, NULL, NULL,
	 "hwloc synthetic string or XML file (with --dry-run)", NULL},
	{"fake-nodes", 0, OPT_UINT, "N", "0", NULL, 0, 1024, F(fake_nodes), 0, NULL, NULL,
	 "pretend thread t is on node t%N (tests NUMA-aware paths)", NULL},
	{"freq", 0, OPT_CALL, "F", "auto", NULL, 0, 0, 0, 0, NULL, set_freq,
	 "auto (freeze where permitted), off, or e.g. 1500MHz (else exit 3)", "Machine"},
	{"numa-balancing", 0, OPT_CALL, "M", "auto", NULL, 0, 0, 0, 0, NULL, set_numa_balancing,
	 "auto (off where permitted), off (else exit 3), keep", NULL},
	{"no-tune", 0, OPT_CALL, NULL, NULL, NULL, 0, 0, 0, 0, NULL, set_no_tune,
	 "touch nothing: same as --freq off --numa-balancing keep", NULL},
	{"probe-factor", 0, OPT_FACTOR, "X", "1.5", NULL, 1, 1000, F(probe_factor), 0, NULL, NULL,
	 "flag a run whose core-to-core probe moved by more than X", "Noise"},
	{"no-probe", 0, OPT_FLAG, NULL, NULL, NULL, 0, 0, F(no_probe), 0, NULL, NULL,
	 "no core-to-core probe before and after each run", NULL},
	{"exclude-flagged", 0, OPT_FLAG, NULL, NULL, NULL, 0, 0, F(exclude_flagged), 0, NULL, NULL,
	 "statistics without flagged runs (kept in JSON, marked)", NULL},
	{"c2c", 0, OPT_FLAG, NULL, NULL, NULL, 0, 0, F(c2c), 0, NULL, NULL,
	 "topo: print the core-to-core latency matrix", NULL},
	{"format", 'f', OPT_STR, "LIST", "table", NULL, 0, 0, F(formats), 0, NULL, NULL,
	 "output formats, e.g. table,json (see `list formats`)", "Output"},
	{"output", 'o', OPT_STR, "FILE", NULL, "stdout", 0, 0, F(output), 0, NULL, NULL,
	 "write JSON (or the only format) here; others go to stdout", NULL},
	{"label", 0, OPT_STR, "TEXT", NULL, NULL, 0, 0, F(label), 0, NULL, NULL,
	 "name of this run (e.g. the kernel), used by compare", NULL},
	{"unit", 0, OPT_STR, "UNIT", "kops/s", NULL, 0, 0, F(unit), 0, NULL, NULL,
	 "ops/s, kops/s, Mops/s or jpm in text formats", NULL},
	{"row-name", 0, OPT_STR, "NAME", "threads", NULL, 0, 0, F(row_name), 0, NULL, NULL,
	 "heading of the row dimension (e.g. nwriters_stress)", NULL},
	{"no-marks", 0, OPT_FLAG, NULL, NULL, NULL, 0, 0, F(no_marks), 0, NULL, NULL,
	 "print tables without ? ~ * marks and notes", NULL},
	{"dry-run", 0, OPT_FLAG, NULL, NULL, NULL, 0, 0, F(dry_run), 0, NULL, NULL,
	 "print the plan (points, placement, duration) and exit", NULL},
	{"resume", 0, OPT_STR, "FILE", NULL, NULL, 0, 0, F(resume), 0, NULL, NULL,
	 "continue the interrupted sweep saved in FILE (same options)", NULL},
	{"quiet", 'q', OPT_FLAG, NULL, NULL, NULL, 0, 0, F(quiet), 0, NULL, NULL,
	 "no progress on stderr", NULL},
	{"verbose", 'v', OPT_FLAG, NULL, NULL, NULL, 0, 0, F(verbose), 0, NULL, NULL,
	 "more detail (list locks -v)", NULL},
	{"help", 'h', OPT_FLAG, NULL, NULL, NULL, 0, 0, F(help), 0, NULL, NULL,
	 "this help", NULL},
	{"version", 'V', OPT_FLAG, NULL, NULL, NULL, 0, 0, F(version), 0, NULL, NULL,
	 "print the version", NULL},
};

const struct opt_cmd run_options = {"", rows, sizeof(rows) / sizeof(rows[0])};

void cli_parse(struct cli *c, int argc, char **argv)
{
	memset(c, 0, sizeof(*c));
	opt_defaults(&run_options, c);
	c->argv_base = opt_parse(&run_options, c, argc, argv, &c->argc);
	c->argv = c->argv_base;
}

void cli_free(struct cli *c)
{
	free(c->argv_base);
	free(c->lock_opts.v);
	free(c->plugins.v);
}

void cli_usage(FILE *f)
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
	opt_help(&run_options, f);
	fprintf(f,
		"\nDurations take a unit: -d 500ms, --warmup 1s, --cs-ns 1us, --long-hold 2s\n"
		"(a plain number counts in the unit shown: S seconds, NS ns, MS ms).\n"
		"'lockbench help COMMAND' shows the options of another command.\n"
		"\nExit status: 0 success; 1 a lock failed its mutual-exclusion check,\n"
		"hung, or the sweep was interrupted; 2 bad usage or input; 3 a\n"
		"requested machine setting (--freq F, --numa-balancing off) could not\n"
		"be applied.  LOCKBENCH_SYSROOT moves every /sys and /proc path (tests);\n"
		"LOCKBENCH_STATE names the machine state file.\n"
		"See lockbench(1).\n");
}
