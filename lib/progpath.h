/* SPDX-License-Identifier: MIT */
/*
 * The programs lockbench runs (git, the compiler, modprobe), found as
 * absolute paths before anything runs, and only through absolute PATH
 * entries: an empty or relative entry (".", "", "bin") names the
 * current directory or one below it, which is wherever the command
 * runs, a kernel tree for git (POSIX, "Environment Variables": an
 * empty prefix is the current working directory).
 */
#ifndef LOCKBENCH_PROGPATH_H
#define LOCKBENCH_PROGPATH_H

#include <stddef.h>

/*
 * The program `name` as an absolute path into out[len]: a name with a
 * '/' made absolute (the current directory before it, links kept); else the first
 * executable regular file `name` in an absolute entry of $PATH (or of
 * /usr/local/bin:/usr/bin:/bin without one).  $PATH itself loses its
 * empty and relative entries, so that what the program runs in turn
 * (the compiler's assembler, git's helpers) is found the same way.
 * 0, or -ENOENT (with out set to `name`) when there is none.
 */
int prog_resolve(const char *name, char *out, size_t len);

#endif
