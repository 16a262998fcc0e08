/* A scratch cgroup in this host's cgroup v2 hierarchy, for the unit tests
 * and benches that need the kernel's own cgroup files (cgroup.events,
 * cgroup.freeze) rather than a copy of them in a temp dir. No Check here:
 * bench/ links it too. */
#ifndef CGSCRATCH_H
#define CGSCRATCH_H

#include <stddef.h>
#include <sys/types.h>

struct cg_scratch {
	char mnt[256];  /* the cgroup2 mount */
	char dir[512];  /* <mnt>/<prefix>-<pid> */
};

/* Creates the cgroup. 0, or -1 with why filled: not root, no cgroup2
 * mount, or mkdir refused. */
int cg_scratch_make(struct cg_scratch *cg, const char *prefix, char *why, size_t whylen);

/* Writes text into the cgroup's file name. 0, or -1 with errno set by the
 * open or the write. */
int cg_scratch_write(const struct cg_scratch *cg, const char *name, const char *text);

/* Moves pid into the cgroup (its cgroup.procs). 0, or -1 with errno. */
int cg_scratch_move(const struct cg_scratch *cg, pid_t pid);

/* Removes the cgroup; pid (> 0) is moved back to the root first, in case
 * it still lives. A cgroup empties only once the kernel has finished its
 * last task, so rmdir is retried for up to guard_s seconds (a hang guard,
 * not a verdict). 0 once it is gone. */
int cg_scratch_remove(const struct cg_scratch *cg, pid_t pid, int guard_s);

#endif
