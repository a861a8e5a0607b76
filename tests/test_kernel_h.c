/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of <lockbench/kernel.h>: the kernel's return-value
 * conventions (fetch_* return the old value, *_return the new one,
 * cmpxchg the previous one, try_cmpxchg updates *old on failure), the
 * VAL convention of smp_cond_load_*(), wrap-around without signed
 * overflow (UBSan checks it in the asan build), and one message passed
 * from a thread through smp_store_release()/smp_cond_load_acquire().
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../locks/lockbench/lock.h"
#include "../locks/lockbench/kernel.h"

static void test_atomic_t_returns(void **state)
{
	atomic_t v = ATOMIC_INIT(5);
	int old;

	(void)state;
	assert_int_equal(atomic_read(&v), 5);
	assert_int_equal(atomic_fetch_add(3, &v), 5);
	assert_int_equal(atomic_read_acquire(&v), 8);
	assert_int_equal(atomic_add_return_relaxed(2, &v), 10);
	assert_int_equal(atomic_fetch_sub_release(4, &v), 10);
	assert_int_equal(atomic_sub_return_acquire(1, &v), 5);
	assert_int_equal(atomic_inc_return(&v), 6);
	assert_int_equal(atomic_dec_return_release(&v), 5);
	atomic_inc(&v);
	atomic_add(10, &v);
	atomic_sub(6, &v);
	atomic_dec(&v);
	assert_int_equal(atomic_read(&v), 9);

	atomic_set(&v, 0x0f);
	assert_int_equal(atomic_fetch_or_acquire(0x30, &v), 0x0f);
	assert_int_equal(atomic_fetch_andnot_relaxed(0x03, &v), 0x3f);
	assert_int_equal(atomic_fetch_and(0x1c, &v), 0x3c);
	assert_int_equal(atomic_fetch_xor_release(0xff, &v), 0x1c);
	assert_int_equal(atomic_read(&v), 0xe3);
	atomic_or(0x100, &v);
	atomic_andnot(0xe0, &v);
	atomic_xor(0x1, &v);
	atomic_and(0x1f2, &v);
	assert_int_equal(atomic_read(&v), 0x102);

	atomic_set_release(&v, 7);
	assert_int_equal(atomic_xchg_relaxed(&v, 9), 7);
	assert_int_equal(atomic_xchg(&v, 1), 9);
	assert_int_equal(atomic_cmpxchg_acquire(&v, 1, 2), 1);
	assert_int_equal(atomic_cmpxchg(&v, 1, 3), 2); /* fails: returns current */
	assert_int_equal(atomic_read(&v), 2);
	old = 5;
	assert_false(atomic_try_cmpxchg_acquire(&v, &old, 6));
	assert_int_equal(old, 2); /* failure reports what it saw */
	assert_true(atomic_try_cmpxchg_release(&v, &old, 6));
	assert_int_equal(atomic_read(&v), 6);
	assert_true(atomic_dec_and_test(&(atomic_t)ATOMIC_INIT(1)));
	assert_false(atomic_dec_and_test(&v));
}

/* The kernel builds with -fno-strict-overflow: atomics wrap. */
static void test_wraps(void **state)
{
	atomic_t v = ATOMIC_INIT(INT_MAX);
	atomic_long_t l = ATOMIC_LONG_INIT(LONG_MIN);
	atomic64_t q = ATOMIC64_INIT(INT64_MAX);

	(void)state;
	assert_int_equal(atomic_inc_return(&v), INT_MIN);
	assert_true(atomic_long_dec_return_relaxed(&l) == LONG_MAX);
	assert_true(atomic64_add_return_acquire(2, &q) == INT64_MIN + 1);
	assert_true(atomic64_fetch_inc(&q) == INT64_MIN + 1);
}

static void test_generic_ops(void **state)
{
	unsigned short h = 3;
	unsigned long w = 10;
	int x = 0, *p = NULL, *old;

	(void)state;
	WRITE_ONCE(h, 4);
	assert_int_equal(READ_ONCE(h), 4);
	assert_int_equal(xchg_relaxed(&h, 5), 4);
	assert_int_equal(xchg(&w, 11UL), 10);
	assert_int_equal(cmpxchg_release(&w, 11UL, 12UL), 11);
	assert_int_equal(cmpxchg_acquire(&w, 11UL, 13UL), 12);
	assert_int_equal(cmpxchg(&w, 12UL, 14UL), 12);
	assert_int_equal(smp_load_acquire(&w), 14);
	smp_store_release(&w, 15UL);
	assert_int_equal(READ_ONCE(w), 15);

	/* Pointers, as the kernel's MCS and qspinlock code use them. */
	assert_null(xchg_acquire(&p, &x));
	assert_ptr_equal(xchg_release(&p, &x), &x);
	old = NULL;
	assert_false(try_cmpxchg(&p, &old, NULL));
	assert_ptr_equal(old, &x);
	assert_true(try_cmpxchg_relaxed(&p, &old, NULL));
	assert_null(p);
	assert_true(likely(p == NULL));
	assert_false(unlikely(p != NULL));

	/* data_race(): the expression's value, of its type, evaluated once
	 * (kernel/locking/osq_lock.c peeks at prev->next with it). */
	p = &x;
	assert_ptr_equal(data_race(p), &x);
	w = 7;
	assert_int_equal(data_race(w++) + 1, 8);
	assert_int_equal(w, 8);
	assert_int_equal(sizeof(data_race(h)), sizeof(h));
}

/* VAL is the value read; the result is the value that met the
 * condition.  Conditions true at the first read (no waiting: this test
 * also runs where only one thread exists). */
static void test_cond_load_val(void **state)
{
	uint8_t b = 0x81;
	int i = -3;
	const volatile unsigned u = 40;
	atomic_t v = ATOMIC_INIT(12);

	(void)state;
	assert_int_equal(smp_cond_load_relaxed(&b, VAL & 0x80), 0x81);
	assert_int_equal(smp_cond_load_acquire(&i, VAL < 0), -3);
	assert_int_equal(smp_cond_load_acquire(&u, VAL >= 40), 40);
	assert_int_equal(atomic_cond_read_acquire(&v, VAL == 12), 12);
	assert_int_equal(atomic_cond_read_relaxed(&v, !(VAL & 1)), 12);
	smp_mb();
	smp_rmb();
	smp_wmb();
	smp_mb__after_atomic();
	barrier();
}

/* A message through release/acquire: the waiter must see the payload
 * written before the flag (a real wait: the flag is set after a delay). */
struct msg {
	int payload;
	u32 flag;
};

static void *sender(void *arg)
{
	struct msg *m = arg;

	for (volatile int i = 0; i < 100000; i++)
		;
	WRITE_ONCE(m->payload, 42);
	smp_store_release(&m->flag, 7);
	return NULL;
}

static void test_cond_load_waits(void **state)
{
	struct msg m = {0, 0};
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, sender, &m), 0);
	assert_int_equal(smp_cond_load_acquire(&m.flag, VAL != 0), 7);
	assert_int_equal(READ_ONCE(m.payload), 42);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* ---- what pasting a kernel lock needs beyond the atomics ---------- */

#define CONFIG_LB_TEST_ON 1

static void test_config_bits(void **state)
{
	int a[5];

	(void)state;
	assert_int_equal(IS_ENABLED(CONFIG_LB_TEST_ON), 1);
	assert_int_equal(IS_ENABLED(CONFIG_LB_TEST_OFF), 0);
#if !IS_ENABLED(CONFIG_LB_TEST_ON) || IS_ENABLED(CONFIG_LB_TEST_OFF)
	fail_msg("IS_ENABLED in #if");
#endif
	BUILD_BUG_ON(sizeof(u32) != 4);
	assert_int_equal(ARRAY_SIZE(a), 5);
	assert_int_equal(BIT(3), 8);
	assert_true(GENMASK(7, 4) == 0xf0UL);
	assert_true(GENMASK(BITS_PER_LONG - 1, 0) == ~0UL);
	assert_true(GENMASK_ULL(63, 62) == 0xc000000000000000ULL);
	assert_true(WARN_ON_ONCE(a == NULL) == false);
	assert_true(CONFIG_NR_CPUS >= 1);
}

/* Each thread is a CPU; per_cpu_ptr() finds another thread's copy. */
static DEFINE_PER_CPU(long, pcpu_count);
static DEFINE_PER_CPU_ALIGNED(int, pcpu_arr[3]);

struct cpu_arg {
	unsigned cpu;
	long *mine;
	int *arr;
	int go;       /* set by main once it has looked: the thread may exit */
	int ready;
};

static void *cpu_thread(void *p)
{
	struct cpu_arg *a = p;

	assert_int_equal(lb_k_cpu_enter(a->cpu), 0);
	assert_int_equal(smp_processor_id(), (int)a->cpu);
	this_cpu_add(pcpu_count, 10 + a->cpu);
	this_cpu_inc(pcpu_count);
	this_cpu_ptr(&pcpu_arr[0])[2] = (int)a->cpu;
	a->mine = this_cpu_ptr(&pcpu_count);
	a->arr = this_cpu_ptr(&pcpu_arr[2]);
	smp_store_release(&a->ready, 1);
	smp_cond_load_acquire(&a->go, VAL);
	return NULL;
}

static void test_per_cpu(void **state)
{
	struct cpu_arg a[2] = {{.cpu = 3}, {.cpu = 5}};
	pthread_t t[2];

	(void)state;
	assert_int_equal(lb_k_cpu_enter(0), 0);
	this_cpu_write(pcpu_count, 1);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, cpu_thread, &a[i]), 0);
	for (int i = 0; i < 2; i++) {
		smp_cond_load_acquire(&a[i].ready, VAL);
		assert_ptr_equal(per_cpu_ptr(&pcpu_count, a[i].cpu), a[i].mine);
		assert_int_equal(per_cpu(pcpu_count, a[i].cpu), 11 + a[i].cpu);
		assert_ptr_equal(per_cpu_ptr(&pcpu_arr[2], a[i].cpu), a[i].arr);
		assert_int_equal(*per_cpu_ptr(&pcpu_arr[2], a[i].cpu), a[i].cpu);
	}
	assert_int_equal(per_cpu(pcpu_count, 0), 1);
	assert_ptr_equal(per_cpu_ptr(&pcpu_count, 0), this_cpu_ptr(&pcpu_count));
	assert_int_not_equal(lb_k_cpu_enter(CONFIG_NR_CPUS), 0);
	for (int i = 0; i < 2; i++) {
		smp_store_release(&a[i].go, 1);
		assert_int_equal(pthread_join(t[i], NULL), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_t_returns),
		cmocka_unit_test(test_wraps),
		cmocka_unit_test(test_generic_ops),
		cmocka_unit_test(test_cond_load_val),
		cmocka_unit_test(test_cond_load_waits),
		cmocka_unit_test(test_config_bits),
		cmocka_unit_test(test_per_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
