/* SPDX-License-Identifier: MIT */
/*
 * machine.c - describe, freeze and restore the machine; see machine.h.
 *
 * Recorded changes live in a static array that is never freed: a signal
 * handler can walk it with machine_restore_signal_safe() while the main
 * thread is anywhere, including inside machine_restore().  Writing an old
 * value twice is harmless, so that race needs no lock.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "machine.h"
#include "sysfs.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define BOOST_PATH CPU_DIR "/cpufreq/boost"
#define NO_TURBO_PATH CPU_DIR "/intel_pstate/no_turbo"
#define NUMA_BAL_PATH "/proc/sys/kernel/numa_balancing"

/* Sizes of a recorded path (relative to the root) and of a value. */
#define CHG_PATH_LEN 128
#define CHG_VAL_LEN 32

/* One setting changed, or about to be: write @old back to undo it. */
struct change {
	char path[CHG_PATH_LEN];
	char old[CHG_VAL_LEN];
	char val[CHG_VAL_LEN];
	bool has_old;		/* false: nothing to restore (e.g. setspeed) */
};

/* The module's state (see machine.h): recorded changes, state file. */
static struct change chg[MACHINE_MAX_CHANGES];
static atomic_int nchg;			/* chg[0, nchg) are recorded */
static volatile sig_atomic_t own_state;	/* we created the state file */
static char state_file[PATH_MAX];

/* ---- small helpers ------------------------------------------------- */

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

/* Copy @src into @dst[@len]; -E2BIG when it does not fit. */
static int copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		return -E2BIG;
	memcpy(dst, src, n + 1);
	return 0;
}

/* 1 when @cpu is in the kernel cpulist @list ("0-3,8,10-11"), else 0. */
static int cpulist_has(const char *list, int cpu)
{
	const char *p = list;
	char *end;
	long a, b;

	while (*p) {
		a = strtol(p, &end, 10);
		if (end == p)
			return 0;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p)
				return 0;
		}
		if (cpu >= a && cpu <= b)
			return 1;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return 0;
}

/* Number of CPUs in a kernel cpulist, or -EINVAL when malformed. */
static int cpulist_count(const char *list)
{
	const char *p = list;
	char *end;
	long a, b, n = 0;

	while (*p) {
		a = strtol(p, &end, 10);
		if (end == p || a < 0)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -EINVAL;
		}
		n += b - a + 1;
		if (*end && *end != ',')
			return -EINVAL;
		p = *end ? end + 1 : end;
	}
	return n > INT_MAX ? -EINVAL : (int)n;
}

/*
 * Expand cpulist @list into a new array (*@out, *@n entries).  Returns 0,
 * -EINVAL for a malformed list or -ENOMEM.
 */
static int cpulist_expand(const char *list, int **out, unsigned *n)
{
	int count = cpulist_count(list), k = 0;
	int *v;

	if (count < 0)
		return count;
	v = calloc(count ? count : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (const char *p = list; *p;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b; c++)
			v[k++] = (int)c;
		p = *end ? end + 1 : end;
	}
	*out = v;
	*n = (unsigned)k;
	return 0;
}

/* Format @n sorted CPUs of @v as a cpulist ("0-3,8") into @buf[@len]. */
static void cpulist_format(const int *v, unsigned n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && used + 1 < len; i++) {
		unsigned j = i;

		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j > i)
			snprintf(buf + used, len - used, "%s%d-%d",
				 used ? "," : "", v[i], v[j]);
		else
			snprintf(buf + used, len - used, "%s%d",
				 used ? "," : "", v[i]);
		used = strlen(buf);
		i = j;
	}
}

/* Read a number into a JSON integer, or JSON null when unreadable. */
static json_t *json_u64_at(const char *path)
{
	uint64_t v;

	return sysfs_read_u64(path, &v) ? json_null() :
					  json_integer((json_int_t)v);
}

/* Read a string into JSON, or JSON null when unreadable. */
static json_t *json_str_at(const char *path)
{
	char buf[256];

	return sysfs_read_str(path, buf, sizeof(buf)) ? json_null() :
							json_string(buf);
}

/*
 * Write the directory of cpu @cpu's cpufreq attributes into @dir[@len]:
 * CPU_DIR "/cpufreq/policyN" when cpuN/cpufreq is the usual symlink to a
 * policy (so CPUs sharing a policy are tuned once), else
 * CPU_DIR "/cpuN/cpufreq".  Returns 0 or -ENOENT when there is no cpufreq.
 */
static int cpufreq_dir(int cpu, char *dir, size_t len)
{
	char rel[CHG_PATH_LEN], full[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpufreq", cpu);
	if (!sysfs_exists(rel) || sysfs_path(rel, full, sizeof(full)))
		return -ENOENT;
	n = readlink(full, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (!strncmp(base, "policy", 6)) {
			n = snprintf(dir, len, CPU_DIR "/cpufreq/%s", base);
			return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
		}
	}
	return copy_str(dir, len, rel) ? -ENAMETOOLONG : 0;
}

/* Write "<dir>/<attr>" into @out[@len]; -ENAMETOOLONG when too long. */
static int attr_path(char *out, size_t len, const char *dir, const char *attr)
{
	size_t d = strlen(dir), a = strlen(attr);

	if (d + 1 + a + 1 > len) {
		out[0] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(out, dir, d);
	out[d] = '/';
	memcpy(out + d + 1, attr, a + 1);
	return 0;
}

/* ---- state file ----------------------------------------------------- */

int machine_set_state_path(const char *path)
{
	if (own_state && atomic_load(&nchg))
		return -EBUSY;
	if (!path || !*path) {
		state_file[0] = '\0';
		return 0;
	}
	return copy_str(state_file, sizeof(state_file), path) ? -ENAMETOOLONG
								: 0;
}

const char *machine_state_path(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (state_file[0])
		return state_file;
	if (geteuid() == 0)
		snprintf(state_file, sizeof(state_file),
			 "/run/lockbench/state.json");
	else if (xdg && *xdg)
		snprintf(state_file, sizeof(state_file),
			 "%s/lockbench/state.json", xdg);
	else
		snprintf(state_file, sizeof(state_file),
			 "/tmp/lockbench-%u/state.json", (unsigned)getuid());
	return state_file;
}

/*
 * Create the directory holding the state file (one level, mode 0700).
 * It must be a real directory owned by us or by root (not a symlink or
 * a directory someone else planted in /tmp): -EPERM otherwise.  Returns
 * 0 or -errno.
 */
static int state_mkdir(void)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", machine_state_path());
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || (st.st_uid != geteuid() && st.st_uid != 0))
		return -EPERM;
	return 0;
}

/* The JSON of chg[@from, @to): [{path, old, new}, ...]; NULL if no memory. */
static json_t *changes_json(int from, int to)
{
	json_t *arr = json_array();

	for (int i = from; arr && i < to; i++) {
		json_t *o = json_pack("{s:s, s:o, s:s}", "path", chg[i].path,
				      "old", chg[i].has_old ?
				      json_string(chg[i].old) : json_null(),
				      "new", chg[i].val);

		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* Write all of @buf to @fd; 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* fsync the directory holding @path so a rename in it is durable. */
static void fsync_dir_of(const char *path)
{
	char dir[PATH_MAX], *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Replace the state file with the recorded changes (@persist: marked as
 * left on purpose by `system tune`): write a temporary file, fsync,
 * rename over the state file, fsync the directory.  Returns 0 or -errno;
 * the old state file is intact on failure.
 */
static int state_save(bool persist)
{
	const char *path = machine_state_path();
	char tmp[PATH_MAX + 32], *text;
	json_t *doc;
	int fd, err;

	doc = json_pack("{s:i, s:i, s:s, s:b, s:o}", "version", 1,
			"pid", (int)getpid(), "root", sysfs_root(),
			"persist", persist,
			"changes", changes_json(0, atomic_load(&nchg)));
	text = doc ? json_dumps(doc, JSON_INDENT(1)) : NULL;
	json_decref(doc);
	if (!text)
		return -ENOMEM;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		free(text);
		return err;
	}
	err = write_all(fd, text, strlen(text));
	if (!err && (write_all(fd, "\n", 1) || fsync(fd)))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	free(text);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	else
		fsync_dir_of(path);
	return err;
}

/*
 * Claim the state file for this process: create it exclusively, so two
 * lockbench processes never record over each other.  Returns 0 (also
 * when already ours), -EEXIST when another one's file exists, or -errno.
 */
static int state_claim(void)
{
	int fd, err;

	if (own_state)
		return 0;
	err = state_mkdir();
	if (err)
		return err;
	fd = open(machine_state_path(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	close(fd);
	own_state = 1;
	return state_save(false);
}

/* Give the state file up when nothing is recorded in it any more. */
static void state_release_if_empty(void)
{
	if (own_state && atomic_load(&nchg) == 0) {
		unlink(machine_state_path());
		own_state = 0;
	}
}

/* Append @n planned changes to the record and save the state file. */
static int record(const struct change *ops, int n)
{
	int base = atomic_load(&nchg);
	int err;

	if (base + n > MACHINE_MAX_CHANGES)
		return -E2BIG;
	memcpy(&chg[base], ops, (size_t)n * sizeof(*ops));
	atomic_store(&nchg, base + n);
	err = state_save(false);
	if (err)
		atomic_store(&nchg, base);
	return err;
}

/* ---- restore -------------------------------------------------------- */

/*
 * Write back the old values of chg[@from, nchg), newest first.  When all
 * succeed the entries are dropped and the state file rewritten (the
 * caller deletes it once it is done with it, state_release_if_empty()).
 * On failure, with @report a line per failure goes to
 * stderr, and *@bad (if not NULL) gets the index of the first failure;
 * everything stays recorded so a retry can redo it.  Returns 0 or the
 * first -errno.
 */
static int restore_from(int from, bool report, int *bad)
{
	int n = atomic_load(&nchg), first = 0, err;

	for (int i = n - 1; i >= from; i--) {
		if (!chg[i].has_old)
			continue;
		err = sysfs_write_str(chg[i].path, chg[i].old);
		if (err && report)
			fprintf(stderr,
				"lockbench: restore (%s = %s): %s; run 'lockbench system reset'\n",
				chg[i].path, chg[i].old, strerror(-err));
		if (err && !first) {
			first = err;
			if (bad)
				*bad = i;
		}
	}
	if (first)
		return first;
	atomic_store(&nchg, from);
	if (own_state)
		state_save(false);
	return 0;
}

int machine_restore(void)
{
	int err = restore_from(0, true, NULL);

	state_release_if_empty();
	return err;
}

void machine_restore_signal_safe(void)
{
	static const char fail[] =
		"lockbench: restoring the machine failed; run 'lockbench system reset'\n";
	int saved = errno, n = atomic_load(&nchg), bad = 0;

	for (int i = n - 1; i >= 0; i--)
		if (chg[i].has_old && sysfs_write_str(chg[i].path, chg[i].old))
			bad = 1;
	if (bad) {
		ssize_t w = write(STDERR_FILENO, fail, sizeof(fail) - 1);

		(void)w;	/* nothing better to do from a handler */
	} else {
		atomic_store(&nchg, 0);
		if (own_state && state_file[0])
			unlink(state_file);
		own_state = 0;
	}
	errno = saved;
}

int machine_tune_persist(void)
{
	int err;

	if (!own_state || atomic_load(&nchg) == 0)
		return 0;
	err = state_save(true);
	if (err)
		return err;
	atomic_store(&nchg, 0);
	own_state = 0;
	return 0;
}

/* ---- reset from the state file -------------------------------------- */

/* 1 when @path is one lockbench may write: under /sys or /proc, no "..". */
static int path_allowed(const char *path)
{
	return (!strncmp(path, "/sys/", 5) || !strncmp(path, "/proc/", 6)) &&
	       !strstr(path, "/../") && strlen(path) < CHG_PATH_LEN;
}

/*
 * Load the state file into the record (replacing nothing: the record
 * must be empty).  Returns 0, -ENOENT when there is none, -EINVAL (with
 * @msg) when malformed, -EBUSY when its writer still runs.
 */
static int state_load(char *msg, size_t len, char *root, size_t rootlen)
{
	const char *path = machine_state_path();
	json_error_t jerr;
	json_t *doc, *arr, *c;
	const char *r = "";
	int pid = 0, persist = 0, n = 0;
	size_t i;

	doc = json_load_file(path, 0, &jerr);
	if (!doc) {
		struct stat st;

		if (stat(path, &st))
			return -ENOENT;
		if (st.st_size == 0) {	/* killed between claim and save */
			unlink(path);
			return -ENOENT;
		}
		snprintf(msg, len, "lockbench: state file (%s): malformed: %s",
			 path, jerr.text);
		return -EINVAL;
	}
	if (json_unpack(doc, "{s:i, s:s, s?b, s:o}", "pid", &pid, "root", &r,
			"persist", &persist, "changes", &arr) ||
	    !json_is_array(arr) || json_array_size(arr) > MACHINE_MAX_CHANGES ||
	    copy_str(root, rootlen, r))
		goto bad;
	if (!persist && pid != getpid() && pid > 0 && kill(pid, 0) == 0) {
		snprintf(msg, len,
			 "lockbench: reset (%s): lockbench pid %d still runs and restores the machine when it ends",
			 path, pid);
		json_decref(doc);
		return -EBUSY;
	}
	json_array_foreach(arr, i, c) {
		json_t *jp = json_object_get(c, "path");
		json_t *jo = json_object_get(c, "old");
		json_t *jn = json_object_get(c, "new");
		struct change *e = &chg[n];

		if (!json_is_string(jp) || !path_allowed(json_string_value(jp)) ||
		    !(json_is_string(jo) || json_is_null(jo)) ||
		    copy_str(e->path, sizeof(e->path), json_string_value(jp)) ||
		    copy_str(e->old, sizeof(e->old),
			     jo && json_is_string(jo) ? json_string_value(jo) : "") ||
		    copy_str(e->val, sizeof(e->val),
			     json_is_string(jn) ? json_string_value(jn) : ""))
			goto bad;
		e->has_old = json_is_string(jo);
		n++;
	}
	atomic_store(&nchg, n);
	json_decref(doc);
	return 0;
bad:
	snprintf(msg, len,
		 "lockbench: state file (%s): malformed: expected {pid, root, changes: [{path, old, new}]}",
		 path);
	json_decref(doc);
	return -EINVAL;
}

int machine_reset_from_state(char *msg, size_t len)
{
	char root[PATH_MAX], saved_root[PATH_MAX];
	int err, n, bad = 0;

	msg[0] = '\0';
	if (atomic_load(&nchg))
		return -EBUSY;
	err = state_load(msg, len, root, sizeof(root));
	if (err == -ENOENT) {
		snprintf(msg, len, "nothing to restore");
		return 0;
	}
	if (err)
		return err;
	n = atomic_load(&nchg);
	snprintf(saved_root, sizeof(saved_root), "%s", sysfs_root());
	sysfs_set_root(root);
	own_state = 1;		/* ours now: deleted once restored */
	err = restore_from(0, false, &bad);
	state_release_if_empty();
	if (err) {
		snprintf(msg, len, "lockbench: reset (%s = %s): %s",
			 chg[bad].path, chg[bad].old, strerror(-err));
		atomic_store(&nchg, 0);	/* keep the file for a retry */
		own_state = 0;
	} else {
		snprintf(msg, len, "restored %d settings from %s", n,
			 machine_state_path());
	}
	sysfs_set_root(saved_root);
	return err;
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
};

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

	err = attr ? attr_path(c->path, sizeof(c->path), dir, attr) :
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
	int base = atomic_load(&nchg), err;

	if (n == 0)
		return 0;
	err = record(ops, n);
	if (err) {
		note(t->msg, t->msglen, "machine state (%s): %s",
		     machine_state_path(), strerror(-err));
		return err;
	}
	for (int i = 0; i < n; i++) {
		err = sysfs_write_str(ops[i].path, ops[i].val);
		if (err) {
			atomic_store(&nchg, base + i);
			state_save(false);
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

	attr_path(p, sizeof(p), dir, "cpuinfo_min_freq");
	err = sysfs_read_u64(p, &lo);
	attr_path(p, sizeof(p), dir, "cpuinfo_max_freq");
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
	attr_path(p, sizeof(p), dir, "base_frequency");
	if (sysfs_read_u64(p, khz) || *khz < lo || *khz > hi)
		*khz = hi;
	return 0;
}

/* Read @dir/@attr into @buf[@len]; 0 or -errno. */
static int read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	char p[CHG_PATH_LEN];
	int err = attr_path(p, sizeof(p), dir, attr);

	return err ? err : sysfs_read_str(p, buf, len);
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
	err = read_attr(dir, "scaling_governor", gov, sizeof(gov));
	if (!err)
		err = read_attr(dir, "scaling_min_freq", smin, sizeof(smin));
	if (!err)
		err = read_attr(dir, "scaling_max_freq", smax, sizeof(smax));
	if (err) {
		note(t->msg, t->msglen, "cpufreq (%s): cannot read: %s", dir,
		     strerror(-err));
		return err;
	}
	lo = strtoull(smin, NULL, 10);
	hi = strtoull(smax, NULL, 10);
	attr_path(sp, sizeof(sp), dir, "scaling_setspeed");
	if (read_attr(dir, "scaling_available_governors", avail, sizeof(avail)))
		avail[0] = '\0';
	if (has_word(avail, "userspace") && sysfs_exists(sp)) {
		if (khz > hi)
			err = plan(ops, n, dir, "scaling_max_freq", smax, want);
		if (khz < lo)
			err = plan(ops, n, dir, "scaling_min_freq", smin, want);
		if (!err && strcmp(gov, "userspace"))
			err = plan(ops, n, dir, "scaling_governor", gov,
				   "userspace");
		/* Old setspeed only means something under userspace. */
		if (!err && (strcmp(gov, "userspace") ||
			     sysfs_read_str(sp, cur, sizeof(cur))))
			return plan(ops, n, dir, "scaling_setspeed", NULL, want);
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

		if (cpufreq_dir(cpus[i], dir, sizeof(dir))) {
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
		if (cpufreq_dir(cpus[i], dir, sizeof(dir)))
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
	int mark = atomic_load(&nchg), cpu, err;

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
	restore_from(mark, true, NULL);
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
	int err = state_claim();

	if (!err)
		return 0;
	if (err != -EEXIST) {
		note(t->msg, t->msglen, "machine state (%s): %s", path,
		     strerror(-err));
	} else {
		note(t->msg, t->msglen,
		     "machine state (%s): left by another lockbench (running, killed, or 'lockbench system tune'); 'lockbench system reset' restores it",
		     path);
		err = -EBUSY;
	}
	if (t->req->freq == FREQ_FIXED || t->req->numa_balancing == NB_OFF)
		return err;
	note(t->msg, t->msglen, "running with the machine as it is");
	return 1;
}

/*
 * Every online CPU as a new array (*@all, *@n), for callers that pass no
 * CPU list.  Returns 0 or -errno.
 */
static int online_cpus(int **all, unsigned *n)
{
	char online[1024];
	int err = sysfs_read_str(CPU_DIR "/online", online, sizeof(online));

	return err ? err : cpulist_expand(online, all, n);
}

int machine_tune(const struct machine_req *req, const int *cpus,
		 unsigned ncpus, json_t **changes, char *msg, size_t msglen)
{
	struct tune t = { .req = req, .msg = msg, .msglen = msglen };
	int mark = atomic_load(&nchg), *all = NULL, err = 0;

	if (msg && msglen)
		msg[0] = '\0';
	if (changes)
		*changes = NULL;
	if (ncpus == 0 && !online_cpus(&all, &ncpus))
		cpus = all;
	if (req->freq != FREQ_OFF || req->numa_balancing != NB_KEEP)
		err = tune_claim(&t);
	if (!err && own_state)
		err = tune_freq(&t, cpus, ncpus);
	if (!err && own_state)
		err = tune_numa(&t);
	if (err < 0)
		restore_from(mark, true, NULL);
	else if (changes)
		*changes = changes_json(mark, atomic_load(&nchg));
	state_release_if_empty();
	free(all);
	return err ? err : t.soft;
}

/* ---- describe ------------------------------------------------------- */

/* json_object_set_new() that remembers a failure (out of memory) in *@ok. */
static void set(json_t *obj, const char *key, json_t *val, bool *ok)
{
	if (!val || json_object_set_new(obj, key, val))
		*ok = false;
}

/* Kernel release/version/arch: procfs under the root, else uname(2). */
static json_t *describe_kernel(void)
{
	struct utsname u;
	json_t *o = json_object();
	bool ok = o != NULL;
	json_t *rel = json_str_at("/proc/sys/kernel/osrelease");
	json_t *ver = json_str_at("/proc/sys/kernel/version");
	json_t *arch = json_str_at("/proc/sys/kernel/arch");

	if (!uname(&u)) {
		if (json_is_null(rel))
			rel = json_string(u.release);
		if (json_is_null(ver))
			ver = json_string(u.version);
		if (json_is_null(arch))
			arch = json_string(u.machine);
	}
	if (o) {
		set(o, "release", rel, &ok);
		set(o, "version", ver, &ok);
		set(o, "arch", arch, &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Names of a few arm64 cores by "CPU implementer"/"CPU part" (MIDR). */
static const struct {
	unsigned impl, part;
	const char *name;
} arm_cores[] = {
	{ 0x41, 0xd08, "ARM Cortex-A72" }, { 0x41, 0xd0c, "ARM Neoverse-N1" },
	{ 0x41, 0xd40, "ARM Neoverse-V1" }, { 0x41, 0xd49, "ARM Neoverse-N2" },
	{ 0x41, 0xd4f, "ARM Neoverse-V2" }, { 0x48, 0xd01, "HiSilicon TSV110" },
	{ 0xc0, 0xac3, "Ampere-1" }, { 0xc0, 0xac4, "Ampere-1a" },
};

/* The model name of an arm64 CPU from its MIDR fields. */
static json_t *arm_model(unsigned impl, unsigned part)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(arm_cores) / sizeof(arm_cores[0]); i++)
		if (arm_cores[i].impl == impl && arm_cores[i].part == part)
			return json_string(arm_cores[i].name);
	snprintf(buf, sizeof(buf), "implementer 0x%02x part 0x%03x", impl,
		 part);
	return json_string(buf);
}

/*
 * The CPU model from /proc/cpuinfo: the first "model name" (x86, some
 * arm64), else "CPU implementer"/"CPU part" (arm64); JSON null if none.
 */
static json_t *describe_cpu_model(void)
{
	char path[PATH_MAX], *line = NULL, *colon;
	unsigned impl = 0, part = 0;
	bool has_impl = false, has_part = false;
	json_t *model = NULL;
	size_t cap = 0;
	FILE *f;

	if (sysfs_path("/proc/cpuinfo", path, sizeof(path)))
		return json_null();
	f = fopen(path, "re");
	if (!f)
		return json_null();
	while (!model && getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		if (!strncmp(line, "model name", 10))
			model = json_string(colon);
		else if (!strncmp(line, "CPU implementer", 15) && !has_impl)
			has_impl = sscanf(colon, "%x", &impl) == 1;
		else if (!strncmp(line, "CPU part", 8) && !has_part)
			has_part = sscanf(colon, "%x", &part) == 1;
	}
	free(line);
	fclose(f);
	if (model)
		return model;
	return has_impl && has_part ? arm_model(impl, part) : json_null();
}

/* scaling_available_governors as a JSON array of names, or null. */
static json_t *governors_json(const char *dir)
{
	char buf[256], *save = NULL;
	json_t *arr;

	if (read_attr(dir, "scaling_available_governors", buf, sizeof(buf)))
		return json_null();
	arr = json_array();
	for (char *w = strtok_r(buf, " ", &save); arr && w;
	     w = strtok_r(NULL, " ", &save))
		json_array_append_new(arr, json_string(w));
	return arr;
}

/* The cpufreq state of @cpu as JSON, null when it has no cpufreq. */
static json_t *describe_cpufreq(int cpu)
{
	static const char *const num[][2] = {
		{ "scaling_min_khz", "scaling_min_freq" },
		{ "scaling_max_khz", "scaling_max_freq" },
		{ "scaling_cur_khz", "scaling_cur_freq" },
		{ "cpuinfo_min_khz", "cpuinfo_min_freq" },
		{ "cpuinfo_max_khz", "cpuinfo_max_freq" },
		{ "base_khz", "base_frequency" },
		{ "setspeed_khz", "scaling_setspeed" },
	};
	char dir[CHG_PATH_LEN], p[CHG_PATH_LEN];
	json_t *o;
	bool ok = true;

	if (cpufreq_dir(cpu, dir, sizeof(dir)))
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	set(o, "policy", json_string(dir), &ok);
	attr_path(p, sizeof(p), dir, "scaling_driver");
	set(o, "driver", json_str_at(p), &ok);
	attr_path(p, sizeof(p), dir, "scaling_governor");
	set(o, "governor", json_str_at(p), &ok);
	set(o, "available_governors", governors_json(dir), &ok);
	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
		attr_path(p, sizeof(p), dir, num[i][1]);
		set(o, num[i][0], json_u64_at(p), &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The thread siblings list of @cpu ("0,2"), JSON null when unknown. */
static json_t *siblings_json(int cpu)
{
	char p[CHG_PATH_LEN];

	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/topology/thread_siblings_list",
		 cpu);
	return json_str_at(p);
}

/* One "cpus" entry: {cpu, cpufreq, siblings}. */
static json_t *describe_cpu(int cpu)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (o) {
		set(o, "cpu", json_integer(cpu), &ok);
		set(o, "cpufreq", describe_cpufreq(cpu), &ok);
		set(o, "siblings", siblings_json(cpu), &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/*
 * The used CPUs that share a core with another used CPU, as a JSON
 * array; null when no CPU's thread_siblings_list is readable.
 */
static json_t *smt_shared_json(const json_t *cpus)
{
	json_t *out = json_array(), *a, *b;
	bool known = false;
	size_t i, j;

	json_array_foreach(cpus, i, a) {
		const char *sib = json_string_value(json_object_get(a, "siblings"));
		int me = (int)json_integer_value(json_object_get(a, "cpu"));

		if (!sib)
			continue;
		known = true;
		json_array_foreach(cpus, j, b) {
			int other = (int)json_integer_value(json_object_get(b, "cpu"));

			if (other != me && cpulist_has(sib, other)) {
				json_array_append_new(out, json_integer(me));
				break;
			}
		}
	}
	if (known)
		return out;
	json_decref(out);
	return json_null();
}

/* The boost state: {path, on} from cpufreq/boost or intel_pstate, or null. */
static json_t *describe_boost(void)
{
	uint64_t v;

	if (!sysfs_read_u64(BOOST_PATH, &v))
		return json_pack("{s:s, s:b}", "path", BOOST_PATH, "on", v != 0);
	if (!sysfs_read_u64(NO_TURBO_PATH, &v))
		return json_pack("{s:s, s:b}", "path", NO_TURBO_PATH, "on",
				 v == 0);
	return json_null();
}

/* /sys/devices/system/cpu/smt/active as a JSON boolean, or null. */
static json_t *describe_smt(void)
{
	uint64_t v;

	if (sysfs_read_u64(CPU_DIR "/smt/active", &v))
		return json_null();
	return json_boolean(v != 0);
}

/* 1 if a process named irqbalance is in <root>/proc, 0 if not, -errno. */
static int irqbalance_running(void)
{
	char path[PATH_MAX], comm[64], rel[300];
	struct dirent *d;
	int found = 0;
	DIR *dir;

	if (sysfs_path("/proc", path, sizeof(path)))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!found && (d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]) ||
		    strlen(d->d_name) > 20)
			continue;
		snprintf(rel, sizeof(rel), "/proc/%s/comm", d->d_name);
		found = !sysfs_read_str(rel, comm, sizeof(comm)) &&
			!strcmp(comm, "irqbalance");
	}
	closedir(dir);
	return found;
}

/* /proc/loadavg's three averages as a JSON array, or null. */
static json_t *describe_loadavg(void)
{
	char buf[128];
	double a, b, c;

	if (sysfs_read_str("/proc/loadavg", buf, sizeof(buf)) ||
	    sscanf(buf, "%lf %lf %lf", &a, &b, &c) != 3)
		return json_null();
	return json_pack("[f, f, f]", a, b, c);
}

/* The used CPUs: @cpus, or every online CPU when @ncpus is 0. */
static json_t *describe_cpus(const int *cpus, unsigned ncpus)
{
	char online[256];
	json_t *arr = json_array();
	int *all = NULL;
	unsigned n = ncpus;

	if (!arr)
		return NULL;
	if (ncpus == 0 && !sysfs_read_str(CPU_DIR "/online", online,
					  sizeof(online)) &&
	    !cpulist_expand(online, &all, &n))
		cpus = all;
	for (unsigned i = 0; cpus && i < n; i++) {
		if (json_array_append_new(arr, describe_cpu(cpus[i]))) {
			json_decref(arr);
			arr = NULL;
			break;
		}
	}
	free(all);
	return arr;
}

json_t *machine_describe(const int *cpus, unsigned ncpus)
{
	json_t *o = json_object(), *list = describe_cpus(cpus, ncpus);
	int irq = irqbalance_running();
	bool ok = o && list;

	if (!ok) {
		json_decref(o);
		json_decref(list);
		return NULL;
	}
	set(o, "kernel", describe_kernel(), &ok);
	set(o, "cpu_model", describe_cpu_model(), &ok);
	set(o, "cpus", list, &ok);
	set(o, "boost", describe_boost(), &ok);
	set(o, "smt_active", describe_smt(), &ok);
	set(o, "smt_shared", smt_shared_json(list), &ok);
	set(o, "isolated", json_str_at(CPU_DIR "/isolated"), &ok);
	set(o, "numa_balancing", json_u64_at(NUMA_BAL_PATH), &ok);
	set(o, "irqbalance", irq < 0 ? json_null() : json_boolean(irq), &ok);
	set(o, "loadavg", describe_loadavg(), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- noise report --------------------------------------------------- */

/* The governor of a "cpus" entry, or NULL without cpufreq. */
static const char *entry_governor(const json_t *e)
{
	return json_string_value(json_object_get(json_object_get(e, "cpufreq"),
						 "governor"));
}

/* Print one "cpuN" line of the report. */
static void report_cpu(const json_t *e, FILE *out)
{
	const json_t *f = json_object_get(e, "cpufreq");
	char name[32];

	snprintf(name, sizeof(name), "cpu%lld",
		 (long long)json_integer_value(json_object_get(e, "cpu")));
	if (!json_is_object(f)) {
		fprintf(out, "%-16s no cpufreq\n", name);
		return;
	}
	fprintf(out, "%-16s governor %s, %lld-%lld kHz, now %lld kHz (%s)\n",
		name, entry_governor(e) ? entry_governor(e) : "?",
		(long long)json_integer_value(json_object_get(f, "scaling_min_khz")),
		(long long)json_integer_value(json_object_get(f, "scaling_max_khz")),
		(long long)json_integer_value(json_object_get(f, "scaling_cur_khz")),
		json_string_value(json_object_get(f, "driver")) ?
		json_string_value(json_object_get(f, "driver")) : "driver ?");
}

/* 1 when @gov keeps the frequency where it was put. */
static int governor_ok(const char *gov)
{
	return !strcmp(gov, "performance") || !strcmp(gov, "userspace");
}

/*
 * One warning per governor that lets the frequency move, naming the CPUs
 * that run it.  Returns the number of warnings printed.
 */
static int warn_governors(const json_t *cpus, FILE *out)
{
	size_t n = json_array_size(cpus), i, j;
	int *list = calloc(n ? n : 1, sizeof(*list)), warnings = 0;
	char buf[256];

	for (i = 0; list && i < n; i++) {
		const char *g = entry_governor(json_array_get(cpus, i));
		unsigned k = 0;

		if (!g || governor_ok(g))
			continue;
		for (j = 0; j < i; j++) {
			const char *h = entry_governor(json_array_get(cpus, j));

			if (h && !strcmp(g, h))
				break;
		}
		if (j < i)
			continue;	/* already reported */
		for (j = i; j < n; j++) {
			const json_t *e = json_array_get(cpus, j);
			const char *h = entry_governor(e);

			if (h && !strcmp(g, h))
				list[k++] = (int)json_integer_value(
					json_object_get(e, "cpu"));
		}
		cpulist_format(list, k, buf, sizeof(buf));
		fprintf(out,
			"warning: governor %s on cpus %s lets the frequency follow the load; freeze it with --freq\n",
			g, buf);
		warnings++;
	}
	free(list);
	return warnings;
}

/* The report's CPU lines and the no-cpufreq warning; returns warnings. */
static int report_cpus(const json_t *cpus, FILE *out)
{
	size_t i;
	const json_t *e;
	int nofreq = 0;

	json_array_foreach(cpus, i, e) {
		report_cpu(e, out);
		nofreq |= !json_is_object(json_object_get(e, "cpufreq"));
	}
	return nofreq;
}

/* Print the kernel and CPU model lines of the report. */
static void report_head(const json_t *d, FILE *out)
{
	const json_t *k = json_object_get(d, "kernel");
	const char *s;

	fprintf(out, "%-16s %s (%s)\n", "kernel",
		json_string_value(json_object_get(k, "release")) ?: "?",
		json_string_value(json_object_get(k, "arch")) ?: "?");
	s = json_string_value(json_object_get(d, "cpu_model"));
	fprintf(out, "%-16s %s\n", "cpu model", s ? s : "unknown");
}

/* Print the machine-wide lines after the CPUs. */
static void report_machine(const json_t *d, FILE *out)
{
	const json_t *b, *la, *v;
	const char *s;

	b = json_object_get(d, "boost");
	if (json_is_object(b))
		fprintf(out, "%-16s %s (%s)\n", "boost",
			json_is_true(json_object_get(b, "on")) ? "on" : "off",
			json_string_value(json_object_get(b, "path")));
	else
		fprintf(out, "%-16s %s\n", "boost", "unknown (no control)");
	v = json_object_get(d, "smt_active");
	fprintf(out, "%-16s %s\n", "smt", json_is_boolean(v) ?
		(json_is_true(v) ? "active" : "off") : "unknown");
	s = json_string_value(json_object_get(d, "isolated"));
	fprintf(out, "%-16s %s\n", "isolated cpus", !s ? "unknown" :
		*s ? s : "none");
	v = json_object_get(d, "numa_balancing");
	if (json_is_integer(v))
		fprintf(out, "%-16s %lld\n", "numa_balancing",
			(long long)json_integer_value(v));
	else
		fprintf(out, "%-16s %s\n", "numa_balancing", "not built in");
	v = json_object_get(d, "irqbalance");
	fprintf(out, "%-16s %s\n", "irqbalance", !json_is_boolean(v) ?
		"unknown" : json_is_true(v) ? "running" : "not running");
	la = json_object_get(d, "loadavg");
	if (json_array_size(la) == 3)
		fprintf(out, "%-16s %.2f %.2f %.2f\n", "load average",
			json_number_value(json_array_get(la, 0)),
			json_number_value(json_array_get(la, 1)),
			json_number_value(json_array_get(la, 2)));
}

/* The machine-wide warnings; returns how many were printed. */
static int warn_machine(const json_t *d, FILE *out)
{
	const json_t *shared = json_object_get(d, "smt_shared"), *v;
	const char *iso = json_string_value(json_object_get(d, "isolated"));
	int n = 0;

	if (json_is_true(json_object_get(json_object_get(d, "boost"), "on")))
		n += fprintf(out, "warning: boost/turbo is on (%s): the frequency depends on temperature and on the other cores\n",
			     json_string_value(json_object_get(json_object_get(d, "boost"), "path"))) > 0;
	if (json_array_size(shared)) {
		int list[64];
		char buf[256];
		unsigned k = 0;
		size_t i;

		json_array_foreach(shared, i, v)
			if (k < 64)
				list[k++] = (int)json_integer_value(v);
		cpulist_format(list, k, buf, sizeof(buf));
		n += fprintf(out, "warning: SMT siblings in use (cpus %s): threads share a core's pipeline and caches\n",
			     buf) > 0;
	}
	if (iso && !*iso)
		n += fprintf(out, "warning: no isolated CPUs (isolcpus=): other tasks may run on the measured CPUs\n") > 0;
	v = json_object_get(d, "numa_balancing");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		n += fprintf(out, "warning: kernel.numa_balancing is %lld: pages and tasks migrate during the run\n",
			     (long long)json_integer_value(v)) > 0;
	if (json_is_true(json_object_get(d, "irqbalance")))
		n += fprintf(out, "warning: irqbalance is running: it moves interrupts between CPUs during the run\n") > 0;
	v = json_array_get(json_object_get(d, "loadavg"), 0);
	if (v && json_number_value(v) > 0.5)
		n += fprintf(out, "warning: load average %.2f > 0.5: other work competes with the run\n",
			     json_number_value(v)) > 0;
	return n;
}

int machine_noise_report(const json_t *desc, FILE *out)
{
	const json_t *cpus = json_object_get(desc, "cpus");
	int n;

	report_head(desc, out);
	n = report_cpus(cpus, out);
	report_machine(desc, out);
	if (n)
		fprintf(out, "warning: frequency cannot be controlled on this machine (no cpufreq)\n");
	n += warn_governors(cpus, out);
	n += warn_machine(desc, out);
	if (fflush(out) || ferror(out))
		return -EIO;
	return n;
}
