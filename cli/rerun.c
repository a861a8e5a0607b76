// SPDX-License-Identifier: MIT
/*
 * `lockbench rerun FILE.json [options]`: run the configuration a results
 * file records again.  The command line comes from the file's
 * provenance.command; its -o/--output and --resume are dropped (a rerun
 * never overwrites what it reruns: give -o anew), its run-order seed is
 * kept (--seed from provenance.seed when the command had none), and the
 * options given after FILE.json are appended, so they win.  The new
 * process is this binary (/proc/self/exe), announced on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../output/results/json_read.h"
#include "cmds.h"
#include "err.h"

/* Does the recorded word w (with its successor) carry an output path? */
static unsigned dropped(const char *w)
{
	if (!strcmp(w, "-o") || !strcmp(w, "--output") || !strcmp(w, "--resume"))
		return 2;
	if (!strncmp(w, "--output=", 9) || !strncmp(w, "--resume=", 9) ||
	    (!strncmp(w, "-o", 2) && w[2]))
		return 1;
	return 0;
}

/* The results file at path and the run command it records (*cmd,
 * borrowed from the returned document); exit 2 when it has none.  Only
 * the document without its runs is read: the command is all a rerun
 * needs, and the runs are most of a large file. */
static json_t *recorded(const char *path, json_t **cmd)
{
	char err[512];
	json_t *doc = results_json_skeleton(path, err, sizeof(err));
	const char *word;

	if (!doc)
		cli_die("rerun: %s", err);
	*cmd = json_object_get(json_object_get(doc, "provenance"), "command");
	if (!json_is_array(*cmd) || json_array_size(*cmd) < 1)
		cli_die("rerun (%s): no provenance.command (written by an older lockbench "
			"or another tool)", path);
	word = json_string_value(json_array_get(*cmd, 1));
	if (word && command_find(word) && strcmp(word, "run"))
		cli_die("rerun (%s): made by 'lockbench %s', not by a run", path, word);
	return doc;
}

int cmd_rerun(int argc, char **argv)
{
	json_t *doc, *cmd, *seed;
	size_t n, k = 0;
	char **av, seedbuf[32];
	bool has_seed = false, quiet = false;

	if (argc < 2)
		cli_die("rerun: no results file given; usage: lockbench rerun FILE.json "
			"[options]");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		printf("usage: lockbench rerun FILE.json [options]\n"
		       "Run the command recorded in FILE.json again, with its seed, without\n"
		       "its -o (give one); options after FILE.json are added last.\n");
		return 0;
	}
	doc = recorded(argv[1], &cmd);
	n = json_array_size(cmd);
	av = cli_calloc(n + (size_t)argc + 4, sizeof(*av));
	av[k++] = "lockbench";
	for (size_t i = 1; i < n; i++) {
		const char *w = json_string_value(json_array_get(cmd, i));
		unsigned d;

		if (!w)
			cli_die("rerun (%s): provenance.command[%zu] is not a string",
				argv[1], i);
		if ((d = dropped(w))) {
			i += d - 1;
			continue;
		}
		has_seed |= !strcmp(w, "--seed") || !strncmp(w, "--seed=", 7);
		av[k++] = (char *)w;
	}
	seed = json_object_get(json_object_get(doc, "provenance"), "seed");
	if (!has_seed && json_is_integer(seed)) {
		snprintf(seedbuf, sizeof(seedbuf), "%" PRIu64,
			 (uint64_t)json_integer_value(seed));
		av[k++] = "--seed";
		av[k++] = seedbuf;
	}
	for (int i = 2; i < argc; i++)
		av[k++] = argv[i];
	for (size_t i = 0; i < k; i++)
		quiet |= !strcmp(av[i], "-q") || !strcmp(av[i], "--quiet");
	for (size_t i = 0; i < k && !quiet; i++)
		fprintf(stderr, "%s %s%s", i ? "" : "lockbench: rerun:", av[i],
			i + 1 == k ? "\n" : "");
	fflush(NULL);
	execv("/proc/self/exe", av);
	cli_die("rerun (%s): cannot start lockbench again: %s", argv[1], strerror(errno));
}
