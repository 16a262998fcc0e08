/* bnd_place(): runs a strategy for the whole step, then hands its groups to
 * the tasks. Strategies pick in their own order; handing out consecutive
 * groups keeps each task's cores next to each other and the step compact. */
#include "binding/placement/place.h"

#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/placement/near.h"
#include "binding/placement/strategy.h"

void bnd_placement_free(struct bnd_placement *p)
{
	if (!p)
		return;
	for (int i = 0; p->tasks && i < p->ntasks; i++)
		free(p->tasks[i].cores);
	free(p->tasks);
	memset(p, 0, sizeof(*p));
}

/* Groups per task and whether every task shares all groups: the
 * strategy's share rule (request.h), then whether the node can hold them. */
static int split_rule(const struct bnd_request *r, int ntasks, int npus, struct bnd_units *u,
		      char *err, size_t errlen)
{
	int rc = bnd_request_split(r, ntasks, &u->per_task, &u->shared, err, errlen);
	if (rc)
		return rc;
	u->ntasks = ntasks;
	int per_task = u->per_task;
	/* Every unit has at least one cpu; checked in 64 bits so that a huge
	 * amount times many tasks cannot overflow. */
	long long total = u->shared ? per_task : (long long)per_task * ntasks;
	if (total > npus)
		return bnd_fail(err, errlen, BND_ENOFIT,
				"%lld units needed (%d per task x %d tasks), the node has %d cpus",
				total, per_task, u->shared ? 1 : ntasks, npus);
	u->need = (int)total;
	return BND_OK;
}

/* Placement's column of the table of strategies (strategies.def); none
 * places nothing. */
#define BND_PLACED_BY(fn) fn
#define BND_PLACES_NOTHING NULL
static bnd_place_fn const placers[BND_S_COUNT] = {
#define BND_STRATEGY(id, word, family, share, parse, place, ...) [BND_S_##id] = place,
#include "binding/request/strategies.def"
#undef BND_STRATEGY
};
#undef BND_PLACED_BY
#undef BND_PLACES_NOTHING

static int run_strategy(const struct bnd_topology *t, const struct bnd_domain *dom,
			const struct bnd_request *r, const struct bnd_units *u,
			struct bnd_pick *pick, char *err, size_t errlen)
{
	unsigned s = (unsigned)r->strategy;
	if (s >= BND_S_COUNT || !placers[s])
		return bnd_fail(err, errlen, BND_EINVAL, "internal error: strategy %u has no placement",
				s);
	return placers[s](t, dom, r, u, pick, err, errlen);
}

/* A strategy bug must never turn into a binding outside the domain. */
static int check_inside(const struct bnd_topology *t, const struct bnd_domain *dom,
			const struct bnd_pick *pick, char *err, size_t errlen)
{
	for (int i = 0; i < pick->off[pick->ngroups]; i++) {
		int pu = pick->pus[i];
		if (pu < 0 || pu >= t->npus || !bnd_pu_available(t, dom, pu))
			return bnd_fail(err, errlen, BND_EINVAL,
					"internal error: strategy picked cpu %d outside the free domain",
					pu >= 0 && pu < t->npus ? t->pu_os[pu] : pu);
	}
	return BND_OK;
}

static int fill_task(const struct bnd_topology *t, const struct bnd_pick *pick, int g0, int g1,
		     struct bnd_task_place *tp)
{
	int first = pick->off[g0], last = pick->off[g1];
	tp->cores = calloc((size_t)(last - first) + 1, sizeof(int));
	if (!tp->cores)
		return BND_ENOMEM;
	bnd_cpuset_zero(&tp->cpus);
	for (int i = first; i < last; i++) {
		int pu = pick->pus[i], core = t->pu_core[pu];
		bnd_cpuset_set(&tp->cpus, t->pu_os[pu]);
		bool seen = false;
		for (int k = 0; k < tp->ncores && !seen; k++)
			seen = tp->cores[k] == core;
		if (!seen)
			tp->cores[tp->ncores++] = core;
	}
	return BND_OK;
}

/* Each task's GPUs and how many of its cores are local to them; for a
 * GPU-aware request, why the first task that is not wholly local is not. */
static void note_gpus(const struct bnd_topology *t, const struct bnd_domain *dom,
		      const struct bnd_request *r, struct bnd_placement *out)
{
	bnd_cpuset_t earlier;
	out->near_note[0] = '\0';
	if (!dom || !dom->near) {
		for (int i = 0; i < out->ntasks; i++)
			out->tasks[i].nlocal = -1;
		return;
	}
	bnd_cpuset_zero(&earlier);
	for (int i = 0; i < out->ntasks; i++) {
		struct bnd_task_place *tp = &out->tasks[i];
		tp->gpus = bnd_near_gpus(dom, i);
		tp->nlocal = bnd_near_local(t, tp->gpus, tp->cores, tp->ncores);
		if (r->near_gpu && !out->near_note[0] && tp->nlocal >= 0 && tp->nlocal < tp->ncores)
			bnd_near_explain(t, dom, i, &earlier, tp->cores, tp->ncores, out->near_note,
					 sizeof(out->near_note));
		bnd_cpuset_or(&earlier, &tp->cpus);
	}
}

int bnd_place(const struct bnd_topology *t, const struct bnd_domain *dom,
	      const struct bnd_request *r, int ntasks, struct bnd_placement *out,
	      char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!t || !r || ntasks < 1)
		return bnd_fail(err, errlen, BND_EINVAL, "placement needs a topology, a request and >= 1 task");
	if (ntasks > BND_MAX_TASKS)
		return bnd_fail(err, errlen, BND_EINVAL, "%d tasks on one node: more than Slurm allows (%d)",
				ntasks, BND_MAX_TASKS);
	out->tasks = calloc((size_t)ntasks, sizeof(*out->tasks));
	if (!out->tasks)
		return bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	out->ntasks = ntasks;
	if (r->strategy == BND_S_NONE)
		return BND_OK;

	struct bnd_units u = { 0 };
	int rc = split_rule(r, ntasks, t->npus, &u, err, errlen);
	if (rc)
		goto fail;

	struct bnd_pick pick = { 0, calloc((size_t)t->npus + 2, sizeof(int)),
				 calloc((size_t)t->npus + 1, sizeof(int)) };
	if (!pick.off || !pick.pus) {
		rc = bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
		goto fail_pick;
	}
	rc = run_strategy(t, dom, r, &u, &pick, err, errlen);
	if (!rc)
		rc = check_inside(t, dom, &pick, err, errlen);
	if (!rc && pick.ngroups == 0)
		rc = bnd_fail(err, errlen, BND_ENOFIT, "no cores available");
	if (!rc && !u.shared && pick.ngroups != u.per_task * ntasks)
		rc = bnd_fail(err, errlen, BND_EINVAL,
			      "internal error: strategy picked %d units for %d tasks x %d",
			      pick.ngroups, ntasks, u.per_task);
	for (int i = 0; !rc && i < ntasks; i++) {
		int g0 = u.shared ? 0 : i * u.per_task;
		int g1 = u.shared ? pick.ngroups : g0 + u.per_task;
		rc = fill_task(t, &pick, g0, g1, &out->tasks[i]);
		if (rc)
			bnd_fail(err, errlen, rc, "out of memory");
		else
			bnd_cpuset_or(&out->all_cpus, &out->tasks[i].cpus);
	}
	if (!rc)
		note_gpus(t, dom, r, out);
fail_pick:
	free(pick.off);
	free(pick.pus);
	if (!rc)
		return BND_OK;
fail:
	bnd_placement_free(out);
	return rc;
}
