/* One job step on this node, from the plugin's point of view: everything
 * the SPANK callbacks do, without Slurm types, so spank_binding.c stays
 * glue and this logic can be driven by tests.
 *
 *   bnd_step_prepare   slurmstepd, root, before the tasks fork
 *                      (init_post_opt): what the step asks and where it
 *                      may run: request (stepsource.h: which source
 *                      wins), options, topology (cache), domain, GPUs,
 *                      memory booking; leaves the step in its last state
 *                      or READY (stepstate.h)
 *   bnd_step_place     right after it: a READY step's state transaction
 *                      for all local tasks (placed, deferred or refused),
 *                      rankfile; every refused step's record and counts
 *   bnd_step_task      each task, as the user, before exec (task_init):
 *                      affinity, memory policy, environment, verbose line
 *   bnd_step_finish    slurmstepd, root, at the end (exit): release
 *
 * In between, the step's watcher (lib/suspend) moves it between placed,
 * deferred and suspended, through bnd_step_move only.
 *
 * A step is never refused here: whatever goes wrong becomes the reason
 * each task prints and exports, and only bnd_step_task may report a
 * failure (on_failure=fail), because failing slurmstepd's own callbacks in
 * a batch step drains the node.
 */
#ifndef BINDING_STEP_H
#define BINDING_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "binding/request/config.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/option.h"
#include "binding/request/request.h"
#include "binding/state/counters.h"
#include "binding/state/statefile.h"
#include "binding/step/stepgpu.h"
#include "binding/step/stepsource.h"
#include "binding/step/stepstate.h"
#include "binding/task/gpuenv.h"
#include "binding/task/apply.h"
#include "binding/memory/booking.h"
#include "binding/memory/memplace.h"
#include "binding/task/taskenv.h"
#include "binding/util/safefile.h"
#include "binding/topology/topology.h"

/* Text sizes of a step and its tasks: a host name with its NUL (as
 * gethostname); why a step or task is not bound; the task's stderr line
 * (host, task, prefix, the reason and a memory policy error); the -v line
 * (host, task, the pe pairs, the cpu list and the policy). */
#define BND_HOST_NAME_MAX 256
#define BND_REASON_MAX 2048
#define BND_TASK_MESSAGE_MAX (BND_REASON_MAX + BND_ERRLEN + BND_HOST_NAME_MAX + 256)
#define BND_TASK_VERBOSE_MAX (BND_HOST_NAME_MAX + 2 * BND_CPULIST_TEXT + BND_MEMPOLICY_TEXT + 1160)

typedef void (*bnd_log_fn)(void *ctx, const char *msg);

struct bnd_step_in {
	const struct bnd_config *cfg;
	uint32_t job, step, uid;
	uint32_t nodeid;
	int ntasks;                  /* local tasks (batch: ignored, see below) */
	const int *global_ids;       /* [ntasks] or NULL (0..n-1) */
	const char *step_cores;      /* S_STEP_ALLOC_CORES */
	const char *job_cores;       /* S_JOB_ALLOC_CORES */
	/* --binding and --mbind: their text whole and its one parse (option.h:
	 * the option callback's in slurmstepd); NULL, or a value without text,
	 * when not given. The step keeps pointers to them: they outlive it. */
	const struct bnd_option_value *binding, *mbind;
	int cpus_per_task;           /* S_STEP_CPUS_PER_TASK (implicit=yes);
	                                < 1: unknown, counted as 1; not used
	                                for the batch step (see below) */
	/* LSF's LSB_USER_BIND_JOB / LSB_USER_BIND_CPU_LIST from the step's
	 * environment (NULL when unset): the request when --binding is not
	 * given (before default= and implicit=, which are the site's); with
	 * --binding they are ignored and the verbose line says so. */
	const char *lsf_bind_job, *lsf_cpu_list;
	/* The step's memory on this node in MiB: S_STEP_ALLOC_MEM, else
	 * S_JOB_ALLOC_MEM (Slurm's MB, from --mem / --mem-per-cpu); 0 when
	 * Slurm gave none. Shared evenly among the node's tasks. */
	uint64_t mem_mib;
	/* The job's memory on this node (S_JOB_ALLOC_MEM, MiB; 0: none),
	 * kept in the state record for the per-job memory rule. */
	uint64_t job_mem_mib;
	/* batch step: tasks of the job on this node come from these, and
	 * CPUs per task from SLURM_CPUS_PER_TASK (else 1) */
	const char *tasks_per_node, *ntasks_env, *cpus_per_task_env;
	/* This node's name (rankfile, messages): entry nodeid of
	 * SLURM_STEP_NODELIST (an srun step) or SLURM_JOB_NODELIST (the batch
	 * step, or when the step list is missing), else gethostname(). A name
	 * outside the host name alphabet (bnd_hostname_valid) is skipped: the
	 * step's environment is the user's, and the rankfile is written by
	 * root. SLURMD_NODENAME is never used: at init_post_opt it is only
	 * what srun sent (inside a batch job, the batch host). */
	const char *step_nodelist, *job_nodelist;
	/* GPUs (stepgpu.h): the step's GPU variables at init_post_opt, and
	 * slurmstepd's own SLURM_CONF (gres.conf and cgroup.conf are beside
	 * it unless gres_conf= says otherwise); gpu_roots: where the drivers'
	 * records are (NULL: /proc and /sys). */
	struct bnd_step_gpu_in gpu;
	const char *slurm_conf;
	const struct bnd_gpudev_roots *gpu_roots;
	pid_t owner;                 /* slurmstepd: holds the state record */
	bnd_log_fn log;              /* admin log (slurmd log), may be NULL */
	void *log_ctx;
	/* numamem=yes (memory/booking.h): the job's GRES detail on the node
	 * named host (slurm_load_job's, step/gresdetail.h), asked only when
	 * the step binds memory: malloc'd ("" when the job has no GRES
	 * there), or NULL with err set. NULL: never asked (tests, tools). */
	char *(*gres_detail)(void *ctx, const char *host, char *err, size_t errlen);
	void *gres_ctx;
};

/* One step, from prepare to free. What follows from its fields is asked
 * of stepstate.h (bnd_step_is_batch, bnd_step_asks_cores,
 * bnd_step_gpu_aware), not kept beside them. */
struct bnd_step {
	enum bnd_step_state state; /* stepstate.h; moved by bnd_step_move only */
	/* Where req came from (stepsource.h's precedence): --binding, LSF's
	 * variables, default=, implicit=; NONE: only --mbind. */
	enum bnd_step_source source;
	const struct bnd_config *cfg; /* the plugin's settings: they outlive the step */
	uint32_t job, step, nodeid;
	char host[BND_HOST_NAME_MAX];
	/* The request the step runs, never copied: the option callback's
	 * parse, default='s, or `made` here (from LSF's variables or
	 * implicit=); `made` (none) until a source gives one. */
	const struct bnd_request *req;
	struct bnd_request made;
	/* The request text whole, as exported in SLURM_BINDING_REQUEST (the
	 * option's or default='s); req->text (and the state record's copy)
	 * are cut short, for display only, and never parsed again. NULL: use
	 * req->text (made here). */
	const char *req_text;
	enum bnd_mbind mbind;
	struct bnd_topology *topo; /* NULL in NO_TOPOLOGY (Grid Engine's NONE) */
	int ntasks;           /* tasks here (batch: the job's tasks here) */
	int share;            /* tasks per placement group (stepfit.h), >= 1 */
	bnd_cpuset_t domain;  /* what Slurm gave the step here */
	bnd_cpuset_t reserved; /* kept from every job by the admin (filter=) */
	char note[512];       /* for the verbose line: where the request came from */
	/* The step's placement: in PLACED its cpus; in DEFERRED and the
	 * suspended states the last one it held (a resume asks for it back),
	 * empty (ntasks 0) when it never held any. */
	struct bnd_placement pl;
	/* GPUs: a GPU-aware step (bnd_step_gpu_aware) learns each task's
	 * (stepgpu.h) and places each placement group next to them (near:
	 * group_gpus, masks of the topology's GPUs). */
	struct bnd_step_gpus gpus;
	uint64_t *group_gpus;
	struct bnd_near near;
	struct bnd_mem_result mem; /* reserved per node; nlocal's nodes */
	/* numamem: the job's memory Slurm booked on this node (n 0: none, the
	 * node's own accounting holds; stepbooking.h). */
	struct bnd_booking booking;
	uint64_t mem_mib, job_mem_mib;
	uint32_t uid;
	pid_t owner;          /* holds the state record */
	char reason[BND_REASON_MAX]; /* why not bound ("" when bound or none asked) */
	enum bnd_refusal refusal;    /* its class, for the counters (counters.h) */
	/* Counts that wait for the step's next transaction (a rankfile written
	 * after its placement, a refusal the state could not record). */
	struct bnd_counts pending;
	char rankfile[BND_CONFIG_PATH_MAX + BND_SAFEFILE_NAME_MAX + 2]; /* pe: path written, "" when none */
	bnd_log_fn log;
	void *log_ctx;
};

/* Fills s (free with bnd_step_free) and moves it from NEW to the state
 * prepare decides: a last one (IDLE, UNBOUND, FAILED, NO_TOPOLOGY), or
 * READY when it asks for cores it may have. Returns BND_OK always except
 * for BND_EINVAL on NULL arguments. */
int bnd_step_prepare(struct bnd_step *s, const struct bnd_step_in *in);

/* After bnd_step_prepare, with the same in: a READY step's one state
 * transaction moves it to PLACED, DEFERRED or FAILED (and writes a pe
 * step's rankfile); a refused step (FAILED, or NO_TOPOLOGY with a request),
 * whichever stage refused it, gets its unbound record and counts. Any
 * other step is left as it is. Called once per step, as the glue calls
 * it: a second call would record a refusal twice. Returns BND_OK always
 * except for BND_EINVAL on NULL arguments. */
int bnd_step_place(struct bnd_step *s, const struct bnd_step_in *in);

/* The task's current values of the variables the environment rules need
 * (taskenv.h), NULL when unset. A variable that is set but could not be
 * read whole must not be NULL (OMP_PLACES would count as unset and be
 * replaced): give a text that no other variable reads as. */
struct bnd_task_vars {
	const char *omp_places, *omp_proc_bind;
	const char *our_omp_places, *our_omp_proc_bind; /* SLURM_BINDING_OMP_* */
	const char *gpu_env[BND_GPU_ENV_VARS]; /* gpuenv.h's, task-level */
};

struct bnd_task_result {
	bool failed;           /* on_failure=fail (or on_any_host=no on a node
	                          without topology) and the task was not bound */
	char message[BND_TASK_MESSAGE_MAX]; /* for stderr: why unbound / failed, "" if fine */
	char verbose[BND_TASK_VERBOSE_MAX]; /* the -v line, "" unless asked */
	/* For slurmd's log (info), "" unless the task was placed: job, step,
	 * task, pid, node, bound (or placed, for env and pe: affinity left
	 * alone), the mask read back in hex and as a list, cores, memory
	 * nodes and policy, GPUs (task/affinity's verbose line, for the
	 * admin). */
	char log[BND_TASK_VERBOSE_MAX];
	struct bnd_taskenv env; /* to export (free with bnd_taskenv_free) */
};

/* In the task (after fork, before exec). local_id: S_TASK_ID. verbose:
 * the plugin's verbose argument or srun -v. vars may be NULL (all unset).
 * cgroup_root and cpuset_file
 * locate the task's cpuset for the outside-the-allocation check
 * ("/sys/fs/cgroup", "/proc/self/cpuset"). */
int bnd_step_task(struct bnd_step *s, int local_id, int global_id, bool verbose,
		  const struct bnd_task_vars *vars, const char *cgroup_root, const char *cpuset_file,
		  struct bnd_task_result *out);

/* The state options the step's transactions use (its state dir, lock
 * timeout, log). */
struct bnd_state_opts;
void bnd_step_state_opts(const struct bnd_step *s, struct bnd_state_opts *o);

/* The cpus a step may be placed in: Slurm's, minus the site's reserved. */
void bnd_step_usable(const struct bnd_step *s, bnd_cpuset_t *out);

/* The allocator's arguments for this step (at start and on resume alike):
 * its placement groups (tasks sharing a core on SMT count once), owner,
 * memory and the cpus it may use (usable must outlive a). */
struct bnd_alloc_args;
void bnd_step_alloc_args(struct bnd_step *s, const bnd_cpuset_t *usable,
			 struct bnd_alloc_args *a);

/* The cpus of local task local_id in placement p (the batch script: all
 * of them); 0 when p has none for it. */
bool bnd_step_task_cpus(const struct bnd_step *s, const struct bnd_placement *p, int local_id,
			bnd_cpuset_t *out);

/* In slurmstepd at the end: releases the record (the step is RELEASED),
 * removes the rankfile. */
int bnd_step_finish(struct bnd_step *s);

void bnd_step_free(struct bnd_step *s);

/* slurmd, at its start: the state dir made with the site's access
 * (private_files=, util/safefile.h) and the topology cache written, so no
 * step pays for hwloc's discovery. */
int bnd_step_node_start(const struct bnd_config *cfg, char *err, size_t errlen);

#endif
