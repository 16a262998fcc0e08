/* What the node's records hold, by the allocator's rules: cpus (active
 * records; the occupancy rule between a job's batch script, its steps and
 * other jobs) and NUMA memory (per job, its steps sharing its memory).
 * Pure functions of a parsed state: state.c places against them under the
 * lock, statequeue.c and the lock-free checks of deferred steps read the
 * same rules.
 */
#ifndef BINDING_STATE_OCCUPANCY_H
#define BINDING_STATE_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "binding/memory/booking.h"
#include "binding/memory/memplace.h"
#include "binding/request/request.h"
#include "binding/state/statefile.h"
#include "binding/topology/topology.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"

/* Why a request did not fit, as the allocator saw it under the lock (one
 * rule: these are the very sets it placed against). */
struct bnd_nofit {
	/* The request against the step's allowed cpus alone, nothing held:
	 * BND_ENOFIT means the allocation itself is too small (or an explicit
	 * list names cores outside it), and err says why. */
	int alone_rc;
	char alone_err[BND_ERRLEN];
	bnd_cpuset_t others;   /* held by other jobs */
	bnd_cpuset_t script;   /* held by the job's batch script */
	bnd_cpuset_t siblings; /* held by the job's other steps */
};

struct bnd_alloc_args {
	uint32_t job;
	uint32_t step;              /* BND_STEP_BATCH for the batch step */
	int ntasks;                 /* the step's tasks on this node, >= 1 */
	pid_t owner_pid;            /* holds the record while alive; 0: caller */
	uint32_t uid;
	const bnd_cpuset_t *allowed; /* what Slurm gave the step; NULL: the node */
	/* Cpus held outside the state, as another job's (sbind place
	 * --mask); NULL: none. */
	const bnd_cpuset_t *held_elsewhere;
	/* Each placement group's GPUs (placement/domain.h), NULL when none:
	 * GPU-aware requests are placed next to them, at start and on resume. */
	const struct bnd_near *near;
	/* When true and the job's batch step (its job-level record) holds
	 * cpus here, the step is placed first inside those cpus minus the
	 * ones the job's other steps hold, and if it does not fit there,
	 * anywhere in allowed not held by other jobs nor by the job's other
	 * steps. So the script's cores are shared with the steps it launches,
	 * but two steps never share. When false, the batch step's cpus are
	 * taken as well. A step never gets cpus of another job. */
	bool inherit_job;
	/* NULL, or filled when the result is BND_ENOFIT. */
	struct bnd_nofit *nofit;
	/* NUMA memory (memory/memacct.h): the step's MiB on this node (0:
	 * none), its --mbind policy and the OS reserve per node (NULL: none).
	 * The placement must fit each node's free memory as memplace.h says;
	 * the record reserves what it places (mem=). mem_out (may be NULL)
	 * receives the reservation and nlocal's nodes. */
	uint64_t mem_mib;
	enum bnd_mbind mbind;
	const struct bnd_mem_reserve *mem_reserve;
	struct bnd_mem_result *mem_out;
	/* The job's memory on this node (MiB, 0: unknown), kept in the record
	 * (jobmem=) for the per-job memory rule. */
	uint64_t job_mem_mib;
	/* numamem=yes: the job's memory Slurm booked on this node per NUMA
	 * node (memory/booking.h), NULL when it has none. The step's memory
	 * (mem_mib, at most the booking; all of it when mem_mib is 0) is
	 * placed in what the booking has left: the job's other steps running
	 * now take theirs out, its batch script's is shared (as its cores
	 * are). The cores are steered to the booked nodes, never blocked by
	 * them: Slurm guaranteed the memory. The record keeps the booking
	 * (booked=), which is what the job holds here. */
	const struct bnd_booking *booked;
};

/* The record owner of an allocation (a->owner_pid, else this process) and
 * its start time; BND_EINVAL when it does not run. */
int bnd_state_owner_of(const struct bnd_alloc_args *a, pid_t *owner, unsigned long long *start,
		       char *err, size_t errlen);

/* Union of the cpus held (active records) in f, leaving out records of
 * except_job (0: leave none out). */
void bnd_state_held(const struct bnd_state_file *f, uint32_t except_job, bnd_cpuset_t *out);

/* Occupancy seen by (a->job, a->step), in three parts:
 *   others    cpus of other jobs: never shared;
 *   script    cpus of the job's batch step (its job-level record): shared
 *             with the steps the script launches, that is what they inherit;
 *   siblings  cpus of the job's other steps: never shared either, so two
 *             steps running at once get distinct cores.
 * The step's own earlier record counts as free. */
void bnd_state_occupancy(const struct bnd_state_file *f, uint32_t job, uint32_t step,
			 bnd_cpuset_t *others, bnd_cpuset_t *script, bnd_cpuset_t *siblings);

/* The occupancy rule for (a->job, a->step): what it must not take (other
 * jobs', its sibling steps', and the script's unless a->inherit_job). The
 * batch step's record is the job's: its steps run inside it, so it never
 * counts them as taken. */
void bnd_state_taken_of(const struct bnd_alloc_args *a, const bnd_cpuset_t *others,
			const bnd_cpuset_t *script, const bnd_cpuset_t *siblings,
			bnd_cpuset_t *taken);
/* Both at once, on f. */
void bnd_state_taken(const struct bnd_state_file *f, const struct bnd_alloc_args *a,
		     bnd_cpuset_t *taken);

/* MiB reserved per NUMA index of t by the records that hold memory
 * (active and suspended: a suspended job's pages stay resident): per node,
 * each job's records there summed but capped at its largest record's total
 * (its steps share its memory), summed over the jobs; except_job (not 0) is
 * left out, as a step's own job never competes with it for memory. used
 * has t->nnuma entries. BND_OK or BND_ENOMEM. */
int bnd_state_mem_used(const struct bnd_topology *t, const struct bnd_state_file *f,
		       uint32_t except_job, uint64_t *used);

#endif
