#include "binding/util/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/acl.h>

#include "binding/util/defaults.h"
#include "binding/util/error.h"
#include "binding/util/spare.h"

int bnd_safe_untrusted(const struct stat *st, int want_dir, char *why, size_t whylen)
{
	uid_t me = geteuid();
	const char *bad = NULL;
	if (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		bad = want_dir ? "not a directory" : "not a regular file";
	else if (me == 0 ? st->st_uid != 0 : (st->st_uid != 0 && st->st_uid != me))
		bad = me == 0 ? "not owned by root" : "owned by neither root nor us";
	else if (st->st_mode & 022)
		bad = "writable by group or others";
	if (!bad)
		return 0;
	snprintf(why, whylen, "%s", bad);
	return -1;
}

/* A directory the walk may pass through on its way to the state dir: one
 * that nobody but root (or us, when we are not root) can change. Others may
 * write in a root-owned sticky dir such as /tmp, but not rename, remove or
 * replace root's entries there, so root's path through it holds. */
static const char *untrusted_parent(const struct stat *st)
{
	uid_t me = geteuid();
	if (!S_ISDIR(st->st_mode))
		return "not a directory";
	if (st->st_uid != 0 && (me == 0 || st->st_uid != me))
		return me == 0 ? "not owned by root" : "owned by neither root nor us";
	if ((st->st_mode & 022) && !(st->st_uid == 0 && (st->st_mode & S_ISVTX)))
		return "writable by group or others (and not a root-owned sticky dir)";
	return NULL;
}

/* The walk from / to the state dir: the dir reached so far (fd, and its
 * path for messages) and what is left to walk, into which the target of a
 * trusted symlink is spliced. */
struct walk {
	const char *dir; /* as configured, for messages */
	int fd;
	char at[PATH_MAX];
	char rest[2 * PATH_MAX];
	int links;
};

static int walk_fail(struct walk *w, int rc)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	return rc;
}

/* Moves into the directory fd just opened as component name. */
static int walk_enter(struct walk *w, int fd, const char *name, int last, int created,
		      char *err, size_t errlen)
{
	struct stat st;
	char why[128];
	size_t n = strlen(w->at);
	snprintf(w->at + n, sizeof(w->at) - n, "%s%s", n > 1 ? "/" : "", name);
	/* new components are 0755 whatever the umask, root:root as root */
	if (created && (fchmod(fd, BND_SAFEDIR_MODE) || (geteuid() == 0 && fchown(fd, 0, 0)))) {
		int e = errno;
		close(fd);
		return walk_fail(w, bnd_fail(err, errlen, BND_ESYS, "state dir %s: %s: %s", w->dir,
					     w->at, strerror(e)));
	}
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return walk_fail(w, bnd_fail(err, errlen, BND_ESYS, "state dir %s: %s", w->dir,
					     strerror(e)));
	}
	const char *bad = NULL;
	if (last && bnd_safe_untrusted(&st, 1, why, sizeof(why)))
		bad = why;
	else if (!last)
		bad = untrusted_parent(&st);
	close(w->fd);
	w->fd = fd;
	if (!bad)
		return BND_OK;
	if (last)
		bnd_fail(err, errlen, BND_ESTATE, "state dir %s refused: %s", w->dir, bad);
	else
		bnd_fail(err, errlen, BND_ESTATE, "state dir %s refused: component %s: %s", w->dir,
			 w->at, bad);
	return walk_fail(w, BND_ESTATE);
}

/* Component name of the current dir is a symlink: followed only when it
 * could not have been planted (root's, or ours when we are not root; the
 * dir holding it is trusted already) and is not the state dir itself. */
static int walk_link(struct walk *w, const char *name, const char *after, int last,
		     char *err, size_t errlen)
{
	struct stat st;
	char target[PATH_MAX];
	uid_t me = geteuid();
	if (last)
		return walk_fail(w, bnd_fail(err, errlen, BND_ESTATE, "state dir %s is a symlink, refused",
					     w->dir));
	if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISLNK(st.st_mode))
		return walk_fail(w, bnd_fail(err, errlen, BND_ESTATE, "state dir %s: %s/%s is not a directory",
					     w->dir, w->at, name));
	if ((st.st_uid != 0 && (me == 0 || st.st_uid != me)) || ++w->links > 40)
		return walk_fail(w, bnd_fail(err, errlen, BND_ESTATE,
					     "state dir %s refused: component %s%s%s: %s", w->dir, w->at,
					     strlen(w->at) > 1 ? "/" : "", name,
					     w->links > 40 ? "too many symlinks"
							   : "a symlink not owned by root"));
	ssize_t n = readlinkat(w->fd, name, target, sizeof(target));
	if (n <= 0 || n == (ssize_t)sizeof(target))
		return walk_fail(w, bnd_fail(err, errlen, BND_ESYS, "state dir %s: reading link %s: %s",
					     w->dir, name, n < 0 ? strerror(errno) : "empty or too long"));
	/* after lies in w->rest: the target goes in front of it */
	size_t al = strlen(after);
	if ((size_t)n + 1 + al + 1 > sizeof(w->rest))
		return walk_fail(w, bnd_fail(err, errlen, BND_EINVAL, "state dir %s: path too long",
					     w->dir));
	memmove(w->rest + n + 1, after, al + 1);
	memcpy(w->rest, target, (size_t)n);
	w->rest[n] = '/';
	if (target[0] == '/') {
		int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return walk_fail(w, bnd_fail(err, errlen, BND_ESYS, "opening /: %s", strerror(errno)));
		close(w->fd);
		w->fd = fd;
		snprintf(w->at, sizeof(w->at), "/");
	}
	return BND_OK;
}

/* 1 when s names no further component ("", slashes and "." only). */
static int walk_ends(const char *s)
{
	for (; *s; s++)
		if (*s != '/' && !(*s == '.' && (s[1] == '/' || !s[1])))
			return 0;
	return 1;
}

/* One component of w->rest: into it, making it first when create is set;
 * *missing when it is absent and not to be made. */
static int walk_step(struct walk *w, int create, int *missing, char *err, size_t errlen)
{
	const char *p = w->rest + strspn(w->rest, "/");
	size_t len = strcspn(p, "/");
	char name[NAME_MAX + 1];
	if (len > NAME_MAX)
		return walk_fail(w, bnd_fail(err, errlen, BND_EINVAL, "state dir %s: name too long", w->dir));
	memcpy(name, p, len);
	name[len] = '\0';
	const char *after = p + len + strspn(p + len, "/");
	int last = walk_ends(after), created = 0;
	if (!strcmp(name, ".")) {
		memmove(w->rest, after, strlen(after) + 1);
		return BND_OK;
	}
	int fd = openat(w->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (!mkdirat(w->fd, name, BND_SAFEDIR_MODE))
			created = 1;
		if (created || errno == EEXIST)
			fd = openat(w->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT && !create) {
			*missing = 1;
			return BND_OK;
		}
		if (e == ELOOP || e == ENOTDIR)
			return walk_link(w, name, after, last, err, errlen);
		return walk_fail(w, bnd_fail(err, errlen, e == EACCES ? BND_ESTATE : BND_ESYS,
					     "%s state dir %s: %s%s%s: %s", create ? "creating" : "opening",
					     w->dir, w->at, strlen(w->at) > 1 ? "/" : "", name, strerror(e)));
	}
	memmove(w->rest, after, strlen(after) + 1);
	return walk_enter(w, fd, name, last, created, err, errlen);
}

/* The last state dir this process walked to, kept open: a transaction
 * then costs a stat of the path (does it still lead to the dir walked
 * to?), a dup and an fstat, as the open by path did, instead of a walk of
 * about three calls per component (20 us per transaction on these VMs).
 * The walk proved every component root's, so only root can make the path
 * lead elsewhere, and then the stat sees another dir and the walk runs
 * again; the dir's own owner and mode are checked every time. */
static struct {
	pthread_mutex_t mu;
	char path[PATH_MAX];
	uid_t euid;
	int fd;
	dev_t dev;
	ino_t ino;
} walked = { .mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static int walked_dup(const char *dir)
{
	struct stat at_path, st;
	int fd = -1, same;
	if (dir[0] != '/' || stat(dir, &at_path))
		return -1;
	pthread_mutex_lock(&walked.mu);
	same = walked.fd >= 0 && walked.euid == geteuid() && !strcmp(walked.path, dir) &&
	       walked.dev == at_path.st_dev && walked.ino == at_path.st_ino;
	int kept = walked.fd;
	pthread_mutex_unlock(&walked.mu);
	if (same)
		fd = fcntl(kept, F_DUPFD_CLOEXEC, 0);
	/* another thread may have replaced (closed) it meanwhile: the copy
	 * must still be the dir the path leads to, and still root's */
	char why[128];
	if (fd >= 0 && (fstat(fd, &st) || st.st_dev != at_path.st_dev || st.st_ino != at_path.st_ino ||
			!st.st_nlink || bnd_safe_untrusted(&st, 1, why, sizeof(why)))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void walked_keep(const char *dir, int fd)
{
	struct stat st;
	if (dir[0] != '/' || strlen(dir) >= sizeof(walked.path) || fstat(fd, &st))
		return;
	int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (mine < 0)
		return;
	pthread_mutex_lock(&walked.mu);
	int old = walked.fd;
	walked.fd = mine;
	snprintf(walked.path, sizeof(walked.path), "%s", dir);
	walked.euid = geteuid();
	walked.dev = st.st_dev;
	walked.ino = st.st_ino;
	pthread_mutex_unlock(&walked.mu);
	if (old >= 0)
		close(old);
}

int bnd_safedir_open(const char *dir, int create, int *dirfd, char *err, size_t errlen)
{
	struct walk w = { .fd = -1, .at = "/" };
	char cwd[PATH_MAX] = "";
	w.dir = dir && *dir ? dir : BND_DEFAULT_STATE_DIR;
	if ((*dirfd = walked_dup(w.dir)) >= 0)
		return BND_OK;
	/* a relative path (sbind --state) is walked from / too */
	if (w.dir[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return bnd_fail(err, errlen, BND_ESYS, "state dir %s: %s", w.dir, strerror(errno));
	if (snprintf(w.rest, sizeof(w.rest), "%s/%s", cwd, w.dir) >= (int)sizeof(w.rest))
		return bnd_fail(err, errlen, BND_EINVAL, "state dir %s: path too long", w.dir);
	struct stat st;
	const char *bad = NULL;
	w.fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.fd < 0 || fstat(w.fd, &st))
		return walk_fail(&w, bnd_fail(err, errlen, BND_ESYS, "opening /: %s", strerror(errno)));
	if ((bad = untrusted_parent(&st)))
		return walk_fail(&w, bnd_fail(err, errlen, BND_ESTATE, "state dir %s refused: component /: %s",
					      w.dir, bad));
	int missing = 0, rc = BND_OK;
	while (rc == BND_OK && !missing && !walk_ends(w.rest))
		rc = walk_step(&w, create, &missing, err, errlen);
	if (rc != BND_OK)
		return rc;
	if (missing || !strcmp(w.at, "/"))
		return walk_fail(&w, missing ? BND_OK
					     : bnd_fail(err, errlen, BND_ESTATE, "state dir %s refused: /", w.dir));
	walked_keep(w.dir, w.fd);
	*dirfd = w.fd;
	return BND_OK;
}

int bnd_safedir_private(int dirfd)
{
	struct stat st;
	return !fstat(dirfd, &st) && !(st.st_mode & S_IROTH);
}

int bnd_safedir_set_private(int dirfd, int private_files, char *err, size_t errlen)
{
	struct stat st;
	if (geteuid() != 0)
		return BND_OK;
	if (fstat(dirfd, &st))
		return bnd_fail(err, errlen, BND_ESYS, "state dir: %s", strerror(errno));
	mode_t now = st.st_mode & 07777, want = now;
	if (private_files)
		want = now & ~(mode_t)(S_IRGRP | S_IROTH);
	else if (now == BND_SAFEDIR_PRIVATE_MODE)
		want = BND_SAFEDIR_MODE; /* undoes only what the setting did */
	if (want != now && fchmod(dirfd, want))
		return bnd_fail(err, errlen, BND_ESYS, "state dir: chmod %04o: %s", (unsigned)want,
				strerror(errno));
	return BND_OK;
}

DIR *bnd_safedir_list(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

/* Opens name without following a link and checks it is the trusted file
 * it should be: *fd >= 0 on BND_OK, -1 when it does not exist. */
static int open_trusted(int dirfd, const char *name, const char *label, size_t maxlen, int *fd,
			struct stat *st, char *err, size_t errlen)
{
	*fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (*fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return BND_OK;
		return bnd_fail(err, errlen, (e == ELOOP || e == EACCES) ? BND_ESTATE : BND_ESYS,
				"%s: %s", label, e == ELOOP ? "is a symlink, refused" : strerror(e));
	}
	char why[128];
	int rc = BND_OK;
	if (fstat(*fd, st))
		rc = bnd_fail(err, errlen, BND_ESYS, "%s: %s", label, strerror(errno));
	else if (bnd_safe_untrusted(st, 0, why, sizeof(why)))
		rc = bnd_fail(err, errlen, BND_ESTATE, "%s refused: %s", label, why);
	else if (maxlen && (size_t)st->st_size > maxlen)
		rc = bnd_fail(err, errlen, BND_ESTATE, "%s: oversized (%lld bytes, at most %zu)",
			      label, (long long)st->st_size, maxlen);
	if (rc != BND_OK) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

/* Reads fd to its end into a spare block (the state is read every
 * transaction: spare.h). The size is a hint: the file may be replaced (a
 * new inode) but never rewritten in place, so reading to EOF gives one
 * whole version, and its size at fstat is its end (no second read to see
 * EOF, nor a buffer twice the size for it). */
static int read_whole(int fd, const struct stat *st, const char *label, size_t maxlen,
		      char **text, size_t *len, char *err, size_t errlen)
{
	size_t cap = (size_t)st->st_size + 1, got = 0;
	char *buf = bnd_spare_alloc(BND_SPARE_READ, cap, &cap);
	for (;;) {
		if (!buf)
			return bnd_fail(err, errlen, BND_ENOMEM, "reading the %s: out of memory", label);
		if (got + 1 == cap) {
			if (maxlen && got >= maxlen) {
				free(buf);
				return bnd_fail(err, errlen, BND_ESTATE, "%s: oversized (more than %zu bytes)",
						label, maxlen);
			}
			cap *= 2;
			char *nb = realloc(buf, cap);
			if (!nb)
				free(buf);
			buf = nb;
			continue;
		}
		ssize_t n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return bnd_fail(err, errlen, BND_ESYS, "reading the %s: %s", label, strerror(e));
		}
		got += (size_t)n;
		if (n == 0 || (got == (size_t)st->st_size && st->st_size > 0))
			break;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return BND_OK;
}

int bnd_safefile_read(int dirfd, const char *name, const char *label, size_t maxlen,
		      char **text, size_t *len, char *err, size_t errlen)
{
	*text = NULL;
	*len = 0;
	int fd;
	struct stat st;
	int rc = open_trusted(dirfd, name, label, maxlen, &fd, &st, err, errlen);
	if (rc != BND_OK || fd < 0)
		return rc;
	rc = read_whole(fd, &st, label, maxlen, text, len, err, errlen);
	close(fd);
	return rc;
}

int bnd_safefile_replace(int dirfd, const char *name, const char *text, size_t len,
			 char *err, size_t errlen)
{
	return bnd_safefile_replace_for(dirfd, name, text, len, 0644, (uid_t)-1, err, errlen);
}

/* The owner's mode bits, and read for reader alone (an ACL entry, the mask
 * r--): no group, no others. 0 or an errno. */
static int grant_read(int fd, mode_t mode, uid_t reader)
{
	char text[96];
	snprintf(text, sizeof(text), "u::%c%c-,u:%u:r--,g::---,m::r--,o::---",
		 mode & 0400 ? 'r' : '-', mode & 0200 ? 'w' : '-', (unsigned)reader);
	acl_t acl = acl_from_text(text);
	if (!acl)
		return errno ? errno : EINVAL;
	int rc = acl_set_fd(fd, acl) ? errno : 0;
	acl_free(acl);
	return rc;
}

static int write_all(int fd, const char *text, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		done += (size_t)n;
	}
	return 0;
}

int bnd_safefile_replace_for(int dirfd, const char *name, const char *text, size_t len,
			     mode_t mode, uid_t reader, char *err, size_t errlen)
{
	char tmp[BND_SAFEFILE_NAME_MAX + 32];
	if (snprintf(tmp, sizeof(tmp), "%s.new.%ld", name, (long)getpid()) >= (int)sizeof(tmp))
		return bnd_fail(err, errlen, BND_EINVAL, "%s: name too long", name);
	/* A temp file left by a writer that died goes first; O_EXCL then never
	 * follows anything planted under its name. */
	if (unlinkat(dirfd, tmp, 0) && errno != ENOENT)
		return bnd_fail(err, errlen, BND_ESYS, "removing %s: %s", tmp, strerror(errno));
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			mode);
	if (fd < 0)
		return bnd_fail(err, errlen, errno == EACCES ? BND_ESTATE : BND_ESYS,
				"creating %s: %s", tmp, strerror(errno));
	int rc = fchmod(fd, mode) ? errno : 0;
	/* The reader's right comes with the file, through its fd, before it
	 * takes its name; the file stays the writer's. */
	int acl_rc = !rc && reader != (uid_t)-1 ? grant_read(fd, mode, reader) : 0;
	if (!rc && !acl_rc)
		rc = write_all(fd, text, len);
	if (close(fd) && !rc)
		rc = errno;
	/* rename replaces a link at name itself, never its target. */
	if (!rc && !acl_rc && renameat(dirfd, tmp, dirfd, name))
		rc = errno;
	if (rc || acl_rc) {
		unlinkat(dirfd, tmp, 0);
		if (acl_rc)
			return bnd_fail(err, errlen, BND_ESYS, "writing %s: cannot give uid %u read "
					"access (a POSIX ACL: %s; the state dir's file system must "
					"support ACLs for private_files=yes)", name, (unsigned)reader,
					strerror(acl_rc));
		return bnd_fail(err, errlen, BND_ESYS, "writing %s: %s", name, strerror(rc));
	}
	return BND_OK;
}
