/* The state's exclusive lock, with a timeout.
 *
 * A process-shared, robust pthread mutex living in a small lock file of the
 * state dir, mapped by every writer. Why not flock(): it cannot wait with a
 * timeout except by polling or by a signal (and signals inside slurmstepd
 * are not ours), and polling leaves the lock idle while waiters sleep: with
 * 32 writers that multiplied transaction latency by ten. The mutex hands
 * over at once, times out natively, and, being robust, is released by the
 * kernel when its holder dies (the next holder is told, and the state's
 * write-then-rename protocol means nothing needs repair).
 *
 * The lock file is separate from the state file because the state is
 * replaced by rename at every change. It is created complete (initialised
 * under a temporary name, then linked into place), 0600, so only root (the
 * owner) can take it.
 */
#ifndef BINDING_STATELOCK_H
#define BINDING_STATELOCK_H

#include <stddef.h>
#include <stdint.h>

#define BND_STATE_LOCK_NAME "lock"

struct bnd_statelock {
	void *map;     /* NULL when not held */
	size_t len;
	int recovered; /* the previous holder died holding the lock */
	int cached;    /* map is this thread's kept mapping, not unmapped on release */
	uint64_t waited_ns; /* how long acquire waited for the mutex (also when
	                       it timed out: the counters' histogram) */
};

/* Opens (creating when absent) the lock file `name` in directory dirfd and
 * takes the lock, waiting at most timeout_ms (<= 0: the default).
 * BND_ETIMEOUT when another process held it all along; BND_ESTATE when the
 * lock file is refused (symlink, owner, mode, not a lock file of ours, no
 * permission); BND_ESYS otherwise. */
int bnd_statelock_acquire(int dirfd, const char *name, int timeout_ms,
			  struct bnd_statelock *lk, char *err, size_t errlen);

/* Releases a held lock; harmless on one that is not held. The thread keeps
 * the lock page mapped for its next acquire of the same lock file. */
void bnd_statelock_release(struct bnd_statelock *lk);

#endif
