/* SPDX-License-Identifier: MIT */
/*
 * Host takes (topology/host/takes.h): the counting fed synthetic stamps with
 * known gaps, on a counter finer than a read (1 ns ticks, 10 ns reads)
 * and on one coarser (40 ns ticks, as arm64's 25 MHz counter, 10 ns
 * reads: consecutive reads return the same value), the threshold from
 * the measured read, and the live measure: every CPU figured, the
 * caller's affinity untouched, a CPU that cannot be pinned said so, and
 * the guest's own scheduling (another thread on the same CPU) not
 * counted as the host's; and the per-CPU interrupt counts read beside
 * it (topology/host/irqs.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../topology/host/irqs.h"
#include "../topology/host/takes.h"

/*
 * Stamps of a loop that reads every read_ns on a counter of tick_ns:
 * reading i happens at i * read_ns plus the gaps before it, and reads
 * floor(t / tick_ns).  gap_at[k] (ascending) is the reading before which
 * gap_ns[k] passes.  Returns a malloc'ed array of n stamps.
 */
static uint64_t *synth(size_t n, double read_ns, double tick_ns, const size_t *gap_at,
		       const double *gap_ns, unsigned ngaps)
{
	uint64_t *s = malloc(n * sizeof(*s));
	double t = 0;
	unsigned g = 0;

	assert_non_null(s);
	for (size_t i = 0; i < n; i++) {
		if (g < ngaps && gap_at[g] == i)
			t += gap_ns[g++];
		s[i] = (uint64_t)floor(t / tick_ns);
		t += read_ns;
	}
	return s;
}

/* The interval of a tight loop, the threshold from it. */
static void test_threshold(void **state)
{
	size_t at[] = {100, 2000};
	double gap[] = {50000, 3000};
	uint64_t *s = synth(HT_CAL_STAMPS, 10, 1, at, gap, 2);

	(void)state;
	/* the two blocks the gaps fell in are outliers the median leaves out */
	assert_float_equal(ht_read_ticks(s, HT_CAL_STAMPS), 10, 1e-9);
	assert_true(isnan(ht_read_ticks(s, HT_CAL_STAMPS - 1)));
	free(s);
	/* a coarse counter: 40 ns ticks, 10 ns reads: a quarter tick a read */
	s = synth(HT_CAL_STAMPS, 10, 40, at, gap, 2);
	assert_float_equal(ht_read_ticks(s, HT_CAL_STAMPS), 0.25, 1.0 / HT_CAL_BLOCK);
	free(s);
	/* the floor; 50 reads of 40 ns; 3 ticks of a 1 MHz counter */
	assert_float_equal(ht_threshold_ns(10, 1), 1000, 0);
	assert_float_equal(ht_threshold_ns(10, 40), 1000, 0);
	assert_float_equal(ht_threshold_ns(40, 1), 2000, 0);
	assert_float_equal(ht_threshold_ns(10, 1000), 3000, 0);
	assert_float_equal(ht_threshold_ns(NAN, 1), 1000, 0);
}

/* Gaps of 0.9, 1.5, 5, 60 and 200 us in 1e6 reads of 10 ns on a 1 ns
 * counter, threshold 1 us: four takes, the 0.9 us one not. */
static void test_count_fine(void **state)
{
	size_t at[] = {1000, 200000, 400000, 600000, 800000};
	double gap[] = {900, 1500, 5000, 60000, 200000};
	size_t n = 1000000;
	uint64_t *s = synth(n, 10, 1, at, gap, 5);
	double lost = 1510 + 5010 + 60010 + 200010, span = 10.0 * (n - 1) + 900 + lost - 40;
	struct ht_count c;
	struct ht_cpu r;

	(void)state;
	ht_count_init(&c, ht_threshold_ns(ht_read_ticks(s, n), 1), 1);
	assert_int_equal(c.thr_ticks, 1000);
	ht_count_scan(&c, s, n);
	assert_int_equal(c.takes, 4);
	assert_int_equal(c.lost_ticks, (uint64_t)lost);
	assert_int_equal(c.longest_ticks, 200010);
	assert_int_equal(c.span_ticks, (uint64_t)span);
	/* 1-2 us, 4-8 us, 32-64 us, >= 128 us */
	assert_int_equal(c.hist[0], 1);
	assert_int_equal(c.hist[1], 0);
	assert_int_equal(c.hist[2], 1);
	assert_int_equal(c.hist[5], 1);
	assert_int_equal(c.hist[HT_NHIST - 1], 1);
	ht_result(&c, 1, 0, &r);
	assert_float_equal(r.fraction, lost / span, 1e-12);
	assert_float_equal(r.per_s, 4e9 / span, 1e-9);
	assert_float_equal(r.longest_ns, 200010, 0);
	assert_float_equal(r.lost_ns, lost, 0);
	/* time the guest ran something else is not the host's to count */
	ht_result(&c, 1, span / 2, &r);
	assert_float_equal(r.fraction, 2 * lost / span, 1e-12);
	free(s);
}

/*
 * arm64's 25 MHz counter: 40 ns ticks, reads of 10 ns return the same
 * value four times running.  The threshold (1 us, 25 ticks) still holds
 * every interval of the loop itself out, and the takes are counted to
 * within a tick each.
 */
static void test_count_coarse(void **state)
{
	size_t at[] = {5000, 100000, 300000};
	double gap[] = {800, 2000, 70000};
	size_t n = 400000;
	uint64_t *s = synth(n, 10, 40, at, gap, 3);
	double rt = ht_read_ticks(s, n), lost;
	struct ht_count c;
	struct ht_cpu r;

	(void)state;
	assert_true(s[1] == s[0] && s[4] > s[0]);
	ht_count_init(&c, ht_threshold_ns(rt * 40, 40), 40);
	assert_int_equal(c.thr_ticks, 25);
	ht_count_scan(&c, s, n);
	assert_int_equal(c.takes, 2);
	/* each take is its gap plus a read, to within one tick either way */
	lost = (double)c.lost_ticks * 40;
	assert_true(fabs(lost - (2010 + 70010)) <= 2 * 40);
	assert_true(fabs((double)c.longest_ticks * 40 - 70010) <= 40);
	assert_int_equal(c.hist[1], 1);
	assert_int_equal(c.hist[6], 1);
	assert_int_equal(c.span_ticks, s[n - 1] - s[0]);
	ht_result(&c, 40, 0, &r);
	assert_float_equal(r.fraction, lost / ((double)(s[n - 1] - s[0]) * 40), 1e-12);
	/* without takes nothing is counted, whatever the phase of the ticks */
	free(s);
	s = synth(n, 13, 40, NULL, NULL, 0);
	ht_count_init(&c, ht_threshold_ns(ht_read_ticks(s, n) * 40, 40), 40);
	ht_count_scan(&c, s, n);
	assert_int_equal(c.takes, 0);
	assert_int_equal(c.lost_ticks, 0);
	free(s);
}

/* A counter that steps back counts nothing for that step. */
static void test_count_backwards(void **state)
{
	uint64_t s[] = {100000, 100010, 50, 60, 70, 5070};
	struct ht_count c;

	(void)state;
	ht_count_init(&c, 1000, 1);
	ht_count_scan(&c, s, 6);
	assert_int_equal(c.takes, 1);
	assert_int_equal(c.lost_ticks, 5000);
	assert_int_equal(c.span_ticks, 10 + 20 + 5000);
}

static unsigned allowed_cpus(int *cpus, unsigned cap)
{
	cpu_set_t set;
	unsigned n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int i = 0; i < CPU_SETSIZE && n < cap; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

/* Every allowed CPU at once; the caller's affinity as it was. */
static void test_measure_live(void **state)
{
	int cpus[64];
	unsigned n = allowed_cpus(cpus, 64);
	struct ht_cpu out[64];
	cpu_set_t before, after;

	(void)state;
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(before), &before), 0);
	assert_int_equal(ht_measure(cpus, n, 0.05, out), 0);
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(after), &after), 0);
	assert_true(CPU_EQUAL(&before, &after));
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(out[i].err, 0);
		assert_int_equal(out[i].cpu, cpus[i]);
		assert_true(out[i].read_ns > 0 && out[i].read_ns < 1000);
		assert_true(out[i].threshold_ns >= HT_FLOOR_NS);
		/* the window, what the guest gave other work aside */
		assert_true(out[i].run_ns > 0);
		assert_true(out[i].run_ns + out[i].guest_ns >= 0.049e9);
		assert_true(out[i].run_ns + out[i].guest_ns < 0.5e9);
		assert_true(out[i].fraction >= 0 && out[i].fraction < 1);
		assert_true(out[i].takes == 0 || out[i].longest_ns > out[i].threshold_ns);
	}
}

/* A CPU the process may not run on: its err, no figures, no hang. */
static void test_measure_bad_cpu(void **state)
{
	int cpus[2];
	struct ht_cpu out[2];

	(void)state;
	allowed_cpus(cpus, 1);
	cpus[1] = CPU_SETSIZE * 4 - 1;
	assert_int_equal(ht_measure(cpus, 2, 0.01, out), 0);
	assert_int_equal(out[0].err, 0);
	assert_true(out[1].err != 0);
	assert_true(isnan(out[1].fraction));
	assert_int_equal(ht_measure(cpus, 0, 0.01, out), 0);
}

struct hog {
	int cpu;
	_Atomic int stop;
};

static void *hog_main(void *arg)
{
	struct hog *h = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(h->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!atomic_load(&h->stop))
		;
	return NULL;
}

/*
 * Another thread of this process spins on the CPU measured: the guest's
 * scheduler shares the CPU between the two, so the reader sees gaps of
 * milliseconds about half the time.  They are the guest's (the reader's
 * CPU time stood still across them), not the host's.
 */
static void test_measure_guest_gaps(void **state)
{
	int cpu;
	struct hog h;
	struct ht_cpu out;
	pthread_t th;

	(void)state;
	allowed_cpus(&cpu, 1);
	h.cpu = cpu;
	atomic_init(&h.stop, 0);
	assert_int_equal(pthread_create(&th, NULL, hog_main, &h), 0);
	assert_int_equal(ht_measure(&cpu, 1, 0.3, &out), 0);
	atomic_store(&h.stop, 1);
	pthread_join(th, NULL);
	print_message("guest %g ns in %llu gaps; takes %llu, %g of %g ns\n", out.guest_ns,
		      (unsigned long long)out.guest_gaps, (unsigned long long)out.takes,
		      out.lost_ns, out.run_ns);
	assert_int_equal(out.err, 0);
	/* the hog had about half the window: the guest's, not counted */
	assert_true(out.guest_ns > 0.075e9);
	assert_true(out.run_ns < 0.225e9);
	assert_true(out.fraction >= 0 && out.fraction < 0.25);
}

/* /proc/interrupts: columns of the header's CPUs (online ones, here 0
 * and 2), rows of one total (ERR) left out, descriptions ignored. */
static void test_irqs_parse(void **state)
{
	const char *text =
		"           CPU0       CPU2       \n"
		" 24:          1          7  IO-APIC   5-edge      ACPI:Ged\n"
		" 36:          0    1009634 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
		"NMI:          0          0   Non-maskable interrupts\n"
		"LOC:    7901984    7879398   Local timer interrupts\n"
		"CAL:   17893219   17422836   Function call interrupts\n"
		"ERR:          5\n"
		"MIS:          0\n";
	uint64_t c[2];

	(void)state;
	assert_int_equal(irqs_parse(text, (int[]){2, 0}, 2, c), 0);
	assert_int_equal(c[0], 7 + 1009634 + 7879398 + 17422836);
	assert_int_equal(c[1], 1 + 7901984 + 17893219);
	assert_int_equal(irqs_parse(text, (int[]){1}, 1, c), -ENOENT);
	assert_int_equal(irqs_parse("", (int[]){0}, 1, c), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_count_fine),
		cmocka_unit_test(test_count_coarse),
		cmocka_unit_test(test_count_backwards),
		cmocka_unit_test(test_irqs_parse),
		cmocka_unit_test(test_measure_live),
		cmocka_unit_test(test_measure_bad_cpu),
		cmocka_unit_test(test_measure_guest_gaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
