/* SPDX-License-Identifier: MIT */
/*
 * mkfake - build a fake /sys + /proc tree for end-to-end tests and print
 * its directory: DIR/root is the LOCKBENCH_SYSROOT, DIR/state/state.json
 * a state file path.  Remove DIR with rm -rf when done.
 *
 *	mkfake [acpi|pstate|nofreq] [--shared] [--arm64] [--ncpus N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakesys.h"

int main(int argc, char **argv)
{
	struct fake_opts o = { .flavour = FAKE_ACPI };
	struct fake f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "acpi"))
			o.flavour = FAKE_ACPI;
		else if (!strcmp(argv[i], "pstate"))
			o.flavour = FAKE_PSTATE;
		else if (!strcmp(argv[i], "nofreq"))
			o.flavour = FAKE_NOFREQ;
		else if (!strcmp(argv[i], "--shared"))
			o.shared_policy = true;
		else if (!strcmp(argv[i], "--arm64"))
			o.arm64 = true;
		else if (!strcmp(argv[i], "--ncpus") && i + 1 < argc)
			o.ncpus = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr,
				"mkfake: unknown argument (%s): use acpi, pstate, nofreq, --shared, --arm64, --ncpus N\n",
				argv[i]);
			return 2;
		}
	}
	if (fake_create(&f, &o)) {
		perror("mkfake: creating the tree");
		fake_destroy(&f);
		return 1;
	}
	printf("%s\n", f.dir);
	return 0;
}
