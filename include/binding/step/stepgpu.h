/* Which GPUs each task of a step has, learned where the plugin places
 * the step: in slurmstepd before any task forks (init_post_opt), where
 * SPANK offers no GPU item and only the step's environment.
 *
 *  1. The step's GPUs on this node: SLURM_STEP_GPUS (the batch step:
 *     SLURM_JOB_GPUS), GRES indices of this node.
 *  2. Each local task's share, by the rule slurmstepd itself applies when
 *     it forks the task (Slurm 22.05, gres_g_task_set_env): the step's
 *     --gpu-bind (SLURM_GPU_BIND), else --gpus-per-task=N (srun makes it
 *     per_task:N), else --ntasks-per-gpu=K (single:K):
 *       per_task:N    local task p: the step's GPUs pN .. pN+N-1, in index
 *                     order. Under ConstrainDevices=yes these are the
 *                     devices its cgroup lets it open, even where the task's
 *                     own SLURM_STEP_GPUS names another (the task's
 *                     visible-device numbers start from 0 there);
 *       map_gpu:L     one index per task (repeat counts "1*2"); the node's
 *       mask_gpu:L    GRES indices, or positions among the step's GPUs
 *                     under ConstrainDevices=yes (Slurm's own reading);
 *       closest,      chosen by Slurm from the cpus task/affinity gave the
 *       single:K      task, which this plugin then changes: unknowable
 *                     here; every task is placed near all the step's GPUs.
 *  3. Not split by Slurm (no --gpu-bind, --gpus-per-task): for a
 *     GPU-aware request the plugin splits them as --gpus-per-task=N would
 *     (N = GPUs / tasks) or as --ntasks-per-gpu=K would (K = tasks /
 *     GPUs), whichever divides evenly, and the task's visible-device
 *     variables are narrowed to its own (task/gpuenv.h) unless the request
 *     says visible=all; otherwise every task has all of them.
 *  4. Each GPU's device file (gres.conf, slurmconf.h), its PCI bus id
 *     (the site's map or the driver's record, topology/gpudev.h) and so the
 *     topology's GPU; AutoDetect=nvml|rsmi|oneapi without File=: that
 *     vendor's GPUs in PCI bus order (NVML's and ROCm's own order).
 * The tasks then check the truth in their device cgroup (bnd_step_task).
 */
#ifndef BINDING_STEPGPU_H
#define BINDING_STEPGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binding/step/slurmconf.h"
#include "binding/topology/gpudev.h"
#include "binding/topology/topology.h"
#include "binding/util/error.h"

enum bnd_gpu_split {
	BND_SPLIT_NONE = 0, /* every task has all of the step's GPUs */
	BND_SPLIT_SLURM,    /* by Slurm's per-task rule (per_task, map, mask) */
	BND_SPLIT_PLUGIN,   /* by this plugin, as --gpus-per-task would */
};

/* The step's environment at init_post_opt (NULL when unset). */
struct bnd_step_gpu_in {
	const char *step_gpus;      /* SLURM_STEP_GPUS, else SLURM_JOB_GPUS */
	const char *gpu_bind;       /* SLURM_GPU_BIND */
	const char *gpus_per_task;  /* SLURM_GPUS_PER_TASK ("2", "a100:2") */
	const char *ntasks_per_gpu; /* SLURM_NTASKS_PER_GPU */
};

/* What the node says: its topology, gres.conf, the site's device map, the
 * drivers' records, cgroup.conf's ConstrainDevices. */
struct bnd_step_gpu_ctx {
	const struct bnd_topology *t;
	const struct bnd_gres_gpus *gres;
	const struct bnd_gpu_devmap *map;
	const struct bnd_gpudev_roots *roots;
	bool constrain_devices;
	bool may_split;             /* a GPU-aware request: rule 3 applies */
	/* A dry run's GPUs given by name (sbind place --gpus): GRES index i is
	 * topology GPU topo_of_gres[i], no device file; NULL in a step. */
	const int *topo_of_gres;
	int ntopo_of_gres;
};

struct bnd_step_gpus {
	int n;                           /* the step's GPUs on this node */
	int gres[BND_MAX_GPUS];          /* their GRES indices, ascending */
	int topo[BND_MAX_GPUS];          /* their topology GPUs, -1 unknown */
	char file[BND_MAX_GPUS][BND_GPU_DEVPATH_LEN]; /* device files, "" unknown */
	enum bnd_gpu_split split;
	int ntasks;
	uint64_t *task;                  /* [ntasks]: bit j = the step's j-th GPU */
	char how[256];                   /* the rule that split them */
	char problem[BND_ERRLEN];        /* a GPU without locality, "" if none */
};

/* Fills out for ntasks local tasks (free with bnd_step_gpus_free). A step
 * without GPUs gives n = 0. BND_ENOMEM only: what cannot be learned is
 * said in how and problem, and leaves those GPUs without locality. */
int bnd_step_gpus_learn(const struct bnd_step_gpu_in *in, const struct bnd_step_gpu_ctx *ctx,
			int ntasks, struct bnd_step_gpus *out);
void bnd_step_gpus_free(struct bnd_step_gpus *g);

/* The topology GPUs (domain.h's near mask) of some of the step's GPUs. */
uint64_t bnd_step_gpus_mask(const struct bnd_step_gpus *g, uint64_t positions);

/* In the task: the step's GPUs local task local_id has (a batch script:
 * all of them). */
uint64_t bnd_step_gpus_of_task(const struct bnd_step_gpus *g, int local_id, int is_batch);

/* The device cgroup's word on them (task/gpuenv.h): when it denies some
 * of the step's GPUs to the task, *positions becomes those it allows, and
 * why says so when that differs from the rule's (else why is ""). */
void bnd_step_gpus_check(const struct bnd_step_gpus *g, uint64_t *positions, char *why,
			 size_t len);

/* SLURM_BINDING_GPUS: their PCI bus ids, comma separated (the device
 * file of one whose bus id is unknown). */
void bnd_step_gpus_list(const struct bnd_step_gpus *g, const struct bnd_topology *t,
			uint64_t positions, char *buf, size_t len);

#endif
