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

/*
 * A loaded module is machine state like a frozen governor: before
 * loading, kmod_record() writes "MODULE PID" to the state file's
 * companion, machine_state_path() + ".module"; after unloading,
 * kmod_forget() removes it.  A lockbench killed in between (kill -9, a
 * crash) leaves it, and `lockbench system reset` calls
 * kmod_reset_from_state(), which unloads the module.
 * kmod_record returns 0 or -errno (the file could not be written, or
 * something lockbench did not write is at its path: do not load then);
 * kmod_forget is idempotent and unlinks only a regular file of the
 * effective user.
 */
int kmod_record(const char *name);
void kmod_forget(void);

/*
 * Unload what a dead lockbench recorded.  Returns 0 with @msg "" when
 * nothing is recorded, or "unloaded NAME (left by lockbench pid PID)"
 * (also when it was gone already: "NAME was not loaded any more");
 * -EBUSY while that lockbench still runs (it unloads on exit); -EIO when
 * unloading failed (the record is kept for another try), with @msg;
 * -EINVAL, the path left as it is, when it is malformed or not a regular
 * file of the effective user (a symlink, device, FIFO: never ours).
 */
int kmod_reset_from_state(char *msg, size_t len);

#endif /* LOCKBENCH_KMOD_H */
