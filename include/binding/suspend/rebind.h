/* Moving a running task to other cpus from outside it (slurmstepd, root).
 *
 * A task is a process tree: the process Slurm started, its threads (MPI
 * helper threads, OpenMP pools) and its descendants with theirs. Affinity
 * is per thread and only inherited at creation, so every thread of every
 * process is set, and threads or children created while the walk runs are
 * caught by walking again until a pass finds nothing new.
 */
#ifndef BINDING_SUSPEND_REBIND_H
#define BINDING_SUSPEND_REBIND_H

#include <stddef.h>
#include <sys/types.h>

#include "binding/util/cpuset.h"

/* Sets the affinity of every thread of root and of all its descendants
 * (found through /proc/PID/task/TID/children under proc_root, normally
 * "/proc") to cpus. *nthreads (may be NULL) gets how many threads were
 * set. A thread or process that ends meanwhile is not an error.
 * BND_OK; BND_EINVAL (empty cpus, bad pid); BND_ESYS when root is gone or a
 * live thread refused (err names it; the others are still set). */
int bnd_rebind_tree(const char *proc_root, pid_t root, const bnd_cpuset_t *cpus,
		    int *nthreads, char *err, size_t errlen);

#endif
