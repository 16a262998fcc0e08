#include "binding/statelock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binding/error.h"
#include "binding/statedir.h"

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int bnd_statelock_acquire(int dirfd, const char *name, int timeout_ms, int *fd,
			  char *err, size_t errlen)
{
	int lfd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (lfd < 0) {
		int e = errno;
		int rc = (e == ELOOP || e == EACCES || e == EPERM || e == EROFS) ? BND_ESTATE : BND_ESYS;
		return bnd_fail(err, errlen, rc, "state lock file %s: %s", name,
				e == ELOOP ? "is a symlink, refused" : strerror(e));
	}
	struct stat st;
	char why[128];
	if (fstat(lfd, &st) || bnd_statedir_untrusted(&st, 0, why, sizeof(why))) {
		close(lfd);
		return bnd_fail(err, errlen, BND_ESTATE, "state lock file %s refused: %s", name, why);
	}
	if (timeout_ms <= 0)
		timeout_ms = BND_STATE_LOCK_TIMEOUT_MS;
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	/* flock() cannot wait with a timeout without a signal, and signals are
	 * not ours to use inside slurmstepd: poll, backing off from a few
	 * microseconds (transactions take tens) to at most a millisecond. */
	long wait_us = 5;
	for (;;) {
		if (!flock(lfd, LOCK_EX | LOCK_NB))
			break;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int e = errno;
			close(lfd);
			return bnd_fail(err, errlen, BND_ESYS, "locking state lock file %s: %s", name,
					strerror(e));
		}
		long long left = deadline - now_us();
		if (left <= 0) {
			close(lfd);
			return bnd_fail(err, errlen, BND_ETIMEOUT,
					"state lock file %s: still held by another process after %d ms",
					name, timeout_ms);
		}
		long us = wait_us < left ? wait_us : (long)left;
		struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
		nanosleep(&ts, NULL);
		if (wait_us < 1000)
			wait_us *= 2;
	}
	*fd = lfd;
	return BND_OK;
}

void bnd_statelock_release(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}
