/* gpu:<amount>: <amount> whole cores per task next to its GPUs (near.h's
 * rank), task by task: the free cores local to its GPUs in core order,
 * then the rest by rank (NUMA distance from the GPUs) and core order.
 * (packed near=gpu is packed's: strategy_packed.c.)
 *
 * Tasks are placed in order, each against what the earlier ones took, so
 * groups come out in task order for bnd_place() to hand out. */
#include <stdlib.h>
#include <string.h>

#include "binding/placement/near.h"
#include "binding/placement/strategy.h"
#include "binding/util/error.h"

/* Whether core c is still free for the step: free in the domain (once per
 * call, avail) and not taken by an earlier task (used). */
struct cores {
	char *avail, *used;
	int *rank;
	int *ranks, *counts; /* the distinct ranks: 0, a distance per node, far */
};

static int usable(const struct cores *k, int c)
{
	return k->avail[c] && !k->used[c];
}

static void take(const struct bnd_topology *t, struct cores *k, int c, struct bnd_pick *out)
{
	k->used[c] = 1;
	bnd_pick_add_core(out, t, c);
}

/* The free cores of the lowest ranks, in core order within a rank: one
 * pass ranks them and finds the rank at which `left` are reached, a second
 * takes them. */
static int take_nearest(const struct bnd_topology *t, uint64_t gpus, int left,
			struct cores *k, struct bnd_pick *out)
{
	struct bnd_near_ctx ctx;
	int *ranks = k->ranks, *counts = k->counts, nr = 0;
	bnd_near_ctx_init(t, gpus, &ctx);
	for (int c = 0; c < t->ncores; c++) {
		if (!usable(k, c))
			continue;
		int r = k->rank[c] = bnd_near_ctx_rank(t, &ctx, c), i = 0;
		while (i < nr && ranks[i] != r)
			i++;
		if (i == nr) {
			ranks[nr] = r;
			counts[nr++] = 0;
		}
		counts[i]++;
	}
	/* The cut: the lowest rank by which `left` cores are reached. */
	int cut = BND_NEAR_FAR + 1, sum = 0;
	while (sum < left && nr) {
		int lo = 0;
		for (int i = 1; i < nr; i++)
			lo = ranks[i] < ranks[lo] ? i : lo;
		sum += counts[lo];
		cut = ranks[lo];
		ranks[lo] = ranks[--nr];
		counts[lo] = counts[nr];
	}
	for (int c = 0; c < t->ncores && left > 0; c++)
		if (usable(k, c) && k->rank[c] < cut) {
			take(t, k, c, out);
			left--;
		}
	for (int c = 0; c < t->ncores && left > 0; c++)
		if (usable(k, c) && k->rank[c] == cut) {
			take(t, k, c, out);
			left--;
		}
	return left;
}

/* The local cores first, straight from each GPU's core range (the common
 * case touches only those); the nearest others when they fall short. */
static int place_task(const struct bnd_topology *t, uint64_t gpus, int amount, struct cores *k,
		      struct bnd_pick *out)
{
	int left = amount;
	for (int g = 0; left > 0 && g < t->ngpus && g < 64; g++) {
		if (!((gpus >> g) & 1))
			continue;
		const struct bnd_gpu *d = &t->gpus[g];
		for (int c = d->core_first; left > 0 && c < d->core_first + d->core_count; c++)
			if (usable(k, c)) {
				take(t, k, c, out);
				left--;
			}
	}
	return left ? take_nearest(t, gpus, left, k, out) : 0;
}

int bnd_place_gpu(const struct bnd_topology *t, const struct bnd_domain *dom,
		  const struct bnd_request *r, const struct bnd_units *u, struct bnd_pick *out,
		  char *err, size_t errlen)
{
	int ntasks = u->ntasks;
	size_t nr = (size_t)t->nnuma + 2;
	struct cores k = { calloc((size_t)t->ncores + 1, 1), calloc((size_t)t->ncores + 1, 1),
			   malloc(((size_t)t->ncores + 1) * sizeof(int)), malloc(nr * sizeof(int)),
			   malloc(nr * sizeof(int)) };
	int rc = k.avail && k.used && k.rank && k.ranks && k.counts ? BND_OK
		 : bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	int free_cores = 0, need = r->amount * ntasks;
	for (int c = 0; rc == BND_OK && c < t->ncores; c++)
		free_cores += k.avail[c] = (char)bnd_core_available(t, dom, c);
	if (rc == BND_OK && free_cores < need)
		rc = bnd_fail(err, errlen, BND_ENOFIT, "gpu: %d cores needed (%d per task x %d "
			      "tasks), only %d free", need, r->amount, ntasks, free_cores);
	for (int i = 0; rc == BND_OK && i < ntasks; i++)
		if (place_task(t, bnd_near_gpus(dom, i), r->amount, &k, out))
			rc = bnd_fail(err, errlen, BND_ENOFIT, "gpu: task %d found too few cores", i);
	free(k.avail);
	free(k.used);
	free(k.rank);
	free(k.ranks);
	free(k.counts);
	return rc;
}
