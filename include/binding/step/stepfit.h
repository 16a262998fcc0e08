/* How a step's tasks meet Slurm's allocation on an SMT node, and why a
 * request that names its cores does not fit it.
 *
 * With CR_Core (or CR_CPU) and one CPU per task Slurm hands out hardware
 * threads: `srun -n2` on a node with 2 threads per core gets one core and
 * runs a task on each of its threads. A request counted in cores per task
 * (linear:1) can then never fit, although the step's cores are exactly
 * what the user asked Slurm for. Grid Engine binds all of a job's
 * processes on a host to one mask; here the tasks that Slurm put on the
 * threads of one core share that core's binding: the request is placed
 * for groups of k consecutive tasks (k = tasks per core of Slurm's
 * allocation, rounded up), each group as one task, and every task of a
 * group gets the group's cpus. Cores stay exclusive to the step in the
 * state file; only the step's own tasks share.
 */
#ifndef BINDING_STEPFIT_H
#define BINDING_STEPFIT_H

#include <stddef.h>

#include "binding/util/cpuset.h"
#include "binding/request/request.h"
#include "binding/topology/topology.h"

/* Tasks per placement group for ntasks tasks in Slurm's allocation
 * `domain`, of which `usable` may be bound (domain minus what the site
 * keeps). 1 (every task its own cores) unless Slurm put more tasks here
 * than the domain has whole cores, the request does not fit `usable` one
 * task each and does fit it one group each. Pure: other jobs' cores do not
 * count (the state transaction sees them). */
int bnd_step_share(const struct bnd_topology *t, const bnd_cpuset_t *domain,
		   const bnd_cpuset_t *usable, const struct bnd_request *r, int ntasks);

/* Groups for ntasks tasks shared k per group, and the group of task i. */
int bnd_share_groups(int ntasks, int k);
int bnd_share_group_of(int task, int k);

/* For a request with a start core (linear/striding <socket>,<core>): the
 * cores it would take on the whole node that are not in `usable`, as
 * "s,c:s,c" pairs in `missing`. BND_OK with missing filled (possibly ""
 * when all are usable); BND_ENOFIT when the request cannot be placed on
 * this node at all, err saying why (no such start core, running past the
 * last core). BND_EINVAL for a request without a start core. */
int bnd_start_cores_missing(const struct bnd_topology *t, const bnd_cpuset_t *usable,
			    const struct bnd_request *r, int ntasks, char *missing,
			    size_t missinglen, char *err, size_t errlen);

#endif
