/* Applying a placement to the calling task: CPU affinity and NUMA memory
 * policy. Called in the task itself (SPANK task_init, after fork, before
 * exec) so the settings are inherited by every thread and child it starts.
 */
#ifndef BINDING_APPLY_H
#define BINDING_APPLY_H

#include <stddef.h>
#include <sys/types.h>

#include "binding/util/cpuset.h"
#include "binding/util/nodeset.h"
#include "binding/request/request.h"
#include "binding/topology/topology.h"

/* Room for a memory policy description ("interleave:0-3"). */
#define BND_MEMPOLICY_TEXT 64

/* sched_setaffinity(pid (0 = self), cpus). BND_EINVAL for an empty set. */
int bnd_apply_affinity(pid_t pid, const bnd_cpuset_t *cpus, char *err, size_t errlen);

/* The CPUs pid (0 = self) may run on now, up to BND_MAX_CPUS. */
int bnd_affinity_get(pid_t pid, bnd_cpuset_t *out, char *err, size_t errlen);

/* Memory policy of the calling thread for `mbind`, given the task's cpus:
 *   cores        MPOL_PREFERRED (one node) / MPOL_PREFERRED_MANY fallback to
 *                preferred-first-node on old kernels: the NUMA node(s) local to cpus
 *   cores:strict MPOL_BIND to those node(s)
 *   round_robin  MPOL_INTERLEAVE over the nodes the task may use (its cpuset's mems)
 *   nlocal, gpu  BND_EINVAL: their nodes are chosen at placement (memplace.h,
 *                placement/near.h), applied with bnd_apply_mempolicy_nodes
 *   none         nothing
 * `desc` (optional) receives a short description such as "bind:0" or
 * "interleave:0-3" for logs and the environment. */
int bnd_apply_mempolicy(const struct bnd_topology *t, enum bnd_mbind mbind,
			const bnd_cpuset_t *cpus, char *desc, size_t desclen,
			char *err, size_t errlen);

/* MPOL_INTERLEAVE over the OS node ids (round_robin over nodes chosen
 * at placement: a numamem booking, memory/booking.h). */
int bnd_apply_mempolicy_interleave(const bnd_nodeset_t *os_nodes, char *desc, size_t desclen,
				   char *err, size_t errlen);

/* MPOL_BIND to the OS node ids (bind), else preferred / preferred_many
 * as for cores. */
int bnd_apply_mempolicy_nodes(const bnd_nodeset_t *os_nodes, int bind, char *desc,
			      size_t desclen, char *err, size_t errlen);

/* Reads back the calling thread's policy as the same kind of description
 * ("default", "preferred:1", "bind:0", "interleave:0-3"). */
int bnd_mempolicy_describe(char *desc, size_t desclen, char *err, size_t errlen);

/* Moves the pages of process pid that are on the OS nodes `from` to the
 * nodes `to` (migrate_pages(2); the process's own memory policy is not
 * touched: only the process can change that). *left (may be NULL) gets
 * how many pages could not be moved. BND_ESYS with the reason. */
int bnd_apply_migrate_pages(pid_t pid, const bnd_nodeset_t *from, const bnd_nodeset_t *to,
			    long *left, char *err, size_t errlen);

#endif
