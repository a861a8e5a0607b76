/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>

#include "../../locks/lockbench/atomics.h"
#include "clock.h"
#include "hostcheck.h"
#include "probe.h"

void hc_clock(struct hc_clock *c)
{
	const struct lb_tick_rate *r = lb_clock_rate();

	c->name = r->name;
	c->read_ns = (double)r->read_ticks * r->ns_per_tick;
	c->tick_ns = r->ns_per_tick;
}

/* The calibration's own figure (topology/host/clock.c), as every run records it. */
double hc_relax_ns(void)
{
	return lb_clock_rate()->relax_ns;
}

const char *hc_class_name(enum hc_class k)
{
	static const char *const names[HC_NCLASS] = {
		"same_core", "same_l3", "same_package", "other_package",
	};

	return k < HC_NCLASS ? names[k] : "?";
}

static enum hc_class pu_class(const struct topo_pu *a, const struct topo_pu *b)
{
	if (a->core == b->core)
		return HC_SAME_CORE;
	if (a->l3 == b->l3)
		return HC_SAME_L3;
	if (a->package == b->package)
		return HC_SAME_PACKAGE;
	return HC_OTHER_PACKAGE;
}

unsigned hc_c2c_init(struct hc_c2c *c, const struct topo *t)
{
	const struct topo_pu *p0 = NULL;
	unsigned found = 0;

	c->cpu0 = -1;
	c->n = 0;
	for (unsigned k = 0; k < HC_NCLASS; k++)
		c->cpu[k] = -1;
	for (unsigned i = 0; i < t->npu; i++) {
		const struct topo_pu *p = &t->pu[i];
		enum hc_class k;

		if (!p->allowed || p->isolated)
			continue;
		if (!p0) {
			p0 = p;
			c->cpu0 = p->os;
			continue;
		}
		k = pu_class(p0, p);
		if (c->cpu[k] < 0) {
			c->cpu[k] = p->os;
			found++;
		}
	}
	return found;
}

void hc_c2c_sample(struct hc_c2c *c)
{
	const struct probe_cfg cfg = {PROBE_RUN_ROUNDS, PROBE_RUN_TRIPS};
	int pairs[2 * HC_NCLASS];
	double ns[HC_NCLASS];
	unsigned np = 0, cls[HC_NCLASS];

	if (c->n >= HC_C2C_MAX || c->cpu0 < 0)
		return;
	for (unsigned k = 0; k < HC_NCLASS; k++) {
		if (c->cpu[k] < 0)
			continue;
		pairs[2 * np] = c->cpu0;
		pairs[2 * np + 1] = c->cpu[k];
		cls[np++] = k;
	}
	if (!np)
		return;
	for (unsigned k = 0; k < HC_NCLASS; k++)
		c->v[k][c->n] = NAN;
	if (probe_run(pairs, np, &cfg, ns) == 0)
		for (unsigned i = 0; i < np; i++)
			c->v[cls[i]][c->n] = ns[i];
	c->n++;
}
