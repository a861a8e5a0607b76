/* SPDX-License-Identifier: MIT */
/* The kernel's attribute and annotation names (include/linux/
 * compiler_types.h, compiler_attributes.h): sparse annotations vanish,
 * attributes become GCC's. */
#ifndef LB_KCOMPAT_COMPILER_TYPES_H
#define LB_KCOMPAT_COMPILER_TYPES_H

#define __always_inline inline __attribute__((__always_inline__))
#define noinline __attribute__((__noinline__))
#define __pure __attribute__((__pure__))
#define __aligned(x) __attribute__((__aligned__(x)))
#define __packed __attribute__((__packed__))
#define __maybe_unused __attribute__((__unused__))
#define __always_unused __attribute__((__unused__))
#define __used __attribute__((__used__))
#define __cold __attribute__((__cold__))
#define __weak __attribute__((__weak__))
#define __noreturn __attribute__((__noreturn__))
#define __must_check __attribute__((__warn_unused_result__))
#define __visible __attribute__((__externally_visible__))
#define __printf(a, b) __attribute__((__format__(printf, a, b)))
#define __section(s) __attribute__((__section__(s)))
#define __init
#define __exit
#define __user
#define __kernel
#define __iomem
#define __force
#define __rcu
#define __bitwise
#define __lockfunc
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define __cond_acquires(x)
#define notrace
#define __no_kcsan
#define __no_sanitize_thread
#define noinstr
#define __noinstr_section(s)
#define __lockdep_no_validate__
#define ____cacheline_aligned __attribute__((__aligned__(LB_KC_CACHELINE)))
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#define __cacheline_aligned ____cacheline_aligned
#define __cacheline_aligned_in_smp ____cacheline_aligned
#define L1_CACHE_BYTES LB_KC_CACHELINE
#define SMP_CACHE_BYTES LB_KC_CACHELINE
#define LB_KC_CACHELINE 64
#define fallthrough __attribute__((__fallthrough__))
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)
#define ___PASTE(a, b) a##b
#define __PASTE(a, b) ___PASTE(a, b)

#endif
