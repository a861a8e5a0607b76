/* SPDX-License-Identifier: MIT */
/*
 * layout - the false-sharing experiment of the task_group thread.  Each
 * operation either reads the structure as update_cfs_group() does (the
 * read-mostly fields plus the counter, summed over nodes for per_node)
 * or, one time in (100 - --read-pct)%, adds to the hot counter as
 * update_tg_load_avg() does (its node's counter for per_node).  No lock
 * is taken: the variants are the layouts (--layouts), and the lock
 * column is fixed to `null`.
 */
#include "loop.h"
#include "layout.h"

const char *const wl_layout_names[WL_NLAYOUTS] = {
	[WL_LAYOUT_PACKED] = "packed",
	[WL_LAYOUT_ALIGNED] = "aligned",
	[WL_LAYOUT_PER_NODE] = "per_node",
};

size_t layout_ro_offset(enum wl_layout l)
{
	switch (l) {
	case WL_LAYOUT_PACKED: return offsetof(struct layout_packed, ro);
	case WL_LAYOUT_ALIGNED: return offsetof(struct layout_aligned, ro);
	default: return offsetof(struct layout_per_node, ro);
	}
}

size_t layout_hot_offset(enum wl_layout l, unsigned node)
{
	switch (l) {
	case WL_LAYOUT_PACKED: return offsetof(struct layout_packed, hot);
	case WL_LAYOUT_ALIGNED: return offsetof(struct layout_aligned, hot);
	default:
		return offsetof(struct layout_per_node, hot) +
		       (node % LAYOUT_MAX_NODES) * sizeof(struct layout_node_counter);
	}
}

size_t layout_size(enum wl_layout l)
{
	switch (l) {
	case WL_LAYOUT_PACKED: return sizeof(struct layout_packed);
	case WL_LAYOUT_ALIGNED: return sizeof(struct layout_aligned);
	default: return sizeof(struct layout_per_node);
	}
}

static unsigned layout_lines(const struct wl_params *p)
{
	return (unsigned)(layout_size((enum wl_layout)p->layout) / sizeof(struct cs_line));
}

/* The reader: read-mostly fields and the counter's value. */
static inline uint64_t layout_read(char *base, enum wl_layout l, unsigned nnodes)
{
	const int64_t *ro = (const int64_t *)(base + layout_ro_offset(l));
	uint64_t sum = 0;
	unsigned nn = l == WL_LAYOUT_PER_NODE ? nnodes : 1;

	for (unsigned i = 0; i < LAYOUT_RO_FIELDS; i++)
		sum += (uint64_t)ro[i];
	for (unsigned n = 0; n < nn && n < LAYOUT_MAX_NODES; n++)
		sum += (uint64_t)atomic_load_explicit(
			(_Atomic int64_t *)(base + layout_hot_offset(l, n)), lb_rlx);
	return sum;
}

static void layout_loop(struct worker *w)
{
	enum wl_layout l = (enum wl_layout)w->p->layout;
	char *base = (char *)w->sh->lines;
	_Atomic int64_t *mine = (_Atomic int64_t *)(base + layout_hot_offset(l, w->node));
	struct wl_env e;
	uint64_t n = 0, reads = 0;
	int64_t debt = 0;

	wl_loop_begin(w);
	e = wl_env_get(w);
	while (!atomic_load_explicit(w->stop, lb_rlx)) {
		if (lb_rand(&w->rng) % 100 < w->p->read_pct) {
			lb_sink(layout_read(base, l, w->nnodes));
			reads++;
		} else {
			atomic_fetch_add_explicit(mine, 1, lb_rlx);
		}
		wl_ncs(&e, &w->rng, &debt);
		wl_publish(w, ++n, reads);
	}
}

static const struct wl_option layout_options[] = {
	{.name = "layouts", .arg = "LIST", .type = WL_OPT_VARIANTS,
	 .def = "packed,aligned,per_node", .choices = wl_layout_names,
	 .nchoices = WL_NLAYOUTS, .off = offsetof(struct wl_params, layout),
	 .help = "the variants (columns)"},
	WL_READ_PCT_OPTION,
	{0},
};

const struct workload_ops workload_layout_ops = {
	.name = "layout",
	.options = layout_options,
	.desc = "false sharing: a hot counter beside read-mostly fields; "
		"variants --layouts packed,aligned,per_node",
	.long_desc =
		"The task_group false-sharing experiment.  Threads read the\n"
		"read-mostly fields and the counter of one shared structure\n"
		"(--read-pct of the operations, default 90) or add to the hot\n"
		"counter (the rest).  The columns are the layouts (--layouts):\n"
		"packed (the counter on the read-mostly fields' line), aligned (the\n"
		"counter on its own line), per_node (one counter per NUMA node on\n"
		"its own line, readers sum them; --fake-nodes N to try it on one\n"
		"node).  No lock is taken.  -f lkp prints the published blocks.",
	.needs_caps = 0,
	.flags = WL_NOLOCK | WL_RW,
	.lines = layout_lines,
	.loop = layout_loop,
};
