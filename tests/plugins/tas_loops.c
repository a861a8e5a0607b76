/* SPDX-License-Identifier: MIT */
/*
 * Test-and-set as a plugin on the built-ins' loop (<lockbench/loops.h>):
 * the built-in tas's algorithm (an exchange, cpu_relax() while it finds
 * the lock taken; release store), written here.
 *   tas_inline     the lock, with LOCKBENCH_PLUGIN_LOOPS(): inline loop
 *   busted_inline  its lock() takes nothing (caps say it excludes), with
 *                  the loops too: the exclusion check must still catch it
 *   tas_generic    tas_inline's functions without the loops: generic loop
 * Built with -DLOCKBENCH_LOOP_ABI=1 it stands for a plugin built against
 * another lockbench (tests/e2e_plugin.sh).  Built with -DTAS_LOOPS_COPY
 * it is a second copy of the same locks, named with "_b" and with its
 * code at other addresses: scripts/bench-plugin-loop.sh's A/A control
 * (how far the same code measures from itself when only its place in
 * memory changes).
 */
#include <lockbench/loops.h>

#ifdef TAS_LOOPS_COPY
#define TL_NAME(n) n "_b"
/* 40 bytes of code ahead of the loops: they land at other offsets. */
__attribute__((used)) static void tl_pad(void)
{
	__asm__ __volatile__(".skip 40, 0x90");
}
#else
#define TL_NAME(n) n
#endif

struct tl {
	_Atomic uint32_t locked;
};

static inline void tl_lock(void *lock, void *ctx)
{
	struct tl *l = lock;

	(void)ctx;
	while (atomic_exchange_explicit(&l->locked, 1, lb_acq))
		cpu_relax();
}

static inline void tl_unlock(void *lock, void *ctx)
{
	struct tl *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->locked, 0, lb_rel);
}

static inline void busted_lock(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static inline void busted_unlock(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops tas_inline = {
	.name = TL_NAME("tas_inline"),
	.desc = "test-and-set on the inline loop (test plugin)",
	.ref = "lockbench tests/plugins/tas_loops.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct tl),
	.lock = tl_lock,
	.unlock = tl_unlock,
};

static const struct lock_ops busted_inline = {
	.name = TL_NAME("busted_inline"),
	.desc = "no lock at all, claims to exclude, inline loop (test plugin)",
	.ref = "lockbench tests/plugins/tas_loops.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct tl),
	.lock = busted_lock,
	.unlock = busted_unlock,
};

static const struct lock_ops tas_generic = {
	.name = TL_NAME("tas_generic"),
	.desc = "test-and-set on the generic loop (test plugin)",
	.ref = "lockbench tests/plugins/tas_loops.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct tl),
	.lock = tl_lock,
	.unlock = tl_unlock,
};

LOCKBENCH_PLUGIN(&tas_inline, &busted_inline, &tas_generic);
LOCKBENCH_PLUGIN_LOOPS(tas_inline, tl_lock, tl_unlock);
LOCKBENCH_PLUGIN_LOOPS(busted_inline, busted_lock, busted_unlock);
