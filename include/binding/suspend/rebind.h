/* Moving a running task to other cpus from outside it (slurmstepd, root).
 *
 * A task is a process tree: the process Slurm started, its threads (MPI
 * helper threads, OpenMP pools) and its descendants with theirs. Affinity
 * is per thread and only inherited at creation, so every thread of every
 * process is set, and threads or children created while the walk runs are
 * caught by walking again until a pass finds nothing new.
 */
#ifndef BINDING_SUSPEND_REBIND_H
#define BINDING_SUSPEND_REBIND_H

#include <stddef.h>
#include <sys/types.h>

#include "binding/request/request.h"
#include "binding/util/cpuset.h"
#include "binding/util/nodeset.h"

/* A task as the step knew it when Slurm forked it (task_post_fork): its
 * pid and that process's start time (/proc/PID/stat field 22). The walk
 * never acts on the number alone: a pid whose process ended and whose
 * number went to another process has another start time. */
struct bnd_task_id {
	pid_t pid;
	unsigned long long start;
};

/* Reads pid's start time under proc_root ("/proc") into id. BND_OK, or
 * BND_ESYS when it is gone (id->start 0). */
int bnd_task_identify(const char *proc_root, pid_t pid, struct bnd_task_id *id);

/* What one walk did. */
struct bnd_rebind_counts {
	int threads;   /* threads set (not those that vanished, below) */
	int procs;     /* processes whose pages were asked to move */
	int skipped;   /* threads outside the step's cgroup, left alone */
	/* Threads (or processes, for pages) gone right after the call that
	 * moved them: each one may have ended before the call, its id then
	 * belonging to another process the call reached. Rare (an id must be
	 * reused within the call), never silent: the caller logs the first. */
	int vanished;
	pid_t vanished_tid, vanished_pid;
};

/* Sets the affinity of every thread of the task and of all its
 * descendants (found through /proc/PID/task/TID/children under proc_root,
 * normally "/proc") to cpus. Root's own safety rules, as it runs as root
 * on pids of a user's processes:
 *   - the task is opened only when its process still has the start time
 *     recorded when Slurm forked it (never a reused number);
 *   - a process is held by its open /proc/PID directory from the moment it
 *     is found, and never looked up by number again: one that exits is
 *     dropped, whatever process gets its pid next;
 *   - a pid read from a children file must still have that parent when it
 *     is opened (a pid reused meanwhile belongs to someone else);
 *   - with cgroup (the step's cgroup path, bnd_step_cgroup; NULL: no
 *     check), only threads in that cgroup or below it at that moment are
 *     touched: a process moved out of the step is not the step's any more;
 *   - sched_setaffinity and migrate_pages take a number: after each call
 *     the held directory must still resolve, else the call is counted as
 *     vanished (above).
 * c (may be NULL) gets the counts. A thread or process that ends meanwhile
 * is not an error.
 * BND_OK; BND_EINVAL (empty cpus, bad pid); BND_ESYS when the task is gone
 * (or its number is another process's) or a live thread refused (err names
 * it; the others are still set).
 * With from and to (else NULL), the pages of every live process of the
 * tree that sit on the OS nodes `from` then move to `to` (migrate_pages). */
int bnd_rebind_tree(const char *proc_root, const struct bnd_task_id *task,
		    const bnd_cpuset_t *cpus, const char *cgroup, const bnd_nodeset_t *from,
		    const bnd_nodeset_t *to, struct bnd_rebind_counts *c, char *err, size_t errlen);


/* The path of pid's Slurm step cgroup (up to its step_<id> component, in
 * the first hierarchy of /proc/PID/cgroup that has one) into out; 1, or 0
 * when it has none (no cgroup plugin: then nothing is checked). */
int bnd_step_cgroup(const char *proc_root, pid_t pid, char *out, size_t len);

/* Does a /proc/PID/cgroup text put the process in cgroup or below it? */
int bnd_cgroup_contains(const char *file_text, const char *cgroup);

/* What a resumed or deferred step's tasks may do, by their memory policy
 * (a task's policy can only be changed by the task itself):
 *   BND_MOVE_KEEP     only their previous cpus, else deferred: cores:strict
 *                     and nlocal bind memory to the old nodes, round_robin
 *                     interleaves over them; env and pe bind nothing and
 *                     keep what they reported;
 *   BND_MOVE_MIGRATE  another placement if need be, and when its NUMA
 *                     nodes differ the pages follow (cores: a preference
 *                     only, so memory may move; new allocations still
 *                     prefer the old nodes, as the task's policy says);
 *   BND_MOVE_FREE     another placement if need be (no memory policy, or
 *                     gpu: the memory is the GPUs' nodes', wherever the
 *                     cores go).
 * booked: the step's memory is where Slurm booked it (numamem,
 * memory/booking.h), which no move may change: KEEP, whatever the policy. */
enum bnd_move_rule { BND_MOVE_KEEP, BND_MOVE_MIGRATE, BND_MOVE_FREE };
enum bnd_move_rule bnd_rebind_rule(enum bnd_mbind mbind, enum bnd_instance instance, int booked);

#endif
