/* The strategies behind bnd_place(), one file each in lib/placement/strategy_*.c.
 *
 * Each picks `need` units for the whole step in its own order and returns
 * them as groups of PU indices: group g is pus[off[g] .. off[g+1]).
 * bnd_place() hands groups to tasks. Buffers are sized by the caller:
 * off has room for t->npus + 1 entries, pus for t->npus entries.
 */
#ifndef BINDING_STRATEGY_H
#define BINDING_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>

#include "binding/placement/domain.h"
#include "binding/request/request.h"

/* What bnd_place hands a strategy: the units to pick for the step (need),
 * its tasks, the units per task and whether all tasks share them (the
 * request's share rule, request.h). */
struct bnd_units {
	int need, ntasks, per_task;
	bool shared;
};

/* One strategy's placement, as placement's table of strategies (place.c)
 * calls it: BND_OK with pick filled, BND_ENOFIT (err says why), others. */
typedef int (*bnd_place_fn)(const struct bnd_topology *t, const struct bnd_domain *dom,
			    const struct bnd_request *r, const struct bnd_units *u,
			    struct bnd_pick *pick, char *err, size_t errlen);

int bnd_strategy_linear(const struct bnd_topology *t, const struct bnd_domain *dom,
			const struct bnd_request *r, int need, struct bnd_pick *out,
			char *err, size_t errlen);
int bnd_strategy_striding(const struct bnd_topology *t, const struct bnd_domain *dom,
			  const struct bnd_request *r, int need, struct bnd_pick *out,
			  char *err, size_t errlen);
int bnd_strategy_explicit(const struct bnd_topology *t, const struct bnd_domain *dom,
			  const struct bnd_request *r, int ntasks, struct bnd_pick *out,
			  char *err, size_t errlen);
int bnd_strategy_packed(const struct bnd_topology *t, const struct bnd_domain *dom,
			const struct bnd_request *r, int need, struct bnd_pick *out,
			char *err, size_t errlen);
int bnd_strategy_lsf(const struct bnd_topology *t, const struct bnd_domain *dom,
		     const struct bnd_request *r, int need, struct bnd_pick *out,
		     char *err, size_t errlen);
/* Next to each task's GPUs (dom->near), task by task: gpu:<amount>, and
 * packed with near=gpu (per_task units for each of ntasks tasks). */
int bnd_strategy_gpu(const struct bnd_topology *t, const struct bnd_domain *dom,
		     const struct bnd_request *r, int ntasks, struct bnd_pick *out,
		     char *err, size_t errlen);
int bnd_strategy_packed_near(const struct bnd_topology *t, const struct bnd_domain *dom,
			     const struct bnd_request *r, int ntasks, int per_task,
			     struct bnd_pick *out, char *err, size_t errlen);

#endif
