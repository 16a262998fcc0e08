/* The one rule of "next to its GPUs", for every GPU-aware placement
 * (strategy gpu:<n>, packed's near=gpu) and for what they report.
 *
 * A core's rank for a task is 0 when it is local to one of the task's GPUs
 * (inside the GPU's hwloc locality, topogpu.h); otherwise the smallest
 * NUMA distance (hwloc's matrix, 10 = local) from one of the GPUs' NUMA
 * nodes to the core's nearest node, so the cores of the GPU's own node
 * outside its locality come next (10), then the nearest other node (12,
 * 16, 21...). A task without GPUs ranks every core 0. Lower ranks are
 * taken first, then core order: compact, and the same on every call.
 */
#ifndef BINDING_NEAR_H
#define BINDING_NEAR_H

#include <stddef.h>
#include <stdint.h>

#include "binding/placement/domain.h"

/* Rank of a core whose node has no distance to the GPUs' nodes. */
#define BND_NEAR_FAR 1000000

/* The GPUs of placement group task (0 when none are known). */
uint64_t bnd_near_gpus(const struct bnd_domain *dom, int task);

int bnd_near_rank(const struct bnd_topology *t, uint64_t gpus, int core);

/* The same rule for many cores of one task: its GPUs' core ranges and
 * NUMA nodes gathered once (a rank then costs a few comparisons). */
struct bnd_near_ctx {
	uint64_t gpus;
	int nranges, first[BND_MAX_GPUS], count[BND_MAX_GPUS];
	int nnodes, nodes[BND_MAX_GPUS];
};
void bnd_near_ctx_init(const struct bnd_topology *t, uint64_t gpus, struct bnd_near_ctx *c);
int bnd_near_ctx_rank(const struct bnd_topology *t, const struct bnd_near_ctx *c, int core);

/* The NUMA indices local to the GPUs in mask (their nodes, topogpu.h). */
void bnd_near_numa(const struct bnd_topology *t, uint64_t gpus, bnd_nodeset_t *out);

/* The host memory next to them, where --mbind=gpu puts a task's memory:
 * the nodes of their local cores (a GPU's own memory node, POWER9's HBM,
 * is not host memory; on an APU it is the node of its cores anyway). */
void bnd_near_host_numa(const struct bnd_topology *t, uint64_t gpus, bnd_nodeset_t *out);

/* The GPUs of mask as a list of labels ("nvml3,nvml4"). */
void bnd_near_labels(const struct bnd_topology *t, uint64_t gpus, char *buf, size_t len);

/* How many of the cores are local to the GPUs of mask (-1 when it is 0). */
int bnd_near_local(const struct bnd_topology *t, uint64_t gpus, const int *cores, int ncores);

/* Why a task's cores (placed in dom, after the step's earlier tasks took
 * `earlier`) are not all local to its GPUs: the GPUs, how many local
 * cores they have and where those went, and how far the task's others
 * are. "" when all of them are local. */
void bnd_near_explain(const struct bnd_topology *t, const struct bnd_domain *dom, int task,
		      const bnd_cpuset_t *earlier, const int *cores, int ncores, char *buf,
		      size_t len);

#endif
