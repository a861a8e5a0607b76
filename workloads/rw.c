/* SPDX-License-Identifier: MIT */
/*
 * rw - readers and writers on one reader-writer lock.  Readers take
 * read_lock() and read the --cs-lines shared lines; writers take the
 * write lock and write them (the cs critical section).  Roles are fixed
 * per thread (--readers/--writers: tids 0..writers-1 write) or drawn per
 * operation (--read-pct).  An exclusive-only lock runs the same mix with
 * every operation exclusive, so `-l qrwlock,pthread_mutex` is one
 * command.
 *
 * Validation: writers check the owner field and the reader count (both
 * must be 0) and bump the unprotected counter; readers count themselves
 * in (an atomic RMW: readers are concurrent by design) and check that no
 * writer owns the lines, on entry and on exit.  Any sighting is a
 * violation; the counter must equal the number of write operations.
 */
#include "cs_body.h"

/* The shared section of a reader. */
static inline void rw_read_body(struct worker *w)
{
	struct wl_shared *sh = w->sh;
	uint64_t sum = 0;

	atomic_fetch_add_explicit(&sh->readers, 1, lb_rlx);
	if (atomic_load_explicit(&sh->owner, lb_rlx) != 0)
		atomic_fetch_add_explicit(&sh->violations, 1, lb_rlx);
	for (unsigned i = 0; i < w->p->cs_lines; i++)
		sum += sh->lines[i].w[0];
	lb_sink(sum);
	lb_delay(w->p->cs_loops);
	if (atomic_load_explicit(&sh->owner, lb_rlx) != 0)
		atomic_fetch_add_explicit(&sh->violations, 1, lb_rlx);
	atomic_fetch_sub_explicit(&sh->readers, 1, lb_rlx);
}

/* Is this operation a read? */
static inline bool rw_pick_read(struct worker *w)
{
	if (w->p->fixed_roles)
		return wl_is_reader(w->p, w->tid, w->nthreads);
	return lb_rand(&w->rng) % 100 < w->p->read_pct;
}

static void rw_loop(struct worker *w)
{
	const struct lock_ops *ops = w->ops;
	bool shared = ops->caps & LOCK_CAP_RW;
	void (*rlock)(void *, void *) = shared ? ops->read_lock : ops->lock;
	void (*runlock)(void *, void *) = shared ? ops->read_unlock : ops->unlock;
	struct wl_hand h = {0};
	uint64_t n = 0, reads = 0;

	while (!atomic_load_explicit(w->stop, lb_rlx)) {
		if (rw_pick_read(w)) {
			wl_acquire(w, rlock);
			rw_read_body(w);
			runlock(w->lock, w->ctx);
			reads++;
		} else {
			wl_acquire(w, ops->lock);
			wl_cs_body(w, &h);
			ops->unlock(w->lock, w->ctx);
		}
		wl_ncs_body(w);
		wl_publish(w, ++n, reads, &h);
	}
}

static const char *const rw_options[] = {"readers", "writers", "read-pct", NULL};

const struct workload_ops workload_rw_ops = {
	.name = "rw",
	.options = rw_options,
	.desc = "readers (read_lock, read the lines) and writers (lock, write them); "
		"--readers/--writers or --read-pct",
	.long_desc =
		"Reader-writer mix.  --readers N --writers M fix each thread's role\n"
		"(threads 0..M-1 write, the rest read; N+M must be the thread count,\n"
		"or give one of them and the other is the rest); --read-pct P\n"
		"(default 90) instead draws each operation: a read with probability\n"
		"P%.  Readers take read_lock() and read the --cs-lines lines, writers\n"
		"take the write lock and write them.  Reads and writes are reported\n"
		"separately in JSON (read_ops, write_ops, per-thread kind); the\n"
		"table shows their total.  A lock without read_lock() runs every\n"
		"operation exclusive, so rwlocks and mutexes compare in one command.\n"
		"Checked: writers exclusive (owner field, unprotected counter),\n"
		"readers never beside a writer (a reader count writers check, the\n"
		"owner field readers check).",
	.needs_caps = 0,
	.flags = WL_RW,
	.loop = rw_loop,
};
