/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), small and dependency-free: lockbench records the
 * hash of every plugin file it loads so a result can be traced to the
 * exact binary that produced it.
 */
#ifndef LOCKBENCH_SHA256_H
#define LOCKBENCH_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;           /* bytes hashed so far */
	uint8_t buf[64];        /* partial block */
	unsigned nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Finish and write the 32-byte digest; s must be re-initialised to reuse. */
void sha256_final(struct sha256 *s, uint8_t out[32]);
/* One-shot: the lower-case hex digest of data, NUL-terminated. */
void sha256_hex(const void *data, size_t len, char hex[65]);
/* Hex digest of a regular file's contents (opened without blocking).
 * Returns 0, -EINVAL when it is not a regular file, or -errno when it
 * cannot be opened or read (hex is then ""). */
int sha256_file(const char *path, char hex[65]);
/* The same of the regular file open at fd, read from its start with
 * pread() (the file offset is left alone): what a caller verified by
 * descriptor is what is hashed. */
int sha256_fd(int fd, char hex[65]);

#endif
