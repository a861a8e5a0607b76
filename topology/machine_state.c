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

#include "../lib/atomicfile.h"
#include "machine_impl.h"
#include "sysfs.h"

/* The module's state (see machine.h): recorded changes, state file. */
static struct change chg[MACHINE_MAX_CHANGES];
static atomic_int nchg;			/* chg[0, nchg) are recorded */
static volatile sig_atomic_t own_state;	/* we created the state file */
static char state_file[PATH_MAX];
static bool state_explicit;		/* set by machine_set_state_path() */
/* The file we created or loaded (device, inode): the only one we unlink
 * or rename over, and only while the path still names it. */
static volatile dev_t own_dev;
static volatile ino_t own_ino;
#define STATE_MAX_BYTES (16 << 20)
/* The key and value every state file lockbench writes carries: a file
 * without them was not written by lockbench and is never touched. */
#define STATE_MARK_KEY "lockbench"
#define STATE_MARK_VAL "machine state"

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

/*
 * 1 when @path still names the state file this process owns: the
 * regular file it created (or loaded for a reset), by device and inode.
 * lstat() only, so a signal handler may call it.
 */
static int path_is_ours(const char *path)
{
	struct stat st;

	return own_state && !lstat(path, &st) && S_ISREG(st.st_mode) &&
	       st.st_dev == own_dev && st.st_ino == own_ino;
}

/* Give the state file up, unlinking it only while it is still ours
 * (async-signal-safe: lstat and unlink on a path resolved earlier). */
static void state_unlink(void)
{
	if (state_file[0] && path_is_ours(state_file))
		unlink(state_file);
	own_state = 0;
}

/* Remember @fd's file as ours; 0 or -errno. */
static int own_fd(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	own_dev = st.st_dev;
	own_ino = st.st_ino;
	return 0;
}

/* The state file's text (@persist: left on purpose by `system tune`),
 * marked as lockbench's, a newline at its end; malloc'd, NULL when out
 * of memory. */
static char *state_text(bool persist)
{
	json_t *doc = json_pack("{s:s, s:i, s:i, s:s, s:b, s:o}",
				STATE_MARK_KEY, STATE_MARK_VAL, "version", 1,
				"pid", (int)getpid(), "root", sysfs_root(),
				"persist", persist,
				"changes", mstate_changes_json(0, atomic_load(&nchg)));
	char *text = doc ? json_dumps(doc, JSON_INDENT(1)) : NULL, *nl;

	json_decref(doc);
	nl = text ? realloc(text, strlen(text) + 2) : NULL;
	if (!nl) {
		free(text);
		return NULL;
	}
	return strcat(nl, "\n");
}

/* Write @text to @fd and fsync it; 0 or -errno. */
static int state_write_fd(int fd, const char *text)
{
	int err = af_write_all(fd, text, strlen(text));

	if (!err && fsync(fd))
		err = -errno;
	return err;
}

/* af_replace()'s last word: the new file is the state file this
 * process owns from now on. */
static int own_new(int fd, const char *path, void *arg)
{
	(void)path, (void)arg;
	return own_fd(fd);
}

/*
 * Replace the state file with the recorded changes (@persist: marked as
 * left on purpose by `system tune`): write a new temporary file, fsync,
 * rename over the state file, fsync the directory.  Only while the path
 * still names our file (-ESTALE otherwise: someone replaced it, and it
 * is left alone).  Returns 0 or -errno; the old state file is intact on
 * failure.
 */
static int state_save(bool persist)
{
	const char *path = machine_state_path();
	dev_t dev = own_dev;
	ino_t ino = own_ino;
	char *text;
	int err;

	if (!path_is_ours(path))
		return -ESTALE;
	text = state_text(persist);
	if (!text)
		return -ENOMEM;
	err = af_replace(path, text, strlen(text), own_new, NULL);
	free(text);
	if (err) {
		own_dev = dev;
		own_ino = ino;
	}
	return err;
}

/*
 * Create the state file exclusively (never through a symlink, never
 * over anything already there), mode 0600, with its full content at
 * once: a state file lockbench wrote is never empty.
 */
int mstate_claim(void)
{
	const char *path;
	char *text;
	int fd, err;

	if (own_state)
		return 0;
	err = state_mkdir();
	if (err)
		return err;
	text = state_text(false);
	if (!text)
		return -ENOMEM;
	path = machine_state_path();
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(text);
		return -errno;
	}
	err = own_fd(fd);
	if (!err) {
		own_state = 1;
		err = state_write_fd(fd, text);
	}
	free(text);
	close(fd);
	if (err && own_state)
		state_unlink();
	else if (!err)
		af_fsync_dir(path);
	return err;
}

void mstate_release_if_empty(void)
{
	if (own_state && atomic_load(&nchg) == 0) {
		machine_state_path();	/* resolved, for state_unlink() */
		state_unlink();
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

/*
 * A change whose old value the kernel itself brings back: a
 * scaling_setspeed of SETSPEED_NONE reads so again once the governor is
 * restored, and the kernel refuses it as a value (cpufreq.c,
 * store_scaling_setspeed()).  It is written back (a fake tree takes it)
 * and a failure is no failure of the restore.
 */
static bool restore_optional(const struct change *c)
{
	return !strcmp(c->old, SETSPEED_NONE);
}

int mstate_restore_from(int from, bool report, int *bad)
{
	int n = atomic_load(&nchg), first = 0, err;

	for (int i = n - 1; i >= from; i--) {
		if (!chg[i].has_old)
			continue;
		err = sysfs_write_str(chg[i].path, chg[i].old);
		if (restore_optional(&chg[i]))
			err = 0;
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
		if (chg[i].has_old && sysfs_write_str(chg[i].path, chg[i].old) &&
		    !restore_optional(&chg[i]))
			bad = 1;
	if (bad) {
		ssize_t w = write(STDERR_FILENO, fail, sizeof(fail) - 1);

		(void)w;	/* nothing better to do from a handler */
	} else {
		atomic_store(&nchg, 0);
		state_unlink();
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

/* What @mode is, for a message about a file that is not a state file. */
static const char *file_kind(mode_t mode)
{
	return S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" :
	       S_ISFIFO(mode) ? "a FIFO" : S_ISLNK(mode) ? "a symbolic link" :
	       S_ISDIR(mode) ? "a directory" : S_ISSOCK(mode) ? "a socket" :
	       "not a regular file";
}

/* Say that @path is @what, not lockbench's: -EINVAL. */
static int not_ours(char *msg, size_t len, const char *path, const char *what)
{
	snprintf(msg, len, "lockbench: state file (%s): %s, not a state file "
		 "lockbench wrote; left as it is", path, what);
	return -EINVAL;
}

/*
 * Open the state file if it can be one lockbench wrote: a regular file
 * (not a symlink, device, FIFO or directory), owned by the effective
 * user, neither empty nor huge.  Returns the descriptor (its stat in
 * @st), -ENOENT when nothing is at the path, or -EINVAL with @msg naming
 * what is there instead (it is left as it is).
 */
static int state_open(const char *path, struct stat *st, char *msg, size_t len)
{
	char what[96];
	int fd;

	if (lstat(path, st))
		goto failed;
	if (!S_ISREG(st->st_mode))
		return not_ours(msg, len, path, file_kind(st->st_mode));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		goto failed;
	if (fstat(fd, st)) {
		close(fd);
		goto failed;
	}
	if (!S_ISREG(st->st_mode) || st->st_uid != geteuid() || st->st_size == 0) {
		close(fd);
		if (!S_ISREG(st->st_mode))
			return not_ours(msg, len, path, file_kind(st->st_mode));
		if (st->st_size == 0)
			return not_ours(msg, len, path, "empty");
		snprintf(what, sizeof(what), "owned by uid %u, not by uid %u",
			 (unsigned)st->st_uid, (unsigned)geteuid());
		return not_ours(msg, len, path, what);
	}
	if (st->st_size > STATE_MAX_BYTES) {	/* MACHINE_MAX_CHANGES fit in far less */
		close(fd);
		snprintf(msg, len, "lockbench: state file (%s): larger than %d bytes, "
			 "not a state file lockbench wrote; left as it is", path, STATE_MAX_BYTES);
		return -EINVAL;
	}
	return fd;
failed:
	if (errno == ENOENT)
		return -ENOENT;
	snprintf(msg, len, "lockbench: state file (%s): %s", path, strerror(errno));
	return -EINVAL;
}

/*
 * Read the open state file @fd as JSON and check lockbench's mark in it.
 * Returns the document, or NULL with @msg saying why (not JSON, or JSON
 * lockbench did not write).
 */
static json_t *state_read(int fd, const char *path, char *msg, size_t len)
{
	json_error_t jerr;
	json_t *doc = json_loadfd(fd, 0, &jerr), *mark;
	char what[256];

	if (!doc) {
		snprintf(what, sizeof(what), "not JSON (%s)", jerr.text);
		/* jansson quotes the text near the error: kept to one line. */
		for (char *c = what; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		not_ours(msg, len, path, what);
		return NULL;
	}
	mark = json_object_get(doc, STATE_MARK_KEY);
	if (!json_is_string(mark) || strcmp(json_string_value(mark), STATE_MARK_VAL)) {
		not_ours(msg, len, path, "JSON without \"" STATE_MARK_KEY "\": \""
			 STATE_MARK_VAL "\"");
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int machine_state_probe(char *msg, size_t len)
{
	struct stat st;
	int fd = state_open(machine_state_path(), &st, msg, len);
	json_t *doc;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	doc = state_read(fd, machine_state_path(), msg, len);
	close(fd);
	json_decref(doc);
	return doc ? 1 : -EINVAL;
}

/* 0 when @root (as recorded) is this invocation's sysfs root, else
 * -EINVAL with @msg: a reset never writes under another root. */
static int root_check(const char *root, const char *path, char *msg, size_t len)
{
	size_t n = strlen(root);
	const char *cur = sysfs_root();

	while (n > 0 && root[n - 1] == '/')
		n--;
	if (n == strlen(cur) && !strncmp(root, cur, n))
		return 0;
	snprintf(msg, len, "lockbench: state file (%s): recorded under the sysfs root "
		 "'%s', not this one ('%s', LOCKBENCH_SYSROOT); nothing restored",
		 path, *root ? root : "/", *cur ? cur : "/");
	return -EINVAL;
}

/*
 * Check the state document @doc and load its changes into the record
 * (which must be empty).  Returns 0, -EINVAL (with @msg) when malformed
 * or recorded under another root, -EBUSY when its writer still runs.
 */
static int state_parse(json_t *doc, const char *path, char *msg, size_t len)
{
	const char *root = "";
	int pid = 0, persist = 0, n, err;
	json_t *arr;

	if (json_unpack(doc, "{s:i, s:s, s?b, s:o}", "pid", &pid, "root", &root,
			"persist", &persist, "changes", &arr) ||
	    !json_is_array(arr) || json_array_size(arr) > MACHINE_MAX_CHANGES)
		goto bad;
	err = root_check(root, path, msg, len);
	if (err)
		return err;
	if (!persist && pid != getpid() && pid > 0 && kill(pid, 0) == 0) {
		snprintf(msg, len,
			 "lockbench: reset (%s): lockbench pid %d still runs and restores the machine when it ends",
			 path, pid);
		return -EBUSY;
	}
	n = load_changes(arr);
	if (n < 0)
		goto bad;
	atomic_store(&nchg, n);
	return 0;
bad:
	snprintf(msg, len,
		 "lockbench: state file (%s): malformed: expected {pid, root, changes: [{path, old, new}]}",
		 path);
	return -EINVAL;
}

/*
 * Load the state file into the record and make it ours (so it is
 * deleted once restored).  Returns 0, -ENOENT when there is none,
 * -EINVAL (with @msg) when it is not one lockbench wrote, is malformed
 * or belongs to another sysfs root, -EBUSY when its writer still runs.
 */
static int state_load(char *msg, size_t len)
{
	const char *path = machine_state_path();
	struct stat st;
	int fd = state_open(path, &st, msg, len), err;
	json_t *doc;

	if (fd < 0)
		return fd;
	doc = state_read(fd, path, msg, len);
	close(fd);
	if (!doc)
		return -EINVAL;
	err = state_parse(doc, path, msg, len);
	json_decref(doc);
	if (err)
		return err;
	own_dev = st.st_dev;
	own_ino = st.st_ino;
	own_state = 1;
	return 0;
}

int machine_reset_from_state(char *msg, size_t len)
{
	int err, n, bad = 0;

	msg[0] = '\0';
	if (atomic_load(&nchg))
		return -EBUSY;
	err = state_load(msg, len);
	if (err == -ENOENT) {
		snprintf(msg, len, "nothing to restore");
		return 0;
	}
	if (err)
		return err;
	n = atomic_load(&nchg);
	/* Under this invocation's root, which state_load() checked. */
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
	return err;
}
