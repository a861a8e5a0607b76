/* SPDX-License-Identifier: MIT */
/*
 * machine_state.c - the record of machine changes, the state file that
 * keeps it across a crash, restoring it and `lockbench system reset`
 * (see machine.h for the calling sequence, machine_impl.h for what
 * machine_tune.c uses).
 *
 * Recorded changes live in a static array that is never freed: a signal
 * handler can walk it with machine_restore_signal_safe() while the main
 * thread is anywhere, including inside machine_restore().  Writing an old
 * value twice is harmless, so that race needs no lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machine_impl.h"
#include "sysfs.h"

/* The module's state (see machine.h): recorded changes, state file. */
static struct change chg[MACHINE_MAX_CHANGES];
static atomic_int nchg;			/* chg[0, nchg) are recorded */
static volatile sig_atomic_t own_state;	/* we created the state file */
static char state_file[PATH_MAX];
static bool state_explicit;
#define STATE_MAX_BYTES (16 << 20)		/* set by machine_set_state_path() */

int mstate_count(void)
{
	return atomic_load(&nchg);
}

bool mstate_owned(void)
{
	return own_state;
}

/* ---- state file ----------------------------------------------------- */

const char *machine_reset_command(char *buf, size_t len)
{
	if (state_explicit)
		snprintf(buf, len, "LOCKBENCH_STATE='%s' lockbench system reset",
			 machine_state_path());
	else
		snprintf(buf, len, "lockbench system reset");
	return buf;
}

int machine_set_state_path(const char *path)
{
	if (own_state && atomic_load(&nchg))
		return -EBUSY;
	state_explicit = path && *path;
	if (!state_explicit) {
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

json_t *mstate_changes_json(int from, int to)
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
			"changes", mstate_changes_json(0, atomic_load(&nchg)));
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

int mstate_claim(void)
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

void mstate_release_if_empty(void)
{
	if (own_state && atomic_load(&nchg) == 0) {
		unlink(machine_state_path());
		own_state = 0;
	}
}

int mstate_record(const struct change *ops, int n)
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

void mstate_truncate(int n)
{
	atomic_store(&nchg, n);
	state_save(false);
}

/* ---- restore -------------------------------------------------------- */

int mstate_restore_from(int from, bool report, int *bad)
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
	int err = mstate_restore_from(0, true, NULL);

	mstate_release_if_empty();
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
 * The state file's "changes" array @arr ({path, old, new} each) into
 * chg[] (@arr has at most MACHINE_MAX_CHANGES entries).  Returns how
 * many, or -EINVAL when an entry is malformed or names a path lockbench
 * may not write.
 */
static int load_changes(const json_t *arr)
{
	json_t *c;
	size_t i;

	json_array_foreach(arr, i, c) {
		json_t *jp = json_object_get(c, "path");
		json_t *jo = json_object_get(c, "old");
		json_t *jn = json_object_get(c, "new");
		struct change *e = &chg[i];

		if (!json_is_string(jp) || !path_allowed(json_string_value(jp)) ||
		    !(json_is_string(jo) || json_is_null(jo)) ||
		    copy_str(e->path, sizeof(e->path), json_string_value(jp)) ||
		    copy_str(e->old, sizeof(e->old),
			     jo && json_is_string(jo) ? json_string_value(jo) : "") ||
		    copy_str(e->val, sizeof(e->val),
			     json_is_string(jn) ? json_string_value(jn) : ""))
			return -EINVAL;
		e->has_old = json_is_string(jo);
	}
	return (int)json_array_size(arr);
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
	json_t *doc, *arr;
	const char *r = "";
	int pid = 0, persist = 0, n;

	struct stat st;

	if (stat(path, &st))
		return -ENOENT;
	if (st.st_size > STATE_MAX_BYTES) {	/* MACHINE_MAX_CHANGES fit in far less */
		snprintf(msg, len, "lockbench: state file (%s): malformed: larger than %d bytes",
			 path, STATE_MAX_BYTES);
		return -EINVAL;
	}
	doc = json_load_file(path, 0, &jerr);
	if (!doc) {
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
	n = load_changes(arr);
	if (n < 0)
		goto bad;
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
	err = mstate_restore_from(0, false, &bad);
	mstate_release_if_empty();
	if (err) {
		snprintf(msg, len, "lockbench: reset (%s = %s): %s",
			 chg[bad].path, chg[bad].old, strerror(-err));
		atomic_store(&nchg, 0);	/* keep the file for a retry */
		own_state = 0;
	} else {
		snprintf(msg, len, "restored %d setting%s from %s", n, n == 1 ? "" : "s",
			 machine_state_path());
	}
	sysfs_set_root(saved_root);
	return err;
}
