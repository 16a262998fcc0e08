#include "binding/state/statedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/fault.h"
#include "binding/util/safefile.h"

int bnd_statedir_read(int dirfd, char **text, size_t *len, char *err, size_t errlen)
{
	return bnd_safefile_read(dirfd, BND_STATE_FILE_NAME, "state file", 0, text, len, err,
				 errlen);
}

/* A new inode every transaction: a reader without the lock may still be
 * reading the inode that was the state a moment ago, so that inode is
 * never written again (it is unlinked once replaced). A temp file left by
 * a writer that died is removed first. */
static int open_temp(int dirfd, char *err, size_t errlen)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
	/* readable by all, or root's alone in a private dir (safefile.h) */
	const mode_t mode = bnd_safedir_private(dirfd) ? 0600 : 0644;
	/* Unlinked only when there (rarely): one syscall less per transaction. */
	int fd = openat(dirfd, BND_STATE_TEMP_NAME, flags, mode);
	if (fd < 0 && errno == EEXIST) {
		if (unlinkat(dirfd, BND_STATE_TEMP_NAME, 0) && errno != ENOENT)
			return bnd_fail(err, errlen, errno == EACCES ? BND_ESTATE : BND_ESYS,
					"removing %s: %s", BND_STATE_TEMP_NAME, strerror(errno));
		fd = openat(dirfd, BND_STATE_TEMP_NAME, flags, mode);
	}
	if (fd < 0)
		return bnd_fail(err, errlen, errno == EACCES ? BND_ESTATE : BND_ESYS,
				"creating %s: %s", BND_STATE_TEMP_NAME, strerror(errno));
	if (fchmod(fd, mode)) {
		int e = errno;
		close(fd);
		return bnd_fail(err, errlen, BND_ESYS, "%s: %s", BND_STATE_TEMP_NAME, strerror(e));
	}
	return fd;
}

int bnd_statedir_write_temp(int dirfd, const char *text, size_t len, char *err, size_t errlen)
{
	int fd = open_temp(dirfd, err, errlen);
	if (fd < 0)
		return fd;
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(fd, text + done, len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return bnd_fail(err, errlen, BND_ESYS, "writing %s: %s", BND_STATE_TEMP_NAME,
					strerror(e));
		}
		done += (size_t)n;
	}
	if (close(fd)) {
		int e = errno;
		return bnd_fail(err, errlen, BND_ESYS, "writing %s: %s", BND_STATE_TEMP_NAME,
				strerror(e));
	}
	return BND_OK;
}

int bnd_statedir_commit_temp(int dirfd, char *err, size_t errlen)
{
	/* Exchanging the names is as atomic for readers as renaming over the
	 * state, but a rename over an existing file makes ext4 (auto_da_alloc)
	 * start writing the new file back: ~1 ms per transaction on a disk,
	 * the cost that skipping fsync avoids. The old state, now under the
	 * temp name, is unlinked: readers that have it open keep a whole file.
	 * Plain rename when there is no state yet or the filesystem cannot
	 * exchange. */
	if (!renameat2(dirfd, BND_STATE_TEMP_NAME, dirfd, BND_STATE_FILE_NAME, RENAME_EXCHANGE)) {
		/* A writer that dies here leaves the old state as the temp file,
		 * which the next writer removes before making its own. */
		BND_FAULT("txn.exchanged");
		unlinkat(dirfd, BND_STATE_TEMP_NAME, 0);
		return BND_OK;
	}
	if (errno != ENOENT && errno != EINVAL && errno != ENOSYS)
		return bnd_fail(err, errlen, BND_ESYS, "replacing %s by %s: %s", BND_STATE_FILE_NAME,
				BND_STATE_TEMP_NAME, strerror(errno));
	if (renameat(dirfd, BND_STATE_TEMP_NAME, dirfd, BND_STATE_FILE_NAME))
		return bnd_fail(err, errlen, BND_ESYS, "renaming %s to %s: %s", BND_STATE_TEMP_NAME,
				BND_STATE_FILE_NAME, strerror(errno));
	BND_FAULT("txn.exchanged");
	return BND_OK;
}

/* The name the damaged state already has aside, if a writer kept it and
 * died before replacing it: the next one must not keep a second copy. */
static int kept_already(int dirfd, char *name, size_t namelen)
{
	struct stat st, k;
	if (fstatat(dirfd, BND_STATE_FILE_NAME, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	DIR *d = bnd_safedir_list(dirfd);
	if (!d)
		return 0;
	int found = 0;
	const struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (!strncmp(e->d_name, BND_STATE_CORRUPT_PREFIX, strlen(BND_STATE_CORRUPT_PREFIX)) &&
		    !fstatat(dirfd, e->d_name, &k, AT_SYMLINK_NOFOLLOW) && k.st_ino == st.st_ino &&
		    k.st_dev == st.st_dev) {
			snprintf(name, namelen, "%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

int bnd_statedir_keep_aside(int dirfd, char *name, size_t namelen, char *err, size_t errlen)
{
	if (kept_already(dirfd, name, namelen))
		return BND_OK;
	long long t = (long long)time(NULL);
	for (int k = 0; k < 1000; k++) {
		if (k)
			snprintf(name, namelen, BND_STATE_CORRUPT_PREFIX "%lld-%d", t, k);
		else
			snprintf(name, namelen, BND_STATE_CORRUPT_PREFIX "%lld", t);
		/* A hard link never replaces an existing name, and the state keeps
		 * its name until the repaired one is renamed over it. */
		if (!linkat(dirfd, BND_STATE_FILE_NAME, dirfd, name, 0))
			return BND_OK;
		if (errno != EEXIST)
			return bnd_fail(err, errlen, BND_ESYS, "keeping the damaged state as %s: %s",
					name, strerror(errno));
	}
	return bnd_fail(err, errlen, BND_ESYS, "keeping the damaged state: too many %s* files",
			BND_STATE_CORRUPT_PREFIX);
}
