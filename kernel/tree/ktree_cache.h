/* SPDX-License-Identifier: MIT */
/*
 * What the kernel tree builder trusts (docs/kernel-tree.md, "The cache
 * and what is trusted"): a cache directory and files owned by this user
 * and writable by no one else, every cached plugin checked against the
 * digest recorded beside it, the tree's git state read without running
 * anything the tree configures, a build directory removed when a
 * signal ends the build, and a full disk named as such.  Internal to
 * kernel/tree/ktree.c.
 */
#ifndef LOCKBENCH_KTREE_CACHE_H
#define LOCKBENCH_KTREE_CACHE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The directory `dir` open (O_DIRECTORY) when it is ours: owned by the
 * effective user and writable by no group or other, and every
 * directory on the way to it (of its canonical path, from /) one only
 * root or this user can change, reached from / one checked component at
 * a time without following a link (openat(2), O_NOFOLLOW).  A
 * descriptor, or -errno (-EPERM when it is not ours) with why (a
 * phrase) in why[len]. */
int kcache_dir_open(const char *dir, char *why, size_t len);

/* The cached plugin `so` open read-only, verified through descriptors
 * from a checked directory chain: its directory as kcache_dir_open(),
 * the file and its digest ours, its content matching the digest.  A
 * descriptor, or -errno with why in why[len].  Load or copy what it
 * gives, never the path again. */
int kcache_open_verified(const char *so, char *why, size_t len);

/* Record the SHA-256 of plugin `so` in `so`.sha256 (replaced whole:
 * af_replace(), lib/atomicfile.h).  0 or -errno. */
int kcache_digest_write(const char *so);

/* Does the cached plugin open at fd (kcache_open_verified()) carry an
 * identity naming the tree `root` (its "tree", built from there),
 * rather than another tree of the same content? */
bool kcache_names_tree(int fd, const char *root);

/* Remove `so` and its digest (a cache entry found bad). */
void kcache_drop(const char *so);

/*
 * The tree's git state {describe, commit, dirty}, or JSON null when
 * `root` is not the top of a git work tree.  HEAD and its ref are read
 * from the files; dirty compares the blob ids of the tree-relative
 * `files` (NULL-ended) with the commit's (git ls-tree, git hash-object
 * --no-filters, every code-running setting of the tree's configuration
 * overridden): nothing the tree configures runs.  `tmp` is a private
 * directory for the commands' output.  NULL, with why (a phrase) in
 * why[len], when a file of the git directory that git would read is not
 * a regular file (a FIFO would block it), or git ran past the time
 * limit.
 */
json_t *kcache_git_state(const char *root, const char *const *files, const char *tmp,
			 char *why, size_t len);

/*
 * Which of the tree-relative `files` (NULL-ended, existing) differ from
 * the tree's HEAD commit, compared as kcache_git_state() compares: into
 * changed[i].  0, or -1 when `root` is not a git work tree or git cannot
 * tell (changed[] then all false).
 */
int kcache_git_changed(const char *root, const char *const *files, const char *tmp,
		       bool *changed);

/* Arm removal of the build directory `tmp` (a child of the cache) on
 * every signal whose default action ends the process (but a crash's),
 * then the signal's own action.  0 or -errno. */
int kcache_sig_arm(const char *tmp);
/* Back to the signal actions before kcache_sig_arm(). */
void kcache_sig_disarm(void);

/* What kcache_run() returns for a child killed at the limit. */
#define KCACHE_LATE 1000
/* The time limit of each child (git, the compiler), in seconds:
 * $LOCKBENCH_KTREE_TIMEOUT, else 300. */
unsigned kcache_child_limit(void);
/*
 * Run argv (argv[0] an absolute path) in its own process group (the
 * limit and a signal kill the whole group: the compiler's own children
 * too), killed at the time limit: stdin from /dev/null, stdout into
 * `log` (created, 0600), stderr there too when `errors`, else to
 * /dev/null; in directory `dir` unless NULL; with the environment's
 * env[i][0] set to env[i][1] (ended by an empty name).  The exit status,
 * KCACHE_LATE, or -1 when it could not run or ended otherwise.
 */
int kcache_run(char *const argv[], const char *log, bool errors, const char *dir,
	       const char *const env[][2]);

/* Is any file below root/rel (a directory the build's include path or
 * sources are in) something other than a regular file or a directory,
 * a link followed: a FIFO, a device node, a socket?  The compiler would
 * wait on a FIFO for ever, read a device without end.  0, or -EINVAL
 * with why ("REL is a FIFO, ...") in why[len]. */
int kcache_tree_special(const char *root, const char *rel, char *why, size_t len);

/* Is `path` (when it exists, links followed) something other than a
 * regular file (or a directory, when dir_ok)?  0, or -EINVAL with why
 * ("NAME is a FIFO, not a regular file: refused") in why[len].  stat()
 * opens nothing, so a FIFO cannot block the check. */
int kcache_irregular(const char *path, const char *name, bool dir_ok, char *why, size_t len);

/* Is the file system holding `dir` full (under 64 KiB free)? */
bool kcache_disk_full(const char *dir);

/* Is the stack limit too small for a build?  true with one line in
 * err[len] naming the limit. */
bool kcache_stack_small(char *err, size_t len);

/*
 * The plugin ktree_build() (ktree.h) left at `path` in the cache, open
 * for reading once verified through descriptors: every directory from /
 * to it only root's or this user's to change, the file and its digest
 * this user's, the content matching the digest.
 * Load it (plugin_load_fd()) or copy it from this descriptor, never by
 * the path again.  A descriptor, or -errno with one line in err naming
 * the file.
 */
int ktree_plugin_open(const char *path, char *err, size_t errlen);

#endif
