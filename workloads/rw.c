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
#include "loop.h"

/* The generic loop (plugins): the template through the ops table. */
static void rw_loop(struct worker *w)
{
	const struct lock_ops *ops = w->ops;
	bool shared = ops->caps & LOCK_CAP_RW;

	wl_rw_loop_t(w, ops->lock, ops->unlock,
		     shared ? ops->read_lock : ops->lock,
		     shared ? ops->read_unlock : ops->unlock, NULL, 0);
}

static const struct wl_option rw_options[] = {
	{.name = "readers", .arg = "N", .type = WL_OPT_UINT, .max = WL_MAX_THREADS, /* -t's most */
	 .off = offsetof(struct wl_params, readers),
	 .help = "N threads read (the rest write, or --writers)"},
	{.name = "writers", .arg = "N", .type = WL_OPT_UINT, .max = WL_MAX_THREADS,
	 .off = offsetof(struct wl_params, writers),
	 .help = "N threads write (threads 0..N-1)"},
	WL_READ_PCT_OPTION,
	{0},
};

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
	.inline_loop = WL_LOOP_RW,
};
