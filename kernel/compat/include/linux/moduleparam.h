/* SPDX-License-Identifier: MIT */
/* <linux/moduleparam.h> and the boot parameters of <linux/init.h>: a
 * module parameter `name` (module_param()) gets an accessor
 * lb_kc_param_<name>() returning its address, and a boot parameter's
 * handler fn (__setup(), early_param()) a caller lb_kc_setup_<fn>(str),
 * so the glue sets them as `--lock-opt` and as booting with them would
 * (kernel/compat/glue.c; docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_LINUX_MODULEPARAM_H
#define LB_KCOMPAT_LINUX_MODULEPARAM_H
#include <linux/kconfig.h>
#include <linux/string.h>

#define module_param(name, type, perm)                                         \
	type *lb_kc_param_##name(void);                                        \
	type *lb_kc_param_##name(void) { return &name; }
#ifndef __setup
#define __setup(str, fn)                                                       \
	int lb_kc_setup_##fn(char *s);                                         \
	int lb_kc_setup_##fn(char *s) { return fn(s); }
#endif
#ifndef early_param
#define early_param(str, fn) __setup(str, fn)
#endif
#endif
