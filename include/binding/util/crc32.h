/* CRC-32 (IEEE 802.3, the zlib/gzip one), as in the state file's end line.
 *
 * Every transaction checksums the whole state twice (its read and its
 * write), so at 1000 records the table-driven loop alone cost more than a
 * bare read-and-replace of the same file. On x86-64 with PCLMULQDQ the bulk
 * is folded with carry-less multiplication (Intel's "Fast CRC Computation
 * for Generic Polynomials Using PCLMULQDQ"), about 20 times faster; the
 * table (sliced by 8) does the rest and every other machine.
 */
#ifndef BINDING_UTIL_CRC32_H
#define BINDING_UTIL_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t bnd_crc32(const void *data, size_t len);


#endif
