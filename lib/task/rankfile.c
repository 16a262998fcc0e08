#include "binding/task/rankfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/defaults.h"
#include "binding/util/error.h"
#include "binding/util/safefile.h"
#include "binding/state/state.h"

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
	bnd_format(note, notelen, "%s/%s was already there (%s, owner %u, mode %04o, "
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
	/* in a private dir only the job's user reads it, and nobody but root
	 * writes it (safefile.h) */
	int priv = rc == BND_OK && bnd_safedir_private(dfd);
	if (rc == BND_OK)
		rc = bnd_safefile_replace_for(dfd, name, text, strlen(text), priv ? 0600 : 0644,
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

/* An unsigned decimal up to max at *p, moved past; -1 when there is none. */
static int decimal_at(const char **p, unsigned long max, unsigned long *out)
{
	char *end;
	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*out = strtoul(*p, &end, 10);
	if (errno || *out > max)
		return -1;
	*p = end;
	return 0;
}

/* rankfile.<job>.<step name>.<nodeid>, or the temporary file of a writer
 * (.new.<pid>, *writer its pid; else 0). -1: not a name bnd_rankfile_write
 * makes. */
static int parse_name(const char *name, uint32_t *job, uint32_t *step, long *writer)
{
	const char *p = name + strlen(BND_RANKFILE_PREFIX);
	unsigned long v;
	char sname[32];
	*writer = 0;
	if (strncmp(name, BND_RANKFILE_PREFIX, strlen(BND_RANKFILE_PREFIX)) ||
	    decimal_at(&p, UINT32_MAX, &v) || *p++ != '.')
		return -1;
	*job = (uint32_t)v;
	size_t n = strcspn(p, ".");
	if (!n || n >= sizeof(sname) || p[n] != '.')
		return -1;
	memcpy(sname, p, n);
	sname[n] = '\0';
	const char *q = sname;
	if (bnd_step_by_name(sname, step) != BND_OK) {
		if (decimal_at(&q, UINT32_MAX, &v) || *q)
			return -1;
		*step = (uint32_t)v;
	}
	p += n + 1;
	if (decimal_at(&p, UINT32_MAX, &v))
		return -1;
	if (!*p)
		return 0;
	if (strncmp(p, ".new.", 5))
		return -1;
	p += 5;
	if (decimal_at(&p, 0x7fffffffUL, &v) || *p || !v)
		return -1;
	*writer = (long)v;
	return 0;
}

static int has_record(const struct bnd_state_file *f, uint32_t job, uint32_t step)
{
	for (int i = 0; i < f->nrec; i++)
		if (f->rec[i].job == job && f->rec[i].step == step)
			return 1;
	return 0;
}

static int older(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* The records as of one version of the state, and that version's mtime:
 * the state is stat'ed before and after the unlocked read, and read again
 * when another transaction replaced it meanwhile. */
static int records_as_of(const struct bnd_state_opts *o, int dfd, struct bnd_state_file *f,
			 struct timespec *when, char *err, size_t errlen)
{
	for (int tries = 0; tries < 100; tries++) {
		struct stat a, b;
		if (fstatat(dfd, "state", &a, AT_SYMLINK_NOFOLLOW))
			return errno == ENOENT ? BND_ENOFIT
					       : bnd_fail(err, errlen, BND_ESYS, "state: %s", strerror(errno));
		int rc = bnd_state_list(o, f, err, errlen);
		if (rc != BND_OK)
			return rc;
		if (!fstatat(dfd, "state", &b, AT_SYMLINK_NOFOLLOW) && a.st_ino == b.st_ino &&
		    a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec) {
			*when = a.st_mtim;
			return BND_OK;
		}
		bnd_statefile_free(f);
	}
	return bnd_fail(err, errlen, BND_ESTATE, "the state changed at every read");
}

/* Removes name when its step is gone: see bnd_rankfile_gc. 1 when removed. */
static int sweep_one(const struct bnd_state_opts *o, int dfd, const char *dir, const char *name,
		     const struct bnd_state_file *f, const struct timespec *when)
{
	uint32_t job, step;
	long writer;
	struct stat st;
	if (parse_name(name, &job, &step, &writer) ||
	    (writer ? !(kill((pid_t)writer, 0) && errno == ESRCH) : has_record(f, job, step)) ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !older(&st.st_mtim, when) ||
	    unlinkat(dfd, name, 0))
		return 0;
	bnd_state_log(o, "removed %s/%s: %s", dir, name,
		      writer ? "its writer is gone" : "its step has no record");
	return 1;
}

int bnd_rankfile_gc(const struct bnd_state_opts *o, int *removed, char *err, size_t errlen)
{
	const char *dir = o->dir && *o->dir ? o->dir : BND_DEFAULT_STATE_DIR;
	struct bnd_state_file f;
	struct timespec when = { 0, 0 };
	int dfd = -1;
	*removed = 0;
	bnd_statefile_init(&f);
	int rc = bnd_safedir_open(dir, 0, &dfd, err, errlen);
	if (rc != BND_OK || dfd < 0)
		return rc;
	rc = records_as_of(o, dfd, &f, &when, err, errlen);
	DIR *d = rc == BND_OK ? bnd_safedir_list(dfd) : NULL;
	if (rc == BND_OK && !d)
		rc = bnd_fail(err, errlen, BND_ESYS, "listing %s: %s", dir, strerror(errno));
	const struct dirent *e;
	while (d && (e = readdir(d)))
		*removed += sweep_one(o, dfd, dir, e->d_name, &f, &when);
	if (d)
		closedir(d);
	bnd_statefile_free(&f);
	close(dfd);
	return rc == BND_ENOFIT ? BND_OK : rc; /* no state yet: nothing to go by */
}
