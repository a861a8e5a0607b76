/* SPDX-License-Identifier: MIT */
/*
 * Memory placement with libnuma: pages of their own, zeroed, on a chosen
 * node (or interleaved), falling back to plain mmap where NUMA is
 * absent; each object at its own cache-line colour within its page.
 */
#ifndef LOCKBENCH_MEM_H
#define LOCKBENCH_MEM_H

#include <stddef.h>

#define MEM_NODE_LOCAL (-1)      /* the calling thread's node */
#define MEM_NODE_INTERLEAVE (-2) /* interleaved over all nodes */

/* Zeroed memory on OS node `node` (or one of the above), from pages of
 * its own, starting at the next cache-line colour (mem.c): aligned to
 * MEM_COLOUR bytes, not to a page.  NULL on failure.  Free with
 * mem_free(p, size). */
#define MEM_COLOUR 128
void *mem_alloc(size_t size, int node);
void mem_free(void *p, size_t size);
/* The next allocation takes the first colour again (a run calls it
 * before it allocates, so the objects it allocates in order sit where
 * they sat last run). */
void mem_colour_reset(void);
/* The offset into its page of the k-th allocation after a reset. */
size_t mem_colour_offset(unsigned k);
/* OS node the page holding p lives on, -1 if unknown. */
int mem_node_of(void *p);

#endif
