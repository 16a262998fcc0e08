/* Waking the waiting steps a change lets in, and no others.
 *
 * A deferred step's watcher (suspend/watcher.c) waits on a doorbell of its
 * own in the state dir, wake.<job>.<step> (root's, 0600, empty), through
 * inotify: a close after a write open of that file. Every transaction that
 * writes the state works out, once its lock is released, which deferred
 * records would now be placed (statequeue.h: oldest first, each after the
 * ones before it) and rings their doorbells in that order. A change that
 * lets nobody in wakes nobody: 40 waiting steps once woke 40 threads at
 * every change of the node's state, each reading and placing the whole
 * state to find it still did not fit (issue 32's herd).
 *
 * A doorbell is made by its waiter before it checks the state, so a change
 * after the check always rings it; one a killed slurmstepd left behind is
 * removed by gc (a doorbell whose step has no deferred record).
 */
#ifndef BINDING_STATE_STATEWAKE_H
#define BINDING_STATE_STATEWAKE_H

#include <stddef.h>
#include <stdint.h>

#include "binding/state/statefile.h"
#include "binding/topology/topology.h"

#define BND_STATE_WAKE_PREFIX "wake."

/* "wake.<job>.<step>". BND_EINVAL when it does not fit. */
int bnd_state_wake_name(uint32_t job, uint32_t step, char *buf, size_t len);

/* The waiter: makes (anew: whatever had the name is removed) the doorbell
 * of (job, step) in the trusted state dir, and puts its path in path for
 * inotify_add_watch (IN_CLOSE_WRITE). BND_OK, or an error with err set
 * (the waiter then only retries on its own). */
int bnd_state_wake_make(const char *dir, uint32_t job, uint32_t step, char *path,
			size_t pathlen, char *err, size_t errlen);
/* The waiter, done waiting: removes its doorbell. */
void bnd_state_wake_remove(const char *dir, uint32_t job, uint32_t step);

/* After a transaction wrote f (the state now in place) into the dir open
 * at dirfd: rings the doorbells of the deferred records f lets in, in
 * queue order, placed with t (NULL: the dir's topology cache, else by
 * count: statequeue.h). Returns how many rang; nothing is an error. */
int bnd_state_wake_ring(int dirfd, struct bnd_state_file *f, const struct bnd_topology *t);

/* gc, under the lock: removes the doorbells of steps that have no deferred
 * record in f. Returns how many. */
int bnd_state_wake_sweep(int dirfd, const struct bnd_state_file *f);

#endif
