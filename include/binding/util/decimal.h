/* Decimal text of integers, without printf: the state file writes every
 * number of every record in every transaction, and vsnprintf was a third
 * of a transaction's instructions. */
#ifndef BINDING_UTIL_DECIMAL_H
#define BINDING_UTIL_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* Room for any uint64_t's digits. */
#define BND_DECIMAL_MAX 20

/* Writes v's digits to out (no NUL), returns how many. */
size_t bnd_decimal_u64(char *out, uint64_t v);

#endif
