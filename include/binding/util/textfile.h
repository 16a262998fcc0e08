/* A whole text file read by path: a site's config file (gres.conf,
 * cgroup.conf) or an hwloc XML export. Not for the state dir's files,
 * which are opened through their trusted dir (safefile.h). */
#ifndef BINDING_TEXTFILE_H
#define BINDING_TEXTFILE_H

#include <stddef.h>

/* *text is malloc'd and NUL-terminated, *len its bytes (a NUL inside stays).
 * A file longer than maxlen is refused rather than cut: half a config read
 * as if whole would be worse than none. BND_OK, BND_ESYS (errno named, the
 * file missing included), BND_EINVAL (too long) or BND_ENOMEM. */
int bnd_textfile_read(const char *path, size_t maxlen, char **text, size_t *len, char *err,
		      size_t errlen);

#endif
