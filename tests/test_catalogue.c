/* SPDX-License-Identifier: MIT */
/*
 * The built-in lock catalogue, field by field, against a golden file:
 * every table's name, family, capabilities, options (default and
 * range), counters, and which operations it fills and which of them are
 * the same function.  The tables are written with the field-group
 * macros of locks/registry.h; this pins what they expand to, so a
 * change to a macro or a table that alters one lock shows here.
 * Sizes are left out: glibc's types differ between x86-64 and arm64.
 * LB_CATALOGUE_WRITE=1 rewrites the golden file (review the diff).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../locks/registry.h"

#define GOLDEN "tests/golden/catalogue.txt"

/* The operations of o, as letters in table order ('-' where absent),
 * with `=` marks for read paths that reuse the exclusive ones. */
static void ops_line(FILE *f, const struct lock_ops *o)
{
	const void *fn[] = {(const void *)o->init, (const void *)o->destroy,
			    (const void *)o->thread_init, (const void *)o->lock,
			    (const void *)o->unlock, (const void *)o->trylock,
			    (const void *)o->read_lock, (const void *)o->read_unlock,
			    (const void *)o->read_counters};
	const char *letters = "IDTLUYRXC";

	fputs("  ops ", f);
	for (unsigned i = 0; i < sizeof(fn) / sizeof(fn[0]); i++)
		fputc(fn[i] ? letters[i] : '-', f);
	fprintf(f, " lock=read_lock:%d unlock=read_unlock:%d lock=unlock:%d\n",
		o->read_lock && (void *)o->lock == (void *)o->read_lock,
		o->read_unlock && (void *)o->unlock == (void *)o->read_unlock,
		(void *)o->lock == (void *)o->unlock);
}

static void render(FILE *f)
{
	for (unsigned i = 0; i < lock_registry_count(); i++) {
		const struct lock_ops *o = lock_registry_at(i)->ops;

		fprintf(f, "%s %s caps=%#x ctx=%s\n  desc %s\n  ref %s\n",
			o->name, lock_family_name(o->family), o->caps,
			o->ctx_size ? "yes" : "no", o->desc, o->ref);
		for (unsigned j = 0; j < o->nopts; j++)
			fprintf(f, "  opt %s %llu [%llu, %llu] %s\n", o->opts[j].name,
				(unsigned long long)o->opts[j].def,
				(unsigned long long)o->opts[j].min,
				(unsigned long long)o->opts[j].max, o->opts[j].help);
		for (unsigned j = 0; j < o->ncounters; j++)
			fprintf(f, "  counter %s\n", o->counter_names[j]);
		ops_line(f, o);
	}
}

static char *slurp(FILE *f, size_t *len)
{
	long n;
	char *s;

	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	*len = (size_t)n;
	return s;
}

static void test_catalogue_golden(void **state)
{
	FILE *got = tmpfile(), *want;
	size_t glen, wlen;
	char *g, *w;

	(void)state;
	assert_non_null(got);
	render(got);
	g = slurp(got, &glen);
	if (getenv("LB_CATALOGUE_WRITE")) {
		want = fopen(GOLDEN, "w");
		assert_non_null(want);
		fwrite(g, 1, glen, want);
		fclose(want);
	}
	want = fopen(GOLDEN, "r");
	assert_non_null(want);
	w = slurp(want, &wlen);
	assert_string_equal(g, w);
	free(g);
	free(w);
	fclose(got);
	fclose(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue_golden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
