/* SPDX-License-Identifier: MIT */
/*
 * `lockbench system check` (syscheck.c measures, syscheck_report.c
 * judges and prints): what the numbers depend on, measured on this
 * machine, and what can be trusted here (docs/method.md, "What this
 * machine can measure").  Nothing on the machine is changed.
 */
#ifndef LOCKBENCH_CLI_SYSCHECK_H
#define LOCKBENCH_CLI_SYSCHECK_H

#include <jansson.h>
#include <stdbool.h>

#include "../topology/host/hostcheck.h"
#include "../topology/host/takes.h"
#include "options.h"

/* The requested delays tried, shortest first, and the tolerance they
 * must hold (both measures, fixed and exponential). */
#define SC_NDELAY 5
#define SC_DELAY_TOL 0.05
/* Separate invocations behind the floor, runs in each, and the runs of
 * the run-to-run spread. */
#define SC_INVOCATIONS 12
#define SC_INV_RUNS 3
#define SC_CV_RUNS 10
/* The floor's invocations are spread evenly over this many of its
 * windows, at most SC_FLOOR_SPAN_S seconds (30 s from the default 0.1 s
 * on; a longer -d makes the invocations themselves that long), so that
 * it sees the host drift over tens of seconds that a comparison of two
 * invocations made apart meets, not only the spread of processes
 * started back to back (docs/method.md, "The invocation floor"). */
#define SC_FLOOR_SPAN_WINDOWS 300
#define SC_FLOOR_SPAN_S 30.0
/* The floor is refused when other processes ran more than this many
 * CPUs' worth beside its invocations: a process with a quarter of a CPU
 * can take a quarter of a 1-thread worker's window when they share it,
 * many times the floor it would measure (docs/method.md, "The
 * invocation floor"). */
#define SC_FLOOR_BUSY_CPUS 0.25
/* Repeated core-to-core probes whose medians differ by more than this
 * factor, in two clusters of at least SC_BIMODAL_MIN probes each. */
#define SC_BIMODAL_FACTOR 2.0
#define SC_BIMODAL_MIN 2
/* How long the host takes are read for, every usable CPU at once. */
#define SC_TAKES_S 0.5

/* One requested delay, one distribution: the sampled mean length and
 * the ns/op it adds to the empty loop (NAN: not measured). */
struct sc_delay {
	unsigned ns;
	double sampled, outside;
	bool holds;
};

/* Steal the check reports as present: above this share of the CPU time. */
#define STEAL_SAY_MAX 0.01

struct syscheck {
	struct hc_clock clock;
	double relax_ns, empty_ns;
	struct sc_delay delay[2][SC_NDELAY];     /* [0] fixed, [1] exponential */
	bool delays_measured;
	double delay_floor_ns;                   /* NAN: none held */
	char delay_err[256];
	struct hc_c2c c2c;
	unsigned c2c_classes;
	double tas_cv_pct;
	char tas_err[256];
	double inv_median[SC_INVOCATIONS];       /* ops/s of each invocation (median run) */
	unsigned ninv;
	double sd_between_pct, floor_pct;        /* NAN: not measured */
	char floor_err[256];
	/* When and beside what the floor was measured: its start (UTC), its
	 * length, the load average before and after, and the CPUs' worth
	 * other processes ran meanwhile (NAN: unknown); refused: busy. */
	long long floor_at;
	double floor_s, floor_load0, floor_load1, floor_others;
	bool floor_refused;
	double child_read_ns[2 * SC_INVOCATIONS + 4]; /* their clock_read_ns */
	unsigned nchild_read;
	double steal_frac, steal_max;            /* NAN: unknown */
	struct ht_cpu *takes;                    /* one per usable CPU */
	double *takes_irqs;                      /* each one's interrupts a second; NAN */
	unsigned ntakes;
	double takes_irq_per_s;                  /* the CPUs' mean; NAN: unknown */
	double takes_frac, takes_per_s;          /* the CPUs' mean; NAN: none */
	double takes_longest_ns;                 /* the longest on any CPU */
	char takes_err[256];
	double load_start;                       /* 1-min load average; NAN */
	unsigned ncpus;                          /* usable CPUs */
	double window_s, elapsed_s;
	json_t *machine;
	json_t *errors;                          /* why each failed run failed */
};

/* The document (schema lockbench-system-check, docs/json.md) with its
 * verdict lines; a new reference. */
json_t *syscheck_json(const struct syscheck *s, const struct cli *c);
/* The text report with the verdict lines at its end. */
void syscheck_print(const struct syscheck *s, const json_t *doc, FILE *f);

int cmd_system_check(const struct cli *c);

#endif
