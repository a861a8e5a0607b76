/* SPDX-License-Identifier: MIT */
/*
 * Out-of-tree locks: a shared object that exports `lockbench_plugin`
 * (see lockbench/lock.h) adds its locks to the registry at start-up,
 * before any thread runs.  Each added entry records the plugin's
 * canonical path and the SHA-256 of the file, which the JSON carries.
 */
#ifndef LOCKBENCH_PLUGIN_H
#define LOCKBENCH_PLUGIN_H

#include <stddef.h>

/* Most locks one plugin may export. */
#define PLUGIN_MAX_LOCKS 256
/* Longest TAG of --plugin TAG=PATH. */
#define PLUGIN_MAX_TAG 32

/*
 * Load one --plugin argument, "PATH" or "TAG=PATH", and register its
 * locks.  With a TAG every lock is registered as NAME_TAG, so two builds
 * of the same source (stock=a/x.so, patched=b/x.so) can run side by
 * side.  A '=' counts as the tag separator only before the first '/'
 * ("./a=b.so" is a path).
 *
 * Returns 0, or -errno with err set to one line "plugin (PATH): problem"
 * (no "lockbench: " prefix, no newline).  On failure nothing is
 * registered: the file is not an ELF shared object, cannot be loaded,
 * lacks the `lockbench_plugin` symbol, was built for another ABI
 * version, exports an incomplete ops table or LOCK_CAP_NOLOCK, or a
 * lock name is already taken.
 */
int plugin_load(const char *spec, char *err, size_t len);

/*
 * plugin_load() of the file open at fd (read-only), named `path` in
 * messages and the results, its locks registered under `tag` ("" for
 * none): the file is checked, hashed and loaded through this
 * descriptor, never opened again by name (dlopen of /proc/self/fd/N),
 * so what a caller verified by descriptor is what runs.  The
 * descriptor is the loader's from here on: kept open while the plugin
 * is loaded, closed on failure.
 */
int plugin_load_fd(const char *tag, int fd, const char *path, char *err, size_t len);

/* The loop chain (<lockbench/loops.h>) of the plugin that registered
 * `ops`, with *orig the plugin's own table `ops` was made from (a tagged
 * lock is a copy); NULL when `ops` is not a plugin's or its plugin has no
 * loops.  workloads/loops/ checks and binds it. */
struct lock_ops;
const void *plugin_loops(const struct lock_ops *ops, const struct lock_ops **orig);

/* plugin_load() for each of specs[0..n-1], stopping at the first error. */
int plugins_load(const char *const *specs, unsigned n, char *err, size_t len);

#endif
