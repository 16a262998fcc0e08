#include "binding/task/rankfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/safefile.h"

/* Whatever already has the name was not written for this step (the name
 * is unique per job, step and node): a symlink, a hard link to another
 * file or a file someone else owns is never opened, only its name
 * removed, and the note says what it was. */
static int clear_name(int dfd, const char *dir, const char *name, char *note, size_t notelen,
		      char *err, size_t errlen)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return BND_OK;
	bnd_fail(note, notelen, BND_OK, "%s/%s was already there (%s, owner %u, mode %04o, "
		 "%u links), not written for this step: removed, never opened", dir, name,
		 S_ISLNK(st.st_mode) ? "a symlink" : S_ISREG(st.st_mode) ? "a file" : "not a file",
		 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)st.st_nlink);
	if (unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) && errno != ENOENT)
		return bnd_fail(err, errlen, BND_ESTATE, "rankfile %s/%s: cannot remove what is "
				"there: %s", dir, name, strerror(errno));
	return BND_OK;
}

int bnd_rankfile_write(const char *dir, uint32_t job, const char *step_name, uint32_t nodeid,
		       uint32_t uid, const char *text, char *path, size_t pathlen, char *note,
		       size_t notelen, char *err, size_t errlen)
{
	if (note && notelen)
		note[0] = '\0';
	char name[BND_SAFEFILE_NAME_MAX + 1];
	int dfd = -1;
	path[0] = '\0';
	int n = snprintf(name, sizeof(name), BND_RANKFILE_PREFIX "%u.%s.%u", job, step_name,
			 nodeid);
	if (n < 0 || (size_t)n >= sizeof(name))
		return bnd_fail(err, errlen, BND_EINVAL, "rankfile name too long");
	int rc = bnd_safedir_open(dir, 0, &dfd, err, errlen);
	if (rc == BND_OK && dfd < 0)
		rc = bnd_fail(err, errlen, BND_ESTATE, "state dir %s is missing", dir);
	if (rc == BND_OK)
		rc = clear_name(dfd, dir, name, note, notelen, err, errlen);
	/* in a private dir only the job's user reads it (safefile.h) */
	int priv = rc == BND_OK && bnd_safedir_private(dfd);
	if (rc == BND_OK)
		rc = bnd_safefile_replace_as(dfd, name, text, strlen(text), priv ? 0600 : 0644,
					     priv ? (uid_t)uid : (uid_t)-1, err, errlen);
	if (dfd >= 0)
		close(dfd);
	if (rc != BND_OK)
		return rc;
	n = snprintf(path, pathlen, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= pathlen) {
		path[0] = '\0';
		return bnd_fail(err, errlen, BND_EINVAL, "rankfile path too long");
	}
	return BND_OK;
}

void bnd_rankfile_remove(const char *path)
{
	if (path && *path)
		unlink(path);
}

