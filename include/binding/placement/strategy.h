/* The strategies behind bnd_place(), one file each in lib/placement/strategy_*.c.
 *
 * Each picks the step's units in its own order and returns them as groups
 * of PU indices: group g is pus[off[g] .. off[g+1]). bnd_place() hands
 * groups to tasks. Buffers are sized by the caller: off has room for
 * t->npus + 1 entries, pus for t->npus entries.
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

/* One strategy's placement, as its row of the table (strategies.def) names
 * it and place.c calls it: BND_OK with pick filled, BND_ENOFIT (err says
 * why), others. */
typedef int bnd_place_fn_t(const struct bnd_topology *t, const struct bnd_domain *dom,
			   const struct bnd_request *r, const struct bnd_units *u,
			   struct bnd_pick *pick, char *err, size_t errlen);
typedef bnd_place_fn_t *bnd_place_fn;

/* Each row's placement function, declared from the table. */
#define BND_PLACED_BY(fn) bnd_place_fn_t fn;
#define BND_PLACES_NOTHING
#define BND_STRATEGY(id, word, family, share, parse, place, ...) place
#include "binding/request/strategies.def"
#undef BND_STRATEGY
#undef BND_PLACED_BY
#undef BND_PLACES_NOTHING

#endif
