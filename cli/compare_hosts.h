/* SPDX-License-Identifier: MIT */
/*
 * Results from many hosts in one comparison (docs/fleet.md): `compare
 * --columns host` names each file's columns by the machine that ran
 * it, `--rows cpu-share` turns thread counts into shares of each
 * file's CPUs, and the notes under the table say where the hosts
 * differ in what they could measure.
 */
#ifndef LOCKBENCH_COMPARE_HOSTS_H
#define LOCKBENCH_COMPARE_HOSTS_H

#include <stdbool.h>
#include <stdio.h>

#include "../output/results/results.h"

/* The machine a results file was measured on: machine.hostname, else
 * provenance.host, else NULL. */
const char *hosts_name(const struct results *r);

/*
 * Relabel r by its host (--columns host): *label becomes the host name
 * (freed and replaced).  A file that names no host exits 2 naming @path.
 */
void hosts_relabel(const char *path, struct results *r, char **label);

/*
 * Rows as shares of r's CPUs (--rows cpu-share): each thread count n
 * gets the row label "100*n/ncpus%" and the row heading "cpu-share".
 * Exit 2 naming @path when its rows are named workloads or it records
 * no CPU count.
 */
void hosts_cpu_share(const char *path, struct results *r);

/* The column heading of a table by host: "Host". */
void hosts_heading(struct results *r);

/*
 * The notes under a cross-host table: one line per machine fact
 * (hostname, cpu_model, kernel, CPU counts) and per `calibration` key
 * (docs/json.md) whose value differs between the files, each file's
 * value after its label.  Prints nothing when they all agree.
 */
void hosts_notes(FILE *f, const struct results *const *rs, const char *const *labels,
		 unsigned n);

#endif
