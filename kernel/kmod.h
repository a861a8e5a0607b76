/* SPDX-License-Identifier: MIT */
/*
 * kmod.h - can a kernel module be loaded here, and load / unload it.
 *
 * Every file read goes through the sysfs root (topology/sysfs.h): the
 * tests point it at a fake tree.  Loading and unloading run one
 * program, $LOCKBENCH_MODPROBE or else modprobe(8), as
 * `PROG NAME key=value ...` and `PROG -r NAME`; the tests point it at a
 * fake modprobe that starts a fake locktorture, so no test ever loads a
 * real module.
 */
#ifndef LOCKBENCH_KMOD_H
#define LOCKBENCH_KMOD_H

#include <stdbool.h>
#include <stddef.h>

/* The program that loads and unloads modules ($LOCKBENCH_MODPROBE or "modprobe"). */
const char *kmod_program(void);

/*
 * Can module @name be loaded now?  Checks, in this order, that the
 * kernel loads modules at all (/proc/modules), that we are root, that
 * kernel.modules_disabled is 0, that /lib/modules/RELEASE exists, that
 * @name is not built in (modules.builtin) but is a module
 * (modules.dep), and that it is not loaded already (/sys/module/NAME).
 * Reads only.  Returns 0, or -errno with one line in @msg naming what is
 * missing (-ENOTSUP, -EPERM, -ENOENT, -EBUSY).
 */
int kmod_check(const char *name, char *msg, size_t len);

/* Is module @name loaded (/sys/module/NAME exists)? */
bool kmod_loaded(const char *name);

/*
 * Load @name with the parameters @params (NULL-terminated "key=value"
 * strings).  Returns 0, or -EIO with one line in @msg: the program's
 * exit status and the first line it printed on stderr, plus the kernel
 * lockdown mode when one is active (it refuses unsigned modules).
 */
int kmod_load(const char *name, const char *const *params, char *msg, size_t len);

/* Unload @name (`PROG -r NAME`); 0, or -EIO with one line in @msg. */
int kmod_unload(const char *name, char *msg, size_t len);

#endif /* LOCKBENCH_KMOD_H */
