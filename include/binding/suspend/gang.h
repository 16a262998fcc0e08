/* A step's life under gang scheduling and suspend, in slurmstepd:
 *
 *   Slurm suspends it   -> its record becomes suspended and holds no cpus
 *                          (bnd_state_suspend), the frozen tasks keep their
 *                          affinity
 *   Slurm resumes it    -> it takes its previous cpus back when they are
 *                          free, else another placement of its request
 *                          inside Slurm's allocation, else it is deferred
 *                          (bnd_state_resume); on a placement every thread
 *                          of every task's process tree is moved
 *   deferred            -> retried at every change of the node's state
 *                          file, bound as soon as a placement fits; the
 *                          tasks keep their affinity meanwhile (in the
 *                          gang case, the cpus they get back)
 *
 * With --mbind the tasks' memory policy names the NUMA nodes of their
 * cpus and cannot be changed from outside the process, so such a step
 * only ever gets its previous cpus back (or waits, deferred). env and pe
 * instances told their tasks the cpus in the environment, which cannot
 * change either: the same rule.
 *
 * The watcher thread (watcher.h) drives this, and changes the step only
 * through bnd_step_move (stepstate.h: PLACED, DEFERRED, SUSPENDED,
 * SUSPENDED_WAITING); bnd_gang_stop joins it.
 */
#ifndef BINDING_SUSPEND_GANG_H
#define BINDING_SUSPEND_GANG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "binding/step/step.h"
#include "binding/suspend/verdict.h"

struct bnd_gang_in {
	/* Started by bnd_step_prepare and bnd_step_place. Until bnd_gang_stop
	 * returns, the watcher thread owns its placement and state
	 * (bnd_step_move). */
	struct bnd_step *step;
	const pid_t *pids;        /* local task i's pid (the batch step: the script) */
	/* Task i's start time, read when Slurm forked it (bnd_task_identify
	 * in task_post_fork): the rebind acts on that process only, never on
	 * whatever has its number later. NULL: read when the watcher opens. */
	const unsigned long long *starts;
	int npids;
	const char *proc_root;    /* "/proc" */
	const char *cgroup_root;  /* "/sys/fs/cgroup" */
	enum bnd_job_state (*job_state)(void *ctx); /* slurmctld; may be NULL */
	void *job_ctx;
	bool verbose;             /* log each transition with its latency */
	int sample_ms;            /* 0: the watcher's default */
};

struct bnd_gang;

/* Does this step need a watcher (a set/env/pe request with a record)? */
int bnd_gang_wanted(const struct bnd_step *s);

/* Starts the watcher. BND_OK (*g may be NULL when not wanted) or an error
 * (err says why; the step then simply keeps its cpus while suspended). */
int bnd_gang_start(struct bnd_gang **g, const struct bnd_gang_in *in, char *err, size_t errlen);

/* Stops and joins the watcher; NULL is fine. */
void bnd_gang_stop(struct bnd_gang *g);

/* Transitions done so far: suspends, resumes (bound again), deferrals. */
void bnd_gang_counts(const struct bnd_gang *g, int *suspends, int *resumes, int *deferrals);


#endif
