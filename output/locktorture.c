// SPDX-License-Identifier: MIT
/*
 * locktorture.c - `lockbench locktorture`: the kernel's own locktorture, run
 * the way lockbench runs its userspace sweeps (placed, cpufreq and NUMA
 * balancing frozen where permitted, repeated runs) and reported as the
 * same results as `lockbench import locktorture`.
 *
 * Order of a run: options (exit 2), can locktorture run here (exit 3,
 * one line, reading files only), placement, signals, machine tuning
 * (restored at exit and on SIGINT/SIGTERM/SIGHUP as for a userspace
 * run), the sweep (kernel/ltrun.h), output, exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "results/import.h"
#include "render/render.h"
#include "../topology/cpulist.h"
#include "../topology/machine.h"
#include "../topology/sysfs.h"
#include "../kernel/kmod.h"
#include "../kernel/ltrun.h"

#define MAX_KTHREADS 4096

static volatile sig_atomic_t lt_stop;

static void __attribute__((noreturn, format(printf, 2, 3))) die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("lockbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench locktorture [options]\n"
		"Run the kernel's locktorture module (needs root and CONFIG_LOCK_TORTURE_TEST=m)\n"
		"once per writer count of -t and per run, its kthreads pinned by -p, and\n"
		"report it as `import locktorture` does (rows nwriters_stress).\n"
		"  -t, --threads LIST       nwriters_stress values: 1,2,4  1-8  max [1,2,4,..,max]\n"
		"      --torture-type T     spin_lock, mutex_lock, rtmutex_lock, rwsem_lock, ...\n"
		"                           (`modinfo locktorture`) [spin_lock]\n"
		"      --nreaders N         nreaders_stress (reader-writer types) [0]\n"
		"  -r, --runs N             module loads per writer count [3]\n"
		"      --warmup S           seconds of reports dropped after the first [5]\n"
		"  -d, --duration S         seconds of reports measured [10]\n"
		"      --stat-interval S    stat_interval, whole seconds [1]\n"
		"      --long-hold MS       long_hold (locktorture's default 100; off as in\n"
		"                           the published rtmutex runs) [0]\n"
		"  -p, --placement POLICY   cores, smt, spread, node:N[,M], cpus:LIST, none [cores]\n"
		"      --isolated           also use isolated CPUs (isolcpus)\n"
		"      --freq F             auto, off, or e.g. 1500MHz (else exit 3) [auto]\n"
		"      --numa-balancing M   auto, off (else exit 3), keep [auto]\n"
		"      --no-tune            same as --freq off --numa-balancing keep\n"
		"  -f, --format LIST        table, box, lkp, speedup, csv, json [table]\n"
		"  -o, --output FILE        write the JSON (or the only format) here\n"
		"      --label TEXT         name of this run (e.g. the kernel) in compare\n"
		"      --unit UNIT          ops/s, kops/s, Mops/s or jpm [kops/s]\n"
		"      --no-marks           no ? ~ * ^ marks and notes\n"
		"      --check              only say whether locktorture can run here\n"
		"      --dry-run            print the plan and exit\n"
		"  -q, --quiet              no progress on stderr\n"
		"  -h, --help               this help\n"
		"Exit status: 0; 1 locktorture reported failures, or interrupted; 2 bad\n"
		"usage; 3 locktorture cannot run here (not root, no module, modules\n"
		"disabled, the module refused to load) or a --freq/--numa-balancing\n"
		"request could not be met.  LOCKBENCH_MODPROBE names the program that\n"
		"loads and removes the module [modprobe].\n");
}

enum {
	L_TYPE = 256, L_NREADERS, L_WARMUP, L_STAT, L_LONG_HOLD, L_FREQ, L_NB,
	L_NO_TUNE, L_LABEL, L_UNIT, L_NO_MARKS, L_CHECK, L_DRY, L_ISOLATED,
};

struct lt_cli {
	const char *threads, *type, *placement, *freq, *nb, *fmt, *out, *label, *unit;
	unsigned nreaders, runs, stat_interval, long_hold;
	double warmup, duration;
	bool marks, check, dry, quiet, isolated;
};

static double seconds(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		die(2, "--%s (%s): expected seconds from %g to %g", opt, s, min, max);
	return v;
}

static unsigned whole(const char *opt, const char *s, unsigned min, unsigned max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		die(2, "--%s (%s): expected a whole number from %u to %u", opt, s, min, max);
	return (unsigned)v;
}

static void parse(struct lt_cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{"threads", required_argument, NULL, 't'},
		{"torture-type", required_argument, NULL, L_TYPE},
		{"nreaders", required_argument, NULL, L_NREADERS},
		{"runs", required_argument, NULL, 'r'},
		{"warmup", required_argument, NULL, L_WARMUP},
		{"duration", required_argument, NULL, 'd'},
		{"stat-interval", required_argument, NULL, L_STAT},
		{"long-hold", required_argument, NULL, L_LONG_HOLD},
		{"placement", required_argument, NULL, 'p'},
		{"isolated", no_argument, NULL, L_ISOLATED},
		{"freq", required_argument, NULL, L_FREQ},
		{"numa-balancing", required_argument, NULL, L_NB},
		{"no-tune", no_argument, NULL, L_NO_TUNE},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"label", required_argument, NULL, L_LABEL},
		{"unit", required_argument, NULL, L_UNIT},
		{"no-marks", no_argument, NULL, L_NO_MARKS},
		{"check", no_argument, NULL, L_CHECK},
		{"dry-run", no_argument, NULL, L_DRY},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum unit u;
	int id;

	*c = (struct lt_cli){.type = "spin_lock", .placement = "cores", .freq = "auto",
			     .nb = "auto", .fmt = "table", .unit = "kops/s", .runs = 3,
			     .stat_interval = 1, .warmup = 5, .duration = 10, .marks = true};
	optind = 1;
	opterr = 0;
	while ((id = getopt_long(argc, argv, "t:r:d:p:f:o:qh", lo, NULL)) != -1) {
		switch (id) {
		case 't': c->threads = optarg; break;
		case L_TYPE: c->type = optarg; break;
		case L_NREADERS: c->nreaders = whole("nreaders", optarg, 0, MAX_KTHREADS); break;
		case 'r': c->runs = whole("runs", optarg, 1, 1000); break;
		case L_WARMUP: c->warmup = seconds("warmup", optarg, 0, 86400); break;
		case 'd': c->duration = seconds("duration", optarg, 0.001, 86400); break;
		case L_STAT: c->stat_interval = whole("stat-interval", optarg, 1, 3600); break;
		case L_LONG_HOLD: c->long_hold = whole("long-hold", optarg, 0, 100000); break;
		case 'p': c->placement = optarg; break;
		case L_ISOLATED: c->isolated = true; break;
		case L_FREQ: c->freq = optarg; break;
		case L_NB: c->nb = optarg; break;
		case L_NO_TUNE: c->freq = "off"; c->nb = "keep"; break;
		case 'f': c->fmt = optarg; break;
		case 'o': c->out = optarg; break;
		case L_LABEL: c->label = optarg; break;
		case L_UNIT: c->unit = optarg; break;
		case L_NO_MARKS: c->marks = false; break;
		case L_CHECK: c->check = true; break;
		case L_DRY: c->dry = true; break;
		case 'q': c->quiet = true; break;
		case 'h': usage(stdout); exit(0);
		default:
			die(2, "locktorture: %s: unknown option or missing argument; "
			    "try 'lockbench locktorture --help'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die(2, "locktorture: unexpected argument (%s); try 'lockbench locktorture --help'",
		    argv[optind]);
	/* The type goes into a module parameter: a name, nothing else. */
	if (!*c->type || strlen(c->type) > 40 ||
	    strspn(c->type, "abcdefghijklmnopqrstuvwxyz_0123456789") != strlen(c->type))
		die(2, "--torture-type (%s): not a locktorture type name (e.g. spin_lock, "
		    "mutex_lock, rtmutex_lock, rwsem_lock; `modinfo locktorture`)", c->type);
	if (unit_parse(c->unit, &u))
		die(2, "--unit (%s): valid: ops/s, kops/s, Mops/s, jpm", c->unit);
	for (char *dup = strdup(c->fmt), *save = NULL, *t = dup ? strtok_r(dup, ",", &save) : NULL;
	     dup; t = strtok_r(NULL, ",", &save)) {
		if (!t) {
			free(dup);
			break;
		}
		if (!format_find(t)) {
			free(dup);
			die(2, "unknown format (%s): valid: table, box, lkp, speedup, csv, json", t);
		}
	}
}

static void on_signal(int sig)
{
	if (lt_stop) {
		machine_restore_signal_safe();
		signal(sig, SIG_DFL);
		raise(sig);
	}
	lt_stop = sig;
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

/* The distinct CPUs of the largest load's placement. */
static int *used_cpus(const struct topo *t, const struct placement_policy *p,
		      unsigned nthreads, unsigned *n)
{
	struct thread_place *pl = calloc(nthreads ? nthreads : 1, sizeof(*pl));
	int *cpus = calloc(nthreads + 1, sizeof(*cpus));
	char err[256];
	unsigned k = 0;

	if (!pl || !cpus || p->kind == PL_NONE ||
	    placement_assign(t, p, nthreads, pl, err, sizeof(err)))
		nthreads = 0;
	for (unsigned i = 0; i < nthreads; i++) {
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
 * request cannot be met. */
static json_t *tune(const struct lt_cli *c, const int *cpus, unsigned n)
{
	struct machine_req req = {0};
	json_t *changes = NULL;
	char msg[512] = "";
	int rc;

	if (machine_parse_freq(c->freq, &req))
		die(2, "--freq (%s): valid: auto, off, or a frequency such as 1500MHz", c->freq);
	if (!strcmp(c->nb, "auto"))
		req.numa_balancing = NB_AUTO;
	else if (!strcmp(c->nb, "off"))
		req.numa_balancing = NB_OFF;
	else if (!strcmp(c->nb, "keep"))
		req.numa_balancing = NB_KEEP;
	else
		die(2, "--numa-balancing (%s): valid: auto, off, keep", c->nb);
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

static const char *isolated(void)
{
	static char buf[4096];

	return sysfs_read_str("/sys/devices/system/cpu/isolated", buf, sizeof(buf)) ? NULL
										   : buf;
}

int cmd_locktorture(int argc, char **argv)
{
	struct placement_policy place;
	struct lt_cli c;
	struct lt_opts o;
	struct results r;
	struct topo t;
	unsigned *writers = NULL, nw = 0, *order = NULL, usable = 0, maxw = 0, ncpu;
	char err[1024], msg[512];
	json_t *changes;
	int *cpus, rc;

	parse(&c, argc, argv);
	sysfs_set_root(getenv("LOCKBENCH_SYSROOT"));
	machine_set_state_path(getenv("LOCKBENCH_STATE"));
	if (placement_parse(c.placement, &place, err, sizeof(err)))
		die(2, "%s", strncmp(err, "lockbench: ", 11) ? err : err + 11);
	if (c.check || !c.dry) {
		if (kmod_check("locktorture", msg, sizeof(msg)))
			die(3, "locktorture cannot run here: %s", msg);
	}
	if (c.check) {
		printf("locktorture can run here (loaded with %s)\n", kmod_program());
		return 0;
	}
	if (topo_load(&t, NULL, isolated(), err, sizeof(err)))
		die(2, "%s", err);
	place.use_isolated = c.isolated;
	if (placement_order(&t, &place, &order, &usable, err, sizeof(err)))
		die(2, "%s", strncmp(err, "lockbench: ", 11) ? err : err + 11);
	free(order);
	if (numlist_parse(c.threads ? c.threads : "max", usable, MAX_KTHREADS, &writers, &nw,
			  err, sizeof(err)))
		die(2, "--threads (%s): %s; use e.g. 1,2,4  1-8  max", c.threads, err);
	if (!c.threads) {
		/* 1, 2, 4, ... up to every usable CPU, as a userspace sweep. */
		nw = 0;
		for (unsigned v = 1; v < usable; v *= 2)
			writers[nw++] = v;
		writers[nw++] = usable;
	}
	for (unsigned i = 0; i < nw; i++) {
		if (!writers[i])
			die(2, "--threads (%s): nwriters_stress must be at least 1", c.threads);
		maxw = writers[i] > maxw ? writers[i] : maxw;
	}
	o = (struct lt_opts){
		.type = c.type, .writers = writers, .nwriters = nw, .nreaders = c.nreaders,
		.runs = c.runs, .stat_interval = c.stat_interval, .warmup = c.warmup,
		.duration = c.duration, .long_hold = c.long_hold, .label = c.label,
		.topo = &t, .place = &place, .progress = c.quiet ? NULL : stderr,
		.warn = stderr, .stop = &lt_stop,
	};
	if (c.dry) {
		printf("locktorture %s: nwriters_stress", c.type);
		for (unsigned i = 0; i < nw; i++)
			printf("%s%u", i ? "," : " ", writers[i]);
		printf(", nreaders_stress %u, %u run(s), stat_interval %u s, long_hold %u ms, "
		       "placement %s\n%u module loads of %.1f s: about %.0f s\n", c.nreaders,
		       c.runs, c.stat_interval, c.long_hold, place.text, nw * c.runs,
		       lt_load_seconds(&o), nw * c.runs * lt_load_seconds(&o));
		return 0;
	}
	install_signals();
	cpus = used_cpus(&t, &place, maxw + c.nreaders, &ncpu);
	changes = tune(&c, cpus, ncpu);
	rc = lt_sweep(&o, &r, err, sizeof(err));
	if (rc < 0 || !r.nvariants) {
		machine_restore();
		fprintf(stderr, "lockbench: locktorture: %s\n", rc < 0 ? err :
			"interrupted before any run completed");
		json_decref(changes);
		free(cpus);
		placement_policy_free(&place);
		topo_free(&t);
		free(writers);
		return rc == -EIO ? 3 : 1;
	}
	r.ncpus = usable;
	r.machine = machine_describe(cpus, ncpu);
	json_object_set_new(r.config, "machine_changes", changes);
	free(cpus);
	results_finalize(&r);
	machine_restore();
	rc = results_emit(&r, c.fmt, c.unit, c.out, c.marks);
	if (!rc)
		rc = import_status(&r, stderr);
	if (!rc && r.incomplete) {
		fprintf(stderr, "lockbench: locktorture: interrupted; the runs completed "
			"so far are kept\n");
		rc = 1;
	}
	results_free(&r);
	placement_policy_free(&place);
	topo_free(&t);
	free(writers);
	return rc;
}
