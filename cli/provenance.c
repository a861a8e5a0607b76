// SPDX-License-Identifier: MIT
/*
 * cli/provenance.c - see provenance.h.  LOCKBENCH_GIT and
 * LOCKBENCH_CFLAGS come from the Makefile (the revision `git describe`
 * gave at build time, and CFLAGS); the compiler names itself through
 * __VERSION__.
 */
#include "../topology/text.h"
#include "provenance.h"

#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef LOCKBENCH_GIT
#define LOCKBENCH_GIT "unknown"
#endif
#ifndef LOCKBENCH_CFLAGS
#define LOCKBENCH_CFLAGS "unknown"
#endif
#ifdef __clang__
#define COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER "unknown"
#endif

const char *provenance_version(void)
{
	return LOCKBENCH_VERSION " (git " LOCKBENCH_GIT ")";
}

json_t *provenance_json(int argc, char *const *argv, bool has_seed, uint64_t seed)
{
	json_t *cmd = json_array(), *o;
	struct utsname u;
	char host[256] = "", date[32] = "", kernel[sizeof(u.release) + sizeof(u.version) + 2] = "";
	time_t now = time(NULL);
	struct tm tm;

	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_text(i ? argv[i] : "lockbench"));
	if (!uname(&u))
		snprintf(kernel, sizeof(kernel), "%s %s", u.release, u.version);
	if (gethostname(host, sizeof(host) - 1))
		host[0] = 0;
	if (gmtime_r(&now, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	o = json_pack("{s:o, s:s, s:s, s:s, s:s, s:o, s:o, s:s}", "command", cmd,
		      "version", LOCKBENCH_VERSION, "git", LOCKBENCH_GIT,
		      "compiler", COMPILER, "cflags", LOCKBENCH_CFLAGS,
		      "kernel", json_text(kernel), "host", json_text(host), "date", date);
	if (o && has_seed)
		json_object_set_new(o, "seed", json_integer((json_int_t)seed));
	return o;
}
