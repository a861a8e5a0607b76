/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <numa.h>
#include <numaif.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"

static int numa_ok(void)
{
	static int ok = -2;

	if (ok == -2)
		ok = numa_available() >= 0;
	return ok;
}

/*
 * Cache-line colours.  libnuma and mmap hand out whole pages, so without
 * an offset every object of a run (the lock, the shared counter and
 * owner word, each worker's slot and context, a lock's node array)
 * would start at byte 0 of its page: the same set of a virtually
 * indexed L1, where the hot lines of one operation compete for a few
 * ways, and on AMD for the L1's way predictor, which tells lines of one
 * set apart by a hash of their virtual address (M. Lipp et al., "Take A
 * Way", AsiaCCS 2020) - a hash that mmap's addresses change from run to
 * run, so the cost of one operation would move from run to run with
 * addresses nothing else controls.  So each allocation starts MEM_COLOUR
 * bytes times its colour into its page: colours 1 to 31 in steps of 5
 * lines (an object a few lines long does not run into the next one's),
 * counted from mem_colour_reset(), which a run calls before it
 * allocates, so what the runner allocates before the workers start (the
 * lock and its nodes, the shared lines, the slots) gets the same colour
 * in every run; the workers' own contexts, allocated side by side, take
 * the next colours in whatever order the workers reach them.
 */
#define MEM_COLOURS 31
#define MEM_PAGE_OFF 4095u

static _Atomic unsigned colour_next;

void mem_colour_reset(void)
{
	atomic_store_explicit(&colour_next, 0, memory_order_relaxed);
}

size_t mem_colour_offset(unsigned k)
{
	return ((size_t)(k * 5 % MEM_COLOURS) + 1) * MEM_COLOUR;
}

void *mem_alloc(size_t size, int node)
{
	size_t off = mem_colour_offset(atomic_fetch_add_explicit(&colour_next, 1,
								 memory_order_relaxed));
	char *p;

	if (!size)
		size = 1;
	size += off;
	if (numa_ok()) {
		if (node == MEM_NODE_INTERLEAVE)
			p = numa_alloc_interleaved(size);
		else if (node >= 0)
			p = numa_alloc_onnode(size, node);
		else
			p = numa_alloc_local(size);
	} else {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	}
	/* Touch every page now, from the caller: first-touch placement for
	 * the local case and no page faults inside the timed loop. */
	if (!p)
		return NULL;
	memset(p, 0, size);
	return p + off;
}

void mem_free(void *p, size_t size)
{
	if (!p)
		return;
	if (!size)
		size = 1;
	/* back to the page mem_alloc() got: offsets stay below 4 KiB */
	size += (uintptr_t)p & MEM_PAGE_OFF;
	p = (void *)((uintptr_t)p & ~(uintptr_t)MEM_PAGE_OFF);
	if (numa_ok())
		numa_free(p, size);
	else
		munmap(p, size);
}

int mem_node_of(void *p)
{
	int node = -1;

	if (!numa_ok() ||
	    get_mempolicy(&node, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR))
		return -1;
	return node;
}
