/* SPDX-License-Identifier: MIT */
/*
 * <asm/alternative.h> on x86: what the tree's arch headers take from it
 * is LOCK_PREFIX.  The kernel records each lock prefix in .smp_locks so
 * that a uniprocessor boot can patch it out
 * (arch/x86/include/asm/alternative.h); user space patches nothing, so
 * the prefix is plain `lock`, which is what an SMP kernel executes.  The
 * condition-code helpers (CC_SET, CC_OUT) are the tree's own
 * arch/x86/include/asm/asm.h.
 */
#ifndef LB_KCOMPAT_ASM_ALTERNATIVE_H
#define LB_KCOMPAT_ASM_ALTERNATIVE_H
#include <linux/kconfig.h>
#if __has_include(<asm/asm.h>)
#include <asm/asm.h>
#endif
#define LOCK_PREFIX_HERE ""
#define LOCK_PREFIX "\n\tlock "
#endif
