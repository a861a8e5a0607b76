/* SPDX-License-Identifier: MIT */
/*
 * `lockbench system check`: the measures.  The clock, cpu_relax() and
 * the core-to-core probe run in this process (topology/host/hostcheck.h);
 * everything a run measures is measured by runs: short invocations of
 * this same binary (/proc/self/exe, --no-tune, JSON on a pipe), so the
 * figures are those a user's run would get, and the spread between
 * separate invocations (the invocation floor) is what it is between
 * processes (docs/method.md, "What this machine can measure").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../output/stats/noise.h"
#include "../output/stats/stats.h"
#include "../topology/cpulist.h"
#include "../topology/host/irqs.h"
#include "../topology/host/steal.h"
#include "../lib/termsig.h"
#include "../topology/sysfs.h"
#include "../topology/host/clock.h"
#include "cmds.h"
#include "err.h"
#include "machctl.h"
#include "outfile.h"
#include "rundoc.h"
#include "syscheck.h"

extern char **environ;

static const unsigned delay_ladder[SC_NDELAY] = {25, 50, 100, 200, 400};

/* The first line of the file f (a child's stderr) into buf. */
static void first_line(FILE *f, char *buf, size_t len)
{
	buf[0] = '\0';
	rewind(f);
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
}

/*
 * The check's own runs of this binary write their JSON into a private
 * directory (kids_dir, made at the start under $TMPDIR or /tmp), never
 * into the working directory: a run whose write fails saves its rescue
 * file beside its output (docs/formats.md, "Where each format goes"),
 * which is that directory too.  A stop signal (any that would end it)
 * kills the running child, reaps it and removes the directory before
 * the check dies by the signal; a normal exit removes it too.
 */
static char kids_dir[PATH_MAX];
static volatile pid_t kid;
/* The stop signals (lib/termsig.h), and SIGPIPE and SIGXFSZ, which
 * would end the check too: the same cleanup for each. */
static const int kid_signals[] = { TERMSIG_STOP, SIGPIPE, SIGXFSZ };
#define NKID_SIGNALS (sizeof(kid_signals) / sizeof(kid_signals[0]))

/* Is sig a stop signal of the check (above, or a real-time one)? */
static bool kid_signal(int sig)
{
	for (unsigned i = 0; i < NKID_SIGNALS; i++)
		if (kid_signals[i] == sig)
			return true;
	return sig >= SIGRTMIN && sig <= SIGRTMAX;
}

/* Empty and remove kids_dir; async-signal-safe (open, getdents64,
 * unlinkat, rmdir: no allocation). */
static void kids_dir_remove(void)
{
	char buf[4096];
	long n;
	int fd;

	if (!kids_dir[0])
		return;
	for (unsigned pass = 0; pass < 4 && rmdir(kids_dir) && errno == ENOTEMPTY; pass++) {
		fd = open(kids_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		while (fd >= 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			for (long off = 0; off < n;) {
				struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);

				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					unlinkat(fd, e->d_name, 0);
				off += e->d_reclen;
			}
		if (fd >= 0)
			close(fd);
	}
}

/* A stop signal: the child killed and reaped, the directory removed,
 * then the default action (SA_RESETHAND: the signal raised again is
 * delivered when the handler returns). */
static void on_kid_signal(int sig)
{
	pid_t k = kid;

	if (k > 0) {
		kill(k, SIGKILL);
		while (waitpid(k, NULL, 0) < 0 && errno == EINTR)
			;
	}
	kids_dir_remove();
	raise(sig);
}

/* Make kids_dir and install the handlers (not over a signal ignored at
 * start: nohup's HUP stays ignored); exit 2 with one line when the
 * directory cannot be made. */
static void kids_setup(void)
{
	struct sigaction sa = {.sa_handler = on_kid_signal, .sa_flags = SA_RESETHAND};
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (snprintf(kids_dir, sizeof(kids_dir), "%s/lockbench-check-XXXXXX", tmp) >=
		    (int)sizeof(kids_dir) || !mkdtemp(kids_dir)) {
		kids_dir[0] = 0;
		cli_die("system check: cannot make a directory for its runs in %s: %s",
			tmp, strerror(errno));
	}
	atexit(kids_dir_remove);
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old;

		if (kid_signal(sig) && (sigaction(sig, NULL, &old) || old.sa_handler != SIG_IGN))
			sigaction(sig, &sa, NULL);
	}
}

/* Block (how SIG_BLOCK) or restore the stop signals around the moments
 * kid changes, so that the handler never kills a pid not ours. */
static void kid_signals_mask(int how, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (int sig = 1; sig < NSIG; sig++)
		if (kid_signal(sig))
			sigaddset(&set, sig);
	sigprocmask(how, how == SIG_SETMASK ? old : &set, how == SIG_SETMASK ? NULL : old);
}

/* Start this binary with args (NULL-terminated, args[0] its name),
 * stdout to /dev/null, stderr to errf, the signal mask the check had:
 * 0 or -errno; kid is its pid. */
static int child_start(char *const *args, FILE *errf)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t old;
	pid_t pid;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
	posix_spawnattr_init(&at);
	kid_signals_mask(SIG_BLOCK, &old);
	posix_spawnattr_setsigmask(&at, &old);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(&pid, "/proc/self/exe", &fa, &at, args, environ);
	if (!rc)
		kid = pid;
	kid_signals_mask(SIG_SETMASK, &old);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -rc;
}

/* Wait for kid to end, then reap it with the stop signals blocked (the
 * handler kills kid: never a pid reaped and reused); its wait status. */
static int child_wait(void)
{
	siginfo_t si;
	sigset_t old;
	int st = 0;

	while (waitid(P_PID, (id_t)kid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	kid_signals_mask(SIG_BLOCK, &old);
	while (waitpid(kid, &st, 0) < 0 && errno == EINTR)
		;
	kid = 0;
	kid_signals_mask(SIG_SETMASK, &old);
	return st;
}

/* The JSON a child wrote to path (removed once read), or NULL. */
static json_t *child_output(const char *path)
{
	json_t *doc = json_load_file(path, 0, NULL);

	unlink(path);
	return doc;
}

/*
 * One short run of this binary with the options `extra` (NULL-ended)
 * after the common ones (1 thread, --no-tune, -q, JSON into kids_dir,
 * the check's window): its JSON document, or NULL with the reason in
 * err.
 */
static json_t *child_json(struct syscheck *s, const char *const *extra,
			  char *err, size_t len)
{
	char d[32], w[32], why[200], out[PATH_MAX + 16];
	const char *args[32] = {"lockbench", "--no-tune", "-q", "-f", "json", "-t", "1",
				"-d", d, "--warmup", w};
	unsigned n = 11;
	FILE *errf = tmpfile();
	json_t *doc = NULL;
	int st = 0, rc = 0;

	snprintf(d, sizeof(d), "%g", s->window_s);
	snprintf(w, sizeof(w), "%g", s->window_s / 2);
	snprintf(out, sizeof(out), "%s/run.json", kids_dir);
	while (*extra && n < 29)
		args[n++] = *extra++;
	args[n++] = "-o";
	args[n++] = out;
	args[n] = NULL;
	if (!errf || (rc = child_start((char *const *)args, errf))) {
		snprintf(err, len, "cannot start %s: %s", "/proc/self/exe",
			 strerror(errf ? -rc : errno));
		if (errf)
			fclose(errf);
		return NULL;
	}
	st = child_wait();
	doc = child_output(out);
	first_line(errf, why, sizeof(why));
	fclose(errf);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !doc) {
		snprintf(err, len, "a run failed (%s, exit %d): %s", n > 12 ? args[12] : "",
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
			 *why ? why : "no output");
		json_array_append_new(s->errors, json_string(err));
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* A number member of o, NAN when absent or null. */
static double num_at(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The runs of point p: one member each into x (at most cap; NANs
 * skipped); returns how many. */
static unsigned run_values(const json_t *p, const char *key, double *x, unsigned cap)
{
	const json_t *runs = json_object_get(p, "runs"), *r;
	unsigned n = 0;
	size_t i;

	json_array_foreach(runs, i, r) {
		double v = num_at(r, key);

		if (n < cap && isfinite(v))
			x[n++] = v;
	}
	return n;
}

/* The rates (ops/s) of point p's runs into x, as run_values(), without
 * a run that counted no operation: its worker did not run in its window
 * (an overloaded machine), which measures nothing.  Each such run is
 * named in s->errors. */
static unsigned run_rates(struct syscheck *s, const json_t *p, double *x, unsigned cap)
{
	unsigned n = run_values(p, "ops_per_sec", x, cap), k = 0;

	for (unsigned i = 0; i < n; i++)
		if (x[i] > 0)
			x[k++] = x[i];
	if (k < n) {
		char msg[200];

		snprintf(msg, sizeof(msg), "%s: %u of %u runs counted no operation (the "
			 "worker did not run in its window: an overloaded machine)",
			 json_string_value(json_object_get(p, "variant")), n - k, n);
		json_array_append_new(s->errors, json_string(msg));
	}
	return k;
}

/* The median of member key over point p's runs (NAN: none). */
static double point_median(const json_t *p, const char *key)
{
	double x[64];

	return stats_median(x, run_values(p, key, x, 64));
}

/* ns per operation of a 1-thread point: 1e9 over its median rate. */
static double point_ns_op(struct syscheck *s, const json_t *p)
{
	double x[64], r = stats_median(x, run_rates(s, p, x, 64));

	return r > 0 ? 1e9 / r : NAN;
}

/* Keep the clock read cost a child calibrated (its calibration). */
static void note_child_clock(struct syscheck *s, const json_t *doc)
{
	double v = num_at(json_object_get(doc, "calibration"), "clock_read_ns");

	if (isfinite(v) && s->nchild_read < sizeof(s->child_read_ns) / sizeof(double))
		s->child_read_ns[s->nchild_read++] = v;
}

/*
 * One distribution of the delay ladder (0 exp: fixed, 1: exponential):
 * the null lock with empty critical sections and each requested
 * parallel section, two runs a point.  Each delay gets its sampled mean
 * length and what it adds to the ns/op of the empty loop (parallel
 * section 0 in the same invocation); *zero gets that empty loop's ns/op.
 */
static int delays_dist(struct syscheck *s, unsigned exp, double *zero)
{
	char ladder[128] = "0", err[256];
	const char *extra[] = {"-l", "null", "--cs-ns", "0", "--ncs-ns", ladder,
			       "--ncs-dist", exp ? "exp" : "fixed", "-r", "2", NULL};
	double op[SC_NDELAY];
	const json_t *p;
	json_t *doc;
	size_t i;

	for (unsigned k = 0; k < SC_NDELAY; k++)
		snprintf(ladder + strlen(ladder), sizeof(ladder) - strlen(ladder), ",%u",
			 delay_ladder[k]);
	if (!(doc = child_json(s, extra, err, sizeof(err)))) {
		snprintf(s->delay_err, sizeof(s->delay_err), "%s", err);
		return -1;
	}
	note_child_clock(s, doc);
	*zero = NAN;
	for (unsigned k = 0; k < SC_NDELAY; k++)
		op[k] = s->delay[exp][k].sampled = NAN;
	json_array_foreach(json_object_get(doc, "points"), i, p) {
		double req = point_median(p, "ncs_ns_requested");

		if (req == 0)
			*zero = point_ns_op(s, p);
		for (unsigned k = 0; k < SC_NDELAY; k++)
			if (req == delay_ladder[k]) {
				op[k] = point_ns_op(s, p);
				s->delay[exp][k].sampled = point_median(p, "ncs_ns_actual_median");
			}
	}
	for (unsigned k = 0; k < SC_NDELAY; k++)
		s->delay[exp][k].outside = op[k] - *zero;
	json_decref(doc);
	return 0;
}

static bool within(double got, double want)
{
	return isfinite(got) && fabs(got / want - 1) <= SC_DELAY_TOL;
}

/* The delays, both distributions; the empty loop from their zero
 * points; the floor: the shortest request from which every longer one
 * holds within SC_DELAY_TOL, both ways, fixed and exponential. */
static void measure_delays(struct syscheck *s, void (*between)(struct syscheck *))
{
	double zero[2] = {NAN, NAN}, sum = 0;
	unsigned nz = 0;

	s->delay_floor_ns = NAN;
	s->empty_ns = NAN;
	for (unsigned d = 0; d < 2; d++) {
		for (unsigned k = 0; k < SC_NDELAY; k++)
			s->delay[d][k] = (struct sc_delay){delay_ladder[k], NAN, NAN, false};
		if (delays_dist(s, d, &zero[d]))
			return;
		between(s);
		if (isfinite(zero[d]) && zero[d] > 0)
			sum += zero[d], nz++;
	}
	s->empty_ns = nz ? sum / nz : NAN;
	s->delays_measured = true;
	for (unsigned d = 0; d < 2; d++)
		for (unsigned k = 0; k < SC_NDELAY; k++) {
			struct sc_delay *x = &s->delay[d][k];

			x->holds = within(x->sampled, x->ns) && within(x->outside, x->ns);
		}
	for (unsigned k = SC_NDELAY; k-- > 0;) {
		if (!s->delay[0][k].holds || !s->delay[1][k].holds)
			break;
		s->delay_floor_ns = delay_ladder[k];
	}
}

/* The 1-thread run-to-run spread: SC_CV_RUNS runs of tas in one
 * invocation, the default workload; their CV in percent. */
static void measure_tas_cv(struct syscheck *s)
{
	char runs[16], err[256];
	const char *extra[] = {"-l", "tas", "-r", runs, NULL};
	double x[SC_CV_RUNS];
	struct summary sm;
	json_t *doc;
	unsigned n;

	s->tas_cv_pct = NAN;
	snprintf(runs, sizeof(runs), "%u", SC_CV_RUNS);
	if (!(doc = child_json(s, extra, err, sizeof(err)))) {
		snprintf(s->tas_err, sizeof(s->tas_err), "%s", err);
		return;
	}
	note_child_clock(s, doc);
	n = run_rates(s, json_array_get(json_object_get(doc, "points"), 0), x, SC_CV_RUNS);
	stats_summarize(x, n, &sm);
	if (n >= 2 && isfinite(sm.cv))
		s->tas_cv_pct = 100 * sm.cv;
	else
		snprintf(s->tas_err, sizeof(s->tas_err), "%u of %u runs measured", n,
			 SC_CV_RUNS);
	json_decref(doc);
}

/* Sleep until lb_mono_s() reads t (at once when it is past). */
static void sleep_until(double t)
{
	double d = t - lb_mono_s();
	struct timespec ts;

	if (!(d > 0))
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The invocation floor: SC_INVOCATIONS separate invocations of tas at
 * 1 thread, the default workload, SC_INV_RUNS short runs each, spread
 * over SC_FLOOR_SPAN_WINDOWS windows (at most SC_FLOOR_SPAN_S); the standard deviation of their
 * medians and stats_invocation_floor() of it.  The median, not the
 * mean: a hiccup of a few ms costs a 0.1 s run tens of times what it
 * costs a default run, and one such run of three must not stand for the
 * invocation (docs/method.md, "The invocation floor"). */
static void measure_floor(struct syscheck *s, void (*between)(struct syscheck *))
{
	char runs[16], err[256] = "";
	const char *extra[] = {"-l", "tas", "-r", runs, NULL};
	struct summary sm;
	double t0 = lb_mono_s(),
	       gap = fmin(SC_FLOOR_SPAN_WINDOWS * s->window_s, SC_FLOOR_SPAN_S) / (SC_INVOCATIONS - 1);

	s->sd_between_pct = s->floor_pct = NAN;
	s->floor_at = (long long)time(NULL);
	snprintf(runs, sizeof(runs), "%u", SC_INV_RUNS);
	for (unsigned i = 0; i < SC_INVOCATIONS; i++) {
		json_t *doc = child_json(s, extra, err, sizeof(err));
		double x[SC_INV_RUNS], med;
		unsigned n;

		if (!doc)
			continue;
		note_child_clock(s, doc);
		n = run_rates(s, json_array_get(json_object_get(doc, "points"), 0), x,
			      SC_INV_RUNS);
		med = n ? stats_median(x, n) : NAN;
		if (med > 0)
			s->inv_median[s->ninv++] = med;
		json_decref(doc);
		if (i + 1 == SC_INVOCATIONS)
			break;
		between(s);
		sleep_until(t0 + (i + 1) * gap);
	}
	if (s->ninv < 2) {
		snprintf(s->floor_err, sizeof(s->floor_err), "%u of %u invocations measured%s%s",
			 s->ninv, SC_INVOCATIONS, *err ? ": " : "", err);
		return;
	}
	stats_summarize(s->inv_median, s->ninv, &sm);
	s->sd_between_pct = 100 * sm.std / sm.mean;
	s->floor_pct = stats_invocation_floor(s->sd_between_pct, s->ninv);
}

static double load_now(void);

/* The CPU time in s of this process and of its children waited for. */
static double own_cpu_s(void)
{
	struct rusage a, b;

	if (getrusage(RUSAGE_SELF, &a) || getrusage(RUSAGE_CHILDREN, &b))
		return NAN;
	return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec +
			b.ru_stime.tv_sec) +
	       (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
			b.ru_stime.tv_usec) / 1e6;
}

/* The usable CPUs of t into a new array, *n of them. */
static int *floor_cpus(const struct topo *t, unsigned *n)
{
	int *cpus = cli_calloc(t->npu + 1, sizeof(*cpus));

	*n = 0;
	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].allowed)
			cpus[(*n)++] = t->pu[i].os;
	return cpus;
}

/*
 * The floor, measured beside whatever else runs: the CPUs' worth of
 * time other processes ran on the usable CPUs meanwhile (their busy
 * time in /proc/stat less this process's and its children's), and the
 * load average around it.  Refused, with one line saying so and what to
 * do, when the others ran more than SC_FLOOR_BUSY_CPUS.
 */
static void measure_floor_beside(struct syscheck *s, const struct topo *t,
				 void (*between)(struct syscheck *))
{
	unsigned n;
	int *cpus = floor_cpus(t, &n);
	uint64_t b0 = 0, b1 = 0;
	bool ok = n && !busy_read(cpus, n, &b0);
	double own0 = own_cpu_s(), t0 = lb_mono_s(), dt;

	s->floor_load0 = load_now();
	measure_floor(s, between);
	dt = lb_mono_s() - t0;
	s->floor_s = dt;
	s->floor_load1 = load_now();
	ok = ok && !busy_read(cpus, n, &b1) && dt > 0 && b1 >= b0;
	s->floor_others = ok ? ((double)(b1 - b0) * steal_tick_s() - (own_cpu_s() - own0)) / dt
			     : NAN;
	if (s->floor_others < 0)
		s->floor_others = 0;	/* tick-sampled busy time under the exact own time */
	free(cpus);
	if (!(s->floor_others > SC_FLOOR_BUSY_CPUS))
		return;
	s->floor_refused = true;
	s->floor_pct = NAN;
	snprintf(s->floor_err, sizeof(s->floor_err), "the machine was busy: other "
		 "processes ran %.2f CPUs beside it (load average %.1f); run `lockbench "
		 "system check` again when it is quiet", s->floor_others, s->floor_load1);
}

/* Steal ticks of the allowed CPUs of t so far; false when unknown. */
static bool steal_now(const struct topo *t, uint64_t *ticks, unsigned *ncpus)
{
	int *cpus = cli_calloc(t->npu + 1, sizeof(*cpus));
	unsigned n = 0;
	int rc;

	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].allowed)
			cpus[n++] = t->pu[i].os;
	rc = n ? steal_read(cpus, n, ticks) : -ENOENT;
	free(cpus);
	*ncpus = n;
	return !rc;
}

/* The 1-minute load average (/proc/loadavg under the sysfs root), NAN
 * when it cannot be read. */
static double load_now(void)
{
	char buf[128];
	double l;

	if (sysfs_read_str("/proc/loadavg", buf, sizeof(buf)) || sscanf(buf, "%lf", &l) != 1)
		return NAN;
	return l;
}

/* ht_measure() on cpus[0..n-1], and the interrupts each served
 * meanwhile (topology/host/irqs.h), a second: s->takes_irqs[], NAN when
 * /proc/interrupts cannot be read; their mean s->takes_irq_per_s. */
static int takes_with_irqs(struct syscheck *s, const int *cpus, unsigned n)
{
	uint64_t *c0 = cli_calloc(2 * n, sizeof(*c0)), *c1 = c0 + n;
	bool irqs = !irqs_read(cpus, n, c0);
	double t0 = lb_mono_s(), dt;
	int rc = ht_measure(cpus, n, SC_TAKES_S, s->takes);

	dt = lb_mono_s() - t0;
	irqs = irqs && !irqs_read(cpus, n, c1) && dt > 0;
	s->takes_irq_per_s = irqs ? 0 : NAN;
	for (unsigned i = 0; i < n; i++) {
		s->takes_irqs[i] = irqs ? (double)(c1[i] - c0[i]) / dt : NAN;
		s->takes_irq_per_s += irqs ? s->takes_irqs[i] / n : 0;
	}
	free(c0);
	return rc;
}

/* The host takes on every usable CPU at once (topology/host/takes.h), and
 * their summary: the CPUs' mean fraction and rate, the longest take. */
static void measure_takes(struct syscheck *s, const struct topo *t)
{
	int *cpus = cli_calloc(t->npu + 1, sizeof(*cpus));
	unsigned n = 0, ok = 0;
	int rc;

	s->takes_frac = s->takes_per_s = s->takes_longest_ns = s->takes_irq_per_s = NAN;
	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].allowed)
			cpus[n++] = t->pu[i].os;
	s->takes = cli_calloc(n + 1, sizeof(*s->takes));
	s->takes_irqs = cli_calloc(n + 1, sizeof(*s->takes_irqs));
	rc = n ? takes_with_irqs(s, cpus, n) : -ENOENT;
	free(cpus);
	if (rc) {
		snprintf(s->takes_err, sizeof(s->takes_err), "cannot start its threads: %s",
			 strerror(-rc));
		return;
	}
	s->ntakes = n;
	s->takes_frac = s->takes_per_s = s->takes_longest_ns = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct ht_cpu *x = &s->takes[i];

		if (x->err || !isfinite(x->fraction))
			continue;
		ok++;
		s->takes_frac += x->fraction;
		s->takes_per_s += x->per_s;
		if (x->takes && x->longest_ns > s->takes_longest_ns)
			s->takes_longest_ns = x->longest_ns;
	}
	if (ok) {
		s->takes_frac /= ok;
		s->takes_per_s /= ok;
		return;
	}
	s->takes_frac = s->takes_per_s = s->takes_longest_ns = NAN;
	snprintf(s->takes_err, sizeof(s->takes_err), "no CPU could be pinned (cpu %d: %s)",
		 s->takes[0].cpu, strerror(s->takes[0].err));
}

static void c2c_between(struct syscheck *s)
{
	hc_c2c_sample(&s->c2c);
}

static void progress(const struct cli *c, const char *what)
{
	if (!c->quiet)
		fprintf(stderr, "lockbench: system check: %s\n", what);
}

/* Everything, in the order of docs/method.md; the core-to-core probe
 * between the steps, so that its samples spread over the check. */
static void measure_all(struct syscheck *s, const struct cli *c, const struct topo *t)
{
	uint64_t st0 = 0, st1 = 0;
	unsigned ncpus;
	bool steal = steal_now(t, &st0, &ncpus);
	double t0 = lb_mono_s();

	s->load_start = load_now();
	s->ncpus = ncpus;

	progress(c, "clock, cpu_relax(), core-to-core");
	hc_clock(&s->clock);
	s->relax_ns = hc_relax_ns();
	s->c2c_classes = hc_c2c_init(&s->c2c, t);
	c2c_between(s);
	progress(c, "host takes (every CPU read at once)");
	measure_takes(s, t);
	progress(c, "delays, fixed and exponential");
	measure_delays(s, c2c_between);
	progress(c, "run-to-run spread (tas, 1 thread)");
	measure_tas_cv(s);
	c2c_between(s);
	progress(c, "invocation floor (separate invocations of tas)");
	measure_floor_beside(s, t, c2c_between);
	s->elapsed_s = lb_mono_s() - t0;
	s->steal_max = STEAL_SAY_MAX;
	s->steal_frac = NAN;
	if (steal && steal_now(t, &st1, &ncpus) && s->elapsed_s > 0)
		s->steal_frac = (double)(st1 - st0) * steal_tick_s() / (s->elapsed_s * ncpus);
}

/* ---- -o ------------------------------------------------------------ */

/* -o: the one writer of -o files (outfile.h), checked before anything
 * is measured. */
static struct outdest out;

/* text to -o (a twin renamed into place when complete, or in place for
 * a character device or FIFO) or stdout: 0; on a failed write, the
 * writer's one line, the text on standard output instead (nothing
 * measured is lost), and 2. */
static int out_write(const char *path, const char *text)
{
	if (!path || !strcmp(path, "-"))
		return fputs(text, stdout) < 0 || fflush(stdout) ? 2 : 0;
	if (!outfile_put(&out, text, strlen(text), 0666))
		return 0;
	fputs(text, stdout);
	fflush(stdout);
	return 2;
}

/* ---- the command ---------------------------------------------------- */

/* The report as text (-f table) or JSON, malloc'ed. */
static char *render(const struct syscheck *s, const json_t *doc, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (json) {
		char *j = json_dumps(doc, JSON_INDENT(2));

		if (j && asprintf(&buf, "%s\n", j) < 0)
			buf = NULL;
		free(j);
		return buf;
	}
	if (!(f = open_memstream(&buf, &len)))
		return NULL;
	syscheck_print(s, doc, f);
	fclose(f);
	return buf;
}

/*
 * -f: table or json, or both (table,json): the text on standard output
 * and the JSON to -o FILE, which both then needs.  *both says which.
 */
static bool check_formats(const struct cli *c, bool *both)
{
	const char *f = outputs_formats(c->formats, c->formats_given, c->output);

	*both = !strcmp(f, "table,json") || !strcmp(f, "json,table");
	if (*both && (!c->output || !strcmp(c->output, "-")))
		cli_die("system check -f %s: give -o FILE for the JSON (the text goes to "
			"standard output)", f);
	return *both || want_json("system check", f);
}

/*
 * The report out: with -f table,json the text to stdout and the JSON to
 * -o, else the one format to -o or stdout.  0, or 2 on a failed write.
 */
static int write_report(const struct syscheck *s, const json_t *doc, const struct cli *c,
			bool json, bool both)
{
	char *text = render(s, doc, json);
	char *plain = both ? render(s, doc, false) : NULL;
	int rc;

	if (!text || (both && !plain))
		cli_die("system check: out of memory");
	rc = both && (fputs(plain, stdout) < 0 || fflush(stdout)) ? 2 : 0;
	rc = out_write(c->output, text) ? 2 : rc;
	free(text);
	free(plain);
	return rc;
}

/*
 * A refused floor is said on stderr in one line whatever -q and -o say
 * (the JSON records it too, floor.refused): a user who asked for a
 * floor file must not find out only when compare refuses it.
 */
static void refused_line(const struct syscheck *s)
{
	if (s->floor_refused)
		fprintf(stderr, "lockbench: system check: invocation floor refused (exit 5): "
			"%s; meanwhile compare takes --floor PCT\n", s->floor_err);
}

int cmd_system_check(const struct cli *c)
{
	bool both, json = check_formats(c, &both);
	struct syscheck *s = cli_calloc(1, sizeof(*s));
	char err[512];
	struct topo t;
	json_t *doc;
	int rc;

	s->window_s = c->duration_given ? c->duration : 0.1 * cli_time_scale();
	if (s->window_s < 0.01)
		s->window_s = 0.01;     /* -d's least */
	/* the window given to the separate invocations is scaled already */
	unsetenv("LOCKBENCH_TIME_SCALE");
	if (s->window_s > 1)
		cli_die("system check -d (%g): the window of its short runs, at most 1 s",
			c->duration);
	if (c->topology)
		cli_die("system check measures this machine: not with --topology");
	outputs_name_fits(json ? "json" : "table", c->output);
	if (c->output)
		outfile_open(&out, c->output, false);
	kids_setup();
	if (topo_load(&t, NULL, isolated_cpus(), err, sizeof(err)))
		cli_die_msg(err);
	s->machine = machine_json(&t);
	s->errors = json_array();
	measure_all(s, c, &t);
	doc = syscheck_json(s, c);
	if (!doc)
		cli_die("system check: out of memory");
	rc = write_report(s, doc, c, json, both);
	refused_line(s);
	/* a measure that could not be taken: the report says which, exit 1;
	 * a floor refused on a busy machine: exit 5, cannot assess (the
	 * floor), as compare's gate says it */
	if (!rc && (!s->delays_measured || !isfinite(s->tas_cv_pct) ||
		    (!isfinite(s->floor_pct) && !s->floor_refused) || !isfinite(s->takes_frac)))
		rc = 1;
	if (!rc && s->floor_refused)
		rc = 5;
	json_decref(doc);
	json_decref(s->machine);
	json_decref(s->errors);
	topo_free(&t);
	free(s->takes);
	free(s->takes_irqs);
	free(s);
	return rc;
}
