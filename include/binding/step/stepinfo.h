/* What Slurm tells a step about its resources, turned into our terms.
 *
 * Slurm describes allocations in its own abstract numbering: core i of a
 * node is the i-th core when sockets are walked in order and cores within
 * each socket in hwloc's logical order -- the same socket-major order as
 * topology.h's global core index, so abstract core i is our core i with all
 * its hardware threads. The rest of this module reads Slurm's environment
 * strings and the task's cgroup cpuset. No Slurm header is needed.
 */
#ifndef BINDING_STEPINFO_H
#define BINDING_STEPINFO_H

#include <stddef.h>

#include "binding/util/cpuset.h"
#include "binding/topology/topology.h"

/* S_STEP_ALLOC_CORES / S_JOB_ALLOC_CORES ("0-1,4", core indices) -> the
 * OS cpus of those cores. BND_EINVAL for a malformed list or a core this
 * node does not have (slurm.conf describing another layout). */
int bnd_slurm_cores_to_cpus(const struct bnd_topology *t, const char *list,
			    bnd_cpuset_t *cpus, char *err, size_t errlen);

/* SLURM_TASKS_PER_NODE ("2(x3),1") -> the count of node index `node`.
 * BND_EINVAL when malformed or when the list has no such node. */
int bnd_tasks_per_node_at(const char *tpn, int node, int *count, char *err, size_t errlen);

/* How many tasks a batch script stands for on its node (the job's first
 * node): SLURM_TASKS_PER_NODE's first entry, else SLURM_NTASKS, else 1. */
int bnd_batch_tasks(const char *tasks_per_node, const char *ntasks);

/* CPUs per task of a batch script's job: SLURM_CPUS_PER_TASK (the job's
 * -c) when it is a number >= 1, else 1. Slurm's S_STEP_CPUS_PER_TASK is
 * no use there: for the batch step it is all the script's CPUs on the
 * node, not the job's -c. */
int bnd_batch_cpus_per_task(const char *cpus_per_task);

/* The cpus of the cgroup cpuset a process is in. cpuset_file is the
 * process's /proc/PID/cpuset (its path inside the cpuset hierarchy);
 * cgroup_root is where the hierarchies are mounted (/sys/fs/cgroup).
 * Tries cgroup v1 (<root>/cpuset/<path>/cpuset.effective_cpus, then
 * cpuset.cpus) and v2 (<root>/<path>/cpuset.cpus.effective).
 * BND_ESYS when none can be read (no cpuset controller). */
int bnd_cgroup_cpuset(const char *cgroup_root, const char *cpuset_file,
		      bnd_cpuset_t *out, char *err, size_t errlen);

/* Entry n (0-based) of a Slurm host list such as SLURM_STEP_NODELIST:
 * "a,b", "n[1-3,7]", "n[01-10]" (zero padding kept), "r[1-2]n[1-2]" (the
 * leftmost range varies slowest). The plugin needs this node's name before
 * Slurm has put SLURMD_NODENAME into the environment. BND_EINVAL when the
 * list is malformed or shorter than n + 1. */
int bnd_hostlist_nth(const char *list, int n, char *out, size_t outlen,
		     char *err, size_t errlen);

/* Each entry of a Slurm host list in order, expanded once: visit(ctx,
 * name) until it returns nonzero, or until max names were made (a range
 * of a million names costs a million names, never their square).
 * BND_EINVAL when the list is malformed (names before the fault were
 * visited). */
int bnd_hostlist_each(const char *list, int max, int (*visit)(void *ctx, const char *name),
		      void *ctx, char *err, size_t errlen);

/* 1 when name is a plausible host name: 1 to 255 characters, letters,
 * digits, '-', '.', '_', not starting with '-' or '.'. No control
 * characters, spaces or '=', so it can go into a file line by line. */
int bnd_hostname_valid(const char *name);

/* Number of cores of t entirely inside cpus. */
int bnd_whole_cores_in(const struct bnd_topology *t, const bnd_cpuset_t *cpus);

#endif
