/* SPDX-License-Identifier: MIT */
/*
 * machine_tune.c - parse --freq, and freeze the machine's noise sources
 * as machine.h describes (boost off, every cpufreq policy of the used
 * CPUs frozen, kernel.numa_balancing 0): each batch of changes is
 * planned, recorded in the state file (machine_state.c), then written.
 */
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "machine_impl.h"
#include "sysfs.h"

/* Append a formatted note to @msg ("lockbench: " once, then "; "). */
static void note(char *msg, size_t len, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!msg || !len)
		return;
	used = strlen(msg);
	if (used + 1 >= len)
		return;
	snprintf(msg + used, len - used, "%s", used ? "; " : "lockbench: ");
	used = strlen(msg);
	va_start(ap, fmt);
	vsnprintf(msg + used, len - used, fmt, ap);
	va_end(ap);
}


/* ---- parse --freq --------------------------------------------------- */

/* kHz per unit of a frequency suffix, or 0 when @u is not one. */
static unsigned long freq_unit(const char *u)
{
	if (!*u || !strcasecmp(u, "khz"))
		return 1;
	if (!strcasecmp(u, "mhz"))
		return 1000;
	if (!strcasecmp(u, "ghz"))
		return 1000000;
	return 0;
}

int machine_parse_freq(const char *s, struct machine_req *req)
{
	unsigned long long whole = 0, frac = 0, scale = 1, khz;
	unsigned long unit;
	const char *p = s;

	if (!strcmp(s, "auto") || !strcmp(s, "off")) {
		req->freq = s[0] == 'a' ? FREQ_AUTO : FREQ_OFF;
		req->khz = 0;
		return 0;
	}
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p) && whole < 1000000000ULL; p++)
		whole = whole * 10 + (unsigned)(*p - '0');
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p) && scale < 1000000000ULL; p++) {
			frac = frac * 10 + (unsigned)(*p - '0');
			scale *= 10;
		}
	}
	if (isdigit((unsigned char)*p))
		return -EINVAL;		/* too many digits */
	while (*p == ' ')
		p++;
	unit = freq_unit(p);
	if (!unit || (frac * unit) % scale)
		return -EINVAL;		/* unknown unit, or a fraction of kHz */
	khz = whole * unit + frac * unit / scale;
	if (khz == 0 || khz > 100000000ULL)
		return -EINVAL;
	req->freq = FREQ_FIXED;
	req->khz = (unsigned long)khz;
	return 0;
}

/* ---- tune ----------------------------------------------------------- */

/* What one machine_tune() call is doing. */
struct tune {
	const struct machine_req *req;
	char *msg;
	size_t msglen;
	int soft;	/* an AUTO part was not applied: return 1 */
	json_t *plan;	/* machine_tune_plan(): collect, change nothing */
};

/* Dry run: the @n planned changes appended to @t->plan as {path, old, new}. */
static int plan_only(struct tune *t, const struct change *ops, int n)
{
	for (int i = 0; i < n; i++)
		if (json_array_append_new(t->plan, json_pack("{s:s, s:o, s:s}",
			"path", ops[i].path, "old", ops[i].has_old ?
			json_string(ops[i].old) : json_null(), "new", ops[i].val)))
			return -ENOMEM;
	return 0;
}

/*
 * Plan a change of @dir/@attr (or @dir alone when @attr is NULL) from
 * @old (NULL: nothing to restore) to @val into @ops[*@n].  Returns 0 or
 * -E2BIG when a path or value does not fit a record.
 */
static int plan(struct change *ops, int *n, const char *dir, const char *attr,
		const char *old, const char *val)
{
	struct change *c = &ops[*n];
	int err;

	err = attr ? machine_attr_path(c->path, sizeof(c->path), dir, attr) :
		     copy_str(c->path, sizeof(c->path), dir);
	if (!err)
		err = copy_str(c->old, sizeof(c->old), old ? old : "");
	if (!err)
		err = copy_str(c->val, sizeof(c->val), val);
	if (err)
		return err == -ENAMETOOLONG ? -E2BIG : err;
	c->has_old = old != NULL;
	(*n)++;
	return 0;
}

/*
 * Record @n planned changes in the state file, then write them in order.
 * On a failed write the unwritten ones are dropped from the record and
 * the failure is described in @t->msg as "@what (path = value): why".
 * Returns 0 or -errno; what was written stays recorded either way.
 */
static int apply(struct tune *t, const char *what, const struct change *ops,
		 int n)
{
	int base = mstate_count(), err;

	if (n == 0)
		return 0;
	if (t->plan)
		return plan_only(t, ops, n);
	err = mstate_record(ops, n);
	if (err) {
		note(t->msg, t->msglen, "machine state (%s): %s",
		     machine_state_path(), strerror(-err));
		return err;
	}
	for (int i = 0; i < n; i++) {
		err = sysfs_write_str(ops[i].path, ops[i].val);
		if (err) {
			mstate_truncate(base + i);
			note(t->msg, t->msglen, "%s (%s = %s): %s", what,
			     ops[i].path, ops[i].val, strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Turn boost/turbo off: cpufreq/boost=0 (acpi-cpufreq, amd-pstate,
 * cppc) or intel_pstate/no_turbo=1.  Best effort: a failure is noted in
 * @t->msg and leaves boost as it was.  Always returns 0.
 */
static int tune_boost(struct tune *t)
{
	struct change op[1];
	char old[CHG_VAL_LEN];
	const char *path = BOOST_PATH, *off = "0";
	int n = 0;

	if (!sysfs_exists(path)) {
		path = NO_TURBO_PATH;
		off = "1";
	}
	if (sysfs_read_str(path, old, sizeof(old)) || !strcmp(old, off))
		return 0;		/* none, unreadable, or already off */
	if (plan(op, &n, path, NULL, old, off))
		return 0;
	if (apply(t, "boost", op, n))
		t->soft = 1;
	return 0;
}

/*
 * The frequency to freeze @dir at: req->khz for FREQ_FIXED (-ERANGE
 * outside cpuinfo_min_freq..cpuinfo_max_freq); for FREQ_AUTO the highest
 * sustained one: base_frequency when present, else cpuinfo_max_freq
 * (boost is already off, so acpi-cpufreq no longer counts boost states).
 */
static int target_khz(struct tune *t, const char *dir, uint64_t *khz)
{
	char p[CHG_PATH_LEN];
	uint64_t lo, hi;
	int err;

	machine_attr_path(p, sizeof(p), dir, "cpuinfo_min_freq");
	err = sysfs_read_u64(p, &lo);
	machine_attr_path(p, sizeof(p), dir, "cpuinfo_max_freq");
	if (!err)
		err = sysfs_read_u64(p, &hi);
	if (err) {
		note(t->msg, t->msglen, "cpufreq (%s): cannot read: %s", p,
		     strerror(-err));
		return err;
	}
	if (t->req->freq == FREQ_FIXED) {
		*khz = t->req->khz;
		if (*khz >= lo && *khz <= hi)
			return 0;
		note(t->msg, t->msglen,
		     "--freq (%lu kHz): outside %s range %llu-%llu kHz",
		     t->req->khz, dir, (unsigned long long)lo,
		     (unsigned long long)hi);
		return -ERANGE;
	}
	machine_attr_path(p, sizeof(p), dir, "base_frequency");
	if (sysfs_read_u64(p, khz) || *khz < lo || *khz > hi)
		*khz = hi;
	return 0;
}

/* 1 when the space-separated list @list holds the word @word. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/*
 * Plan freezing policy @dir at @khz into @ops (at most 4 entries).  With
 * the userspace governor: widen scaling_min/max_freq if @khz is outside
 * them, governor=userspace, scaling_setspeed=@khz.  Without it: set
 * scaling_min_freq and scaling_max_freq to @khz, in the order that never
 * has min > max.  Returns 0 or -errno (unreadable attribute).
 */
static int plan_policy(struct tune *t, const char *dir, uint64_t khz,
		       struct change *ops, int *n)
{
	char gov[CHG_VAL_LEN], avail[256], smin[CHG_VAL_LEN], smax[CHG_VAL_LEN];
	char want[CHG_VAL_LEN], sp[CHG_PATH_LEN], cur[CHG_VAL_LEN];
	uint64_t lo, hi;
	int err;

	snprintf(want, sizeof(want), "%llu", (unsigned long long)khz);
	err = machine_read_attr(dir, "scaling_governor", gov, sizeof(gov));
	if (!err)
		err = machine_read_attr(dir, "scaling_min_freq", smin, sizeof(smin));
	if (!err)
		err = machine_read_attr(dir, "scaling_max_freq", smax, sizeof(smax));
	if (err) {
		note(t->msg, t->msglen, "cpufreq (%s): cannot read: %s", dir,
		     strerror(-err));
		return err;
	}
	lo = strtoull(smin, NULL, 10);
	hi = strtoull(smax, NULL, 10);
	machine_attr_path(sp, sizeof(sp), dir, "scaling_setspeed");
	if (machine_read_attr(dir, "scaling_available_governors", avail, sizeof(avail)))
		avail[0] = '\0';
	if (has_word(avail, "userspace") && sysfs_exists(sp)) {
		if (khz > hi)
			err = plan(ops, n, dir, "scaling_max_freq", smax, want);
		if (khz < lo)
			err = plan(ops, n, dir, "scaling_min_freq", smin, want);
		if (!err && strcmp(gov, "userspace"))
			err = plan(ops, n, dir, "scaling_governor", gov,
				   "userspace");
		/* Old setspeed only means something under userspace;
		 * otherwise the kernel shows "<unsupported>", which is
		 * written back on a restore that the kernel may refuse
		 * (machine_state.c, restore_optional()). */
		if (!err && sysfs_read_str(sp, cur, sizeof(cur)))
			return plan(ops, n, dir, "scaling_setspeed", NULL, want);
		if (!err && strcmp(gov, "userspace"))
			return plan(ops, n, dir, "scaling_setspeed",
				    strcmp(cur, SETSPEED_NONE) ? NULL : cur, want);
		if (!err && strcmp(cur, want))
			err = plan(ops, n, dir, "scaling_setspeed", cur, want);
		return err;
	}
	if (khz > hi) {
		err = plan(ops, n, dir, "scaling_max_freq", smax, want);
		if (!err && khz != lo)
			err = plan(ops, n, dir, "scaling_min_freq", smin, want);
		return err;
	}
	if (khz != lo)
		err = plan(ops, n, dir, "scaling_min_freq", smin, want);
	if (!err && khz != hi)
		err = plan(ops, n, dir, "scaling_max_freq", smax, want);
	return err;
}

/*
 * Collect the distinct cpufreq policy directories of @cpus into @dirs
 * (@ncpus slots of CHG_PATH_LEN), count in *@ndirs.  Returns 0, or
 * -ENOENT with the "not available" note when a CPU has no cpufreq.
 */
static int policy_dirs(struct tune *t, const int *cpus, unsigned ncpus,
		       char (*dirs)[CHG_PATH_LEN], unsigned *ndirs)
{
	char dir[CHG_PATH_LEN];
	unsigned k = 0;

	for (unsigned i = 0; i < ncpus; i++) {
		bool seen = false;

		if (machine_cpufreq_dir(cpus[i], dir, sizeof(dir))) {
			note(t->msg, t->msglen,
			     "cpufreq: not available on this machine (no " CPU_DIR "/cpu%d/cpufreq)",
			     cpus[i]);
			return -ENOENT;
		}
		for (unsigned j = 0; j < k && !seen; j++)
			seen = !strcmp(dirs[j], dir);
		if (!seen)
			memcpy(dirs[k++], dir, sizeof(dir));
	}
	*ndirs = k;
	return 0;
}

/*
 * Freeze the frequency of every policy of @cpus: plan all of them, record
 * once, write.  Returns 0 or -errno (the note is in @t->msg); what was
 * written stays recorded for the caller to undo.
 */
static int tune_policies(struct tune *t, const int *cpus, unsigned ncpus)
{
	char (*dirs)[CHG_PATH_LEN] = calloc(ncpus, CHG_PATH_LEN);
	struct change *ops = calloc((size_t)ncpus * 4, sizeof(*ops));
	unsigned ndirs = 0;
	uint64_t khz;
	int n = 0, err = (!dirs || !ops) ? -ENOMEM : 0;

	if (!err)
		err = policy_dirs(t, cpus, ncpus, dirs, &ndirs);
	for (unsigned i = 0; !err && i < ndirs; i++) {
		err = target_khz(t, dirs[i], &khz);
		if (!err)
			err = plan_policy(t, dirs[i], khz, ops, &n);
	}
	if (!err)
		err = apply(t, "cpufreq", ops, n);
	free(dirs);
	free(ops);
	return err;
}

/* The first of @cpus without a cpufreq directory, or -1. */
static int cpufreq_missing(const int *cpus, unsigned ncpus)
{
	char dir[CHG_PATH_LEN];

	for (unsigned i = 0; i < ncpus; i++)
		if (machine_cpufreq_dir(cpus[i], dir, sizeof(dir)))
			return cpus[i];
	return -1;
}

/*
 * The frequency part of @t->req: boost off, then every policy frozen.
 * For FREQ_AUTO a failure undoes this part, notes "running unfrozen"
 * and returns 0 (t->soft set); for FREQ_FIXED it returns -errno and
 * leaves the undoing to the caller.
 */
static int tune_freq(struct tune *t, const int *cpus, unsigned ncpus)
{
	int mark = mstate_count(), cpu, err;
	size_t planned = t->plan ? json_array_size(t->plan) : 0;

	if (t->req->freq == FREQ_OFF || ncpus == 0)
		return 0;
	cpu = cpufreq_missing(cpus, ncpus);
	if (cpu >= 0) {
		note(t->msg, t->msglen,
		     "cpufreq: not available on this machine (no " CPU_DIR "/cpu%d/cpufreq)",
		     cpu);
		err = -ENOENT;
	} else {
		tune_boost(t);
		err = tune_policies(t, cpus, ncpus);
	}
	if (!err)
		return 0;
	if (t->req->freq == FREQ_FIXED) {
		note(t->msg, t->msglen, "cannot apply --freq %lu kHz",
		     t->req->khz);
		return err;
	}
	if (t->plan)
		while (json_array_size(t->plan) > planned)
			json_array_remove(t->plan, json_array_size(t->plan) - 1);
	else
		mstate_restore_from(mark, true, NULL);
	note(t->msg, t->msglen, "running unfrozen");
	t->soft = 1;
	return 0;
}

/*
 * Set kernel.numa_balancing to 0.  A kernel without the file has no NUMA
 * balancing: nothing to do.  A failure is -errno for NB_OFF, a note and
 * t->soft for NB_AUTO.
 */
static int tune_numa(struct tune *t)
{
	char old[CHG_VAL_LEN];
	struct change op[1];
	int n = 0, err;

	if (t->req->numa_balancing == NB_KEEP || !sysfs_exists(NUMA_BAL_PATH))
		return 0;
	err = sysfs_read_str(NUMA_BAL_PATH, old, sizeof(old));
	if (!err && !strcmp(old, "0"))
		return 0;
	if (err)
		note(t->msg, t->msglen, "numa_balancing (" NUMA_BAL_PATH "): cannot read: %s",
		     strerror(-err));
	else
		err = plan(op, &n, NUMA_BAL_PATH, NULL, old, "0");
	if (!err)
		err = apply(t, "numa_balancing", op, n);
	if (!err || t->req->numa_balancing == NB_OFF)
		return err;
	note(t->msg, t->msglen, "NUMA balancing left on");
	t->soft = 1;
	return 0;
}

/*
 * Claim the state file; when another lockbench's file is there, say so:
 * -EBUSY for an explicit request, 1 (change nothing) for an automatic
 * one, since the machine is then most likely tuned already.
 */
static int tune_claim(struct tune *t)
{
	const char *path = machine_state_path();
	int err = mstate_claim();
	char cmd[PATH_MAX + 64], why[PATH_MAX + 256];

	if (!err)
		return 0;
	if (err != -EEXIST) {
		note(t->msg, t->msglen, "machine state (%s): %s", path,
		     strerror(-err));
	} else if (machine_state_probe(why, sizeof(why)) < 0) {
		note(t->msg, t->msglen, "%s", why + strlen("lockbench: "));
	} else {
		note(t->msg, t->msglen,
		     "machine state (%s): left by another lockbench (running, killed, or 'lockbench system tune'); restore it with: %s",
		     path, machine_reset_command(cmd, sizeof(cmd)));
		err = -EBUSY;
	}
	if (t->req->freq == FREQ_FIXED || t->req->numa_balancing == NB_OFF)
		return err;
	note(t->msg, t->msglen, "running with the machine as it is");
	return 1;
}

int machine_tune(const struct machine_req *req, const int *cpus,
		 unsigned ncpus, json_t **changes, char *msg, size_t msglen)
{
	struct tune t = { .req = req, .msg = msg, .msglen = msglen };
	int mark = mstate_count(), *all = NULL, err = 0;

	if (msg && msglen)
		msg[0] = '\0';
	if (changes)
		*changes = NULL;
	if (ncpus == 0 && !machine_online_cpus(&all, &ncpus))
		cpus = all;
	if (req->freq != FREQ_OFF || req->numa_balancing != NB_KEEP)
		err = tune_claim(&t);
	if (!err && mstate_owned())
		err = tune_freq(&t, cpus, ncpus);
	if (!err && mstate_owned())
		err = tune_numa(&t);
	if (err < 0)
		mstate_restore_from(mark, true, NULL);
	else if (changes)
		*changes = mstate_changes_json(mark, mstate_count());
	mstate_release_if_empty();
	free(all);
	return err ? err : t.soft;
}

int machine_tune_plan(const struct machine_req *req, const int *cpus,
		      unsigned ncpus, json_t **plan, char *msg, size_t msglen)
{
	struct tune t = { .req = req, .msg = msg, .msglen = msglen,
			  .plan = json_array() };
	int *all = NULL, err;

	if (msg && msglen)
		msg[0] = '\0';
	*plan = t.plan;
	if (!t.plan)
		return -ENOMEM;
	if (ncpus == 0 && !machine_online_cpus(&all, &ncpus))
		cpus = all;
	err = tune_freq(&t, cpus, ncpus);
	if (!err)
		err = tune_numa(&t);
	free(all);
	return err ? err : t.soft;
}
