/* What is free for a placement, and taking a core: the few rules
 * bnd_place() and every strategy share, below both so that neither calls
 * back into the other. */
#ifndef BINDING_DOMAIN_H
#define BINDING_DOMAIN_H

#include <stdint.h>

#include "binding/topology/topology.h"
#include "binding/util/cpuset.h"

/* Where each task of a step belongs: the GPUs it has, as bits of the
 * topology's GPU indices (topogpu.h). A GPU-aware request (gpu:<n>,
 * near=gpu; placement/near.h) places every task next to its own. */
struct bnd_near {
	int ntasks;            /* entries of gpus (placement groups) */
	const uint64_t *gpus;  /* [ntasks]; 0: none known for that task */
};

/* What is free for a request, and where its tasks belong. */
struct bnd_domain {
	const bnd_cpuset_t *allowed; /* NULL: the whole topology */
	const bnd_cpuset_t *taken;   /* NULL: nothing taken */
	const struct bnd_near *near; /* NULL: no task has GPUs */
};

/* Is PU index pu (not its OS id) inside the domain: allowed and not
 * taken? The one test every strategy uses. */
int bnd_pu_available(const struct bnd_topology *t, const struct bnd_domain *dom, int pu);

/* Is the core entirely inside the domain? */
int bnd_core_available(const struct bnd_topology *t, const struct bnd_domain *dom, int core);

/* The units a strategy picks, as groups of PU indices: group g is
 * pus[off[g] .. off[g+1]). */
struct bnd_pick {
	int ngroups;
	int *off;  /* ngroups + 1 */
	int *pus;  /* PU indices */
};

/* Append core `core`'s PUs as one group. */
void bnd_pick_add_core(struct bnd_pick *p, const struct bnd_topology *t, int core);

#endif
