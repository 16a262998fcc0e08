#include "binding/util/textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
