/* SPDX-License-Identifier: MIT */
/*
 * Memory placement with libnuma: whole pages, zeroed, on a chosen node
 * (or interleaved), falling back to plain mmap where NUMA is absent.
 */
#ifndef LOCKBENCH_MEM_H
#define LOCKBENCH_MEM_H

#include <stddef.h>

#define MEM_NODE_LOCAL (-1)      /* the calling thread's node */
#define MEM_NODE_INTERLEAVE (-2) /* interleaved over all nodes */

/* Zeroed, page-aligned memory on OS node `node` (or one of the above).
 * NULL on failure.  Free with mem_free(p, size). */
void *mem_alloc(size_t size, int node);
void mem_free(void *p, size_t size);
/* OS node the page holding p lives on, -1 if unknown. */
int mem_node_of(void *p);

#endif
