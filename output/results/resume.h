/* SPDX-License-Identifier: MIT */
/*
 * --resume FILE: continue a sweep from the JSON an interrupted one wrote.
 */
#ifndef LOCKBENCH_RESUME_H
#define LOCKBENCH_RESUME_H

#include <stddef.h>

#include "results.h"

/*
 * Check that `old` (read back from a results file named `name`) was
 * measured with the same configuration as `r` (set up for this run,
 * with no runs yet), then copy its runs and point states into `r`: the
 * sweep skips what is there.  The configurations are compared member by
 * member except "created", "seed" and "unit" (they do not change what
 * a run measures).  Returns 0, -EINVAL with one line in err naming the
 * first difference, or -ENOMEM.
 */
int results_resume(struct results *r, const struct results *old,
		   const char *name, char *err, size_t len);

/* The configuration check of results_resume() alone, against a config
 * object (so it can run before anything is measured or written). */
int results_resume_check(json_t *config, const struct results *old,
			 const char *name, char *err, size_t len);

#endif
