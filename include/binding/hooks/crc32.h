/* Entry points of crc32.c that only tests, fuzzers and benches call: the
 * plugin and sbind never include binding/hooks/ (tests/cli/t_ship.sh). */
#ifndef BINDING_HOOKS_CRC32_H
#define BINDING_HOOKS_CRC32_H

#include "binding/util/crc32.h"

/* The table-driven loop alone (tests compare the two on every length). */
uint32_t bnd_crc32_table(const void *data, size_t len);
/* The 128-bit folding alone, where the machine has it (the table where it
 * has not): bnd_crc32 folds 512 bits at a time where it can. */
uint32_t bnd_crc32_narrow(const void *data, size_t len);

#endif
