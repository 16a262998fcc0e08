/* Entry points of rebind.c that only tests, fuzzers and benches call: the
 * plugin and sbind never include binding/hooks/ (tests/cli/t_ship.sh). */
#ifndef BINDING_HOOKS_REBIND_H
#define BINDING_HOOKS_REBIND_H

#include "binding/suspend/rebind.h"

/* The same walk a pass at a time (bnd_rebind_tree loops until a pass
 * finds no new thread): tests change the processes between passes. */
struct bnd_rebind {
	struct bnd_rebind_walk *w;
};
int bnd_rebind_begin(struct bnd_rebind *r, const char *proc_root,
		     const struct bnd_task_id *task, const bnd_cpuset_t *cpus, const char *cgroup,
		     char *err, size_t errlen);
/* *fresh: threads seen for the first time in this pass. BND_OK or
 * BND_ENOMEM. */
int bnd_rebind_pass(struct bnd_rebind *r, int *fresh);
/* Migrates (from/to as above), counts into c (may be NULL), closes. */
int bnd_rebind_end(struct bnd_rebind *r, const bnd_nodeset_t *from, const bnd_nodeset_t *to,
		   struct bnd_rebind_counts *c);

#endif
