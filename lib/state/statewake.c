#include "binding/state/statewake.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/state/statequeue.h"
#include "binding/topology/topocache.h"
#include "binding/util/error.h"
#include "binding/util/fault.h"
#include "binding/util/safefile.h"

int bnd_state_wake_name(uint32_t job, uint32_t step, char *buf, size_t len)
{
	int n = snprintf(buf, len, BND_STATE_WAKE_PREFIX "%" PRIu32 ".%" PRIu32, job, step);
	return n < 0 || (size_t)n >= len ? BND_EINVAL : BND_OK;
}

int bnd_state_wake_make(const char *dir, uint32_t job, uint32_t step, char *path,
			size_t pathlen, char *err, size_t errlen)
{
	char name[64];
	int dfd = -1;
	bnd_state_wake_name(job, step, name, sizeof(name));
	int rc = bnd_safedir_open(dir, 0, &dfd, err, errlen);
	if (rc == BND_OK && dfd < 0)
		rc = bnd_fail(err, errlen, BND_ESTATE, "state dir %s is missing", dir);
	if (rc != BND_OK)
		return rc;
	/* Only root writes the dir: whatever has the name is an old doorbell. */
	unlinkat(dfd, name, 0);
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			0600);
	int e = errno;
	close(dfd);
	if (fd < 0)
		return bnd_fail(err, errlen, BND_ESYS, "doorbell %s/%s: %s", dir, name, strerror(e));
	close(fd);
	if (snprintf(path, pathlen, "%s/%s", dir, name) >= (int)pathlen)
		return bnd_fail(err, errlen, BND_EINVAL, "doorbell path too long");
	return BND_OK;
}

void bnd_state_wake_remove(const char *dir, uint32_t job, uint32_t step)
{
	char name[64];
	int dfd = -1;
	bnd_state_wake_name(job, step, name, sizeof(name));
	if (bnd_safedir_open(dir, 0, &dfd, NULL, 0) == BND_OK && dfd >= 0) {
		unlinkat(dfd, name, 0);
		close(dfd);
	}
}

/* A close after a write open is the waiter's IN_CLOSE_WRITE. A doorbell
 * nobody made (a step that waits no more) is not created. */
static int ring(int dirfd, const struct bnd_state_record *r)
{
	char name[64];
	struct stat st;
	bnd_state_wake_name(r->job, r->step, name, sizeof(name));
	int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	int ok = !fstat(fd, &st) && S_ISREG(st.st_mode);
	if (ok)
		BND_PROBE("state.wake", r);
	close(fd);
	return ok;
}

int bnd_state_wake_ring(int dirfd, struct bnd_state_file *f, const struct bnd_topology *t)
{
	int n = 0, rang = 0;
	/* the usual node (nobody waits), or a change that frees nothing a
	 * waiting step could use: no topology read, no placement */
	if (!bnd_state_queue_may_fit(f))
		return 0;
	struct bnd_topology *own = NULL;
	char err[BND_ERRLEN];
	if (!t && bnd_topocache_read_at(&own, dirfd, err, sizeof(err)) == BND_OK)
		t = own;
	const struct bnd_state_record **v = NULL;
	if (bnd_state_queue_fits(t, f, &v, &n) == BND_OK)
		for (int k = 0; k < n; k++)
			rang += ring(dirfd, v[k]);
	free(v);
	bnd_topology_free(own);
	return rang;
}

/* wake.<job>.<step> into its numbers; -1 for another name. */
static int parse_wake(const char *name, uint32_t *job, uint32_t *step)
{
	unsigned long j, s;
	char *end;
	const char *p = name + strlen(BND_STATE_WAKE_PREFIX);
	if (strncmp(name, BND_STATE_WAKE_PREFIX, strlen(BND_STATE_WAKE_PREFIX)) || *p < '0' ||
	    *p > '9')
		return -1;
	j = strtoul(p, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9' || j > UINT32_MAX)
		return -1;
	s = strtoul(end + 1, &end, 10);
	if (*end || s > UINT32_MAX)
		return -1;
	*job = (uint32_t)j;
	*step = (uint32_t)s;
	return 0;
}

int bnd_state_wake_sweep(int dirfd, const struct bnd_state_file *f)
{
	DIR *d = bnd_safedir_list(dirfd);
	const struct dirent *e;
	int removed = 0;
	while (d && (e = readdir(d))) {
		uint32_t job, step;
		if (parse_wake(e->d_name, &job, &step))
			continue;
		int i = bnd_statefile_find(f, job, step);
		if ((i < 0 || f->rec[i].status != BND_ST_DEFERRED) && !unlinkat(dirfd, e->d_name, 0))
			removed++;
	}
	if (d)
		closedir(d);
	return removed;
}
