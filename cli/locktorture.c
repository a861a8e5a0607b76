// SPDX-License-Identifier: MIT
/*
 * `lockbench locktorture [options]`: the kernel's own locktorture, run
 * the way lockbench runs its userspace sweeps (placed, cpufreq and NUMA
 * balancing frozen where permitted, repeated runs) and reported as the
 * same results as `lockbench import locktorture`.
 *
 * Order: options (exit 2), can locktorture run here (exit 3, one line,
 * reading files only), placement, signals, machine tuning (restored at
 * exit and on SIGINT/SIGTERM/SIGHUP as for a userspace run), the sweep
 * (kernel/locktorture/ltrun.h), output, exit status.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel/locktorture/kmod.h"
#include "../kernel/locktorture/ltrun.h"
#include "../kernel/locktorture/import.h"
#include "../topology/cpulist.h"
#include "../topology/machine.h"
#include "../topology/sysfs.h"
#include "cmds.h"
#include "err.h"
#include "machctl.h"
#include "opt.h"
#include "outfile.h"

#define MAX_KTHREADS 4096
/* What a torture_type name is made of (it goes into a module parameter). */
#define TYPE_CHARS "abcdefghijklmnopqrstuvwxyz_0123456789"

struct lt_args {
	struct output_args out;
	const char *threads, *type, *placement, *freq, *nb, *label;
	unsigned long long nreaders, runs, stat_interval, long_hold;
	double warmup, duration;
	bool isolated, no_tune, check, dry, quiet;
};

#define A(field) offsetof(struct lt_args, field)

static const char *const nb_choices[] = {"auto", "off", "keep", NULL};

static const struct opt lt_rows[] = {
	{.name = "threads", .sname = 't', .type = OPT_STR, .arg = "LIST",
	 .shown = "1,2,4,..,max", .off = A(threads),
	 .help = "nwriters_stress values: 1,2,4  1-8  max (all usable CPUs)",
	 .group = "What"},
	{.name = "torture-type", .type = OPT_STR, .arg = "T", .def = "spin_lock",
	 .off = A(type), .help = "spin_lock, mutex_lock, rtmutex_lock, rwsem_lock, ... "
	 "(`modinfo locktorture`)"},
	{.name = "nreaders", .type = OPT_UINT, .arg = "N", .def = "0",
	 .max = MAX_KTHREADS, .off = A(nreaders),
	 .help = "nreaders_stress (reader-writer types)"},
	{.name = "runs", .sname = 'r', .type = OPT_UINT, .arg = "N", .def = "3",
	 .min = 1, .max = 1000, .off = A(runs), .help = "module loads per writer count",
	 .group = "How long"},
	{.name = "warmup", .type = OPT_SECONDS, .arg = "S", .def = "5", .max = 86400,
	 .off = A(warmup), .help = "seconds of reports dropped after the first"},
	{.name = "duration", .sname = 'd', .type = OPT_SECONDS, .arg = "S", .def = "10",
	 .min = 0.001, .max = 86400, .off = A(duration),
	 .help = "seconds of reports measured"},
	{.name = "stat-interval", .type = OPT_UINT, .arg = "S", .def = "1",
	 .min = 1, .max = 3600, .off = A(stat_interval),
	 .help = "stat_interval: seconds between reports (whole)"},
	{.name = "long-hold", .type = OPT_UINT, .arg = "MS", .def = "0", .max = 100000,
	 .off = A(long_hold), .help = "long_hold (locktorture's own default 100; off "
	 "in the published runs)"},
	{.name = "placement", .sname = 'p', .type = OPT_STR, .arg = "POLICY",
	 .def = "cores", .off = A(placement),
	 .help = "cores, smt, spread, node:N[,M], cpus:LIST, none", .group = "Where"},
	{.name = "isolated", .type = OPT_FLAG, .off = A(isolated),
	 .help = "also use isolated CPUs (isolcpus)"},
	{.name = "freq", .type = OPT_STR, .arg = "F", .def = "auto", .off = A(freq),
	 .help = "auto (freeze where permitted), off, or e.g. 1500MHz (else exit 3)",
	 .group = "Machine"},
	{.name = "numa-balancing", .type = OPT_ENUM, .arg = "M", .def = "auto",
	 .choices = nb_choices, .off = A(nb),
	 .help = "auto (off where permitted), off (else exit 3), keep"},
	{.name = "no-tune", .type = OPT_FLAG, .off = A(no_tune),
	 .help = "touch nothing: same as --freq off --numa-balancing keep"},
	{.name = "label", .type = OPT_STR, .arg = "TEXT", .off = A(label),
	 .help = "name of this run (e.g. the kernel), used by compare", .group = "Output"},
	{.name = "check", .type = OPT_FLAG, .off = A(check),
	 .help = "only say whether locktorture can run here (exit 0 or 3)"},
	{.name = "dry-run", .type = OPT_FLAG, .off = A(dry),
	 .help = "print the plan and its length, and exit"},
	{.name = "quiet", .sname = 'q', .type = OPT_FLAG, .off = A(quiet),
	 .help = "no progress on stderr"},
	OUTPUT_ROWS(struct lt_args, out, "table"),
};

const struct opt_cmd locktorture_options = OPT_CMD("locktorture", lt_rows);

void locktorture_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench locktorture [options]\n"
		"Run the kernel's locktorture module (root, CONFIG_LOCK_TORTURE_TEST=m) once\n"
		"per writer count of -t and per run, its kthreads pinned by -p, reported\n"
		"as `import locktorture` reports logs (rows nwriters_stress).  Exit status:\n"
		"0; 1 locktorture reported failures, or interrupted; 2 bad usage; 3\n"
		"locktorture cannot run here, or --freq/--numa-balancing could not be met.\n"
		"LOCKBENCH_MODPROBE names the program that loads and removes the module.\n");
	opt_help(&locktorture_options, f);
}

/* The machine request of --freq / --numa-balancing / --no-tune. */
static void machine_req(const struct lt_args *a, struct machine_req *req)
{
	memset(req, 0, sizeof(*req));
	if (machine_parse_freq(a->no_tune ? "off" : a->freq, req))
		cli_die("--freq (%s): valid: auto, off, or a frequency such as 1500MHz, "
			"1.5GHz, 1500000kHz", a->freq);
	req->numa_balancing = a->no_tune || !strcmp(a->nb, "keep") ? NB_KEEP :
			      !strcmp(a->nb, "off") ? NB_OFF : NB_AUTO;
}

/* The distinct CPUs of the largest load's placement (none for -p none). */
static int *used_cpus(const struct topo *t, const struct placement_policy *p,
		      unsigned nthreads, unsigned *n)
{
	struct thread_place *pl = cli_calloc(nthreads, sizeof(*pl));
	int *cpus = cli_calloc(nthreads + 1, sizeof(*cpus));
	char err[256];

	if (p->kind == PL_NONE || placement_assign(t, p, nthreads, pl, err, sizeof(err)))
		nthreads = 0;
	*n = placement_distinct_cpus(t, pl, nthreads, cpus);
	free(pl);
	return cpus;
}

/* -t: the writer counts (default 1, 2, 4, ... and every usable CPU). */
static unsigned *writer_counts(const char *list, unsigned usable, unsigned *n)
{
	unsigned *w = NULL;
	char err[256];

	if (!list) {
		w = cli_calloc(64, sizeof(*w));
		*n = 0;
		for (unsigned v = 1; v < usable && *n < 62; v *= 2)
			w[(*n)++] = v;
		w[(*n)++] = usable;
		return w;
	}
	if (numlist_parse(list, usable, MAX_KTHREADS, &w, n, err, sizeof(err)))
		cli_die("--threads (%s): %s; use e.g. 1,2,4  1-8  max", list, err);
	for (unsigned i = 0; i < *n; i++)
		if (!w[i])
			cli_die("--threads (%s): nwriters_stress must be at least 1", list);
	return w;
}

static void print_plan(const struct lt_opts *o)
{
	printf("locktorture %s: nwriters_stress", o->type);
	for (unsigned i = 0; i < o->nwriters; i++)
		printf("%s%u", i ? "," : " ", o->writers[i]);
	printf(", nreaders_stress %u, %u run(s), stat_interval %u s, long_hold %u ms, "
	       "placement %s\n%u module loads of %.1f s: about %.0f s\n", o->nreaders,
	       o->runs, o->stat_interval, o->long_hold, o->place->text,
	       o->nwriters * o->runs, lt_load_seconds(o),
	       o->nwriters * o->runs * lt_load_seconds(o));
}

/* Measure, then render; the exit status. */
static int sweep(const struct lt_args *a, struct lt_opts *o, unsigned usable,
		 struct outputs *out)
{
	struct machine_req req;
	struct results r;
	unsigned maxw = 0, ncpu;
	char err[1024];
	json_t *changes;
	int *cpus, rc;

	/* An unwritable -o fails now, not after the sweep; a write that
	 * fails at the end still saves the runs (outputs_rescue). */
	out->measured = true;
	outputs_open(out);
	machine_req(a, &req);
	for (unsigned i = 0; i < o->nwriters; i++)
		maxw = o->writers[i] > maxw ? o->writers[i] : maxw;
	install_signals();
	cpus = used_cpus(o->topo, o->place, maxw + o->nreaders, &ncpu);
	changes = machine_setup(&req, cpus, ncpu, a->quiet);
	rc = lt_sweep(o, &r, err, sizeof(err));
	if (rc < 0 || !r.nvariants) {
		machine_restore();
		cli_warn("locktorture: %s", rc < 0 ? err : "interrupted before any run completed");
		json_decref(changes);
		free(cpus);
		return rc == -EIO ? 3 : 1;
	}
	r.ncpus = usable;
	r.machine = machine_describe(cpus, ncpu);
	json_object_set_new(r.config, "machine_changes", changes);
	free(cpus);
	results_finalize(&r);
	machine_restore();
	outputs_check(out, &r);
	rc = outputs_write(out, &r);
	if (rc)
		outputs_rescue(out, &r);
	if (!rc)
		rc = import_status(&r, stderr);
	if (!rc && r.incomplete) {
		cli_warn("locktorture: interrupted; the runs completed so far are kept");
		rc = 1;
	}
	results_free(&r);
	return interrupt_status(rc);
}

/* The type goes into a module parameter: a name, nothing else. */
static void check_type(const char *type)
{
	if (!*type || strlen(type) > 60 || strspn(type, TYPE_CHARS) != strlen(type))
		cli_die("--torture-type (%s): not a locktorture type name (e.g. spin_lock, "
			"mutex_lock, rtmutex_lock, rwsem_lock; `modinfo locktorture`)", type);
}

/* The options into a; 1 when --help was asked (and printed). */
static int parse_args(struct lt_args *a, int argc, char **argv)
{
	char **w;
	int n;

	opt_defaults(&locktorture_options, a);
	w = opt_parse(&locktorture_options, a, argc, argv, &n);
	a->warmup *= cli_time_scale();
	a->duration *= cli_time_scale();
	if (a->out.help) {
		locktorture_usage(stdout);
		free(w);
		return 1;
	}
	if (n)
		cli_die("locktorture: unexpected argument (%s); try 'lockbench help "
			"locktorture'", w[0]);
	free(w);
	check_type(a->type);
	return 0;
}

int cmd_locktorture(int argc, char **argv)
{
	struct placement_policy place;
	struct lt_args a = {0};
	struct lt_opts o;
	struct outputs out;
	struct topo t;
	unsigned *writers, nw, *order = NULL, usable = 0;
	char err[1024], msg[512];
	int rc;

	if (parse_args(&a, argc, argv))
		return 0;	/* --help */
	/* Bad -f/-o is bad usage (exit 2) on any machine. */
	outputs_from_args(&out, &a.out);
	sysfs_set_root(getenv("LOCKBENCH_SYSROOT"));
	machine_set_state_path(getenv("LOCKBENCH_STATE"));
	if (placement_parse(a.placement, &place, err, sizeof(err)))
		cli_die_msg(err);
	place.use_isolated = a.isolated;
	if ((a.check || !a.dry) && kmod_check("locktorture", msg, sizeof(msg))) {
		cli_warn("locktorture cannot run here: %s", msg);
		exit(3);
	}
	if (a.check) {
		printf("locktorture can run here (loaded with %s)\n", kmod_program());
		return 0;
	}
	cli_utf8_or_die("--label", a.label);
	if (topo_load(&t, NULL, isolated_cpus(), err, sizeof(err)))
		cli_die_msg(err);
	if (placement_order(&t, &place, &order, &usable, err, sizeof(err)))
		cli_die_msg(err);
	free(order);
	writers = writer_counts(a.threads, usable, &nw);
	o = (struct lt_opts){
		.type = a.type, .writers = writers, .nwriters = nw,
		.nreaders = (unsigned)a.nreaders, .runs = (unsigned)a.runs,
		.stat_interval = (unsigned)a.stat_interval, .warmup = a.warmup,
		.duration = a.duration, .long_hold = (unsigned)a.long_hold,
		.label = a.label, .topo = &t, .place = &place,
		.progress = a.quiet ? NULL : stderr, .warn = a.quiet ? NULL : stderr,
		.stop = &interrupted,
	};
	if (a.dry) {
		print_plan(&o);
		rc = 0;
	} else {
		rc = sweep(&a, &o, usable, &out);
	}
	placement_policy_free(&place);
	topo_free(&t);
	free(writers);
	return rc;
}
