#include "binding/util/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int refuse_path(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode))
		return bnd_fail(err, errlen, BND_ESTATE, "state dir %s is a symlink, refused", path);
	return 0;
}

/* mkdir -p, each new component 0755 whatever the umask, root:root as root. */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
	size_t n = strlen(dir);
	char *p = malloc(n + 1);
	if (!p)
		return bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		if (!mkdir(p, 0755)) {
			if (chmod(p, 0755) || (geteuid() == 0 && chown(p, 0, 0))) {
				int e = errno;
				free(p);
				return bnd_fail(err, errlen, BND_ESYS, "state dir %s: %s", dir, strerror(e));
			}
		} else if (errno != EEXIST) {
			int e = errno;
			bnd_fail(err, errlen, e == EACCES ? BND_ESTATE : BND_ESYS,
				 "creating state dir %s: %s", p, strerror(e));
			free(p);
			return e == EACCES ? BND_ESTATE : BND_ESYS;
		}
		p[i] = c;
	}
	free(p);
	return BND_OK;
}

int bnd_safedir_open(const char *dir, int create, int *dirfd, char *err, size_t errlen)
{
	*dirfd = -1;
	if (!dir || !*dir)
		dir = BND_DEFAULT_STATE_DIR;
	int rc = refuse_path(dir, err, errlen);
	if (rc)
		return rc;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (!create)
			return BND_OK;
		if ((rc = make_dirs(dir, err, errlen)))
			return rc;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP || e == ENOTDIR)
			return bnd_fail(err, errlen, BND_ESTATE, "state dir %s: %s, refused", dir,
					e == ELOOP ? "is a symlink" : "not a directory");
		return bnd_fail(err, errlen, e == EACCES ? BND_ESTATE : BND_ESYS,
				"state dir %s: %s", dir, strerror(e));
	}
	struct stat st;
	char why[128];
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return bnd_fail(err, errlen, BND_ESYS, "state dir %s: %s", dir, strerror(e));
	}
	if (bnd_safe_untrusted(&st, 1, why, sizeof(why))) {
		close(fd);
		return bnd_fail(err, errlen, BND_ESTATE, "state dir %s refused: %s", dir, why);
	}
	*dirfd = fd;
	return BND_OK;
}

int bnd_safefile_read(int dirfd, const char *name, const char *label, size_t maxlen,
		      char **text, size_t *len, char *err, size_t errlen)
{
	*text = NULL;
	*len = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return BND_OK;
		return bnd_fail(err, errlen, (e == ELOOP || e == EACCES) ? BND_ESTATE : BND_ESYS,
				"%s: %s", label, e == ELOOP ? "is a symlink, refused" : strerror(e));
	}
	struct stat st;
	char why[128];
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return bnd_fail(err, errlen, BND_ESYS, "%s: %s", label, strerror(e));
	}
	if (bnd_safe_untrusted(&st, 0, why, sizeof(why))) {
		close(fd);
		return bnd_fail(err, errlen, BND_ESTATE, "%s refused: %s", label, why);
	}
	if (maxlen && (size_t)st.st_size > maxlen) {
		close(fd);
		return bnd_fail(err, errlen, BND_ESTATE, "%s: oversized (%lld bytes, at most %zu)",
				label, (long long)st.st_size, maxlen);
	}
	/* The size is a hint: the file may be replaced (a new inode) but never
	 * rewritten in place, so reading to EOF gives one whole version. */
	size_t cap = (size_t)st.st_size + 1, got = 0;
	/* A spare block: the state is read every transaction (spare.h). */
	char *buf = bnd_spare_alloc(BND_SPARE_READ, cap, &cap);
	for (;;) {
		if (!buf) {
			close(fd);
			return bnd_fail(err, errlen, BND_ENOMEM, "reading the %s: out of memory", label);
		}
		if (got + 1 == cap) {
			if (maxlen && got >= maxlen) {
				free(buf);
				close(fd);
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
			close(fd);
			return bnd_fail(err, errlen, BND_ESYS, "reading the %s: %s", label, strerror(e));
		}
		if (n == 0)
			break;
		got += (size_t)n;
		/* Never rewritten in place: its size at fstat is its end (no
		 * second read to see EOF, nor a buffer twice the size for it). */
		if (got == (size_t)st.st_size && st.st_size > 0)
			break;
	}
	close(fd);
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return BND_OK;
}

int bnd_safefile_replace(int dirfd, const char *name, const char *text, size_t len,
			 char *err, size_t errlen)
{
	char tmp[BND_SAFEFILE_NAME_MAX + 32];
	if (snprintf(tmp, sizeof(tmp), "%s.new.%ld", name, (long)getpid()) >= (int)sizeof(tmp))
		return bnd_fail(err, errlen, BND_EINVAL, "%s: name too long", name);
	/* A temp file left by a writer that died goes first; O_EXCL then never
	 * follows anything planted under its name. */
	if (unlinkat(dirfd, tmp, 0) && errno != ENOENT)
		return bnd_fail(err, errlen, BND_ESYS, "removing %s: %s", tmp, strerror(errno));
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			0644);
	if (fd < 0)
		return bnd_fail(err, errlen, errno == EACCES ? BND_ESTATE : BND_ESYS,
				"creating %s: %s", tmp, strerror(errno));
	size_t done = 0;
	int rc = fchmod(fd, 0644) ? errno : 0;
	while (!rc && done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = errno;
		else
			done += (size_t)n;
	}
	if (close(fd) && !rc)
		rc = errno;
	/* rename replaces a link at name itself, never its target. */
	if (!rc && renameat(dirfd, tmp, dirfd, name))
		rc = errno;
	if (rc) {
		unlinkat(dirfd, tmp, 0);
		return bnd_fail(err, errlen, BND_ESYS, "writing %s: %s", name, strerror(rc));
	}
	return BND_OK;
}
