/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "loops.h"

#define LOOPS(n)                                                               \
	extern const struct lock_ops lock_##n##_ops;                           \
	extern const struct lock_loops lock_##n##_loops;
#include "loops.def"
#undef LOOPS

static const struct {
	const struct lock_ops *ops;
	const struct lock_loops *loops;
} inlined[] = {
#define LOOPS(n) {&lock_##n##_ops, &lock_##n##_loops},
#include "loops.def"
#undef LOOPS
};

const struct lock_loops *wl_loops_find(const struct lock_ops *ops)
{
	for (size_t i = 0; i < sizeof(inlined) / sizeof(inlined[0]); i++)
		if (inlined[i].ops == ops)
			return inlined[i].loops;
	return wl_plugin_loops(ops);
}
