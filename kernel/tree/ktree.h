/* SPDX-License-Identifier: MIT */
/*
 * Building a kernel tree's own lock sources into lockbench plugins: the
 * tree's files compiled where they are, behind lockbench's compatibility
 * layer (kernel/compat/include, first on the include path) and a glue
 * file (kernel/compat/glue.c) that exports the lock contract.  Builds
 * are cached by content.  See docs/kernel-tree.md.
 */
#ifndef LOCKBENCH_KTREE_H
#define LOCKBENCH_KTREE_H

#include <stdbool.h>
#include <stddef.h>

/* The locks a tree can give, in the order `--kernel-tree` builds them. */
extern const char *const ktree_lock_names[];
extern const unsigned ktree_nlocks;

/* Does the tree at `dir` hold the sources of lock `name`? */
bool ktree_has_lock(const char *dir, const char *name);

/* Is `dir` a kernel source tree (it has kernel/locking/)?  0, or -errno
 * with one line in err naming the tree. */
int ktree_check(const char *dir, char *err, size_t errlen);

/*
 * Build lock `name` ("qspinlock", "qrwlock", "osq") of the kernel tree
 * at `dir` into a plugin, or find it in the cache.  On success returns
 * 0 with the cached plugin's path in path[len] (load or copy it through
 * ktree_plugin_open(), ktree_cache.h) and *cached telling whether the cache
 * already held it.  On failure returns -errno (-ENOEXEC: the compiler
 * refused the tree) with err set to one line naming the tree, the lock
 * and, for a compiler error, its first error line with the file;
 * nothing is left in the cache.
 *
 * The compiler is $LOCKBENCH_CC (default cc), extra flags come from
 * $LOCKBENCH_KTREE_CFLAGS, the cache is $LOCKBENCH_CACHE or
 * ${XDG_CACHE_HOME:-$HOME/.cache}/lockbench, and the layer is found by
 * $LOCKBENCH_COMPAT_DIR or beside the running binary.
 */
int ktree_build(const char *dir, const char *name, char *path, size_t len,
		bool *cached, char *err, size_t errlen);

/* build-kernel-lock -o: a cached plugin is served only when it was built
 * from the very tree given (the file carries the tree's path; a copy of
 * the tree shares its cache entry otherwise), else built again. */
void ktree_set_exact_tree(bool on);

/* --lock-events: later builds of qspinlock and qrwlock count the tree's
 * own lock events (CONFIG_LOCK_EVENT_COUNTS; the plugin's counters are
 * the names of the tree's kernel/locking/lock_events_list.h).  Another
 * build, cached under another key. */
void ktree_set_lock_events(bool on);

/* -v: later builds print each compiler command (its flags and include
 * path, in order) on stderr before running it. */
void ktree_set_verbose(bool on);

#endif
