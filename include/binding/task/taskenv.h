/* The environment a bound (or unbound) task receives, built as a plain
 * list so the SPANK glue only has to copy it with spank_setenv.
 *
 * Variables (always exported, empty when they do not apply, so values
 * inherited from an enclosing batch script never leak into a step):
 *   SLURM_BINDING, SGE_BINDING   the task's OS cpu ids, space separated
 *   SGE_MP_PROCBIND              as SGE_BINDING (Grid Engine 6.2u5's env instance)
 *   SLURM_BINDING_INSTANCE       set | env | pe
 *   SLURM_BINDING_REQUEST        the --binding text ("none" without one)
 *   SLURM_BINDING_STATUS         "bound" or "unbound: <reason>"
 *   SLURM_BINDING_TOPOLOGY       Grid Engine string, the task's cores lower case
 *   SLURM_BINDING_TOPOLOGY_OCS   OCS/GCS string (N S X Y C E T), the same marking
 *   SLURM_MBIND                  the --mbind policy name
 *   SLURM_BINDING_TOPOLOGY_NUMA  Univa's NUMA form "[SCC][CC]", the task's cores lower case
 *   SLURM_MBIND_NODES            OS NUMA node ids the task's memory goes to ("0,2"),
 *                                "" when no policy names nodes
 *   SLURM_BINDING_NUMAMEM        numamem=yes: the task's memory Slurm booked, MiB per
 *                                OS node ("0:400", "0:112,1:288"); unset without a booking
 *   SLURM_BINDING_NUMAMEM_SPLIT  yes when Slurm split the task's memory over nodes, no
 *                                otherwise; unset without a booking
 *   SLURM_BINDING_PE             pe only: the task's cores as OCS pe pairs "0,0:0,1"
 *   SLURM_BINDING_RANKFILE       pe only: path of the node's OpenMPI rankfile
 *   SLURM_BINDING_GPUS           the task's GPUs as PCI bus ids ("0000:3b:00.0,...")
 *   SLURM_BINDING_GPU_LOCALITY   local | nearest: <why> | none (a GPU-aware request)
 * and, for job scripts written for OCS/GCS and LSF, in their formats:
 *   SGE_BINDING_INSTANCE         set | env | pe, NONE when not bound (OCS)
 *   SGE_BINDING_TOPOLOGY         the OCS string, the task's units lower case;
 *                                NONE when not bound (OCS)
 *   SGE_BINDING_CPUSET           the task's cpus as hwloc prints a cpuset
 *                                (0x00000003), 0x0 when not bound (OCS)
 *   GCS_BINDING                  as SGE_BINDING
 *   GCS_BINDING_INSTANCE         set | env | pe, NONE when not bound
 *   LSB_BIND_CPU_LIST            the task's cpus as LSF lists them: 0,5,7,9-11
 *   LSB_BIND_JOB                 BALANCE | PACK | ANY (LSF policies),
 *                                USER_CPU_LIST (cpus: and every other
 *                                strategy: a chosen cpu list), NONE when not bound
 * With `set` and a binding, OMP_PLACES (one {..} place per core, its
 * threads in the binding) and
 * OMP_PROC_BIND=close, unless the user set them. Values this module set
 * earlier (an srun inside a batch script inherits the script's) are
 * recognised through SLURM_BINDING_OMP_PLACES / SLURM_BINDING_OMP_PROC_BIND
 * and replaced or removed; a user's own value is never touched.
 * When the plugin split the step's GPUs among its tasks, the visible-device
 * variables narrowed to the task's own (task/gpuenv.h); otherwise they are
 * Slurm's and not in the list.
 */
#ifndef BINDING_TASKENV_H
#define BINDING_TASKENV_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "binding/util/cpuset.h"
#include "binding/request/request.h"
#include "binding/topology/topology.h"

#define BND_TASKENV_MAX 48

struct bnd_envvar {
	const char *name; /* static string */
	char *value;      /* malloc'd; NULL means "unset this variable" */
};

struct bnd_taskenv {
	int n;
	struct bnd_envvar v[BND_TASKENV_MAX];
};

struct bnd_taskenv_in {
	const struct bnd_topology *topo; /* NULL when it could not be loaded:
					    the topology variables say NONE */
	const char *request;             /* --binding text; NULL/"" = none */
	enum bnd_instance instance;
	enum bnd_strategy strategy;      /* for LSB_BIND_JOB */
	enum bnd_mbind mbind;
	const bnd_cpuset_t *cpus;        /* the task's cpus; NULL/empty = unbound */
	const char *reason;              /* why unbound (NULL when bound) */
	const char *rankfile;            /* pe: path written for this node */
	const char *mbind_nodes;         /* SLURM_MBIND_NODES; NULL = "" */
	/* numamem: the task's part of the memory Slurm booked ("0:112,1:288",
	 * SLURM_BINDING_NUMAMEM) and whether Slurm split it over nodes
	 * (SLURM_BINDING_NUMAMEM_SPLIT=yes|no); NULL: both unset. */
	const char *numamem;
	int numamem_split;
	const char *gpus;                /* SLURM_BINDING_GPUS; NULL = "" */
	const char *gpu_locality;        /* SLURM_BINDING_GPU_LOCALITY; NULL = "" */
	/* The visible-device variables (gpuenv.h): when gpu_narrow, each of
	 * gpu_env (the task's current values, [BND_GPU_ENV_VARS], may be NULL)
	 * keeps the entries gpu_positions names of the step's gpu_nstep. */
	bool gpu_narrow;
	int gpu_nstep;
	uint64_t gpu_positions;
	const char *const *gpu_env;
	/* The task's current environment values (NULL when unset). */
	const char *omp_places, *omp_proc_bind;
	const char *our_omp_places, *our_omp_proc_bind; /* our markers */
};

/* Fills out (free with bnd_taskenv_free). */
int bnd_taskenv_build(struct bnd_taskenv *out, const struct bnd_taskenv_in *in,
		      char *err, size_t errlen);
void bnd_taskenv_free(struct bnd_taskenv *e);

/* The i-th name (0 up) of the variables a task may receive: this
 * module's, then the visible-device ones (gpuenv.h); NULL past the last. */
const char *bnd_taskenv_var(size_t i);

/* OCS pe form of the cores holding cpus: "<socket>,<core>" joined by ':'. */
int bnd_pe_pairs(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
		 char *buf, size_t buflen);

/* OMP_PLACES explicit form: one place per core holding cpus, with the
 * core's threads that are in cpus, "{0,1},{2,3}" (a binding to one thread
 * of each of two cores: "{0},{2}"). */
int bnd_omp_places(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
		   char *buf, size_t buflen);

/* The slot list of a rankfile line, in the syntax Open MPI 4.1 reads:
 * whole cores as "<socket>:<core>[-<core>]" items joined by ';' (a run of
 * consecutive cores of one socket is a range: "0:0-1;1:0"); a task holding
 * part of a core (threads) as logical hardware thread ids "0,2", "4-5",
 * which mpirun reads with --use-hwthread-cpus. */
int bnd_rankfile_slot(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
		      char *buf, size_t buflen);

/* OpenMPI rankfile for a node's tasks: one line per task,
 * "rank <global id>=<host> slot=<bnd_rankfile_slot>". Tasks without
 * cpus are left out. Returns malloc'd text in *out. */
int bnd_rankfile_format(const struct bnd_topology *t, const char *host, int ntasks,
			const int *global_ids, const bnd_cpuset_t *task_cpus,
			char **out, char *err, size_t errlen);

#endif
