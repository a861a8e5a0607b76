/* SPDX-License-Identifier: MIT */
/*
 * lockbench/kernel.h - the Linux kernel's names for the primitives lock
 * code uses, so a lock written for the kernel (or a patch to one) can be
 * dropped into a plugin with its text unchanged:
 *
 *   READ_ONCE WRITE_ONCE smp_load_acquire smp_store_release data_race
 *   smp_mb smp_rmb smp_wmb smp_mb__before_atomic smp_mb__after_atomic
 *   smp_acquire__after_ctrl_dep barrier likely unlikely cpu_relax
 *   smp_cond_load_relaxed smp_cond_load_acquire (the VAL convention)
 *   xchg cmpxchg try_cmpxchg (_relaxed/_acquire/_release) on any scalar
 *   atomic_t, atomic_long_t, atomic64_t: read set add sub inc dec and/or/
 *   xor andnot, *_return, fetch_*, xchg, cmpxchg, try_cmpxchg, each with
 *   the kernel's _relaxed/_acquire/_release variants
 *   atomic_cond_read_relaxed atomic_cond_read_acquire
 *   u8..u64 s8..s64
 *   IS_ENABLED(CONFIG_*), CONFIG_NR_CPUS, BUILD_BUG_ON, BUG_ON, WARN_ON,
 *   WARN_ON_ONCE, prefetch prefetchw, ARRAY_SIZE, BIT GENMASK
 *   smp_processor_id, DEFINE_PER_CPU*, this_cpu_ptr, per_cpu_ptr,
 *   per_cpu, this_cpu_{read,write,add,inc,dec} (a thread is a CPU: see
 *   lb_k_cpu_enter() below)
 *
 * Semantics follow Documentation/atomic_t.txt and
 * Documentation/memory-barriers.txt: void RMW ops and _relaxed are
 * unordered; _acquire/_release order one side; value-returning ops
 * without a suffix are fully ordered (an smp_mb() on each side).
 *
 * Everything is built on the compiler's __atomic builtins, which are
 * what <stdatomic.h> expands to, so ThreadSanitizer sees every access
 * and its ordering.  TSan does not model fences: a lock that relies on
 * smp_mb()/smp_rmb()/smp_wmb() alone for ordering may get false reports
 * there (the hardware and the compiler still get the fence).
 *
 * Waiting: smp_cond_load_*() re-reads *ptr until the condition holds.
 * On arm64 it waits between reads as the kernel does
 * (arch/arm64/include/asm/barrier.h, asm/cmpxchg.h __cmpwait): arm the
 * exclusive monitor with a load-exclusive of the word and sleep in WFE
 * until another CPU writes the line (or the kernel's event stream ticks).
 * On x86 it spins with `pause`.
 *
 * Include it after <lockbench/lock.h>.  The kernel's atomic_fetch_add()
 * and friends take (i, v) where C11's generic functions of the same name
 * take (object, value): this header replaces those five C11 names
 * (atomic_fetch_{add,sub,or,xor,and}); the _explicit forms are untouched.
 */
#ifndef LOCKBENCH_KERNEL_H
#define LOCKBENCH_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "atomics.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

/* Compiler barrier. */
#define barrier() __asm__ __volatile__("" ::: "memory")

/* ---- barriers ------------------------------------------------------ */

/* GCC warns (-Wtsan) that TSan ignores fences; that is documented above,
 * so keep a plugin's -Werror TSan build quiet about it. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define LB_K_NO_TSAN_WARN_BEGIN                                                \
	_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wtsan\"")
#define LB_K_NO_TSAN_WARN_END _Pragma("GCC diagnostic pop")
#else
#define LB_K_NO_TSAN_WARN_BEGIN
#define LB_K_NO_TSAN_WARN_END
#endif

LB_K_NO_TSAN_WARN_BEGIN
static inline void lb_k_fence_sc(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void lb_k_fence_acq(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

static inline void lb_k_fence_rel(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}
LB_K_NO_TSAN_WARN_END

/* smp_rmb() orders loads with loads, smp_wmb() stores with stores; the
 * C11 acquire and release fences are the portable fences that include
 * those (arm64: dmb ishld and dmb ish; x86: compiler barriers). */
#define smp_mb() lb_k_fence_sc()
#define smp_rmb() lb_k_fence_acq()
#define smp_wmb() lb_k_fence_rel()
/* Order a void atomic RMW (atomic_inc, ...) with what follows/precedes. */
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
/* Upgrade a control dependency to acquire (kernel: smp_rmb()). */
#define smp_acquire__after_ctrl_dep() smp_rmb()

/*
 * The kernel's fully ordered RMW ops are at least as strong as an
 * smp_mb() before and after.  A seq_cst RMW gives that on x86 (a locked
 * instruction) but not on arm64, where GCC builds it from
 * load-acquire/store-release exclusives that let an earlier plain store
 * pass a later plain load; the kernel's arm64 atomics end with
 * `dmb ish` for that reason, and so do these.
 */
#if defined(__aarch64__)
#define lb_k_full_after() __asm__ __volatile__("dmb ish" ::: "memory")
#else
#define lb_k_full_after() do { } while (0)
#endif

/* ---- ONCE accesses, acquire/release -------------------------------- */

/*
 * READ_ONCE/WRITE_ONCE: relaxed atomic accesses (no tearing, no fusing,
 * no invented loads), which is what the kernel emits.  The kernel's
 * memory model also orders a READ_ONCE() before accesses that depend on
 * its value (address dependencies) and a WRITE_ONCE() after a preceding
 * full barrier; ThreadSanitizer models neither dependencies nor fences,
 * so under TSan they become an acquire load and a release store.  TSan
 * then checks a lock against the kernel's guarantees, slightly
 * strengthened: a bug that needs a missing dependency to show is not
 * found there.
 */
#if defined(__SANITIZE_THREAD__)
#define LB_K_ONCE_LOAD __ATOMIC_ACQUIRE
#define LB_K_ONCE_STORE __ATOMIC_RELEASE
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LB_K_ONCE_LOAD __ATOMIC_ACQUIRE
#define LB_K_ONCE_STORE __ATOMIC_RELEASE
#endif
#endif
#ifndef LB_K_ONCE_LOAD
#define LB_K_ONCE_LOAD __ATOMIC_RELAXED
#define LB_K_ONCE_STORE __ATOMIC_RELAXED
#define LB_K_RMW_RELAXED __ATOMIC_RELAXED
#else
/* The kernel orders a queue node's plain initialisation before the
 * relaxed xchg that publishes it with smp_wmb() (kernel/locking/
 * qspinlock.c, xchg_tail); TSan ignores the fence, so under TSan the
 * _relaxed RMWs are acquire-release, as the ONCE accesses above. */
#define LB_K_RMW_RELAXED __ATOMIC_ACQ_REL
#define LB_K_TSAN 1
#endif
#define READ_ONCE(x) __atomic_load_n(&(x), LB_K_ONCE_LOAD)
#ifndef LB_K_TSAN
#define WRITE_ONCE(x, val) __atomic_store_n(&(x), (val), LB_K_ONCE_STORE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
/*
 * Under TSan a store is an exchange.  The queued spinlock stores a byte
 * of its lock word (set_locked(), the unlock) while other CPUs publish
 * their queue nodes with RMWs on the whole word; the kernel relies on
 * the hardware's ordering there, but in C11 (and TSan) another thread's
 * store ends the release sequence of those RMWs, and a later reader
 * would not see the node's initialisation as published.  An RMW keeps
 * the sequence, so TSan checks the lock as the hardware runs it.
 */
#define WRITE_ONCE(x, val) ((void)__atomic_exchange_n(&(x), (val), LB_K_ONCE_STORE))
#define smp_store_release(p, v) ((void)__atomic_exchange_n((p), (v), __ATOMIC_RELEASE))
#endif
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
/* data_race(expr) (include/linux/compiler.h): an access the code knows
 * is racy and tolerates, e.g. a heuristic peek before a cmpxchg; the
 * kernel only hides it from KCSAN, and here it is the plain expression
 * (ThreadSanitizer may report it: that is what it marks). */
#define data_race(expr)                                                        \
	({                                                                     \
		__typeof__(({ expr; })) lb_k_dr_ = (expr);                     \
		lb_k_dr_;                                                      \
	})

/* ---- generic xchg / cmpxchg on any scalar -------------------------- */

#define lb_k_xchg(p, n, mo) __atomic_exchange_n((p), (n), (mo))
#define xchg_relaxed(p, n) lb_k_xchg(p, n, LB_K_RMW_RELAXED)
#define xchg_acquire(p, n) lb_k_xchg(p, n, __ATOMIC_ACQUIRE)
#define xchg_release(p, n) lb_k_xchg(p, n, __ATOMIC_RELEASE)
#define xchg(p, n)                                                             \
	({                                                                     \
		__typeof__(*(p)) lb_k_r_ = lb_k_xchg(p, n, __ATOMIC_SEQ_CST);  \
		lb_k_full_after();                                             \
		lb_k_r_;                                                       \
	})

/* try_cmpxchg: true and *ptr = new if *ptr == *oldp; else false and the
 * current value in *oldp.  The failure ordering is relaxed, as in the
 * kernel (a failed _acquire cmpxchg orders nothing). */
#define lb_k_try_cmpxchg(p, oldp, n, mo)                                       \
	__atomic_compare_exchange_n((p), (oldp), (n), false, (mo),             \
				    __ATOMIC_RELAXED)
#define try_cmpxchg_relaxed(p, o, n) lb_k_try_cmpxchg(p, o, n, LB_K_RMW_RELAXED)
#define try_cmpxchg_acquire(p, o, n) lb_k_try_cmpxchg(p, o, n, __ATOMIC_ACQUIRE)
#define try_cmpxchg_release(p, o, n) lb_k_try_cmpxchg(p, o, n, __ATOMIC_RELEASE)
#define try_cmpxchg(p, o, n)                                                   \
	({                                                                     \
		bool lb_k_ok_ = lb_k_try_cmpxchg(p, o, n, __ATOMIC_SEQ_CST);   \
		lb_k_full_after();                                             \
		lb_k_ok_;                                                      \
	})

/* cmpxchg: returns the value *ptr held before (== old on success). */
#define lb_k_cmpxchg(p, o, n, try)                                             \
	({                                                                     \
		__typeof__(*(p)) lb_k_old_ = (o);                              \
		(void)try(p, &lb_k_old_, n);                                   \
		lb_k_old_;                                                     \
	})
#define cmpxchg_relaxed(p, o, n) lb_k_cmpxchg(p, o, n, try_cmpxchg_relaxed)
#define cmpxchg_acquire(p, o, n) lb_k_cmpxchg(p, o, n, try_cmpxchg_acquire)
#define cmpxchg_release(p, o, n) lb_k_cmpxchg(p, o, n, try_cmpxchg_release)
#define cmpxchg(p, o, n) lb_k_cmpxchg(p, o, n, try_cmpxchg)

/* ---- waiting ------------------------------------------------------- */

/*
 * Wait until *p may have changed from val.  arm64: SEVL+WFE consumes
 * any stale event so the second WFE really sleeps; the load-exclusive
 * arms the monitor, so a write to the line by another CPU sends the
 * event that ends the WFE.  If *p already differs, do not sleep.
 */
#if defined(__aarch64__)
#define LB_K_CMPWAIT(bits, w, sfx)                                             \
	static inline void lb_k_cmpwait##bits(const volatile void *p,          \
					      uint##bits##_t val)              \
	{                                                                      \
		uint64_t tmp;                                                  \
		__asm__ __volatile__("	sevl\n"                               \
				     "	wfe\n"                                \
				     "	ldxr" sfx "	%" w "0, %1\n"         \
				     "	eor	%" w "0, %" w "0, %" w "2\n"  \
				     "	cbnz	%" w "0, 1f\n"               \
				     "	wfe\n"                                \
				     "1:"                                      \
				     : "=&r"(tmp)                              \
				     : "Q"(*(const volatile uint##bits##_t *)p), \
				       "r"(val)                                \
				     : "memory");                              \
	}
LB_K_CMPWAIT(8, "w", "b")
LB_K_CMPWAIT(16, "w", "h")
LB_K_CMPWAIT(32, "w", "")
LB_K_CMPWAIT(64, "x", "")
#undef LB_K_CMPWAIT

static inline void lb_k_cmpwait(const volatile void *p, uint64_t val, unsigned size)
{
	switch (size) {
	case 1: lb_k_cmpwait8(p, (uint8_t)val); break;
	case 2: lb_k_cmpwait16(p, (uint16_t)val); break;
	case 4: lb_k_cmpwait32(p, (uint32_t)val); break;
	default: lb_k_cmpwait64(p, val); break;
	}
}
/* Pointers and integers of every width fit in 64 bits. */
#define lb_k_wait(p, val)                                                      \
	lb_k_cmpwait((p), (uint64_t)(uintptr_t)(val), sizeof(*(p)))
#else
#define lb_k_wait(p, val) cpu_relax()
#endif

/* The type of x without const/volatile (the kernel's
 * __unqual_scalar_typeof): _Generic drops qualifiers of scalars. */
#define lb_k_unqual_typeof(x)                                                  \
	__typeof__(_Generic((x),                                               \
		char: (char)0, signed char: (signed char)0,                    \
		unsigned char: (unsigned char)0, short: (short)0,              \
		unsigned short: (unsigned short)0, int: (int)0,                \
		unsigned int: (unsigned int)0, long: (long)0,                  \
		unsigned long: (unsigned long)0, long long: (long long)0,      \
		unsigned long long: (unsigned long long)0, _Bool: (_Bool)0,    \
		default: (x)))

/*
 * smp_cond_load_relaxed(ptr, cond) / smp_cond_load_acquire(ptr, cond):
 * load *ptr into VAL until cond (an expression in VAL) is true; return
 * VAL.  The _acquire form orders the final load before what follows.
 */
#define lb_k_cond_load(ptr, cond_expr, mo)                                     \
	({                                                                     \
		__typeof__(ptr) lb_k_p_ = (ptr);                               \
		lb_k_unqual_typeof(*lb_k_p_) VAL;                              \
		for (;;) {                                                     \
			VAL = __atomic_load_n(lb_k_p_, (mo));                  \
			if (cond_expr)                                         \
				break;                                         \
			lb_k_wait(lb_k_p_, VAL);                               \
		}                                                              \
		(__typeof__(*(ptr)))VAL;                                       \
	})
/* Relaxed as READ_ONCE() is: acquire under TSan (see READ_ONCE). */
#define smp_cond_load_relaxed(ptr, cond_expr)                                  \
	lb_k_cond_load(ptr, cond_expr, LB_K_ONCE_LOAD)
#define smp_cond_load_acquire(ptr, cond_expr)                                  \
	lb_k_cond_load(ptr, cond_expr, __ATOMIC_ACQUIRE)

/* ---- atomic_t, atomic_long_t, atomic64_t --------------------------- */

typedef struct {
	int counter;
} atomic_t;
typedef struct {
	long counter;
} atomic_long_t;
typedef struct {
	s64 counter;
} atomic64_t;

#define ATOMIC_INIT(i) {(i)}
#define ATOMIC_LONG_INIT(i) {(i)}
#define ATOMIC64_INIT(i) {(i)}

#define atomic_cond_read_relaxed(v, c) smp_cond_load_relaxed(&(v)->counter, (c))
#define atomic_cond_read_acquire(v, c) smp_cond_load_acquire(&(v)->counter, (c))
#define atomic_long_cond_read_relaxed(v, c) smp_cond_load_relaxed(&(v)->counter, (c))
#define atomic_long_cond_read_acquire(v, c) smp_cond_load_acquire(&(v)->counter, (c))

/* These C11 generic functions take (object, value); the kernel's take
 * (i, v).  The kernel's win here. */
#undef atomic_fetch_add
#undef atomic_fetch_sub
#undef atomic_fetch_or
#undef atomic_fetch_xor
#undef atomic_fetch_and

/* One ordering variant SFX with C11 order MO of every RMW op of type
 * PFX##_t (pfx = atomic, atomic_long, atomic64; T its integer). */
#define LB_K_ATOMIC_RMW(pfx, T, sfx, mo, post)                                 \
	static inline T pfx##_fetch_add##sfx(T i, pfx##_t *v)                  \
	{ T r = __atomic_fetch_add(&v->counter, i, mo); post; return r; }      \
	static inline T pfx##_fetch_sub##sfx(T i, pfx##_t *v)                  \
	{ T r = __atomic_fetch_sub(&v->counter, i, mo); post; return r; }      \
	static inline T pfx##_fetch_and##sfx(T i, pfx##_t *v)                  \
	{ T r = __atomic_fetch_and(&v->counter, i, mo); post; return r; }      \
	static inline T pfx##_fetch_andnot##sfx(T i, pfx##_t *v)               \
	{ T r = __atomic_fetch_and(&v->counter, ~i, mo); post; return r; }     \
	static inline T pfx##_fetch_or##sfx(T i, pfx##_t *v)                   \
	{ T r = __atomic_fetch_or(&v->counter, i, mo); post; return r; }       \
	static inline T pfx##_fetch_xor##sfx(T i, pfx##_t *v)                  \
	{ T r = __atomic_fetch_xor(&v->counter, i, mo); post; return r; }      \
	static inline T pfx##_fetch_inc##sfx(pfx##_t *v)                       \
	{ return pfx##_fetch_add##sfx(1, v); }                                 \
	static inline T pfx##_fetch_dec##sfx(pfx##_t *v)                       \
	{ return pfx##_fetch_sub##sfx(1, v); }                                 \
	/* *_return from the builtins: they wrap like the kernel's (which \
	 * builds with -fno-strict-overflow) where `fetch + i` could be  \
	 * signed overflow. */                                               \
	static inline T pfx##_add_return##sfx(T i, pfx##_t *v)                 \
	{ T r = __atomic_add_fetch(&v->counter, i, mo); post; return r; }      \
	static inline T pfx##_sub_return##sfx(T i, pfx##_t *v)                 \
	{ T r = __atomic_sub_fetch(&v->counter, i, mo); post; return r; }      \
	static inline T pfx##_inc_return##sfx(pfx##_t *v)                      \
	{ return pfx##_add_return##sfx(1, v); }                                \
	static inline T pfx##_dec_return##sfx(pfx##_t *v)                      \
	{ return pfx##_sub_return##sfx(1, v); }                                \
	static inline T pfx##_xchg##sfx(pfx##_t *v, T n)                       \
	{ T r = __atomic_exchange_n(&v->counter, n, mo); post; return r; }     \
	static inline bool pfx##_try_cmpxchg##sfx(pfx##_t *v, T *old, T n)     \
	{                                                                      \
		bool ok = __atomic_compare_exchange_n(&v->counter, old, n,     \
				false, mo, __ATOMIC_RELAXED);                  \
		post;                                                          \
		return ok;                                                     \
	}                                                                      \
	static inline T pfx##_cmpxchg##sfx(pfx##_t *v, T old, T n)             \
	{ (void)pfx##_try_cmpxchg##sfx(v, &old, n); return old; }

#define LB_K_ATOMIC(pfx, T)                                                    \
	static inline T pfx##_read(const pfx##_t *v)                           \
	{ return READ_ONCE(v->counter); }                                      \
	static inline T pfx##_read_acquire(const pfx##_t *v)                   \
	{ return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); }             \
	static inline void pfx##_set(pfx##_t *v, T i)                          \
	{ WRITE_ONCE(v->counter, i); }                                         \
	static inline void pfx##_set_release(pfx##_t *v, T i)                  \
	{ __atomic_store_n(&v->counter, i, __ATOMIC_RELEASE); }                \
	LB_K_ATOMIC_RMW(pfx, T, _relaxed, LB_K_RMW_RELAXED, (void)0)           \
	LB_K_ATOMIC_RMW(pfx, T, _acquire, __ATOMIC_ACQUIRE, (void)0)           \
	LB_K_ATOMIC_RMW(pfx, T, _release, __ATOMIC_RELEASE, (void)0)           \
	LB_K_ATOMIC_RMW(pfx, T, , __ATOMIC_SEQ_CST, lb_k_full_after())         \
	/* Void ops order nothing (Documentation/atomic_t.txt). */             \
	static inline void pfx##_add(T i, pfx##_t *v)                          \
	{ (void)pfx##_fetch_add_relaxed(i, v); }                               \
	static inline void pfx##_sub(T i, pfx##_t *v)                          \
	{ (void)pfx##_fetch_sub_relaxed(i, v); }                               \
	static inline void pfx##_inc(pfx##_t *v)                               \
	{ (void)pfx##_fetch_add_relaxed(1, v); }                               \
	static inline void pfx##_dec(pfx##_t *v)                               \
	{ (void)pfx##_fetch_sub_relaxed(1, v); }                               \
	static inline void pfx##_and(T i, pfx##_t *v)                          \
	{ (void)pfx##_fetch_and_relaxed(i, v); }                               \
	static inline void pfx##_andnot(T i, pfx##_t *v)                       \
	{ (void)pfx##_fetch_andnot_relaxed(i, v); }                            \
	static inline void pfx##_or(T i, pfx##_t *v)                           \
	{ (void)pfx##_fetch_or_relaxed(i, v); }                                \
	static inline void pfx##_xor(T i, pfx##_t *v)                          \
	{ (void)pfx##_fetch_xor_relaxed(i, v); }                               \
	/* Fully ordered tests, as in the kernel. */                           \
	static inline bool pfx##_dec_and_test(pfx##_t *v)                      \
	{ return pfx##_dec_return(v) == 0; }                                   \
	static inline bool pfx##_inc_and_test(pfx##_t *v)                      \
	{ return pfx##_inc_return(v) == 0; }

LB_K_ATOMIC(atomic, int)
LB_K_ATOMIC(atomic_long, long)
LB_K_ATOMIC(atomic64, s64)

#undef LB_K_ATOMIC
#undef LB_K_ATOMIC_RMW

/* ---- configuration, checks, bits ----------------------------------- */

/*
 * The kernel's configuration test (include/linux/kconfig.h): IS_ENABLED
 * (CONFIG_FOO) is 1 when CONFIG_FOO is defined to 1 (or y), 0 when it is
 * undefined, so `if (IS_ENABLED(...))` and `#if IS_ENABLED(...)` both
 * work.  A plugin defines the options it wants before this header, as
 * the kernel's Kconfig would; CONFIG_NR_CPUS defaults to LB_K_NR_CPUS.
 */
#define lb_k_arg_placeholder_1 0,
#define lb_k_take_second(ignored, val, ...) val
#define lb_k_is_defined3(junk) lb_k_take_second(junk 1, 0, 0)
#define lb_k_is_defined2(val) lb_k_is_defined3(lb_k_arg_placeholder_##val)
#define lb_k_is_defined(x) lb_k_is_defined2(x)
#ifndef IS_ENABLED
#define IS_ENABLED(option) lb_k_is_defined(option)
#define IS_BUILTIN(option) lb_k_is_defined(option)
#define IS_REACHABLE(option) lb_k_is_defined(option)
#endif
#ifndef CONFIG_NR_CPUS
#define CONFIG_NR_CPUS 1024
#endif
#define NR_CPUS CONFIG_NR_CPUS

/* Compile-time checks (include/linux/build_bug.h) as C11 static asserts
 * inside a statement; the condition must be a constant expression. */
#define BUILD_BUG_ON_MSG(cond, msg)                                            \
	do {                                                                   \
		_Static_assert(!(cond), msg);                                  \
	} while (0)
#define BUILD_BUG_ON(cond) BUILD_BUG_ON_MSG(cond, "BUILD_BUG_ON(" #cond ")")
#define BUILD_BUG() BUILD_BUG_ON_MSG(1, "BUILD_BUG()")
#define BUILD_BUG_ON_ZERO(e) ((int)(sizeof(struct { int:(-!!(e)); })))

/* Run-time checks (include/asm-generic/bug.h): BUG_ON aborts (a broken
 * invariant must not be measured as a fast lock); WARN_ON* return the
 * condition and say once on stderr where it held. */
#define BUG() abort()
#define BUG_ON(cond)                                                           \
	do {                                                                   \
		if (unlikely(cond))                                            \
			BUG();                                                 \
	} while (0)
#define WARN_ON(cond)                                                          \
	({                                                                     \
		bool lb_k_w_ = !!(cond);                                       \
		if (unlikely(lb_k_w_))                                         \
			fprintf(stderr, "WARN_ON(%s) at %s:%d\n", #cond,       \
				__FILE__, __LINE__);                           \
		lb_k_w_;                                                       \
	})
#define WARN_ON_ONCE(cond)                                                     \
	({                                                                     \
		static bool lb_k_warned_;                                      \
		bool lb_k_w_ = !!(cond);                                       \
		if (unlikely(lb_k_w_) &&                                       \
		    !__atomic_exchange_n(&lb_k_warned_, true, __ATOMIC_RELAXED)) \
			fprintf(stderr, "WARN_ON_ONCE(%s) at %s:%d\n", #cond,  \
				__FILE__, __LINE__);                           \
		lb_k_w_;                                                       \
	})
#define WARN_ONCE(cond, ...) WARN_ON_ONCE(cond)
#define WARN(cond, ...) WARN_ON(cond)

/* Prefetch for reading / for writing (include/linux/prefetch.h). */
#define prefetch(x) __builtin_prefetch((x), 0)
#define prefetchw(x) __builtin_prefetch((x), 1)

/* ARRAY_SIZE refuses a pointer, as the kernel's does (__must_be_array). */
#define ARRAY_SIZE(a)                                                          \
	(sizeof(a) / sizeof((a)[0]) +                                          \
	 BUILD_BUG_ON_ZERO(__builtin_types_compatible_p(__typeof__(a),         \
							__typeof__(&(a)[0]))))
#ifndef BITS_PER_LONG
#define BITS_PER_LONG (8 * (int)sizeof(long))
#endif
#define BIT(nr) (1UL << (nr))
#define BIT_ULL(nr) (1ULL << (nr))
/* Bits h..l set (include/linux/bits.h), h >= l. */
#define GENMASK(h, l) (((~0UL) << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l) (((~0ULL) << (l)) & (~0ULL >> (63 - (h))))

/* ---- CPUs and per-CPU data ----------------------------------------- */

/*
 * A worker thread is the kernel's CPU: smp_processor_id() is the index
 * the plugin gives the thread with lb_k_cpu_enter() in its thread_init
 * (usually lock_thread.tid, which is dense from 0).  Per-CPU variables
 * (DEFINE_PER_CPU and friends) are thread-local, each first touched by
 * its own thread; this_cpu_ptr(&v) is the calling thread's copy and
 * per_cpu_ptr(&v, cpu) another thread's, found as the kernel finds it,
 * by adding that CPU's offset (Documentation/core-api/this_cpu_ops.rst):
 * every thread-local of one shared object sits at the same distance
 * from the object's anchor in every thread.  Read another CPU's copy
 * only after that thread's lb_k_cpu_enter().
 */
#define LB_K_WEAK __attribute__((weak))
LB_K_WEAK __thread int lb_k_cpu_id;
LB_K_WEAK __thread char lb_k_percpu_anchor;
LB_K_WEAK char *lb_k_percpu_base[CONFIG_NR_CPUS];

static inline int lb_k_cpu_enter(unsigned cpu)
{
	if (cpu >= CONFIG_NR_CPUS)
		return -1;
	lb_k_cpu_id = (int)cpu;
	__atomic_store_n(&lb_k_percpu_base[cpu], &lb_k_percpu_anchor,
			 __ATOMIC_RELEASE);
	return 0;
}

#define smp_processor_id() ((int)lb_k_cpu_id)
#define raw_smp_processor_id() smp_processor_id()
#define get_cpu() smp_processor_id()
#define put_cpu() do { } while (0)
#define __percpu
#define DECLARE_PER_CPU(type, name) extern __thread __typeof__(type) name
#define DEFINE_PER_CPU(type, name) __thread __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name)                                     \
	__thread __typeof__(type) name __attribute__((aligned(LB_CACHELINE)))
#define DEFINE_PER_CPU_SHARED_ALIGNED(type, name) DEFINE_PER_CPU_ALIGNED(type, name)
#define DECLARE_PER_CPU_ALIGNED(type, name) DECLARE_PER_CPU(type, name)
#define DECLARE_PER_CPU_SHARED_ALIGNED(type, name) DECLARE_PER_CPU(type, name)

#define this_cpu_ptr(ptr) (ptr)
#define raw_cpu_ptr(ptr) (ptr)
#define per_cpu_ptr(ptr, cpu)                                                  \
	((__typeof__(ptr))((char *)(ptr) - &lb_k_percpu_anchor +               \
			   __atomic_load_n(&lb_k_percpu_base[(cpu)],           \
					   __ATOMIC_ACQUIRE)))
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), (cpu)))
#define this_cpu_read(var) (var)
#define this_cpu_write(var, val) ((var) = (val))
#define this_cpu_add(var, n) ((var) += (n))
#define this_cpu_inc(var) ((var)++)
#define this_cpu_dec(var) ((var)--)
#define __this_cpu_read this_cpu_read
#define __this_cpu_write this_cpu_write
#define __this_cpu_add this_cpu_add
#define __this_cpu_inc this_cpu_inc
#define __this_cpu_dec this_cpu_dec
#define raw_cpu_read this_cpu_read
#define raw_cpu_add this_cpu_add
#define raw_cpu_inc this_cpu_inc
#define raw_cpu_dec this_cpu_dec
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < CONFIG_NR_CPUS; (cpu)++)

#endif /* LOCKBENCH_KERNEL_H */
