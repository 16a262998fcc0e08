/* A set of NUMA node numbers, a type of its own so that the compiler
 * stops a CPU set being passed where nodes are meant (or the reverse).
 *
 * Whether the numbers are the kernel's node ids (memory policy, the task's
 * environment) or indices into the topology's NUMA arrays (placement and
 * accounting) is said by each interface that takes one. The bits are a
 * cpuset's underneath: one bitmap implementation, two meanings.
 */
#ifndef BINDING_NODESET_H
#define BINDING_NODESET_H

#include <stdbool.h>
#include <stddef.h>

#include "binding/util/cpuset.h"

typedef struct {
	bnd_cpuset_t bits;
} bnd_nodeset_t;

static inline void bnd_nodeset_zero(bnd_nodeset_t *s) { bnd_cpuset_zero(&s->bits); }
static inline void bnd_nodeset_set(bnd_nodeset_t *s, int node) { bnd_cpuset_set(&s->bits, node); }
static inline bool bnd_nodeset_isset(const bnd_nodeset_t *s, int node)
{
	return bnd_cpuset_isset(&s->bits, node);
}
static inline int bnd_nodeset_count(const bnd_nodeset_t *s) { return bnd_cpuset_count(&s->bits); }
static inline bool bnd_nodeset_empty(const bnd_nodeset_t *s) { return bnd_cpuset_empty(&s->bits); }
static inline void bnd_nodeset_or(bnd_nodeset_t *dst, const bnd_nodeset_t *src)
{
	bnd_cpuset_or(&dst->bits, &src->bits);
}
static inline bool bnd_nodeset_equal(const bnd_nodeset_t *a, const bnd_nodeset_t *b)
{
	return bnd_cpuset_equal(&a->bits, &b->bits);
}
/* Next node > prev (start with prev = -1); -1 when none. */
static inline int bnd_nodeset_next(const bnd_nodeset_t *s, int prev)
{
	return bnd_cpuset_next(&s->bits, prev);
}
/* "0-1,3", as the kernel lists nodes (Mems_allowed_list). */
static inline int bnd_nodeset_format_list(const bnd_nodeset_t *s, char *buf, size_t buflen)
{
	return bnd_cpuset_format_list(&s->bits, buf, buflen);
}

#endif
