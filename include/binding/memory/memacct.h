/* NUMA memory accounting: what each node holds, what a placement reserves.
 *
 * Univa Grid Engine 8.1 made memory per NUMA node a consumable
 * (m_mem_total_n<N>, m_mem_used_n<N>, m_mem_free_n<N>); Slurm has none.
 * Here, per NUMA index of a topology, in MiB:
 *   capacity = the node's memory (hwloc local_memory) minus the OS reserve
 *              (mem_reserve= in plugstack.conf: "2G" per node or "5%")
 *   used     = the reservations of the live records (suspended ones too:
 *              their pages stay resident)
 *   free     = capacity - used, never below 0.
 * A record reserves its step's memory on this node, shared evenly among its
 * tasks; a task's share goes to the nodes its memory policy uses:
 *   cores, cores:strict  the local nodes of its cores, split evenly
 *   round_robin          every node with cpus in the step, split evenly
 *   nlocal               the chosen nodes (memplace.h), split evenly
 *   gpu                  the host nodes next to its GPUs (placement/near.h),
 *                        split evenly; a task without GPUs: like cores
 *   none                 the local nodes of its cores, like cores (the
 *                        kernel's first touch lands there)
 * Pure functions: no I/O.
 */
#ifndef BINDING_MEMACCT_H
#define BINDING_MEMACCT_H

#include <stddef.h>
#include <stdint.h>

#include "binding/placement/place.h"
#include "binding/util/memsize.h"
#include "binding/util/nodeset.h"
#include "binding/request/request.h"
#include "binding/topology/topology.h"

/* One node's reservation, as the state file's mem= field holds it. */
struct bnd_mem_share {
	int node;      /* OS NUMA node id */
	uint64_t mib;
};

/* cap[nnuma]: each node's capacity in MiB after the reserve. */
void bnd_mem_capacity(const struct bnd_topology *t, const struct bnd_mem_reserve *r,
		      uint64_t *cap);

/* Adds shares (OS node ids) into used[nnuma]; shares on nodes the topology
 * does not have are ignored (a record of another hardware layout). */
void bnd_mem_add(const struct bnd_topology *t, const struct bnd_mem_share *s, int n,
		 uint64_t *used);

/* free[i] = cap[i] - used[i], at least 0. */
void bnd_mem_free(const struct bnd_topology *t, const uint64_t *cap, const uint64_t *used,
		  uint64_t *avail);

/* The task's share of the step's memory: step_mib / ntasks, rounded up so
 * the shares never add up to less than the step. */
uint64_t bnd_mem_task_share(uint64_t step_mib, int ntasks);

/* Per NUMA index, what the placement reserves under policy m for a step of
 * step_mib on this node (0: nothing). nodes (may be NULL) is the nlocal
 * choice as NUMA indices: set bits of a cpuset used as a bitmap. */
void bnd_mem_demand(const struct bnd_topology *t, const struct bnd_placement *p,
		    enum bnd_mbind m, const bnd_nodeset_t *nodes, uint64_t step_mib,
		    uint64_t *demand);

/* demand[nnuma] -> shares (OS node ids, non-zero only, ascending node id);
 * returns how many, at most max. */
int bnd_mem_shares(const struct bnd_topology *t, const uint64_t *demand,
		   struct bnd_mem_share *out, int max);

#endif
