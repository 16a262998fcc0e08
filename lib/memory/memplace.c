/* Memory-aware placement (memplace.h): bnd_place() run against each NUMA
 * node's free memory. */
#include "binding/memory/memplace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"

static int overdrawn(const struct bnd_topology *t, const uint64_t *demand, const uint64_t *avail)
{
	for (int k = 0; k < t->nnuma; k++)
		if (demand[k] > avail[k])
			return 1;
	return 0;
}

static int finish(const struct bnd_topology *t, const struct bnd_placement *p,
		  const struct bnd_mem_request *m, struct bnd_mem_result *res, uint64_t *demand)
{
	bnd_mem_demand(t, p, m->mbind, m->mbind == BND_M_NLOCAL ? &res->nodes : NULL,
		       m->step_mib, demand);
	res->nshares = bnd_mem_shares(t, demand, res->shares,
				      (int)(sizeof(res->shares) / sizeof(res->shares[0])));
	return BND_OK;
}

/* Leaves out the cpus of node k that its free memory cannot back: the
 * tasks whose shares still fit (in task order) keep theirs, every other
 * cpu of the node goes into taken. Returns whether taken grew. */
static int exclude_over(const struct bnd_topology *t, const struct bnd_placement *p, int k,
			uint64_t share, uint64_t avail, bnd_cpuset_t *taken)
{
	bnd_cpuset_t keep, drop = t->numa_cpus[k];
	bnd_cpuset_zero(&keep);
	uint64_t sum = 0;
	for (int i = 0; i < p->ntasks; i++) {
		int nodes = 0, here = 0;
		bnd_cpuset_t seen;
		bnd_cpuset_zero(&seen);
		for (int c = 0; c < p->tasks[i].ncores; c++) {
			int n = t->cores[p->tasks[i].cores[c]].numa;
			if (n >= 0 && !bnd_cpuset_isset(&seen, n)) {
				bnd_cpuset_set(&seen, n);
				nodes++;
				here |= n == k;
			}
		}
		if (!here)
			continue;
		uint64_t part = (share + (uint64_t)nodes - 1) / (uint64_t)nodes;
		if (sum + part <= avail) {
			sum += part;
			bnd_cpuset_or(&keep, &p->tasks[i].cpus);
		}
	}
	bnd_cpuset_andnot(&drop, &keep);
	bnd_cpuset_t before = *taken;
	bnd_cpuset_or(taken, &drop);
	return !bnd_cpuset_equal(&before, taken);
}

/* cores / cores:strict / none: run the strategy, and while a node is
 * overdrawn, leave out its cpus beyond what its memory backs. Each round
 * takes at least one more cpu away, so this ends. *for_memory tells a
 * failure after such a round (memory is short) from one in the first
 * (the cores are, whatever the memory). */
static int place_fitting(const struct bnd_topology *t, const struct bnd_domain *dom,
			 const struct bnd_request *r, int ntasks, const struct bnd_mem_request *m,
			 struct bnd_placement *out, uint64_t *demand, int *for_memory,
			 char *err, size_t errlen)
{
	*for_memory = 0;
	bnd_cpuset_t taken;
	if (dom && dom->taken)
		taken = *dom->taken;
	else
		bnd_cpuset_zero(&taken);
	uint64_t share = bnd_mem_task_share(m->step_mib, ntasks);
	for (;;) {
		struct bnd_domain d = { dom ? dom->allowed : NULL, &taken, dom ? dom->near : NULL };
		int rc = bnd_place(t, &d, r, ntasks, out, err, errlen);
		if (rc)
			return rc;
		bnd_mem_demand(t, out, m->mbind, NULL, m->step_mib, demand);
		if (!overdrawn(t, demand, m->avail))
			return BND_OK;
		int grew = 0;
		for (int k = 0; k < t->nnuma; k++)
			if (demand[k] > m->avail[k])
				grew |= exclude_over(t, out, k, share, m->avail[k], &taken);
		if (!grew)
			for (int k = 0; k < t->nnuma; k++)
				if (demand[k] > m->avail[k])
					bnd_cpuset_or(&taken, &t->numa_cpus[k]);
		bnd_placement_free(out);
		*for_memory = 1;
	}
}

static void avail_text(const struct bnd_topology *t, const uint64_t *avail, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < t->nnuma && k + 32 < len; i++)
		if (!bnd_cpuset_empty(&t->numa_cpus[i]))
			k += (size_t)snprintf(buf + k, len - k, "%s%d:%" PRIu64, k ? "," : "",
					      t->numa_os[i], avail[i]);
}

/* The nodes nearest to seed (itself first), count of them, among nodes
 * with cpus; ties by NUMA index. */
static void nearest(const struct bnd_topology *t, int seed, int count, bnd_nodeset_t *set)
{
	bnd_nodeset_zero(set);
	for (int n = 0; n < count; n++) {
		int best = -1, bd = 0;
		for (int k = 0; k < t->nnuma; k++) {
			if (bnd_nodeset_isset(set, k) || bnd_cpuset_empty(&t->numa_cpus[k]))
				continue;
			int d = k == seed ? -1 : bnd_topology_numa_distance(t, seed, k);
			if (best < 0 || d < bd) {
				best = k;
				bd = d;
			}
		}
		if (best < 0)
			return;
		bnd_nodeset_set(set, best);
	}
}

static uint64_t sum_avail(const struct bnd_topology *t, const bnd_nodeset_t *set,
			  const uint64_t *avail)
{
	uint64_t s = 0;
	for (int k = 0; k < t->nnuma; k++)
		if (bnd_nodeset_isset(set, k))
			s += avail ? avail[k] : UINT64_MAX / 4096;
	return s;
}

/* Tries the request inside the cpus of the node set. */
static int try_nodes(const struct bnd_topology *t, const struct bnd_domain *dom,
		     const struct bnd_request *r, int ntasks, const bnd_nodeset_t *set,
		     struct bnd_placement *out)
{
	bnd_cpuset_t inside;
	bnd_cpuset_zero(&inside);
	for (int k = 0; k < t->nnuma; k++)
		if (bnd_nodeset_isset(set, k))
			bnd_cpuset_or(&inside, &t->numa_cpus[k]);
	if (dom && dom->allowed)
		bnd_cpuset_and(&inside, dom->allowed);
	struct bnd_domain d = { &inside, dom ? dom->taken : NULL, dom ? dom->near : NULL };
	char why[BND_ERRLEN];
	return bnd_place(t, &d, r, ntasks, out, why, sizeof(why));
}

/* One node holding the whole step: the one with the most free memory whose
 * cpus hold the step's cores. BND_OK with out filled, else nothing placed. */
static int nlocal_one_node(const struct bnd_topology *t, const struct bnd_domain *dom,
			   const struct bnd_request *r, int ntasks, const struct bnd_mem_request *m,
			   struct bnd_placement *out, bnd_nodeset_t *node)
{
	bnd_nodeset_t tried;
	bnd_nodeset_zero(&tried);
	for (;;) {
		int best = -1;
		for (int k = 0; k < t->nnuma; k++) {
			if (bnd_nodeset_isset(&tried, k) || bnd_cpuset_empty(&t->numa_cpus[k]))
				continue;
			uint64_t a = m->avail ? m->avail[k] : UINT64_MAX;
			if (a < m->step_mib)
				continue;
			if (best < 0 || a > (m->avail ? m->avail[best] : UINT64_MAX))
				best = k;
		}
		if (best < 0)
			return BND_ENOFIT;
		bnd_nodeset_set(&tried, best);
		bnd_nodeset_zero(node);
		bnd_nodeset_set(node, best);
		if (try_nodes(t, dom, r, ntasks, node, out) == BND_OK)
			return BND_OK;
	}
}

static long set_distance(const struct bnd_topology *t, const bnd_nodeset_t *set)
{
	long dist = 0;
	for (int a = 0; a < t->nnuma; a++)
		for (int b = 0; b < t->nnuma; b++)
			if (bnd_nodeset_isset(set, a) && bnd_nodeset_isset(set, b))
				dist += bnd_topology_numa_distance(t, a, b);
	return dist;
}

/* Of the sets of count nearest nodes that hold the step's cores: memory
 * that covers the step first, then the nearest set (smallest distance
 * sum). 0 when none holds them. */
static int nlocal_best_set(const struct bnd_topology *t, const struct bnd_domain *dom,
			   const struct bnd_request *r, int ntasks, const struct bnd_mem_request *m,
			   int count, bnd_nodeset_t *best, int *best_cover)
{
	int found = 0;
	long best_dist = 0;
	for (int seed = 0; seed < t->nnuma; seed++) {
		if (bnd_cpuset_empty(&t->numa_cpus[seed]))
			continue;
		bnd_nodeset_t set;
		nearest(t, seed, count, &set);
		struct bnd_placement p;
		if (try_nodes(t, dom, r, ntasks, &set, &p) != BND_OK)
			continue;
		bnd_placement_free(&p);
		int cover = sum_avail(t, &set, m->avail) >= m->step_mib;
		long dist = set_distance(t, &set);
		if (!found || cover > *best_cover || (cover == *best_cover && dist < best_dist)) {
			found = 1;
			*best = set;
			*best_cover = cover;
			best_dist = dist;
		}
	}
	return found;
}

static int place_nlocal(const struct bnd_topology *t, const struct bnd_domain *dom,
			const struct bnd_request *given, int ntasks,
			const struct bnd_mem_request *m, struct bnd_placement *out,
			struct bnd_mem_result *res, uint64_t *demand, char *err, size_t errlen)
{
	struct bnd_request lin;
	const struct bnd_request *r = bnd_request_cores(given, &lin);
	bnd_nodeset_t one;
	if (nlocal_one_node(t, dom, r, ntasks, m, out, &one) == BND_OK) {
		res->nodes = one;
		res->bind = 1;
		return finish(t, out, m, res, demand);
	}
	/* The fewest nodes, nearest by distance. */
	for (int count = 1; count <= t->nnuma; count++) {
		bnd_nodeset_t best;
		int cover = 0;
		if (nlocal_best_set(t, dom, r, ntasks, m, count, &best, &cover) &&
		    try_nodes(t, dom, r, ntasks, &best, out) == BND_OK) {
			res->nodes = best;
			res->bind = cover;
			return finish(t, out, m, res, demand);
		}
	}
	return bnd_fail(err, errlen, BND_ENOFIT,
			"--mbind=nlocal: %s for %d task(s) fits on no set of NUMA nodes",
			r->text, ntasks);
}

int bnd_place_mem(const struct bnd_topology *t, const struct bnd_domain *dom,
		  const struct bnd_request *r, int ntasks, const struct bnd_mem_request *m,
		  struct bnd_placement *out, struct bnd_mem_result *res,
		  char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	memset(out, 0, sizeof(*out));
	if (!t || !r || !m)
		return bnd_fail(err, errlen, BND_EINVAL, "memory placement: missing arguments");
	uint64_t *demand = calloc((size_t)(t->nnuma ? t->nnuma : 1), sizeof(*demand));
	if (!demand)
		return bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	int rc;
	if (m->mbind == BND_M_NLOCAL) {
		rc = place_nlocal(t, dom, r, ntasks, m, out, res, demand, err, errlen);
		goto done;
	}
	/* round_robin and gpu name nodes the cores do not choose. */
	int steer = m->step_mib && m->avail && r->strategy != BND_S_NONE &&
		    m->mbind != BND_M_ROUND_ROBIN && m->mbind != BND_M_GPU;
	if (steer) {
		char why[BND_ERRLEN];
		int for_memory;
		rc = place_fitting(t, dom, r, ntasks, m, out, demand, &for_memory, why, sizeof(why));
		/* Cores too few whatever the memory: the strategy's own reason. */
		if (rc == BND_OK || rc != BND_ENOFIT || !for_memory) {
			if (rc == BND_OK)
				finish(t, out, m, res, demand);
			else
				bnd_fail(err, errlen, rc, "%s", why);
			goto done;
		}
		if (m->mbind == BND_M_CORES_STRICT) {
			char free_text[512];
			avail_text(t, m->avail, free_text, sizeof(free_text));
			rc = bnd_fail(err, errlen, BND_ENOFIT,
				      "--mbind=cores:strict: %s for %d task(s) of %" PRIu64
				      " MiB each: no placement whose NUMA nodes have the memory "
				      "(free MiB per node: %s)", r->text, ntasks,
				      bnd_mem_task_share(m->step_mib, ntasks), free_text);
			goto done;
		}
	}
	/* Memory does not block: the plain placement. */
	rc = bnd_place(t, dom, r, ntasks, out, err, errlen);
	if (rc == BND_OK)
		finish(t, out, m, res, demand);
done:
	free(demand);
	return rc;
}

void bnd_mem_os_nodes(const struct bnd_topology *t, const struct bnd_mem_result *res,
		      bnd_nodeset_t *os)
{
	bnd_nodeset_zero(os);
	for (int k = 0; k < t->nnuma; k++)
		if (bnd_nodeset_isset(&res->nodes, k))
			bnd_nodeset_set(os, t->numa_os[k]);
}

void bnd_mem_nodes_text(const struct bnd_topology *t, const struct bnd_mem_result *res,
			char *buf, size_t len)
{
	bnd_nodeset_t os;
	bnd_mem_os_nodes(t, res, &os);
	if (bnd_nodeset_format_list(&os, buf, len) != BND_OK && len)
		buf[0] = '\0';
}
