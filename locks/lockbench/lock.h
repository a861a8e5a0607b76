/* SPDX-License-Identifier: MIT */
/*
 * lockbench/lock.h - the lock contract.
 *
 * Every lock, built in or loaded from a plugin, is one constant
 * `struct lock_ops`.  The harness allocates the lock object and one
 * context per thread (sizes from the table, 128-byte aligned, each
 * context first-touched by its own pinned thread) and passes both to
 * every operation, so a queue lock never looks its node up in the timed
 * loop.
 *
 * Writing a lock out of tree: include this header, fill a lock_ops,
 * export it with LOCKBENCH_PLUGIN(&my_ops), build with
 * `cc -O2 -shared -fPIC $(pkg-config --cflags lockbench) my.c -o my.so`
 * and run `lockbench --plugin ./my.so -l my_lock`.
 */
#ifndef LOCKBENCH_LOCK_H
#define LOCKBENCH_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atomics.h"

/* Bumped whenever struct lock_ops or struct lock_init/lock_thread
 * change layout or meaning; plugins built for another value are refused. */
#define LOCKBENCH_ABI_VERSION 1

/* Capability bits of lock_ops.caps. */
enum lock_caps {
	/* lock()/unlock() give mutual exclusion; the harness checks it. */
	LOCK_CAP_EXCLUSIVE = 1u << 0,
	/* read_lock()/read_unlock() exist: shared readers, exclusive writers. */
	LOCK_CAP_RW = 1u << 1,
	/* trylock() exists. */
	LOCK_CAP_TRYLOCK = 1u << 2,
	/* Waiters may block in the kernel (futex): safe to oversubscribe. */
	LOCK_CAP_SLEEPS = 1u << 3,
	/* Uses lock_thread.node: behaviour depends on the NUMA placement. */
	LOCK_CAP_NUMA = 1u << 4,
	/* Negative control that does not exclude: hidden and refused unless
	 * --include-broken is given. */
	LOCK_CAP_BROKEN = 1u << 5,
	/* No lock at all (the `null` control): no exclusion to check. */
	LOCK_CAP_NOLOCK = 1u << 6,
};

/* What `lockbench list locks` groups by. */
enum lock_family {
	LOCK_FAMILY_SPIN,
	LOCK_FAMILY_SLEEP,
	LOCK_FAMILY_RW,
	LOCK_FAMILY_NUMA,
	LOCK_FAMILY_CONTROL,
};

/*
 * A per-lock tunable, set with --lock-opt NAME.KEY=VALUE and shown by
 * `lockbench list locks -v`.  Values are unsigned integers checked
 * against [min, max] before any thread starts.  Two options named P_min
 * and P_max form a range: values where P_min exceeds P_max are refused.
 */
struct lock_opt {
	const char *name;
	const char *help;
	uint64_t def;
	uint64_t min;
	uint64_t max;
};

/* What init() learns about the run. */
struct lock_init {
	unsigned nthreads;      /* threads that will use the lock (ids 0..n-1) */
	unsigned nnodes;        /* distinct NUMA node ids in use (0..nnodes-1) */
	const uint64_t *opt;    /* values of lock_ops.opts, in table order */
	/* Memory for anything the lock allocates beyond lock_size: placed on
	 * the lock's memory node, zeroed, aligned to LB_CACHELINE.  NULL on
	 * failure.  Pair with free_mem(). */
	void *(*alloc)(size_t size);
	void (*free_mem)(void *p, size_t size);
};

/* What thread_init() learns about the calling thread (already pinned). */
struct lock_thread {
	unsigned tid;           /* 0..nthreads-1, dense */
	unsigned nthreads;
	int cpu;                /* OS CPU index, -1 when not pinned */
	unsigned node;          /* dense NUMA node id, 0..nnodes-1 */
	unsigned nnodes;
	unsigned l3;            /* dense L3 group id */
	unsigned core;          /* dense core id */
	unsigned package;
};

struct lock_ops {
	const char *name;       /* -l name: [a-z0-9_]+ */
	const char *desc;       /* one line */
	const char *ref;        /* paper or kernel file it follows */
	enum lock_family family;
	unsigned caps;          /* enum lock_caps */
	size_t lock_size;       /* bytes of the lock object (zeroed by the harness) */
	size_t ctx_size;        /* bytes of each thread's context (zeroed), 0 if none */
	const struct lock_opt *opts;
	unsigned nopts;

	/* Set up a zeroed lock object.  Return 0 or -errno. Optional. */
	int (*init)(void *lock, const struct lock_init *in);
	/* Release what init() allocated.  Optional. */
	void (*destroy)(void *lock);
	/* Set up this thread's zeroed context, on the thread itself after it
	 * is pinned.  Return 0 or -errno.  Optional. */
	int (*thread_init)(void *lock, void *ctx, const struct lock_thread *t);

	void (*lock)(void *lock, void *ctx);
	void (*unlock)(void *lock, void *ctx);
	bool (*trylock)(void *lock, void *ctx);     /* LOCK_CAP_TRYLOCK */
	void (*read_lock)(void *lock, void *ctx);   /* LOCK_CAP_RW */
	void (*read_unlock)(void *lock, void *ctx); /* LOCK_CAP_RW */

	/* Event counters the lock keeps off its fast path (e.g. CNA's moves
	 * to the secondary queue), read once after each run and recorded in
	 * the JSON.  Optional: ncounters 0. */
	const char *const *counter_names;
	unsigned ncounters;
	void (*read_counters)(void *lock, uint64_t *out);
};

/* A plugin exports one of these under the symbol `lockbench_plugin`. */
struct lockbench_plugin {
	unsigned abi;                       /* LOCKBENCH_ABI_VERSION */
	const struct lock_ops *const *locks;
	unsigned nlocks;
};

#define LOCKBENCH_PLUGIN(...)                                                  \
	static const struct lock_ops *const lockbench_plugin_locks_[] = {      \
		__VA_ARGS__};                                                  \
	const struct lockbench_plugin lockbench_plugin = {                     \
		LOCKBENCH_ABI_VERSION, lockbench_plugin_locks_,                \
		sizeof(lockbench_plugin_locks_) /                              \
			sizeof(lockbench_plugin_locks_[0])}

#endif /* LOCKBENCH_LOCK_H */
