/* Files in the root-owned state dir (the state, its lock, the topology
 * cache, rankfiles): opened without following links, and refused when
 * anyone but root (or us, when we are not root) could have planted or
 * changed them. */
#ifndef BINDING_SAFEFILE_H
#define BINDING_SAFEFILE_H

#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>

/* The directory: NULL or "" means BND_DEFAULT_STATE_DIR (defaults.h). */
/* 0 when st may be trusted: a directory (want_dir) or regular file, owned
 * by root (by root or by us when we are not root), not writable by group or
 * others. Otherwise -1 and why says which rule failed. */
int bnd_safe_untrusted(const struct stat *st, int want_dir, char *why, size_t whylen);

/* Opens the state directory by walking from / down with openat (never by
 * path): each component on the way must be a directory owned by root (or
 * us, when we are not root) and not writable by group or others, unless
 * it is a root-owned sticky dir such as /tmp; a symlink on the way is
 * followed only when it is root's (or ours); the dir itself must pass
 * bnd_safe_untrusted and not be a symlink. A relative dir is taken from
 * the working directory, walked from / as well. With create, missing
 * components are made (mkdirat, then 0755 and root:root when root through
 * the new dir's fd); without, a missing dir gives BND_OK and *dirfd = -1.
 * BND_ESTATE when a component is refused (the message names it); nothing
 * is created below a refused one. */
int bnd_safedir_open(const char *dir, int create, int *dirfd, char *err, size_t errlen);

/* Private files (the site's private_files=yes): the state dir is 0711,
 * so a user reaches a file whose name they know (their job's rankfile) but
 * cannot list the dir; the state is then written 0600 and a rankfile 0600,
 * root's, with a read-only ACL entry for its job's user. The dir's mode is where every writer (each slurmstepd,
 * an admin's sbind) reads the setting: they cannot disagree.
 * bnd_safedir_private: 1 when others cannot list dirfd.
 * bnd_safedir_set_private (root only; a user's call changes nothing): with
 * private_files, group and others lose the read bit; without, a dir at
 * BND_SAFEDIR_PRIVATE_MODE goes back to BND_SAFEDIR_MODE, any other mode is
 * the admin's and stays. */
#define BND_SAFEDIR_MODE 0755
#define BND_SAFEDIR_PRIVATE_MODE 0711
int bnd_safedir_private(int dirfd);
int bnd_safedir_set_private(int dirfd, int private_files, char *err, size_t errlen);

/* A listing of the open dir dirfd (readdir), through a descriptor of its
 * own: close-on-exec, and its own position, so two listings in one
 * transaction never share an offset. NULL with errno on failure. */
DIR *bnd_safedir_list(int dirfd);

/* Reads dir/name whole into a NUL-terminated malloc'd *text: opened
 * without following a link, and refused (BND_ESTATE) when it is a link, not
 * a regular file, or untrusted (bnd_safe_untrusted), or when maxlen > 0 and
 * it is longer. A missing file gives BND_OK with *text NULL. label names
 * the file in messages ("state file", "topology cache"). */
int bnd_safefile_read(int dirfd, const char *name, const char *label, size_t maxlen,
		      char **text, size_t *len, char *err, size_t errlen);

/* Longest file name in the dir that bnd_safefile_replace takes. */
#define BND_SAFEFILE_NAME_MAX 255

/* Puts text in place of dir/name atomically (temporary file
 * "<name>.new.<pid>" created O_EXCL, mode 0644, renamed over name): readers
 * see the old file or the new one whole, two writers never share a
 * temporary file, and a link planted at name is replaced, never followed.
 * No fsync: the dir holds files of this boot only. */
int bnd_safefile_replace(int dirfd, const char *name, const char *text, size_t len,
			 char *err, size_t errlen);
/* The same with the file's mode, and a reader: (uid_t)-1 none, else that
 * uid may read it through a POSIX ACL entry (user:<uid>:r--, mask r--; no
 * group, no others), set through the temporary file's fd before it takes
 * the name. The file stays the caller's: its reader can neither write it,
 * grow it, nor change its times (a user who owned their rankfile in root's
 * /run filled it, and with it every state transaction of the node). A
 * file system without ACLs fails with BND_ESYS, saying so. */
int bnd_safefile_replace_for(int dirfd, const char *name, const char *text, size_t len,
			     mode_t mode, uid_t reader, char *err, size_t errlen);

#endif
