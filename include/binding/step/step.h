/* One job step on this node, from the plugin's point of view: everything
 * the SPANK callbacks do, without Slurm types, so spank_binding.c stays
 * glue and this logic can be driven by tests.
 *
 *   bnd_step_prepare   slurmstepd, root, before the tasks fork
 *                      (init_post_opt): request, topology (cache), domain,
 *                      state transaction for all local tasks, rankfile
 *   bnd_step_task      each task, as the user, before exec (task_init):
 *                      affinity, memory policy, environment, verbose line
 *   bnd_step_finish    slurmstepd, root, at the end (exit): release
 *
 * A step is never refused here: whatever goes wrong becomes the reason
 * each task prints and exports, and only bnd_step_task may report a
 * failure (on_failure=fail), because failing slurmstepd's own callbacks in
 * a batch step drains the node.
 */
#ifndef BINDING_STEP_H
#define BINDING_STEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "binding/request/config.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/state/statefile.h"
#include "binding/task/taskenv.h"
#include "binding/topology/topology.h"

#define BND_RANKFILE_PREFIX "rankfile."

typedef void (*bnd_log_fn)(void *ctx, const char *msg);

struct bnd_step_in {
	const struct bnd_config *cfg;
	uint32_t job, step, uid;
	uint32_t nodeid;
	int ntasks;                  /* local tasks (batch: ignored, see below) */
	const int *global_ids;       /* [ntasks] or NULL (0..n-1) */
	const char *step_cores;      /* S_STEP_ALLOC_CORES */
	const char *job_cores;       /* S_JOB_ALLOC_CORES */
	const char *binding;         /* --binding text, NULL when not given; any
	                                length (copied whole) */
	int cpus_per_task;           /* S_STEP_CPUS_PER_TASK (implicit=yes);
	                                < 1: unknown, counted as 1; not used
	                                for the batch step (see below) */
	const char *mbind;           /* --mbind text, NULL when not given */
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
	pid_t owner;                 /* slurmstepd: holds the state record */
	bnd_log_fn log;              /* admin log (slurmd log), may be NULL */
	void *log_ctx;
};

struct bnd_step {
	int active;           /* there is something to tell the tasks */
	int is_batch;
	struct bnd_config cfg;
	uint32_t job, step, nodeid;
	char host[256];
	struct bnd_request req;
	/* The request text whole, as exported in SLURM_BINDING_REQUEST;
	 * req.text (and the state record's copy) are cut short, for display
	 * only, and never parsed again. NULL: use req.text (implicit). */
	char *req_text;
	enum bnd_mbind mbind;
	int have_request;     /* a request other than none */
	struct bnd_topology *topo;
	int ntasks;           /* tasks here (batch: the job's tasks here) */
	int share;            /* tasks per placement group (stepfit.h), >= 1 */
	bnd_cpuset_t domain;  /* what Slurm gave the step here */
	bnd_cpuset_t reserved; /* kept from every job by the admin (filter=) */
	int implicit;         /* req is the admin's implicit packed request */
	struct bnd_placement pl;
	int placed;           /* pl valid */
	int recorded;         /* a state record to release */
	char reason[2048];    /* why not bound ("" when bound or none asked) */
	char rankfile[1280];  /* pe: path written, "" when none */
	bnd_log_fn log;
	void *log_ctx;
};

/* Fills s (free with bnd_step_free); returns BND_OK always except for
 * BND_EINVAL on NULL arguments. */
int bnd_step_prepare(struct bnd_step *s, const struct bnd_step_in *in);

/* Reads the task's environment; NULL when unset. A variable that is set
 * but cannot be read whole must not come back as NULL (OMP_PLACES would
 * count as unset and be replaced): return a text that no other variable
 * reads as. The returned text must stay valid until bnd_step_task
 * returns, however many variables it reads. */
typedef const char *(*bnd_getenv_fn)(void *ctx, const char *name);

struct bnd_task_result {
	int failed;            /* on_failure=fail and the task could not be bound */
	char message[3072];    /* for stderr: why unbound / failed, "" if fine */
	char verbose[2048];    /* the -v line, "" unless asked */
	struct bnd_taskenv env; /* to export (free with bnd_taskenv_free) */
};

/* In the task (after fork, before exec). local_id: S_TASK_ID. verbose:
 * the plugin's verbose argument or srun -v. cgroup_root and cpuset_file
 * locate the task's cpuset for the outside-the-allocation check
 * ("/sys/fs/cgroup", "/proc/self/cpuset"). */
int bnd_step_task(struct bnd_step *s, int local_id, int global_id, int verbose,
		  bnd_getenv_fn getenv_fn, void *getenv_ctx,
		  const char *cgroup_root, const char *cpuset_file,
		  struct bnd_task_result *out);

/* In slurmstepd at the end: releases the record, removes the rankfile. */
int bnd_step_finish(struct bnd_step *s);

void bnd_step_free(struct bnd_step *s);

/* The user's options, checked where they are typed (srun, sbatch, salloc)
 * so a bad one stops the submission. BND_OK or BND_EINVAL with the
 * parser's message naming the bad token. BND_OK with a non-empty err is a
 * warning to show (--mbind=nlocal: accepted, not supported yet). */
enum bnd_option { BND_OPT_BINDING = 1, BND_OPT_MBIND = 2 };
int bnd_option_check(enum bnd_option which, const char *text, char *err, size_t errlen);
/* The grammar printed for --binding=help / --mbind=help. */
const char *bnd_option_help(enum bnd_option which);

/* slurmd start: creates the state dir and builds the topology cache, so no
 * step ever pays for discovery. Failures are only worth a log line. */
int bnd_node_warmup(const struct bnd_config *c, char *err, size_t errlen);

#endif
