/* SPDX-License-Identifier: MIT */
/*
 * The in-process measures of `lockbench system check` (docs/method.md,
 * "What this machine can measure"): the clock's read cost and tick as
 * the run's calibration finds them, what one cpu_relax() costs, and the
 * core-to-core round trip by distance class, sampled again and again
 * over the check so that a host moving vCPUs shows as two clusters.
 * Nothing here changes the machine; the probes pin the calling thread
 * and restore its affinity.
 */
#ifndef LOCKBENCH_HOSTCHECK_H
#define LOCKBENCH_HOSTCHECK_H

#include "../topo.h"

/* The clock of the sampled timings and the delays (topology/host/clock.h),
 * as lb_clock_rate() calibrated it in this process. */
struct hc_clock {
	const char *name;  /* "tsc", "cntvct" or "vdso" */
	double read_ns;    /* cost of one read */
	double tick_ns;    /* ns per counter tick (not its resolution: a read
			    * may cost more, lb_clock_resolution_ns()) */
};
void hc_clock(struct hc_clock *c);

/* ns per cpu_relax(): the start-up calibration's figure (clock.h,
 * lb_tick_rate.relax_ns), the one every run's JSON records. */
double hc_relax_ns(void);

/* How far a CPU is from the first usable one. */
enum hc_class {
	HC_SAME_CORE,      /* an SMT sibling */
	HC_SAME_L3,        /* another core sharing the L3 */
	HC_SAME_PACKAGE,   /* another L3 group of the package */
	HC_OTHER_PACKAGE,  /* another package (socket) */
	HC_NCLASS
};
const char *hc_class_name(enum hc_class k);

#define HC_C2C_MAX 64      /* samples kept per class */

/* The first usable CPU, one CPU of each class that the machine has
 * (-1: none), and each class's samples so far (ns, NAN: failed). */
struct hc_c2c {
	int cpu0;
	int cpu[HC_NCLASS];
	double v[HC_NCLASS][HC_C2C_MAX];
	unsigned n;        /* samples taken (each class has n) */
};

/* Pick the CPUs from t (a real topology; allowed, not isolated PUs).
 * Returns the number of classes found (0 on a one-CPU machine). */
unsigned hc_c2c_init(struct hc_c2c *c, const struct topo *t);

/* One round trip of each class, one probe of a pair
 * (topology/host/probe.h: PROBE_RUN_ROUNDS rounds of PROBE_RUN_TRIPS);
 * nothing once HC_C2C_MAX samples are kept. */
void hc_c2c_sample(struct hc_c2c *c);

#endif
