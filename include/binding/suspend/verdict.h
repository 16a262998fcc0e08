/* Is this step suspended by Slurm, or only stopped?
 *
 * Slurm suspends a step (scontrol suspend, the gang scheduler) by sending
 * SIGTSTP to its tasks and, 2 s later, freezing them: cgroup v1
 * freezer.state FROZEN, cgroup v2 cgroup.events "frozen 1", or with
 * proctrack/linuxproc a SIGSTOP to every process. A user's own stop
 * (scancel -s STOP, a debugger, Ctrl-Z) also leaves the tasks in state T,
 * and under linuxproc looks exactly like Slurm's; with proctrack/cgroup,
 * scancel -s STOP even freezes the step's cgroup (the plugin turns SIGSTOP
 * into a freeze), exactly like a suspension. Slurm keeps the job's
 * cpus then, and so must we. The rule, in order:
 *
 *   1. slurmctld's job state, when the caller could read it, is the truth:
 *      SUSPENDED is a suspension (only scontrol suspend and the gang
 *      scheduler set it, before they signal the tasks), RUNNING is not.
 *      A thaw of a step judged suspended is a resume without asking
 *      (only slurmstepd thaws, after slurmctld set RUNNING): it saves the
 *      RPC on the way back, where latency matters.
 *   2. Without it (RPC failed): a frozen cgroup is taken for a suspension
 *      (only slurmstepd freezes the step's cgroup; a scancel -s STOP then
 *      releases the cores until slurmctld answers again), anything else is
 *      not: a task in state T alone never releases cores.
 *
 * So a user's stop keeps the cores in every mode, and a suspension is seen
 * at SIGTSTP when slurmctld answers, at the freeze when it does not
 * (linuxproc without slurmctld: never; the cores are then kept, as Slurm
 * keeps them).
 *
 * Reading the job state is an RPC: the watcher asks only when what it sees
 * changes (tasks stop or continue, the freezer changes), never while a
 * step runs undisturbed. lib/ has no Slurm headers: the caller passes the
 * job state in as plain data.
 */
#ifndef BINDING_SUSPEND_VERDICT_H
#define BINDING_SUSPEND_VERDICT_H

#include <stddef.h>
#include <sys/types.h>

enum bnd_freeze {
	BND_FREEZE_NONE = 0,  /* no freezer for this step (linuxproc) or unreadable */
	BND_FREEZE_THAWED,
	BND_FREEZE_FREEZING,
	BND_FREEZE_FROZEN,
};

enum bnd_job_state {
	BND_JOB_UNKNOWN = 0,  /* not asked, or slurmctld did not answer */
	BND_JOB_RUNNING,
	BND_JOB_SUSPENDED,
	BND_JOB_OTHER,        /* pending, completing, ended... */
};

struct bnd_suspend_obs {
	enum bnd_freeze freezer;
	enum bnd_job_state job;
	int tasks_stopped;    /* how many tasks are in state T */
	/* The cgroup went from FROZEN to THAWED while the step was judged
	 * suspended: only slurmstepd thaws it, on resume (slurmctld already
	 * says RUNNING then), so no RPC is needed to know. */
	int thawed;
};

/* 1: Slurm has the step suspended (release its cpus); 0: it runs, or is
 * only stopped by its user (keep them). The rule above. */
int bnd_suspend_verdict(const struct bnd_suspend_obs *o);

/* The file that tells whether pid's step is frozen: for cgroup v1 the
 * freezer controller's freezer.state of pid's cgroup, for a cgroup v2
 * hierarchy mounted at cgroup_root its cgroup.events; found from
 * proc_root/PID/cgroup. BND_OK with path set, or BND_ENOFIT (no freezer:
 * path ""), BND_ESYS (pid gone). *v2 (may be NULL) says which kind. */
int bnd_freezer_find(const char *proc_root, const char *cgroup_root, pid_t pid,
		     char *path, size_t pathlen, int *v2);

/* Reads a freezer.state ("THAWED", "FREEZING", "FROZEN") or a cgroup.events
 * ("frozen 0|1"); BND_FREEZE_NONE when path is NULL, "" or unreadable. */
enum bnd_freeze bnd_freezer_read(const char *path);
/* The same, from the file's text. */
enum bnd_freeze bnd_freezer_parse(const char *text);

/* The state letter of a /proc/PID/stat text (it follows the last ')':
 * comm may hold anything); 0 when there is none. */
char bnd_task_state_parse(const char *stat_text);

/* 1 when pid is in state T (stopped by a signal); 0 otherwise or gone.
 * 't' (a tracer's stop) counts too: a debugger's stop is the user's. */
int bnd_task_stopped(const char *proc_root, pid_t pid);

#endif
