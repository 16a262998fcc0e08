#include "binding/state/statelock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/defaults.h"
#include "binding/util/fault.h"
#include "binding/util/safefile.h"

#define LOCK_MAGIC "spank-binding-lk"
#define LOCK_VERSION 1u
#define LOCK_FILE_SIZE 4096

/* The file's layout. mutex_size guards against a file made by a build with
 * another pthread ABI. */
struct lock_page {
	char magic[16];
	uint32_t version;
	uint32_t mutex_size;
	pthread_mutex_t mutex;
};

_Static_assert(sizeof(struct lock_page) <= LOCK_FILE_SIZE, "lock page fits the file");

static int open_rc(int e)
{
	return (e == ELOOP || e == EACCES || e == EPERM || e == EROFS) ? BND_ESTATE : BND_ESYS;
}

/* A creator killed before linking its lock in leaves `name`.init.<pid>
 * behind; a live creator's file is left alone, it is about to be linked. */
static void remove_dead_inits(int dirfd, const char *name)
{
	DIR *d = bnd_safedir_list(dirfd);
	if (!d)
		return;
	char prefix[64];
	int plen = snprintf(prefix, sizeof(prefix), "%s.init.", name);
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, prefix, (size_t)plen))
			continue;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (*end || pid <= 0 || (kill((pid_t)pid, 0) && errno == ESRCH))
			unlinkat(dirfd, e->d_name, 0);
	}
	closedir(d);
}

/* Initialises a lock file under a private name and links it in as `name`;
 * losing the race to another creator is fine. */
static int create_lock(int dirfd, const char *name, char *err, size_t errlen)
{
	char tmp[64];
	remove_dead_inits(dirfd, name);
	snprintf(tmp, sizeof(tmp), "%s.init.%d", name, (int)getpid());
	unlinkat(dirfd, tmp, 0);
	int fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return bnd_fail(err, errlen, open_rc(errno), "creating state lock file %s: %s", tmp,
				strerror(errno));
	int rc = BND_ESYS;
	void *map = MAP_FAILED;
	if (fchmod(fd, 0600) || ftruncate(fd, LOCK_FILE_SIZE))
		goto out;
	map = mmap(NULL, LOCK_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	struct lock_page *pg = map;
	pthread_mutexattr_t a;
	if (pthread_mutexattr_init(&a))
		goto out;
	int bad = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) ||
		  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) ||
		  pthread_mutex_init(&pg->mutex, &a);
	pthread_mutexattr_destroy(&a);
	if (bad) {
		errno = EINVAL;
		goto out;
	}
	memcpy(pg->magic, LOCK_MAGIC, sizeof(pg->magic));
	pg->version = LOCK_VERSION;
	pg->mutex_size = (uint32_t)sizeof(pthread_mutex_t);
	BND_FAULT("lock.init");
	if (linkat(dirfd, tmp, dirfd, name, 0) && errno != EEXIST)
		goto out;
	rc = BND_OK;
out:
	if (rc)
		bnd_fail(err, errlen, rc, "creating state lock file %s: %s", name, strerror(errno));
	if (map != MAP_FAILED)
		munmap(map, LOCK_FILE_SIZE);
	close(fd);
	unlinkat(dirfd, tmp, 0);
	return rc;
}

/* The lock page stays mapped between a thread's transactions: mapping and
 * unmapping it cost a fifth of a transaction (the unmap flushes the TLB).
 * The mapping is reused only for the inode still linked as the lock file;
 * while it is mapped that inode cannot be freed, so its number cannot name
 * another file. It is writable and root's: a child forked later (a task
 * that becomes the user's) must not inherit it, so it is MADV_DONTFORK, and
 * a child finds the pid changed and forgets it. Per thread, so no lock
 * guards it; a thread taking a second lock while holding the kept one (two
 * state dirs) maps that one privately. */
static _Thread_local struct {
	pid_t pid;
	dev_t dev;
	ino_t ino;
	void *map;
	int held;
} cache;

static void unmap_lock(struct bnd_statelock *lk)
{
	if (lk->cached)
		cache.held = 0;
	else
		munmap(lk->map, lk->len);
	lk->map = NULL;
	lk->cached = 0;
}

/* The kept mapping is still the file linked as `name`, and that file is
 * still trusted: one stat instead of open, fstat and close. Anything else
 * takes the full path, which also words the refusals. */
static int kept_mapping_current(int dirfd, const char *name)
{
	if (cache.map && cache.pid != getpid())
		memset(&cache, 0, sizeof(cache)); /* a forked child: not mapped here */
	struct stat st;
	char why[128];
	/* only who may open the file (0600, its owner) may use the mapping */
	return cache.map && !cache.held && !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	       cache.dev == st.st_dev && cache.ino == st.st_ino && st.st_uid == geteuid() &&
	       !bnd_safe_untrusted(&st, 0, why, sizeof(why)) && st.st_size == LOCK_FILE_SIZE;
}

static int map_lock(int dirfd, const char *name, struct bnd_statelock *lk, char *err,
		    size_t errlen)
{
	lk->len = LOCK_FILE_SIZE;
	if (kept_mapping_current(dirfd, name)) {
		lk->map = cache.map;
		lk->cached = cache.held = 1;
		return BND_OK;
	}
	int fd = -1;
	for (int tries = 0; fd < 0 && tries < 3; tries++) {
		fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 && errno == ENOENT) {
			int rc = create_lock(dirfd, name, err, errlen);
			if (rc)
				return rc;
		} else if (fd < 0) {
			int e = errno;
			return bnd_fail(err, errlen, open_rc(e), "state lock file %s: %s%s", name,
					e == ELOOP ? "is a symlink, refused" : strerror(e),
					e == EACCES ? " (changing the state takes root)" : "");
		}
	}
	if (fd < 0)
		return bnd_fail(err, errlen, BND_ESYS, "state lock file %s keeps vanishing", name);
	struct stat st;
	char why[128];
	if (fstat(fd, &st) || bnd_safe_untrusted(&st, 0, why, sizeof(why))) {
		close(fd);
		return bnd_fail(err, errlen, BND_ESTATE, "state lock file %s refused: %s", name, why);
	}
	if (st.st_size != LOCK_FILE_SIZE) {
		close(fd);
		return bnd_fail(err, errlen, BND_ESTATE,
				"state lock file %s refused: size %lld, not a lock file of ours",
				name, (long long)st.st_size);
	}
	void *map = mmap(NULL, LOCK_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	close(fd);
	if (map == MAP_FAILED)
		return bnd_fail(err, errlen, BND_ESYS, "mapping state lock file %s: %s", name,
				strerror(e));
	const struct lock_page *pg = map;
	if (memcmp(pg->magic, LOCK_MAGIC, sizeof(pg->magic)) || pg->version != LOCK_VERSION ||
	    pg->mutex_size != sizeof(pthread_mutex_t)) {
		munmap(map, LOCK_FILE_SIZE);
		return bnd_fail(err, errlen, BND_ESTATE,
				"state lock file %s refused: not a lock file of this version", name);
	}
	lk->map = map;
	lk->cached = !cache.held && !madvise(map, LOCK_FILE_SIZE, MADV_DONTFORK);
	if (lk->cached) {
		if (cache.map)
			munmap(cache.map, LOCK_FILE_SIZE);
		cache.pid = getpid();
		cache.map = map;
		cache.dev = st.st_dev;
		cache.ino = st.st_ino;
		cache.held = 1;
	}
	return BND_OK;
}

int bnd_statelock_acquire(int dirfd, const char *name, int timeout_ms,
			  struct bnd_statelock *lk, char *err, size_t errlen)
{
	lk->map = NULL;
	lk->len = 0;
	lk->recovered = 0;
	lk->cached = 0;
	lk->waited_ns = 0;
	int rc = map_lock(dirfd, name, lk, err, errlen);
	if (rc)
		return rc;
	if (timeout_ms <= 0)
		timeout_ms = BND_DEFAULT_LOCK_TIMEOUT_MS;
	struct timespec start, until, got;
	clock_gettime(CLOCK_MONOTONIC, &start);
	until = start;
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_t *m = &((struct lock_page *)lk->map)->mutex;
	int e = pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &until);
	if (e == EOWNERDEAD) {
		/* The holder died inside a transaction. Its half-written temp file
		 * is never read, and the state is whole: carry on. */
		e = pthread_mutex_consistent(m);
		lk->recovered = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &got);
	lk->waited_ns = (uint64_t)(got.tv_sec - start.tv_sec) * 1000000000u +
			(uint64_t)got.tv_nsec - (uint64_t)start.tv_nsec;
	if (!e)
		return BND_OK;
	unmap_lock(lk);
	if (e == ETIMEDOUT)
		return bnd_fail(err, errlen, BND_ETIMEOUT,
				"state lock file %s: still held by another process after %d ms",
				name, timeout_ms);
	return bnd_fail(err, errlen, e == ENOTRECOVERABLE ? BND_ESTATE : BND_ESYS,
			"taking state lock %s: %s", name, strerror(e));
}

void bnd_statelock_release(struct bnd_statelock *lk)
{
	if (!lk || !lk->map)
		return;
	pthread_mutex_unlock(&((struct lock_page *)lk->map)->mutex);
	unmap_lock(lk);
}
