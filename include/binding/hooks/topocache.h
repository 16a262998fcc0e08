/* Entry points of topocache.c that only tests, fuzzers and benches call: the
 * plugin and sbind never include binding/hooks/ (tests/cli/t_ship.sh). */
#ifndef BINDING_HOOKS_TOPOCACHE_H
#define BINDING_HOOKS_TOPOCACHE_H

#include "binding/topology/topocache.h"

/* The checksum of a cache image of n 32-bit words (its own two checksum
 * words counted as zero): for tests that forge images to reach the
 * validator behind it. */
uint64_t bnd_topocache_checksum(const uint32_t *w, size_t n);

#endif
