/* SPDX-License-Identifier: MIT */
/*
 * Number lists as the kernel and taskset write them: "1,2,4", "0-3",
 * "0-15:2" (stride), and for thread counts the word "max".
 */
#ifndef LOCKBENCH_CPULIST_H
#define LOCKBENCH_CPULIST_H

/*
 * Parse `s` into a malloc'ed array (order kept, duplicates dropped).
 * "max" stands for `maxval` when maxval > 0 and is refused otherwise.
 * Values above `limit` (when limit > 0) are refused.  Returns 0, or
 * -EINVAL with err set to one line naming the bad token, or -ENOMEM.
 */
int numlist_parse(const char *s, unsigned maxval, unsigned limit,
		  unsigned **out, unsigned *n, char *err, size_t errlen);
/* The kernel's CPU list syntax (no "max", no limit). */
int cpulist_parse(const char *s, unsigned **out, unsigned *n, char *err,
		  size_t errlen);

#endif
