/* Gang scheduling and suspend: a step's record moves between
 *
 *        allocate            suspend                 resume (fits)
 *   ---> active  ----------> suspended ------------> active
 *          ^                    |                      ^
 *          |                    | resume (held)        | retry (fits)
 *          |                    v                      |
 *          +--- retry (fits) deferred -----------------+
 *
 * suspended and deferred records hold no cpus (others may take them) but
 * keep their memory reservation, with since= and why= saying when and why.
 * Each call is one transaction of the node's state (state.h), so a job
 * that resumes and one that suspends at the same moment never both hold a
 * cpu.
 */
#ifndef BINDING_STATE_TRANSITION_H
#define BINDING_STATE_TRANSITION_H

#include <stddef.h>
#include <stdint.h>

#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/state/history.h"
#include "binding/state/state.h"
#include "binding/topology/topology.h"

/* Slurm suspended the step: its record becomes suspended and holds no
 * cpus; since= is now, why= the one-word reason (bnd_state_why_clean).
 * Already suspended: nothing changes. BND_EINVAL: no such record. */
int bnd_state_suspend(const struct bnd_state_opts *o, uint32_t job, uint32_t step,
		      const char *why, char *err, size_t errlen);

enum bnd_resume_result {
	BND_RESUME_SAME = 0,  /* active again on the previous cpus */
	BND_RESUME_MOVED,     /* active on another placement of the request */
	BND_RESUME_ALREADY,   /* the record was active: nothing changed */
	BND_RESUME_DEFERRED,  /* others hold the cpus: recorded as deferred */
	BND_RESUME_NEVER,     /* could not fit even on an idle node: no change */
	BND_RESUME_CAPPED,    /* a new step's user has defer_max deferred steps
	                         here already: not recorded */
};

struct bnd_resume_args {
	const struct bnd_alloc_args *a;   /* as for bnd_state_allocate */
	const struct bnd_placement *prev; /* the step's last placement, or NULL */
	/* Only prev, else deferred: for tasks whose memory policy names the
	 * NUMA nodes of prev (it cannot be changed from outside). */
	int prev_only;
	/* A step with no record yet is deferred only while its user (a->uid)
	 * has fewer deferred records than this here (0: no limit). Steps
	 * that held cpus before (a gang resume) are never refused. */
	int defer_max;
	/* A step with no record yet that is deferred counts as refused for
	 * this reason, with the fallback deferred (counters.h); one that is
	 * placed counts as a placement. */
	enum bnd_refusal reason;
};

/* A suspended or deferred step (or a new one: no record yet) asks for its
 * cpus back, in one transaction: prev when none of its cpus is taken
 * (state.c's occupancy rule), else a fresh placement of r inside
 * a->allowed, else the record becomes deferred (created if missing), its
 * why= naming the jobs that hold the cpus. *res says which.
 * BND_OK: SAME or MOVED (out holds the placement, free with
 * bnd_placement_free) or ALREADY (out empty). BND_ENOFIT: DEFERRED or
 * NEVER, err says why. Others as bnd_state_allocate. */
int bnd_state_resume(const struct bnd_state_opts *o, const struct bnd_topology *t,
		     const struct bnd_request *r, const struct bnd_resume_args *ra,
		     struct bnd_placement *out, enum bnd_resume_result *res,
		     char *err, size_t errlen);

/* Would bnd_state_resume place the step now? Asked without the lock and
 * without writing: a deferred step's watcher asks at every change of the
 * state and takes the lock only on a yes, so steps that cannot fit cost
 * the node's lock nothing (the same placement function, on the same
 * state: the two cannot disagree but for a change in between, which the
 * change's own wake-up answers). 1 also when a holder of the step's cpus
 * has a dead owner (the transaction reclaims it), when the record is
 * already active, and on any error (the transaction decides); 0: not now. */
int bnd_state_resume_may_fit(const struct bnd_state_opts *o, const struct bnd_topology *t,
			     const struct bnd_request *r, const struct bnd_resume_args *ra);

#endif
