/* Placement next to each task's GPUs (near.h's rank), task by task:
 *
 *   gpu:<amount>      <amount> whole cores per task: the free cores local
 *                     to its GPUs in core order, then the rest by rank
 *                     (NUMA distance from the GPUs) and core order;
 *   packed near=gpu   the packed walk (strategy_packed.c) for each task,
 *                     inside the cores of rank 0, then up to the next rank
 *                     and so on, as many of its units in the nearest ring
 *                     as fit there before the next ring is tried.
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

int bnd_strategy_gpu(const struct bnd_topology *t, const struct bnd_domain *dom,
		     const struct bnd_request *r, int ntasks, struct bnd_pick *out, char *err,
		     size_t errlen)
{
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

/* ---- packed near=gpu --------------------------------------------------- */

struct rings {
	int n;
	int *rank;  /* distinct ranks, ascending */
};

/* The distinct ranks of the task's cores. */
static int make_rings(const struct bnd_topology *t, uint64_t gpus, int *core_rank,
		      struct rings *rg)
{
	struct bnd_near_ctx ctx;
	bnd_near_ctx_init(t, gpus, &ctx);
	rg->n = 0;
	for (int c = 0; c < t->ncores; c++) {
		core_rank[c] = bnd_near_ctx_rank(t, &ctx, c);
		int seen = 0;
		for (int i = 0; i < rg->n && !seen; i++)
			seen = rg->rank[i] == core_rank[c];
		if (!seen)
			rg->rank[rg->n++] = core_rank[c];
	}
	for (int i = 1; i < rg->n; i++)
		for (int j = i; j > 0 && rg->rank[j - 1] > rg->rank[j]; j--) {
			int x = rg->rank[j];
			rg->rank[j] = rg->rank[j - 1];
			rg->rank[j - 1] = x;
		}
	return rg->n;
}

/* Moves the groups of src to the end of dst and marks their cpus taken. */
static void append(const struct bnd_topology *t, struct bnd_pick *dst, const struct bnd_pick *src,
		   bnd_cpuset_t *taken)
{
	for (int g = 0; g < src->ngroups; g++) {
		int at = dst->off[dst->ngroups];
		for (int i = src->off[g]; i < src->off[g + 1]; i++) {
			dst->pus[at++] = src->pus[i];
			bnd_cpuset_set(taken, t->pu_os[src->pus[i]]);
		}
		dst->off[++dst->ngroups] = at;
	}
}

/* As many units as fit in the ring (cores up to rank `upto`), fewer when
 * not all do: the packed walk is all or nothing. */
static int fill_ring(const struct bnd_topology *t, const struct bnd_domain *dom,
		     const struct bnd_request *r, const int *core_rank, int upto, int *left,
		     bnd_cpuset_t *taken, struct bnd_pick *tmp, struct bnd_pick *out)
{
	bnd_cpuset_t ring;
	bnd_cpuset_zero(&ring);
	for (int c = 0; c < t->ncores; c++)
		if (core_rank[c] <= upto)
			for (int p = t->cores[c].pu_first; p < t->cores[c].pu_first + t->cores[c].npus; p++)
				bnd_cpuset_set(&ring, t->pu_os[p]);
	if (dom && dom->allowed)
		bnd_cpuset_and(&ring, dom->allowed);
	struct bnd_domain d = { &ring, taken, NULL };
	for (int m = *left; m > 0; m--) {
		int rc = bnd_strategy_packed(t, &d, r, m, tmp, NULL, 0);
		if (rc == BND_ENOFIT)
			continue;
		if (rc != BND_OK)
			return rc;
		append(t, out, tmp, taken);
		*left -= m;
		break;
	}
	return BND_OK;
}

int bnd_strategy_packed_near(const struct bnd_topology *t, const struct bnd_domain *dom,
			     const struct bnd_request *r, int ntasks, int per_task,
			     struct bnd_pick *out, char *err, size_t errlen)
{
	bnd_cpuset_t taken;
	bnd_cpuset_zero(&taken);
	if (dom && dom->taken)
		taken = *dom->taken;
	int *core_rank = malloc(((size_t)t->ncores + 1) * sizeof(int));
	struct rings rg = { 0, malloc(((size_t)t->ncores + 1) * sizeof(int)) };
	struct bnd_pick tmp = { 0, calloc((size_t)t->npus + 2, sizeof(int)),
				calloc((size_t)t->npus + 1, sizeof(int)) };
	int rc = core_rank && rg.rank && tmp.off && tmp.pus
		 ? BND_OK : bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	out->ngroups = 0;
	out->off[0] = 0;
	for (int i = 0; rc == BND_OK && i < ntasks; i++) {
		int left = per_task, groups = out->ngroups;
		bnd_cpuset_t before = taken;
		make_rings(t, bnd_near_gpus(dom, i), core_rank, &rg);
		for (int k = 0; rc == BND_OK && left > 0 && k < rg.n; k++)
			rc = fill_ring(t, dom, r, core_rank, rg.rank[k], &left, &taken, &tmp, out);
		if (rc == BND_OK && left > 0) {
			/* The rings' units did not add up (a unit spanning two
			 * rings): the task's units in one walk over the node, or
			 * the packed model's own reason. */
			out->ngroups = groups;
			taken = before;
			struct bnd_domain d = { dom ? dom->allowed : NULL, &taken, NULL };
			rc = bnd_strategy_packed(t, &d, r, per_task, &tmp, err, errlen);
			if (rc == BND_OK)
				append(t, out, &tmp, &taken);
		}
	}
	free(core_rank);
	free(rg.rank);
	free(tmp.off);
	free(tmp.pus);
	return rc;
}
