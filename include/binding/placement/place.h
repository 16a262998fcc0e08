/* Placement: topology + occupancy + request in, cores out.
 *
 * A pure function: no I/O, no global state, so every strategy can be tested
 * on any topology. The domain is `allowed` (what Slurm gave the step; NULL
 * means the whole node) minus `taken` (held by other jobs). A core is
 * available only when all of its PUs are in the domain: cores are always
 * taken whole (except OCS thread units and LSF thread/cpu lists).
 */
#ifndef BINDING_PLACE_H
#define BINDING_PLACE_H

#include <stddef.h>

#include "binding/placement/domain.h"
#include "binding/util/cpuset.h"
#include "binding/request/request.h"
#include "binding/topology/topology.h"

struct bnd_task_place {
	int ncores;
	int *cores;        /* global core indices, in the strategy's order */
	bnd_cpuset_t cpus; /* OS cpus the task is bound to */
	uint64_t gpus;     /* its GPUs (the domain's near), 0 when none known */
	int nlocal;        /* its cores local to them (near.h), -1 without GPUs */
};

/* Room for the note of a GPU-aware placement that could not keep a task
 * next to its GPUs. */
#define BND_NEAR_NOTE_LEN 512

struct bnd_placement {
	int ntasks;
	struct bnd_task_place *tasks;
	bnd_cpuset_t all_cpus; /* union over tasks */
	/* gpu:<n> and near=gpu: why the first task whose cores are not all
	 * local to its GPUs is not (near.h, bnd_near_explain); "" otherwise. */
	char near_note[BND_NEAR_NOTE_LEN];
};

/* Tasks of one step on one node at most: Slurm's MaxTasksPerNode may not
 * exceed it. More (a batch step's count comes from its environment) is
 * refused before anything is allocated per task. */
#define BND_MAX_TASKS 65533

/* ntasks >= 1: the step's local tasks, placed in one sweep and handed out in
 * consecutive groups so they stay compact; all or nothing.
 * Returns BND_OK (out filled; free with bnd_placement_free), BND_ENOFIT
 * (err says why no binding is possible), BND_EINVAL, BND_ENOMEM.
 * A BND_S_NONE request yields BND_OK with every task's cpus empty.
 * dom->near (may be NULL) gives each task's GPUs: gpu:<n> and near=gpu
 * place every task next to its own, and every placement records them per
 * task. */
int bnd_place(const struct bnd_topology *t, const struct bnd_domain *dom,
	      const struct bnd_request *r, int ntasks, struct bnd_placement *out,
	      char *err, size_t errlen);

void bnd_placement_free(struct bnd_placement *p);

#endif
