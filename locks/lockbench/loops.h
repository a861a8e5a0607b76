/* SPDX-License-Identifier: MIT */
/*
 * lockbench/loops.h - a plugin's own worker loops, lock and unlock
 * inlined, as the built-in locks have theirs.
 *
 * A plugin's lock runs the generic loop, which calls lock() and unlock()
 * through the ops table: with empty sections that call is most of an
 * operation, and a plugin reads slower than the built-in of the same
 * algorithm.  One line after the ops table gives it the built-ins' loop:
 *
 *	#include <lockbench/loops.h>
 *	...
 *	LOCKBENCH_PLUGIN(&my_ops);
 *	LOCKBENCH_PLUGIN_LOOPS(my_ops, my_lock, my_unlock);
 *
 * (a reader-writer lock adds its read_lock and read_unlock:
 * LOCKBENCH_PLUGIN_LOOPS(my_ops, my_lock, my_unlock, my_rlock,
 * my_runlock)).  A lock whose per-thread context no other thread
 * touches (a CLH lock's node pointers) names the context's type instead,
 *
 *	LOCKBENCH_PLUGIN_LOOPS_PRIVATE(my_ops, struct my_ctx, my_lock, my_unlock);
 *
 * and its loops run the context in a local, as the built-in clh's and
 * anderson's do (what the context must then satisfy: the comment on
 * LOCKBENCH_PLUGIN_LOOPS_PRIVATE below).  The lock functions must be
 * visible in the same file, best `static inline`.  The loops come from
 * <lockbench/loop_template.h>, the template lockbench's own loops are
 * made of, and are only as portable as it: lockbench runs them when the
 * plugin's LOCKBENCH_LOOP_ABI is its own (the template it was built
 * from), and otherwise warns once and runs the generic loop.  `lockbench list
 * locks -v` and the JSON's variants[].loop say which loop a lock ran.
 */
#ifndef LOCKBENCH_LOOPS_H
#define LOCKBENCH_LOOPS_H

#include "lock.h"

/* What the template calls out of line, and the two data words it reads,
 * go through the table lockbench hands to bind() (loop_api.h in the
 * template): the names below are this plugin's, hidden. */
#define wl_loop_begin lbp_loop_begin
#define wl_loop_end lbp_loop_end
#define wl_enter_cold lbp_enter_cold
#define wl_violation lbp_violation
#define wl_delay_learn lbp_delay_learn
#define wl_cs_sampled lbp_cs_sampled
#define wl_rw_sampled lbp_rw_sampled
#define wl_torture_sampled lbp_torture_sampled
#define lb_ticks_slow lbp_ticks_slow
#define lb_relax_slow lbp_relax_slow
/* data: `extern T name` becomes a pointer to the binary's */
#define lb_exp_table (*lbp_exp_table)
#define lb_ticks_hw (*lbp_ticks_hw)
#define lb_relax_sim (*lbp_relax_sim)

#include <lockbench/loop_template.h>

#define LBP_HIDDEN __attribute__((weak, visibility("hidden")))

LBP_HIDDEN const struct lockbench_loop_api *lbp_api;
LBP_HIDDEN const uint16_t (*lbp_exp_table)[256];
LBP_HIDDEN bool *lbp_ticks_hw;
LBP_HIDDEN bool *lbp_relax_sim;
/* The head of this plugin's chain (struct lockbench_loops), which the
 * loader finds by name. */
__attribute__((weak)) const struct lockbench_loops *lockbench_plugin_loops;

LBP_HIDDEN void lbp_bind(const struct lockbench_loop_api *api)
{
	lbp_exp_table = api->exp_table;
	lbp_ticks_hw = (bool *)api->ticks_hw;
	lbp_relax_sim = (bool *)api->relax_sim;
	lbp_api = api;
}

LBP_HIDDEN void lbp_loop_begin(struct worker *w) { lbp_api->loop_begin(w); }
LBP_HIDDEN void lbp_loop_end(struct worker *w, uint64_t n, uint64_t reads)
{
	lbp_api->loop_end(w, n, reads);
}
LBP_HIDDEN void lbp_enter_cold(struct worker *w, uint64_t seen, bool readers)
{
	lbp_api->enter_cold(w, seen, readers);
}
LBP_HIDDEN void lbp_violation(struct worker *w) { lbp_api->violation(w); }
LBP_HIDDEN void lbp_delay_learn(struct wl_delay_cal *dc, uint64_t span, uint64_t t,
				int64_t moved, double empty)
{
	lbp_api->delay_learn(dc, span, t, moved, empty);
}
LBP_HIDDEN uint64_t lbp_ticks_slow(bool ordered) { return lbp_api->ticks_slow(ordered); }
LBP_HIDDEN void lbp_relax_slow(void) { lbp_api->relax_slow(); }
LBP_HIDDEN unsigned lbp_cs_sampled(struct worker *w, struct wl_state *st,
				   wl_lock_fn lk, wl_lock_fn ul)
{
	return lbp_api->cs_sampled(w, st, lk, ul);
}
LBP_HIDDEN unsigned lbp_rw_sampled(struct worker *w, struct wl_state *st,
				   wl_lock_fn lk, wl_lock_fn ul, wl_lock_fn rlk,
				   wl_lock_fn rul)
{
	return lbp_api->rw_sampled(w, st, lk, ul, rlk, rul);
}
LBP_HIDDEN unsigned lbp_torture_sampled(struct worker *w, struct wl_state *st,
					wl_lock_fn lk, wl_lock_fn ul)
{
	return lbp_api->torture_sampled(w, st, lk, ul);
}

/* Pick a macro by the number of arguments (1 to 8; more than 8 is a
 * plain syntax error). */
#define LBP_PICK_(a, b, c, d, e, f, g, h, name, ...) name

#define LOCKBENCH_PLUGIN_LOOPS(...)                                            \
	LBP_PICK_(__VA_ARGS__, LBP_LOOPS_ARGS_, LBP_LOOPS_ARGS_,               \
		  LBP_LOOPS_ARGS_, LBP_LOOPS5_, LBP_LOOPS4_, LBP_LOOPS3_,      \
		  LBP_LOOPS_ARGS_, LBP_LOOPS_ARGS_)(__VA_ARGS__)
#define LBP_LOOPS_ARGS_(...)                                                   \
	_Static_assert(0, "LOCKBENCH_PLUGIN_LOOPS(ops, lock, unlock"           \
		       "[, read_lock, read_unlock])")
#define LBP_LOOPS4_(...)                                                       \
	_Static_assert(0, "LOCKBENCH_PLUGIN_LOOPS: read_lock without read_unlock")
#define LBP_LOOPS3_(ops, lk, ul) LBP_LOOPS5_(ops, lk, ul, lk, ul)
/* The template's LB_LOOPS() defines lock_<ops>_loops, run on w->ctx. */
#define LBP_LOOPS5_(ops, lk, ul, rlk, rul)                                     \
	LB_LOOPS(ops, lk, ul, rlk, rul);                                       \
	LBP_ENTRY_(ops, 0)

/*
 * LOCKBENCH_PLUGIN_LOOPS_PRIVATE(ops, ctx_type, lock, unlock[, read_lock,
 * read_unlock]): the same loops for a lock whose per-thread context is
 * private to its thread, as the built-in clh and anderson have them
 * (workloads/loop.h, LB_LOOPS_PRIVATE): each loop copies the thread's
 * context into a local of `ctx_type` before its first operation, runs
 * lock and unlock on the local (which the compiler keeps in registers),
 * and copies it back around every sampled operation (which runs on the
 * worker's context) and when the loop ends.  So the context must be:
 *   - ops.ctx_size == sizeof(ctx_type) (the loader checks: another size
 *     runs the generic loop, with one warning line);
 *   - touched by nobody but its own thread's lock, unlock (read_lock,
 *     read_unlock, trylock), and thread_init, which runs on the worker's
 *     context before the loop copies it: no other thread reads or writes
 *     it, and nothing keeps its address (a queue node other threads spin
 *     on or link to, as MCS's, belongs outside it, in memory it points
 *     to: CLH's nodes, anderson's slot);
 *   - plain data a byte copy moves (no pointer into itself).
 * A context other threads see (MCS, qspinlock) takes LOCKBENCH_PLUGIN_LOOPS.
 */
#define LOCKBENCH_PLUGIN_LOOPS_PRIVATE(...)                                    \
	LBP_PICK_(__VA_ARGS__, LBP_PLOOPS_ARGS_, LBP_PLOOPS_ARGS_,             \
		  LBP_PLOOPS6_, LBP_PLOOPS5_, LBP_PLOOPS4_, LBP_PLOOPS_ARGS_,  \
		  LBP_PLOOPS_ARGS_, LBP_PLOOPS_ARGS_)(__VA_ARGS__)
#define LBP_PLOOPS_ARGS_(...)                                                  \
	_Static_assert(0, "LOCKBENCH_PLUGIN_LOOPS_PRIVATE(ops, ctx_type, "     \
		       "lock, unlock[, read_lock, read_unlock])")
#define LBP_PLOOPS5_(...)                                                      \
	_Static_assert(0, "LOCKBENCH_PLUGIN_LOOPS_PRIVATE: read_lock without " \
		       "read_unlock")
#define LBP_PLOOPS4_(ops, type, lk, ul) LBP_PLOOPS6_(ops, type, lk, ul, lk, ul)
#define LBP_PLOOPS6_(ops, type, lk, ul, rlk, rul)                              \
	LB_LOOPS_PRIVATE(ops, type, lk, ul, rlk, rul);                         \
	LBP_ENTRY_(ops, sizeof(type))

/* The entry of lock_<ops>_loops, with this ops table, the loop ABI and
 * the private context's size (0: none), chained by a constructor from
 * lockbench_plugin_loops when the plugin is loaded (before the loader
 * looks). */
#define LBP_ENTRY_(ops, ctx_private)                                           \
	static struct lockbench_loops lbp_##ops##_entry_ = {                   \
		LOCKBENCH_LOOP_ABI, NULL, &ops, lbp_bind,                      \
		&lock_##ops##_loops, ctx_private};                             \
	__attribute__((constructor)) static void lbp_##ops##_chain_(void)      \
	{                                                                      \
		lbp_##ops##_entry_.next = lockbench_plugin_loops;              \
		lockbench_plugin_loops = &lbp_##ops##_entry_;                  \
	}                                                                      \
	_Static_assert(1, "")

#endif /* LOCKBENCH_LOOPS_H */
