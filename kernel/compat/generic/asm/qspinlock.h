/* SPDX-License-Identifier: MIT */
/*
 * For an architecture whose tree has no asm/qspinlock.h of its own
 * (arm64 lists it as `generic-y` in arch/arm64/include/asm/Kbuild, and
 * the kernel's build generates this one-line wrapper; a tree whose arch
 * lockbench does not map has no arch directory on the path at all): the
 * tree's generic queued spinlock, native, no paravirt hooks.  On the
 * include path after the tree's arch/ARCH/include, so x86's own
 * arch/x86/include/asm/qspinlock.h wins (docs/kernel-tree.md).
 */
#include <linux/kconfig.h>
#include <asm-generic/qspinlock.h>
