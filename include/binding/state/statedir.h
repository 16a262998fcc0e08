/* The state directory on disk: trust checks, reading, atomic replacement.
 *
 * Layout of a state dir (default /run/slurm-binding, root:root 0755, or
 * 0711 with private files: util/safefile.h):
 *   state                 the records (0644, see statefile.h; 0600 private)
 *   lock                  taken by writers (0600, see statelock.h)
 *   state.new             the next state while it is written, then swapped
 *                         with state; the old state it then names is
 *                         unlinked (never rewritten: readers may hold it)
 *   state.corrupt.<time>  a damaged state kept aside for the admin
 * Every file is opened with O_NOFOLLOW, and anything that someone other than
 * root could have planted or changed is refused rather than used.
 */
#ifndef BINDING_STATEDIR_H
#define BINDING_STATEDIR_H

#include <stddef.h>
#include <sys/stat.h>

#include "binding/util/safefile.h"

#define BND_STATE_FILE_NAME "state"
#define BND_STATE_TEMP_NAME "state.new"
#define BND_STATE_CORRUPT_PREFIX "state.corrupt."

/* Reads the state file whole. Absent: BND_OK, *text NULL, *len 0. A file
 * once in place is never written again, so a read without the lock always
 * gets a whole state. */
int bnd_statedir_read(int dirfd, char **text, size_t *len, char *err, size_t errlen);

/* Writes text as the temporary file (0644, 0600 in a private dir), then, separately, puts it in
 * place of the state atomically: readers never see a partial state nor a
 * missing one. No fsync: the state describes processes of this boot only. */
int bnd_statedir_write_temp(int dirfd, const char *text, size_t len, char *err, size_t errlen);
int bnd_statedir_commit_temp(int dirfd, char *err, size_t errlen);

/* Links the current state file as state.corrupt.<unix time>[-<n>] (never
 * replacing an older one) and puts that name in name. */
int bnd_statedir_keep_aside(int dirfd, char *name, size_t namelen, char *err, size_t errlen);

#endif
