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
#include "binding/state/occupancy.h"
#include "binding/state/statefile.h"
#include "binding/state/statetxn.h"
#include "binding/util/error.h"
#include "binding/topology/topology.h"

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

/* Why the allocator could not place a request, from what it saw under the
 * lock (a->nofit as bnd_state_allocate fills it) within the step's
 * allowed cpus (NULL: the node): the counters' reason. */
enum bnd_refusal bnd_state_refusal_of(const struct bnd_nofit *n, const bnd_cpuset_t *allowed);

/* A step whose request was refused, as the step decided (counters.h). */
struct bnd_state_refusal {
	const struct bnd_alloc_args *a; /* job, step, uid, owner (near unused) */
	const char *request;            /* the request's text, cut for req= */
	enum bnd_refusal reason;
	enum bnd_fallback fallback;     /* unbound or failed */
	const char *why;                /* one word for why= (bnd_state_why_clean) */
};

/* Records the step as unbound (status unbound: it holds no cpus and no
 * memory; replacing a record of the same job and step), with since=,
 * why= and the event in its history, and counts the refusal and the
 * fallback, in one transaction: for sbind status and the metrics. The
 * step's release drops it. */
int bnd_state_refuse(const struct bnd_state_opts *o, const struct bnd_state_refusal *rf,
		     char *err, size_t errlen);

/* In a transaction that places r for a (allocate, resume): counts the
 * placement by strategy, and whether it crosses NUMA nodes, keeps a task
 * away from its GPUs, or only prefers nlocal's memory (m may be NULL). */
void bnd_state_count_placement(struct bnd_state_txn *tx, const struct bnd_topology *t,
			       const struct bnd_request *r, const struct bnd_alloc_args *a,
			       const struct bnd_placement *p, const struct bnd_mem_result *m);

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
/* The same, parsed as a transaction parses (bnd_statefile_load: records'
 * heads, the rest on demand), for checks that must cost little. */
int bnd_state_snapshot(const struct bnd_state_opts *o, struct bnd_state_file *out,
		       char *err, size_t errlen);

/* The placement bnd_state_allocate would make for (r, a) now, by the same
 * rules, without the lock and without recording anything (sbind place's
 * dry run): against the records of o's state read as bnd_state_list reads
 * them, or, o NULL, against a state without records (a node nobody uses),
 * built in memory. Returns as bnd_state_place does. */
int bnd_state_preview(const struct bnd_state_opts *o, const struct bnd_topology *t,
		      const struct bnd_request *r, const struct bnd_alloc_args *a,
		      struct bnd_placement *out, char *err, size_t errlen);

/* Does a's placement read the records' memory (a memory request, or
 * nlocal's choice of the node with the most free)? */
int bnd_state_asks_memory(const struct bnd_alloc_args *a);

/* The one record constructor: (a->job, a->step) owned by owner, active,
 * holding p (NULL: nothing yet) and the memory m reserves (NULL: none).
 * BND_OK or BND_ENOMEM (free with bnd_state_record_free). */
int bnd_state_record_make(struct bnd_state_record *rec, const struct bnd_request *r,
			  const struct bnd_alloc_args *a, pid_t owner, unsigned long long start,
			  const struct bnd_placement *p, const struct bnd_mem_result *m);
/* The record's cpus and tasks from placement p. BND_OK or BND_ENOMEM
 * (the record unchanged). */
int bnd_state_record_place(struct bnd_state_record *rec, const struct bnd_placement *p);

/* The allocator's placement of r for a on a transaction's file, as
 * bnd_state_allocate places (memory included: the record's own job is not
 * counted against it; deferred steps ahead of it served first,
 * statequeue.h). For the suspend/resume transitions (transition.c). */
int bnd_state_place(const struct bnd_topology *t, struct bnd_state_file *f,
		    const struct bnd_request *r, const struct bnd_alloc_args *a,
		    struct bnd_placement *out, char *err, size_t errlen);

#endif
