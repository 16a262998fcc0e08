/* A whole text file by path: a site's config file (gres.conf,
 * cgroup.conf) or an hwloc XML export read, a file for others to read
 * (node_exporter's textfile folder, an annotated topology) written. Not
 * for the state dir's files, which are opened through their trusted dir
 * (safefile.h). */
#ifndef BINDING_TEXTFILE_H
#define BINDING_TEXTFILE_H

#include <stddef.h>

/* *text is malloc'd and NUL-terminated, *len its bytes (a NUL inside stays).
 * A file longer than maxlen is refused rather than cut: half a config read
 * as if whole would be worse than none. BND_OK, BND_ESYS (errno named, the
 * file missing included), BND_EINVAL (too long) or BND_ENOMEM. */
int bnd_textfile_read(const char *path, size_t maxlen, char **text, size_t *len, char *err,
		      size_t errlen);

/* Puts text (len bytes) in place of path atomically, for readers that may
 * look at any moment (node_exporter's textfile collector): written whole
 * under a temporary name in the same directory (".<name>.<pid>.tmp",
 * O_EXCL, never following a link), made 0644, then renamed over path. A
 * directory that others than its owner may write is refused (anyone there
 * could replace what root writes), unless it is sticky (/tmp). BND_OK, BND_EINVAL (a path without a
 * file name, a refused dir) or BND_ESYS (errno named). */
int bnd_textfile_replace(const char *path, const char *text, size_t len, char *err,
			 size_t errlen);

#endif
