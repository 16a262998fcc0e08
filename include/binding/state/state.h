/* The node-local allocator: every binding on this node, in one shared,
 * root-owned state file (layout: statedir.h; format: statefile.h).
 *
 * Each call below is one transaction: lock, read, validate, change, write a
 * temporary file, rename it over the state, unlock. Every transaction also
 * repairs what it finds:
 *   - a record whose owner is gone (no such pid, or the pid now belongs to a
 *     process with another start time) is dropped;
 *   - a damaged file is kept aside as state.corrupt.<time>, and the records
 *     that still parse, whose owners are alive and that do not overlap an
 *     earlier kept one, are kept;
 *   - a state written in another boot is discarded as a whole.
 * Each repair is reported through opts->log. A file of a newer format version
 * is refused (BND_ESTATE) and left untouched.
 *
 * Who holds cpus: records with status active. Suspended and deferred records
 * stay in the file but leave their cpus to others.
 */
#ifndef BINDING_STATE_H
#define BINDING_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "binding/util/cpuset.h"
#include "binding/memory/memplace.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/state/statedir.h"
#include "binding/state/statefile.h"
#include "binding/state/statetxn.h"
#include "binding/util/error.h"
#include "binding/topology/topology.h"

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
	/* When true and the job's batch step (its job-level record) holds
	 * cpus here, the step is placed first inside those cpus minus the
	 * ones the job's other steps hold, and if it does not fit there,
	 * anywhere in allowed not held by other jobs nor by the job's other
	 * steps. So the script's cores are shared with the steps it launches,
	 * but two steps never share. When false, the batch step's cpus are
	 * taken as well. A step never gets cpus of another job. */
	int inherit_job;
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
};

/* Places request r for the step inside the transaction, against the
 * occupancy read under the lock, and records it in the same transaction.
 * An existing record of the same job and step is replaced (so a repeated
 * call is harmless); its cpus count as free for the new placement.
 * BND_OK: out holds the placement (free with bnd_placement_free); a request
 * that binds nothing ("none") is not recorded.
 * BND_ENOFIT: no binding possible; err has the placement's reason and
 * nothing is recorded. Others: BND_EINVAL (bad args or request, owner not
 * running), BND_ESTATE (state refused), BND_ETIMEOUT (lock), BND_ESYS,
 * BND_ENOMEM. */
int bnd_state_allocate(const struct bnd_state_opts *o, const struct bnd_topology *t,
		       const struct bnd_request *r, const struct bnd_alloc_args *a,
		       struct bnd_placement *out, char *err, size_t errlen);

/* Drops the record of (job, step) / every record of job. *released (may be
 * NULL) gets how many were dropped; none is not an error. */
int bnd_state_release(const struct bnd_state_opts *o, uint32_t job, uint32_t step,
		      int *released, char *err, size_t errlen);
int bnd_state_release_job(const struct bnd_state_opts *o, uint32_t job, int *released,
			  char *err, size_t errlen);

/* A transaction that only repairs; *reclaimed (may be NULL) counts the
 * records dropped (stale owners, other boot, unsalvageable). */
int bnd_state_gc(const struct bnd_state_opts *o, int *reclaimed, char *err, size_t errlen);

/* Reads the records without the lock and without repairing anything (so it
 * works for unprivileged users): out (free with bnd_statefile_free) gets the
 * file as it is; damage is reported through o->log and what parses is
 * returned; a missing dir or file gives no records. */
int bnd_state_list(const struct bnd_state_opts *o, struct bnd_state_file *out,
		   char *err, size_t errlen);

/* Union of the cpus held (active records) in f, leaving out records of
 * except_job (0: leave none out). */
void bnd_state_held(const struct bnd_state_file *f, uint32_t except_job, bnd_cpuset_t *out);

/* The record owner of an allocation (a->owner_pid, else this process) and
 * its start time; BND_EINVAL when it does not run. */
int bnd_state_owner_of(const struct bnd_alloc_args *a, pid_t *owner, unsigned long long *start,
		       char *err, size_t errlen);

/* state.c's occupancy rule for (a->job, a->step) on f: the cpus it must
 * not take (other jobs', its sibling steps', and the script's unless
 * a->inherit_job). And its placement rule, as bnd_state_allocate places (memory
 * included: the record's own reservation is not counted against it). */
void bnd_state_taken(const struct bnd_state_file *f, const struct bnd_alloc_args *a,
		     bnd_cpuset_t *taken);
int bnd_state_place(const struct bnd_topology *t, const struct bnd_state_file *f,
		    const struct bnd_request *r, const struct bnd_alloc_args *a,
		    struct bnd_placement *out, char *err, size_t errlen);

/* MiB reserved per NUMA index of t by the records that hold memory
 * (active and suspended: a suspended job's pages stay resident): per node,
 * each job's records there summed but capped at its largest record's total
 * (its steps share its memory), summed over the jobs; except_job (not 0) is
 * left out, as a step's own job never competes with it for memory. used
 * has t->nnuma entries. BND_OK or BND_ENOMEM. */
int bnd_state_mem_used(const struct bnd_topology *t, const struct bnd_state_file *f,
		       uint32_t except_job, uint64_t *used);

#endif
