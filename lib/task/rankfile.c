#include "binding/task/rankfile.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/safefile.h"

int bnd_rankfile_write(const char *dir, uint32_t job, const char *step_name, uint32_t nodeid,
		       const char *text, char *path, size_t pathlen, char *err, size_t errlen)
{
	char name[BND_SAFEFILE_NAME_MAX + 1];
	int dfd = -1;
	path[0] = '\0';
	int n = snprintf(name, sizeof(name), BND_RANKFILE_PREFIX "%u.%s.%u", job, step_name,
			 nodeid);
	if (n < 0 || (size_t)n >= sizeof(name))
		return bnd_fail(err, errlen, BND_EINVAL, "rankfile name too long");
	int rc = bnd_safedir_open(dir, 0, &dfd, err, errlen);
	if (rc == BND_OK && dfd < 0)
		rc = bnd_fail(err, errlen, BND_ESYS, "rankfile: state dir %s is missing", dir);
	if (rc == BND_OK)
		rc = bnd_safefile_replace(dfd, name, text, strlen(text), err, errlen);
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
