/* A host's memory and caches as Univa Grid Engine 8.1 reports them.
 *
 * UGE's execution daemon reports, next to the per-node memory of
 * memacct.h (m_mem_total_n<N>, m_mem_used_n<N>, m_mem_free_n<N>), the
 * host's (m_mem_total, m_mem_used, m_mem_free) and its cache sizes
 * (m_cache_l1, m_cache_l2, m_cache_l3), in its MEMORY notation:
 * "131022.000000M", "32.000000K" (its load values as qconf -se shows them).
 * Here, per NUMA node in MiB:
 *   total = the node's memory
 *   free  = its capacity after mem_reserve= minus the records' reservations
 *           (memacct.h), never below 0: what placement may still give
 *   used  = total - free: the OS reserve and the jobs' reservations
 * (UGE's used is total - free too), and the host's values are the sums of
 * its nodes'. These are the binding's accounting, not the kernel's free
 * memory (sbind topology's kernel_free_mib). Pure functions: no I/O.
 */
#ifndef BINDING_MEMREPORT_H
#define BINDING_MEMREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "binding/topology/topology.h"
#include "binding/util/memsize.h"

struct bnd_memreport_node {
	int os;                 /* OS NUMA node id: the <N> of _n<N> */
	uint64_t total_mib, used_mib, free_mib;
	uint64_t reserved_os_mib, reserved_jobs_mib;
};

struct bnd_memreport {
	int n;                            /* the topology's NUMA nodes */
	struct bnd_memreport_node *node;  /* [n], NUMA index order */
	/* the host: the sums over the nodes */
	uint64_t total_mib, used_mib, free_mib, reserved_os_mib, reserved_jobs_mib;
};

/* jobs_mib[nnuma]: the records' reservations per NUMA index (NULL: none);
 * reserve may be NULL (none). BND_ENOMEM; free with bnd_memreport_free. */
int bnd_memreport_build(const struct bnd_topology *t, const struct bnd_mem_reserve *reserve,
			const uint64_t *jobs_mib, struct bnd_memreport *out);
void bnd_memreport_free(struct bnd_memreport *r);

/* UGE's MEMORY notation: MiB as "16384.000000M"; a cache's bytes in KiB,
 * "32.000000K", "25600.000000K" (UGE writes caches in K whatever their
 * size). */
void bnd_uge_mib(uint64_t mib, char *buf, size_t len);
void bnd_uge_cache(uint64_t bytes, char *buf, size_t len);

/* The load values, each as a name and its text, in UGE's (alphabetical)
 * order: the caches m_cache_l1, m_cache_l2, m_cache_l3 (one cache of each
 * level; 0.000000K when the node reports none), and the memory
 * m_mem_free, m_mem_free_n<N>..., m_mem_total, m_mem_total_n<N>...,
 * m_mem_used, m_mem_used_n<N>... (UGE lists m_core between the two). */
typedef void (*bnd_loadvalue_fn)(void *ctx, const char *name, const char *value);
void bnd_memreport_caches(const struct bnd_topology *t, bnd_loadvalue_fn fn, void *ctx);
void bnd_memreport_values(const struct bnd_memreport *r, bnd_loadvalue_fn fn, void *ctx);

#endif
