/* Memory-aware placement: bnd_place() plus each NUMA node's free memory.
 *
 * Still pure: topology + occupancy (domain and free MiB per NUMA index) +
 * request in, cores and the memory they reserve out.
 *
 *   cores:strict  every task's cores must sit on nodes whose free memory
 *                 covers its share (UGE 8.1: 2 tasks x 2 GiB on one node
 *                 need 4 GiB there; split over two nodes, 2 GiB on each).
 *                 A placement that overdraws a node is not a fit: the cores
 *                 of that node beyond what its memory holds are left out
 *                 and the strategy runs again, for every strategy alike;
 *                 when the strategy finds nothing, BND_ENOFIT.
 *   cores, none   the same search steers the choice; if it finds nothing
 *                 the plain placement is used (memory never blocks).
 *   round_robin   plain placement; memory is accounted, never blocks.
 *   gpu           the same: its nodes are the GPUs' (placement/near.h).
 *   nlocal        the one NUMA node whose free cores and free memory hold
 *                 the whole step, the one with the most free memory first;
 *                 else the fewest nodes, nearest by distance; the binding
 *                 (linear:1 per task when none was asked) is placed inside
 *                 them; memory is bound there when their free memory
 *                 covers the step (bind), else preferred (bind = 0).
 */
#ifndef BINDING_MEMPLACE_H
#define BINDING_MEMPLACE_H

#include <stddef.h>
#include <stdint.h>

#include "binding/memory/memacct.h"
#include "binding/placement/place.h"

struct bnd_mem_request {
	enum bnd_mbind mbind;
	uint64_t step_mib;      /* the step's memory on this node, 0: none */
	const uint64_t *avail;  /* [nnuma] free MiB per NUMA index; NULL: unlimited */
};

struct bnd_mem_result {
	bnd_nodeset_t nodes;    /* nlocal: chosen NUMA indices */
	int bind;               /* nlocal: 1 bind, 0 preferred */
	int nshares;
	struct bnd_mem_share shares[64]; /* what the placement reserves */
	/* numamem (memory/booking.h): what the booking had left for the step
	 * per NUMA index when it was placed (each task's part follows from
	 * it), the memory placed, and how many tasks' memory is split over
	 * nodes or on nodes their cores are not local to. */
	int booked;
	uint64_t left[64];
	uint64_t booked_mib;
	int nsplit, nremote;
};

int bnd_place_mem(const struct bnd_topology *t, const struct bnd_domain *dom,
		  const struct bnd_request *r, int ntasks, const struct bnd_mem_request *m,
		  struct bnd_placement *out, struct bnd_mem_result *res,
		  char *err, size_t errlen);

/* The OS node ids of res->nodes as a list ("0,2-3") for SLURM_MBIND_NODES;
 * buf is "" when nothing was chosen. */
void bnd_mem_os_nodes(const struct bnd_topology *t, const struct bnd_mem_result *res,
		      bnd_nodeset_t *os);
void bnd_mem_nodes_text(const struct bnd_topology *t, const struct bnd_mem_result *res,
			char *buf, size_t len);

#endif
