/* The state's exclusive lock, with a timeout.
 *
 * A separate lock file (not the state file itself) is locked because the
 * state file is replaced by rename at every change: a lock on it would be
 * a lock on an inode that is about to disappear. flock() locks are released
 * by the kernel when the holder dies, so a killed process never leaves the
 * state locked.
 */
#ifndef BINDING_STATELOCK_H
#define BINDING_STATELOCK_H

#include <stddef.h>

#define BND_STATE_LOCK_NAME "lock"
#define BND_STATE_LOCK_TIMEOUT_MS 10000

/* Opens (creating, mode 0600) the lock file `name` in directory dirfd and
 * takes an exclusive lock, waiting at most timeout_ms (<= 0: the default).
 * On BND_OK *fd is the locked descriptor for bnd_statelock_release.
 * BND_ETIMEOUT when another process held it all along, BND_ESTATE when the
 * lock file is refused (symlink, wrong owner or mode, no permission). */
int bnd_statelock_acquire(int dirfd, const char *name, int timeout_ms, int *fd,
			  char *err, size_t errlen);

void bnd_statelock_release(int fd);

#endif
