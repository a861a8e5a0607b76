/* SPDX-License-Identifier: MIT */
/* The kernel's fixed-width and size types (include/linux/types.h), on
 * <lockbench/kernel.h>'s u8..s64. */
#ifndef LB_KCOMPAT_TYPES_H
#define LB_KCOMPAT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <lockbench/kernel.h>

typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef u8 __u8;
typedef s32 __s32;
typedef s64 __s64;
typedef unsigned long ulong;
typedef unsigned int uint;
typedef u64 phys_addr_t;
typedef unsigned gfp_t;

#endif
