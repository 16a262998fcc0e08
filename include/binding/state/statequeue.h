/* Deferred steps are served oldest first.
 *
 * A deferred record keeps what anyone needs to place it again (its request
 * text, groups=, need= and want=: statefile.h). Whoever places something
 * (a new step, a deferred one retrying, a resume) first serves, in memory,
 * the deferred records ahead of it that would fit now, in their order, and
 * what they would take counts as taken for it. So a core that frees goes
 * to the step that has waited longest for it, whichever process happens
 * to take the lock first, and the lock-free check of a waiting step
 * (transition.h) sees exactly what its transaction would.
 *
 * Ahead of a step: the deferred records deferred before it (since=, then
 * their order in the file); ahead of a step that is not deferred, all of them. Only
 * records whose want= meets the step's cpus count, and a record whose
 * want= has fewer free cpus than its need= is passed over without being
 * placed, so a node full of waiting steps costs others a scan of the
 * records, not a placement each. A record whose request text cannot be
 * parsed again (cut at 255 characters in the file) is passed over too: its
 * own retries still place it.
 */
#ifndef BINDING_STATE_STATEQUEUE_H
#define BINDING_STATE_STATEQUEUE_H

#include "binding/state/occupancy.h"
#include "binding/state/statefile.h"
#include "binding/topology/topology.h"

/* The cpus the deferred records ahead of a's step would take now (ahead,
 * filled). The records it reads are parsed whole on the way. BND_OK or
 * BND_ENOMEM. */
int bnd_state_queue_ahead(const struct bnd_topology *t, struct bnd_state_file *f,
			  const struct bnd_alloc_args *a, bnd_cpuset_t *ahead);

/* Might any deferred record fit now, by count (its want= has need= cpus
 * that nobody holds)? A scan of the records, no placement. */
int bnd_state_queue_may_fit(struct bnd_state_file *f);

/* The deferred records a change lets in: those that would be placed now,
 * in queue order, each served after the ones before it (what they would
 * take counts as taken for it), as their own transactions would place
 * them; a record whose request cannot be parsed again is listed too (its
 * own check decides). Without a topology (t NULL): those whose want= has
 * need= cpus free of what is held and of what the ones before claim. *out
 * (free it) gets *n of them, NULL for none. BND_OK or BND_ENOMEM. */
int bnd_state_queue_fits(const struct bnd_topology *t, struct bnd_state_file *f,
			 const struct bnd_state_record ***out, int *n);

#endif
