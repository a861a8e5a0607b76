/* SPDX-License-Identifier: MIT */
/*
 * A sweep cut into tables (--rows, docs/formats.md): the variants of a
 * sweep are (column, workload parameters) pairs, where the column is
 * the lock (with its swept options, and the label in compare) and the
 * parameters are the variant's "params" (docs/json.md).  A text table
 * shows one row dimension, threads or one parameter, so the results are
 * cut into one part per combination of the other dimensions, each a
 * results model of its own whose points are those of the whole.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

/* A workload dimension: a key of params that is not a lock option. */
static bool wl_key(const char *k)
{
	return !strchr(k, '.');
}

unsigned results_param_keys(const struct results *r, const char **keys, unsigned max,
			    bool workload_only)
{
	unsigned n = 0;

	for (unsigned v = 0; r->variants && v < r->nvariants; v++) {
		const char *k;
		json_t *x;

		json_object_foreach(r->variants[v].params, k, x) {
			unsigned i = 0;

			(void)x;
			while (i < n && strcmp(keys[i], k))
				i++;
			if (i == n && n < max && (!workload_only || wl_key(k)))
				keys[n++] = k;
		}
	}
	return n;
}

unsigned results_dims(const struct results *r, const char **keys, unsigned max)
{
	return results_param_keys(r, keys, max, true);
}

/* A parameter's value as text: "100", "0.5". */
static const char *value_text(const json_t *x, char *buf, size_t len)
{
	if (json_is_integer(x))
		snprintf(buf, len, "%lld", (long long)json_integer_value(x));
	else if (json_is_number(x))
		snprintf(buf, len, "%g", json_number_value(x));
	else
		snprintf(buf, len, "-");
	return buf;
}

const char *results_column(const struct results *r, unsigned v, char *buf,
			   size_t len)
{
	const struct variant *var = &r->variants[v];
	char *sp;

	snprintf(buf, len, "%s", var->name);
	/* Strip " key=value" words of its own workload parameters. */
	while ((sp = strrchr(buf, ' '))) {
		char *eq = strchr(sp + 1, '='), key[128], val[64];
		json_t *x;

		if (!eq || eq - sp - 1 >= (long)sizeof(key))
			break;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - sp - 1), sp + 1);
		x = json_object_get(var->params, key);
		if (!x || !wl_key(key) || strcmp(eq + 1, value_text(x, val, sizeof(val))))
			break;
		*sp = 0;
	}
	return buf;
}

/* The value of dimension k of variant v (NULL: it has none). */
static const json_t *dim_of(const struct results *r, unsigned v, const char *k)
{
	return json_object_get(r->variants[v].params, k);
}

static bool same_value(const json_t *a, const json_t *b)
{
	return (!a && !b) || (a && b && json_equal((json_t *)a, (json_t *)b));
}

/* Variants a and b agree on every dimension but `skip` (-1: none). */
static bool same_combo(const struct results *r, unsigned a, unsigned b,
		       const char **keys, unsigned nk, int skip)
{
	for (unsigned i = 0; i < nk; i++)
		if ((int)i != skip && !same_value(dim_of(r, a, keys[i]), dim_of(r, b, keys[i])))
			return false;
	return true;
}

struct cut {
	const struct results *r;
	const char **keys;
	unsigned nk;
	int rowdim;              /* index in keys, -1: threads */
	char **col;              /* column name of each variant */
	char **cols;             /* distinct columns, in order */
	unsigned ncols;
	unsigned *rowval;        /* rowdim: a variant with each row value */
	unsigned nrowval;
};

static char *dup_or_die(const char *s, int *rc)
{
	char *d = strdup(s);

	if (!d)
		*rc = -ENOMEM;
	return d;
}

/* Heading of the part of variant v (and thread row `row` when the rows
 * are a parameter). */
static void part_heading(const struct cut *c, unsigned v, unsigned row, char *h,
			 size_t len)
{
	char val[64];

	*h = 0;
	if (c->rowdim >= 0)
		snprintf(h, len, "%s=%u", c->r->row_heading ? c->r->row_heading : "threads",
			 c->r->rows[row]);
	for (unsigned i = 0; i < c->nk; i++)
		if ((int)i != c->rowdim)
			snprintf(h + strlen(h), len - strlen(h), "%s%s=%s", *h ? " " : "",
				 c->keys[i], value_text(dim_of(c->r, v, c->keys[i]), val,
							sizeof(val)));
}

static unsigned col_index(const struct cut *c, unsigned v)
{
	unsigned k = 0;

	while (k < c->ncols && strcmp(c->cols[k], c->col[v]))
		k++;
	return k;
}

/* The part's arrays, its columns and its rows; 0 or -ENOMEM. */
static int part_frame(const struct cut *c, struct results_part *p, unsigned nrows,
		      unsigned trow)
{
	const struct results *r = c->r;
	char val[64];
	int rc = 0;

	p->r.nvariants = c->ncols;
	p->r.nrows = nrows;
	p->r.variants = calloc(c->ncols, sizeof(*p->r.variants));
	p->r.points = calloc((size_t)c->ncols * nrows, sizeof(*p->r.points));
	p->r.base_of = calloc(c->ncols, sizeof(*p->r.base_of));
	p->r.rows = calloc(nrows, sizeof(unsigned));
	p->r.row_desc = c->rowdim >= 0 ? calloc(nrows, sizeof(*p->r.row_desc)) : NULL;
	if (!p->r.variants || !p->r.points || !p->r.base_of || !p->r.rows ||
	    (c->rowdim >= 0 && !p->r.row_desc))
		return -ENOMEM;
	for (unsigned k = 0; k < c->ncols; k++) {
		p->r.variants[k].name = dup_or_die(c->cols[k], &rc);
		p->r.variants[k].geo_rel = NAN;
		p->r.base_of[k] = k;
	}
	if (c->rowdim < 0) {
		memcpy(p->r.rows, r->rows, nrows * sizeof(unsigned));
		return rc;
	}
	p->r.row_heading = (char *)c->keys[c->rowdim];
	for (unsigned i = 0; i < nrows; i++) {
		p->r.rows[i] = r->rows[trow];
		p->r.row_desc[i].label = dup_or_die(value_text(
			dim_of(r, c->rowval[i], c->keys[c->rowdim]), val, sizeof(val)), &rc);
		p->r.row_desc[i].value = true;
	}
	return rc;
}

/* The points of the variants of rep's combination into their columns. */
static void part_points(const struct cut *c, struct results_part *p, unsigned rep,
			unsigned trow)
{
	const struct results *r = c->r;
	unsigned nrows = p->r.nrows;

	for (unsigned v = 0; v < r->nvariants; v++) {
		unsigned k = col_index(c, v), b = results_base(r, v);

		if (!same_combo(r, v, rep, c->keys, c->nk, c->rowdim))
			continue;
		/* The variant's description, its name the column's. */
		if (!p->r.variants[k].lock) {
			char *name = p->r.variants[k].name;

			p->r.variants[k] = r->variants[v];
			p->r.variants[k].name = name;
			p->r.variants[k].params = NULL;
			if (c->rowdim >= 0) {
				p->r.variants[k].geo_rel = NAN;
				p->r.variants[k].geo_n = 0;
			}
		}
		if (same_combo(r, v, b, c->keys, c->nk, -1))
			p->r.base_of[k] = col_index(c, b);
		for (unsigned i = 0; i < nrows; i++) {
			if (c->rowdim < 0)
				p->r.points[k * nrows + i] = *results_point(r, v, i);
			else if (same_value(dim_of(r, v, c->keys[c->rowdim]),
					    dim_of(r, c->rowval[i], c->keys[c->rowdim])))
				p->r.points[k * nrows + i] = *results_point(r, v, trow);
		}
	}
}

/* The noise counts and -r auto verdicts of the part's points; 0 or -ENOMEM. */
static int part_noise(const struct cut *c, struct results_part *p, unsigned trow)
{
	struct results_noise *n = &p->r.noise;
	const struct results *r = c->r;

	n->runs = n->flagged = n->excluded = n->not_reached = 0;
	memset(n->by_flag, 0, sizeof(n->by_flag));
	for (unsigned i = 0; i < p->r.nvariants * p->r.nrows; i++) {
		const struct point *q = &p->r.points[i];

		n->flagged += q->noise.flagged;
		n->excluded += q->noise.excluded;
		n->not_reached += q->noise.adaptive && q->status == POINT_OK && !q->noise.reached;
		for (unsigned j = 0; j < q->nruns; j++) {
			const struct run_noise *rn = &q->runs[j].noise;

			n->runs += rn->present || rn->recorded_set;
			for (unsigned b = 0; b < NOISE_NFLAGS; b++)
				n->by_flag[b] += !!(rn->flags & (1u << b));
		}
	}
	n->row_stop = NULL;
	if (!r->noise.row_stop)
		return 0;
	n->row_stop = calloc(p->r.nrows, sizeof(*n->row_stop));
	if (!n->row_stop)
		return -ENOMEM;
	for (unsigned i = 0; i < p->r.nrows; i++)
		n->row_stop[i] = r->noise.row_stop[c->rowdim >= 0 ? trow : i];
	return 0;
}

/* Fill part p: representative variant `rep` (its combination), thread
 * row `trow` when the rows are a parameter.  0 or -ENOMEM. */
static int fill_part(const struct cut *c, struct results_part *p, unsigned rep,
		     unsigned trow)
{
	unsigned nrows = c->rowdim >= 0 ? c->nrowval : c->r->nrows;
	char h[512];
	bool plain = true;
	int rc = 0;

	p->r = *c->r;
	p->r.noise.row_stop = NULL;
	part_heading(c, rep, trow, h, sizeof(h));
	p->heading = dup_or_die(h, &rc);
	if (part_frame(c, p, nrows, trow) || rc)
		return -ENOMEM;
	part_points(c, p, rep, trow);
	/* The baseline column is the one of the results' baseline. */
	p->r.baseline = col_index(c, c->r->baseline);
	if (p->r.baseline >= c->ncols)
		p->r.baseline = 0;
	/* Every column against the baseline's: no pairing to speak of. */
	for (unsigned k = 0; k < c->ncols; k++)
		plain &= p->r.base_of[k] == p->r.baseline;
	if (plain) {
		free(p->r.base_of);
		p->r.base_of = NULL;
	}
	results_mde_range(&p->r);
	return part_noise(c, p, trow);
}

static void cut_free(struct cut *c)
{
	for (unsigned v = 0; c->col && v < c->r->nvariants; v++)
		free(c->col[v]);
	free(c->col);
	free(c->cols);
	free(c->rowval);
}

/* Columns and row values of the cut; 0 or -ENOMEM. */
static int cut_prepare(struct cut *c)
{
	const struct results *r = c->r;
	char buf[512];

	c->col = calloc(r->nvariants + 1, sizeof(char *));
	c->cols = calloc(r->nvariants + 1, sizeof(char *));
	c->rowval = calloc(r->nvariants + 1, sizeof(unsigned));
	if (!c->col || !c->cols || !c->rowval)
		return -ENOMEM;
	for (unsigned v = 0; v < r->nvariants; v++) {
		unsigned i = 0;

		if (!(c->col[v] = strdup(results_column(r, v, buf, sizeof(buf)))))
			return -ENOMEM;
		if (col_index(c, v) == c->ncols)
			c->cols[c->ncols++] = c->col[v];
		if (c->rowdim < 0)
			continue;
		while (i < c->nrowval && !same_value(dim_of(r, c->rowval[i], c->keys[c->rowdim]),
						     dim_of(r, v, c->keys[c->rowdim])))
			i++;
		if (i == c->nrowval)
			c->rowval[c->nrowval++] = v;
	}
	return 0;
}

/* The first variant of each combination of the dimensions but the row's. */
static unsigned combos(const struct cut *c, unsigned *rep)
{
	unsigned n = 0;

	for (unsigned v = 0; v < c->r->nvariants; v++) {
		unsigned i = 0;

		while (i < n && !same_combo(c->r, rep[i], v, c->keys, c->nk, c->rowdim))
			i++;
		if (i == n)
			rep[n++] = v;
	}
	return n;
}

int results_split(const struct results *r, const char *dim,
		  struct results_part **parts, unsigned *nparts, char *err, size_t len)
{
	const char *keys[32];
	char want[128], valid[512] = "threads";
	struct cut c = {.r = r, .keys = keys, .rowdim = -1};
	unsigned *rep, nrep, n = 0;
	int rc;

	*parts = NULL;
	*nparts = 0;
	snprintf(want, sizeof(want), "%s", dim ? dim : "threads");
	for (char *p = want; *p; p++)
		*p = *p == '-' ? '_' : *p;
	c.nk = results_dims(r, keys, 32);
	for (unsigned i = 0; i < c.nk; i++) {
		snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), ", %s", keys[i]);
		if (!strcmp(keys[i], want))
			c.rowdim = (int)i;
	}
	if (c.rowdim < 0 && strcmp(want, "threads")) {
		snprintf(err, len, "--rows (%s): not a dimension of these results; valid: %s",
			 dim, valid);
		return -EINVAL;
	}
	if (!c.nk)
		return 0;       /* nothing swept: the results as they are */
	rep = calloc(r->nvariants + 1, sizeof(*rep));
	if (!rep || (rc = cut_prepare(&c))) {
		free(rep);
		cut_free(&c);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	nrep = combos(&c, rep);
	*parts = calloc((size_t)nrep * (c.rowdim >= 0 ? r->nrows : 1) + 1, sizeof(**parts));
	rc = *parts ? 0 : -ENOMEM;
	for (unsigned t = 0; !rc && t < (c.rowdim >= 0 ? r->nrows : 1); t++)
		for (unsigned i = 0; !rc && i < nrep; i++)
			rc = fill_part(&c, &(*parts)[n++], rep[i], t);
	*nparts = n;
	free(rep);
	cut_free(&c);
	if (rc) {
		results_parts_free(*parts, n);
		*parts = NULL;
		*nparts = 0;
		snprintf(err, len, "out of memory");
	}
	return rc;
}

void results_parts_free(struct results_part *parts, unsigned n)
{
	for (unsigned i = 0; parts && i < n; i++) {
		struct results *r = &parts[i].r;

		for (unsigned k = 0; r->variants && k < r->nvariants; k++)
			free(r->variants[k].name);
		for (unsigned k = 0; r->row_desc && k < r->nrows; k++)
			free(r->row_desc[k].label);
		free(r->variants);
		free(r->points);
		free(r->base_of);
		free(r->rows);
		free(r->row_desc);
		free(r->noise.row_stop);
		free(parts[i].heading);
	}
	free(parts);
}
