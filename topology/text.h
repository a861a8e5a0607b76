/* SPDX-License-Identifier: MIT */
/*
 * Text the machine gives (hostname, /proc/cmdline, sysfs attributes,
 * /proc/cpuinfo) as JSON strings.  JSON text is UTF-8 (RFC 8259, section
 * 8.1) and jansson refuses any other byte sequence, so a hostname or a
 * kernel command line with a stray Latin-1 byte would otherwise drop the
 * whole object it belongs to.
 */
#ifndef LOCKBENCH_TOPOLOGY_TEXT_H
#define LOCKBENCH_TOPOLOGY_TEXT_H

#include <jansson.h>
#include <stddef.h>

/*
 * The length of the valid UTF-8 sequence at s (1 to 4 bytes; the
 * well-formed sequences of Unicode 15, table 3-7), or 0 when the byte at
 * s does not start one.
 */
size_t utf8_seq_len(const unsigned char *s);

/*
 * s with each byte that is not part of a valid UTF-8 sequence written as
 * the four characters \xNN, as a new JSON string (NULL for a NULL s or
 * out of memory).  Valid text is kept as it is.
 */
json_t *json_text(const char *s);

#endif
