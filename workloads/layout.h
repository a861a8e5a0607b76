/* SPDX-License-Identifier: MIT */
/*
 * The layout workload's shared structure, in its three variants (the
 * task_group false-sharing thread: tg->load_avg updated by every CPU
 * while tg->shares and friends are read on every enqueue):
 *
 *   packed    the hot counter shares its line with the read-mostly fields
 *   aligned   the hot counter alone on its own line
 *   per_node  one counter per NUMA node, each on its own line; readers
 *             sum them
 *
 * Tests assert on these offsets (tests/test_work.c), not on timing.
 */
#ifndef LOCKBENCH_LAYOUT_H
#define LOCKBENCH_LAYOUT_H

#include <stddef.h>

#include "workload.h"

#define LAYOUT_RO_FIELDS 4   /* read-mostly words (shares, parent, se, cfs_rq) */
#define LAYOUT_MAX_NODES 64  /* per_node counters; node ids wrap above */

struct layout_packed {
	LB_ALIGNED _Atomic int64_t hot;         /* load_avg: every update */
	int64_t ro[LAYOUT_RO_FIELDS];           /* same 64-byte line */
};

struct layout_aligned {
	LB_ALIGNED int64_t ro[LAYOUT_RO_FIELDS];
	LB_ALIGNED _Atomic int64_t hot;         /* a line of its own */
};

struct layout_node_counter {
	LB_ALIGNED _Atomic int64_t v;
};

struct layout_per_node {
	LB_ALIGNED int64_t ro[LAYOUT_RO_FIELDS];
	struct layout_node_counter hot[LAYOUT_MAX_NODES];
};

/* Byte offset of the read-mostly fields / of node `node`'s counter in
 * layout `l` (node is ignored except for per_node). */
size_t layout_ro_offset(enum wl_layout l);
size_t layout_hot_offset(enum wl_layout l, unsigned node);
/* Size of layout `l` in bytes (a multiple of LB_CACHELINE). */
size_t layout_size(enum wl_layout l);

#endif
