#include "binding/util/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"

static int read_stream(FILE *fp, const char *path, size_t maxlen, char **text, size_t *len,
		       char *err, size_t errlen)
{
	size_t cap = 4096, got = 0;
	char *buf = malloc(cap);
	while (buf) {
		got += fread(buf + got, 1, cap - got - 1, fp);
		if (got < cap - 1)
			break;
		if (got > maxlen) {
			free(buf);
			return bnd_fail(err, errlen, BND_EINVAL, "%s: longer than %zu bytes", path,
					maxlen);
		}
		char *nb = realloc(buf, cap * 2);
		if (!nb)
			free(buf);
		buf = nb;
		cap *= 2;
	}
	if (!buf)
		return bnd_fail(err, errlen, BND_ENOMEM, "%s: out of memory", path);
	if (ferror(fp)) {
		free(buf);
		return bnd_fail(err, errlen, BND_ESYS, "%s: read error", path);
	}
	if (got > maxlen) {
		free(buf);
		return bnd_fail(err, errlen, BND_EINVAL, "%s: longer than %zu bytes", path, maxlen);
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return BND_OK;
}

int bnd_textfile_read(const char *path, size_t maxlen, char **text, size_t *len, char *err,
		      size_t errlen)
{
	*text = NULL;
	*len = 0;
	FILE *fp = fopen(path, "rbe");
	if (!fp)
		return bnd_fail(err, errlen, BND_ESYS, "%s: %s", path, strerror(errno));
	int rc = read_stream(fp, path, maxlen, text, len, err, errlen);
	fclose(fp);
	return rc;
}

/* The directory of path, opened (never through a symlink as its last
 * part), and the file's name in it. */
static int open_dir_of(const char *path, const char **name, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	*name = slash ? slash + 1 : path;
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, ".."))
		return bnd_fail(err, errlen, BND_EINVAL, "%s: not a file name", path);
	char dir[4096];
	if (slash && (size_t)(slash - path) >= sizeof(dir))
		return bnd_fail(err, errlen, BND_EINVAL, "%s: path too long", path);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? (slash == path ? "/" : path) : ".");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (dfd < 0 || fstat(dfd, &st)) {
		int e = errno;
		if (dfd >= 0)
			close(dfd);
		return bnd_fail(err, errlen, BND_ESYS, "%s: %s", dir, strerror(e));
	}
	/* A sticky dir (/tmp) is fine: others cannot rename or remove what
	 * we create there, nor make us follow a link (O_NOFOLLOW, rename
	 * replaces the name itself). */
	if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
		close(dfd);
		return bnd_fail(err, errlen, BND_EINVAL, "%s: writable by others than its owner "
				"(mode %03o): refused", dir, (unsigned)(st.st_mode & 0777));
	}
	return dfd;
}

static int write_all(int fd, const char *text, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int bnd_textfile_replace(const char *path, const char *text, size_t len, char *err,
			 size_t errlen)
{
	const char *name;
	int dfd = open_dir_of(path, &name, err, errlen);
	if (dfd < 0)
		return dfd;
	char tmp[512];
	snprintf(tmp, sizeof(tmp), ".%.400s.%ld.tmp", name, (long)getpid());
	unlinkat(dfd, tmp, 0); /* ours, left by a writer of this pid that died */
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int rc = BND_OK, e = 0;
	if (fd < 0 || fchmod(fd, 0644) || write_all(fd, text, len)) {
		e = errno;
		rc = BND_ESYS;
	}
	if (fd >= 0 && close(fd) && !rc) {
		e = errno;
		rc = BND_ESYS;
	}
	if (!rc && renameat(dfd, tmp, dfd, name)) {
		e = errno;
		rc = BND_ESYS;
	}
	if (rc && fd >= 0)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc ? bnd_fail(err, errlen, rc, "writing %s: %s", path, strerror(e)) : BND_OK;
}
