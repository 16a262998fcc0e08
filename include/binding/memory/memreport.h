/* A host's load values as Univa Grid Engine 8.1 reports them.
 *
 * UGE's execution daemon reports, next to Grid Engine's topology values
 * (m_topology, m_topology_inuse, m_socket, m_core, m_thread), the NUMA
 * string (m_topology_numa, m_numa_nodes), the cache sizes (m_cache_l1..3),
 * the host's memory (m_mem_total, m_mem_used, m_mem_free) and each NUMA
 * node's (m_mem_total_n<N>, ...). The UGE 8.1 document shows them as
 * qhost -F lists them: "hl:m_cache_l1=32.000K", "hl:m_cache_l3=12.000M",
 * "hl:m_mem_total=31.250G", "hl:m_mem_used_n0=500.000M". Here, per NUMA
 * node in MiB:
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

/* The one notation of a MEMORY load value, as qhost -F prints it (Grid
 * Engine's memory printer): three decimals and the unit scaled to the
 * value, G from 1 GiB, M from 1 MiB, K from 1 KiB, no unit below
 * ("32.000K", "12.000M", "31.250G", "500.000M", "0.000"). Exact: rounded
 * to the nearest thousandth, a tie to the even one, as printf's %.3f
 * rounds the value (binary: exact) that Grid Engine prints. */
void bnd_uge_memory(uint64_t bytes, char *buf, size_t len);
/* A count (INT load value) as qhost -F prints it: "2.000000". */
void bnd_uge_count(long long n, char *buf, size_t len);

/* The topology strings of the listing (topostring.h): Grid Engine's
 * (m_topology), the same with the taken units lower case
 * (m_topology_inuse) and the NUMA string (m_topology_numa). */
struct bnd_uge_strings {
	const char *topology, *inuse, *numa;
};

/* Each load value as a name and its text, in the document's groups (one
 * table, memreport.c):
 *   Grid Engine's topology: m_topology, m_topology_inuse, m_socket,
 *     m_core, m_thread (in qhost -F's order);
 *   UGE's NUMA topology: m_topology_numa, m_numa_nodes;
 *   the caches: m_cache_l1, m_cache_l2, m_cache_l3 (one cache of each
 *     level, 0.000 when the node reports none);
 *   the host's memory: m_mem_total, m_mem_used, m_mem_free;
 *   each NUMA node's, by OS node id: m_mem_total_n<N>...,
 *     m_mem_used_n<N>..., m_mem_free_n<N>...
 * bnd_uge_loadvalues lists them all; the others one group each (sbind
 * status shows the host's memory and the caches). */
typedef void (*bnd_loadvalue_fn)(void *ctx, const char *name, const char *value);
void bnd_uge_loadvalues(const struct bnd_topology *t, const struct bnd_memreport *r,
			const struct bnd_uge_strings *s, bnd_loadvalue_fn fn, void *ctx);
void bnd_memreport_caches(const struct bnd_topology *t, bnd_loadvalue_fn fn, void *ctx);
void bnd_memreport_host(const struct bnd_memreport *r, bnd_loadvalue_fn fn, void *ctx);
void bnd_memreport_nodes(const struct bnd_memreport *r, bnd_loadvalue_fn fn, void *ctx);

#endif
