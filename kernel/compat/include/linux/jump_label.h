/* SPDX-License-Identifier: MIT */
/*
 * <linux/jump_label.h>: static keys are code patching, which user space
 * does not do; a key is a plain flag read each time.  The native path
 * uses none (x86's virt_spin_lock_key is CONFIG_PARAVIRT only); like the
 * kernel's header, this one brings <linux/atomic.h>, through which an
 * arch header that includes only it finds the atomics (docs/kernel-tree.md).
 */
#ifndef LB_KCOMPAT_JUMP_LABEL_H
#define LB_KCOMPAT_JUMP_LABEL_H
#include <linux/kconfig.h>
#include <linux/atomic.h>

struct static_key_false {
	int enabled;
};
#define DECLARE_STATIC_KEY_FALSE(name) extern struct static_key_false name
#define DEFINE_STATIC_KEY_FALSE(name) struct static_key_false name = {0}
#define static_branch_likely(k) __builtin_expect(!!READ_ONCE((k)->enabled), 1)
#define static_branch_unlikely(k) __builtin_expect(!!READ_ONCE((k)->enabled), 0)
#endif
