// SPDX-License-Identifier: MIT
/*
 * ltrun.c - drive the kernel's locktorture; see ltrun.h.
 */
#define _GNU_SOURCE
#include "ltrun.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "import.h"
#include "../../topology/machine.h"
#include "kmod.h"
#include "kmsg.h"
#include "kthreads.h"

#define MODULE "locktorture"
/* How long to wait for the kthreads to show up, and for End of test. */
#define FIND_WAIT_MS 2000
#define END_WAIT_MS 5000
#define STEP_MS 100

/* One load's log and where its kthreads went. */
struct load {
	char name[96];
	char *text;
	size_t len;
};

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned warm_intervals(const struct lt_opts *o)
{
	return (unsigned)ceil(o->warmup / o->stat_interval);
}

static unsigned window_intervals(const struct lt_opts *o)
{
	unsigned m = (unsigned)ceil(o->duration / o->stat_interval);

	return m ? m : 1;
}

double lt_load_seconds(const struct lt_opts *o)
{
	return o->stat_interval * (1.0 + warm_intervals(o) + window_intervals(o) + 0.5);
}

static bool stopped(const struct lt_opts *o)
{
	return o->stop && *o->stop;
}

/*
 * Find the @want kthreads of this load (they exist once the module's
 * init returned, but give them a moment) and pin them in placement
 * order, writers first (writer i to slot i), then readers.  Pinning failures are warned
 * about and recorded, never fatal: the run then measures an unpinned
 * kthread, which the JSON says.  Returns the JSON list of kthreads.
 */
static json_t *pin_kthreads(const struct lt_opts *o, unsigned want)
{
	struct thread_place *pl = calloc(want ? want : 1, sizeof(*pl));
	struct kthread_ent *kt = NULL;
	json_t *list = json_array();
	unsigned n = 0;
	char err[256];
	bool place;

	for (unsigned waited = 0;; waited += STEP_MS) {
		free(kt);
		kt = NULL;
		if (kthreads_find(&kt, &n) || n >= want || waited >= FIND_WAIT_MS)
			break;
		sleep_ms(STEP_MS);
	}
	if (n < want && o->warn)
		fprintf(o->warn, "lockbench: warning: found %u of the %u locktorture "
			"kthreads (%s, %s)\n", n, want, KT_WRITER_COMM, KT_READER_COMM);
	/* Every kthread found gets a slot: writers first, then readers. */
	if (n > want) {
		struct thread_place *more = realloc(pl, n * sizeof(*pl));

		if (more)
			pl = more;
	}
	place = pl && o->place->kind != PL_NONE &&
		!placement_assign(o->topo, o->place, n > want ? n : want, pl, err, sizeof(err));
	for (unsigned i = 0; i < n; i++) {
		unsigned slot = i;
		int cpu = -1, rc = 0;

		if (place) {
			cpu = pl[slot].cpu >= 0 ? pl[slot].cpu : o->topo->pu[pl[slot].pu].os;
			rc = kthread_pin(kt[i].pid, cpu);
			if (rc && o->warn)
				fprintf(o->warn, "lockbench: warning: cannot pin %s (pid %d) "
					"to cpu %d: %s; it runs where the scheduler puts it\n",
					kt[i].role == 'w' ? KT_WRITER_COMM : KT_READER_COMM,
					kt[i].pid, cpu, strerror(-rc));
		}
		json_array_append_new(list, json_pack("{s:i, s:s, s:o, s:b, s:o}",
			"pid", kt[i].pid, "role", kt[i].role == 'w' ? "writer" : "reader",
			"cpu", cpu >= 0 ? json_integer(cpu) : json_null(),
			"pinned", cpu >= 0 && !rc,
			"error", rc ? json_string(strerror(-rc)) : json_null()));
	}
	free(kt);
	free(pl);
	return list;
}

/*
 * The module parameters of one load, into @buf as NULL-ended @argv.
 * With a placement, shuffle_interval=0: every torture kthread is
 * registered with the shuffler (torture_shuffle_task_register() in
 * kernel/torture.c), which moves them all to new CPU masks every
 * shuffle_interval and so would undo the pinning.
 */
static void load_params(const struct lt_opts *o, unsigned nw, char buf[9][64],
			const char *argv[10])
{
	unsigned n = 8;

	snprintf(buf[0], 64, "torture_type=%s", o->type);
	snprintf(buf[1], 64, "nwriters_stress=%u", nw);
	snprintf(buf[2], 64, "nreaders_stress=%u", o->nreaders);
	snprintf(buf[3], 64, "stat_interval=%u", o->stat_interval);
	snprintf(buf[4], 64, "long_hold=%u", o->long_hold);
	snprintf(buf[5], 64, "shutdown_secs=0");
	snprintf(buf[6], 64, "onoff_interval=0");
	snprintf(buf[7], 64, "verbose=1");
	if (o->place->kind != PL_NONE)
		snprintf(buf[n++], 64, "shuffle_interval=0");
	for (unsigned i = 0; i < n; i++)
		argv[i] = buf[i];
	argv[n] = NULL;
}

/* Poll the log until the kernel printed End of test, or a timeout. */
static void wait_end(struct kmsg *k)
{
	for (unsigned waited = 0; waited < END_WAIT_MS; waited += STEP_MS) {
		kmsg_poll(k);
		if (k->text && strstr(k->text, "--- End of test"))
			return;
		sleep_ms(STEP_MS);
	}
}

/*
 * One load: returns 0 with the log in @ld and the kthreads appended to
 * @loads; -EIO with @err when the module would not load or unload.
 */
static int one_load(const struct lt_opts *o, unsigned nw, unsigned run,
		    struct load *ld, json_t *loads, char *err, size_t errlen)
{
	const char *argv[10];
	char buf[9][64], msg[512];
	double end;
	struct kmsg k;
	json_t *kt;
	int rc;

	if ((rc = kmsg_open(&k, err, errlen)))
		return rc;
	load_params(o, nw, buf, argv);
	if ((rc = kmod_record(MODULE))) {
		snprintf(err, errlen, "cannot record the module in %s.module: %s",
			 machine_state_path(), strerror(-rc));
		kmsg_close(&k);
		return -EIO;
	}
	if (kmod_load(MODULE, argv, msg, sizeof(msg))) {
		kmod_forget();
		snprintf(err, errlen, "%s", msg);
		kmsg_close(&k);
		return -EIO;
	}
	end = now_s() + lt_load_seconds(o);
	kt = pin_kthreads(o, nw + o->nreaders);
	while (now_s() < end && !stopped(o)) {
		kmsg_poll(&k);
		sleep_ms(STEP_MS);
	}
	rc = kmod_unload(MODULE, msg, sizeof(msg));
	if (!rc)
		kmod_forget();
	if (rc) {
		snprintf(err, errlen, "%s", msg);
		json_decref(kt);
		kmsg_close(&k);
		return -EIO;
	}
	wait_end(&k);
	kmsg_take(&k, &ld->text, &ld->len);
	kmsg_close(&k);
	snprintf(ld->name, sizeof(ld->name), "kernel log of run %u, nwriters_stress=%u",
		 run, nw);
	json_array_append_new(loads, json_pack("{s:i, s:i, s:o}", "run", (int)run,
					       "nwriters_stress", (int)nw, "kthreads", kt));
	return 0;
}

/* r->config and r->placement of the sweep. */
static void describe(const struct lt_opts *o, struct results *r, json_t *loads)
{
	json_t *rows = json_array();

	for (unsigned i = 0; i < o->nwriters; i++)
		json_array_append_new(rows, json_integer(o->writers[i]));
	json_decref(r->config);
	r->config = json_pack("{s:s, s:s, s:s, s:o, s:i, s:i, s:i, s:f, s:f, s:i, s:s}",
		"command", "locktorture", "module", MODULE, "torture_type", o->type,
		"nwriters_stress", rows, "nreaders_stress", (int)o->nreaders,
		"runs", (int)o->runs, "stat_interval", (int)o->stat_interval,
		"warmup_s", o->warmup, "duration_s", o->duration,
		"long_hold", (int)o->long_hold, "modprobe", kmod_program());
	json_decref(r->placement);
	r->placement = json_pack("{s:s, s:o}", "policy", o->place->text, "loads", loads);
}

int lt_sweep(const struct lt_opts *o, struct results *r, char *err, size_t errlen)
{
	unsigned total = o->runs * o->nwriters, nld = 0;
	struct load *ld = calloc(total ? total : 1, sizeof(*ld));
	struct import_src *src = calloc(total ? total : 1, sizeof(*src));
	struct import_fill fill = {-1, -1, -1, NULL, warm_intervals(o), 0};
	json_t *loads = json_array();
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (!ld || !src || !loads) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned k = 1; k <= o->runs && !rc && !stopped(o); k++)
		for (unsigned i = 0; i < o->nwriters && !rc && !stopped(o); i++) {
			if (o->progress)
				fprintf(o->progress, "lockbench: locktorture %s nwriters_stress=%u "
					"run %u/%u (%.0f s)\n", o->type, o->writers[i], k,
					o->runs, lt_load_seconds(o));
			rc = one_load(o, o->writers[i], k, &ld[nld], loads, err, errlen);
			if (!rc) {
				src[nld].name = ld[nld].name;
				src[nld].buf = ld[nld].text;
				src[nld].len = ld[nld].len;
				nld++;
			}
		}
	if (rc)
		goto out;
	if (!nld) {
		rc = 1;	/* stopped before any load completed */
		goto out;
	}
	rc = import_locktorture_srcs(src, nld, o->label, &fill, r, o->warn, err, errlen);
	if (rc) {
		if (stopped(o))
			rc = 1;
		goto out;
	}
	describe(o, r, loads);
	loads = NULL;
	r->incomplete = stopped(o);
	rc = r->incomplete ? 1 : 0;
out:
	json_decref(loads);
	for (unsigned i = 0; i < nld; i++)
		free(ld[i].text);
	free(ld);
	free(src);
	return rc;
}
