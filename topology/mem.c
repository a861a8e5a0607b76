/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <numa.h>
#include <numaif.h>
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

void *mem_alloc(size_t size, int node)
{
	void *p;

	if (!size)
		size = 1;
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
	if (p)
		memset(p, 0, size);
	return p;
}

void mem_free(void *p, size_t size)
{
	if (!p)
		return;
	if (!size)
		size = 1;
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
