/* SPDX-License-Identifier: MIT */
/*
 * ticket_backoff - an out-of-tree lock: the built-in `ticket` lock with
 * capped exponential backoff between polls of now-serving, so it can be
 * compared with its in-tree twin in one run:
 *
 *   cc -O2 -shared -fPIC $(pkg-config --cflags lockbench) \
 *      ticket_backoff.c -o ticket_backoff.so
 *   lockbench --plugin ./ticket_backoff.so -l ticket,ticket_backoff -t 1-8
 *
 * Word layout as in lockbench's locks/ticket_prop.h: now-serving in the
 * low half of one word, next ticket in the high half, so trylock is one
 * CAS (`ticket` keeps them in two fields of one line).  The
 * backoff restarts at backoff_min every time the waiter sees the queue
 * advance (its distance to the head shrank).
 *
 * LOCKBENCH_PLUGIN_LOOPS() at the end gives it the worker loops the
 * built-ins run, tb_lock() and tb_unlock() inlined into them
 * (<lockbench/loops.h>), so that it and `ticket` differ only in the lock.
 */
#include <lockbench/loops.h>

/* Low half: owner (now serving).  High half: next ticket. */
#define TB_NEXT_ONE (1ull << 32)

enum { TB_OPT_MIN, TB_OPT_MAX };

static const struct lock_opt tb_opts[] = {
	[TB_OPT_MIN] = {"backoff_min", "first pause, in cpu_relax() iterations", 1, 1, 1u << 16},
	[TB_OPT_MAX] = {"backoff_max", "pause cap, in cpu_relax() iterations", 64, 1, 1u << 16},
};

struct ticket_backoff {
	_Atomic uint64_t word;
	uint32_t min, max; /* written by init only */
};

static inline uint32_t tb_owner(uint64_t w)
{
	return (uint32_t)w;
}

static inline uint32_t tb_next(uint64_t w)
{
	return (uint32_t)(w >> 32);
}

static int tb_init(void *lock, const struct lock_init *in)
{
	struct ticket_backoff *l = lock;

	l->min = (uint32_t)in->opt[TB_OPT_MIN];
	l->max = (uint32_t)in->opt[TB_OPT_MAX];
	if (l->max < l->min)
		l->max = l->min;
	return 0;
}

/* Pause for `pause` cpu_relax() iterations; the next pause: twice as
 * long, at most max. */
static inline uint32_t tb_backoff(uint32_t pause, uint32_t max)
{
	for (uint32_t i = 0; i < pause; i++)
		cpu_relax();
	return pause * 2 > max ? max : pause * 2;
}

static void tb_lock(void *lock, void *ctx)
{
	struct ticket_backoff *l = lock;
	uint32_t my, ahead, last = UINT32_MAX, pause = l->min;
	uint64_t w;

	(void)ctx;
	/* Take a ticket; acquire pairs with the previous holder's release
	 * when the lock was free. */
	w = atomic_fetch_add_explicit(&l->word, TB_NEXT_ONE, lb_acq);
	my = tb_next(w);
	while ((ahead = my - tb_owner(w)) != 0) {
		/* The queue moved: poll eagerly again. */
		if (ahead < last)
			pause = l->min;
		last = ahead;
		pause = tb_backoff(pause, l->max);
		w = atomic_load_explicit(&l->word, lb_acq);
	}
}

/* Free with nobody queued (owner == next): take the next ticket. */
static bool tb_trylock(void *lock, void *ctx)
{
	struct ticket_backoff *l = lock;
	uint64_t w = atomic_load_explicit(&l->word, lb_rlx);

	(void)ctx;
	return tb_owner(w) == tb_next(w) &&
	       atomic_compare_exchange_strong_explicit(
		       &l->word, &w, w + TB_NEXT_ONE, lb_acq, lb_rlx);
}

/*
 * Only the holder writes the owner half; waiters bump the next half
 * concurrently, so advance the owner with one RMW on the whole word, and
 * when the owner wraps add 1 - TB_NEXT_ONE: the carry into the next half
 * cancelled.
 */
static void tb_unlock(void *lock, void *ctx)
{
	struct ticket_backoff *l = lock;
	uint32_t owner = tb_owner(atomic_load_explicit(&l->word, lb_rlx));

	(void)ctx;
	atomic_fetch_add_explicit(&l->word,
				  owner == UINT32_MAX ? 1 - TB_NEXT_ONE : 1,
				  lb_rel);
}

static const struct lock_ops ticket_backoff_ops = {
	.name = "ticket_backoff",
	.desc = "ticket lock with capped exponential backoff (example plugin)",
	.ref = "lockbench examples/ticket_backoff.c; Mellor-Crummey & Scott, TOCS 1991",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK,
	.lock_size = sizeof(struct ticket_backoff),
	.opts = tb_opts,
	.nopts = sizeof(tb_opts) / sizeof(tb_opts[0]),
	.init = tb_init,
	.lock = tb_lock,
	.unlock = tb_unlock,
	.trylock = tb_trylock,
};

LOCKBENCH_PLUGIN(&ticket_backoff_ops);
LOCKBENCH_PLUGIN_LOOPS(ticket_backoff_ops, tb_lock, tb_unlock);
