/* Per-NUMA-node memory accounting (memacct.h). */
#include "binding/memory/memacct.h"

#include <stdlib.h>
#include <string.h>

#include "binding/placement/near.h"
#include "binding/util/error.h"

void bnd_mem_capacity(const struct bnd_topology *t, const struct bnd_mem_reserve *r,
		      uint64_t *cap)
{
	for (int i = 0; i < t->nnuma; i++) {
		uint64_t total = t->numa_mem[i] >> 20;
		uint64_t keep = !r ? 0 : r->percent > 0 ? total * (uint64_t)r->percent / 100 : r->mib;
		cap[i] = total > keep ? total - keep : 0;
	}
}

void bnd_mem_add(const struct bnd_topology *t, const struct bnd_mem_share *s, int n,
		 uint64_t *used)
{
	for (int i = 0; i < n; i++) {
		int k = bnd_topology_numa_index(t, s[i].node);
		if (k >= 0)
			used[k] += s[i].mib;
	}
}

void bnd_mem_free(const struct bnd_topology *t, const uint64_t *cap, const uint64_t *used,
		  uint64_t *avail)
{
	for (int i = 0; i < t->nnuma; i++)
		avail[i] = cap[i] > used[i] ? cap[i] - used[i] : 0;
}

uint64_t bnd_mem_task_share(uint64_t step_mib, int ntasks)
{
	if (ntasks < 1)
		ntasks = 1;
	return (step_mib + (uint64_t)ntasks - 1) / (uint64_t)ntasks;
}

/* Spreads mib evenly over the set nodes (NUMA indices); the remainder goes
 * to the first ones so nothing is lost. */
static void spread(const struct bnd_topology *t, const bnd_nodeset_t *nodes, uint64_t mib,
		   uint64_t *demand)
{
	int k = 0;
	for (int i = 0; i < t->nnuma; i++)
		k += bnd_nodeset_isset(nodes, i);
	if (!k)
		return;
	uint64_t each = mib / (uint64_t)k, rest = mib % (uint64_t)k;
	for (int i = 0; i < t->nnuma; i++)
		if (bnd_nodeset_isset(nodes, i)) {
			demand[i] += each + (rest ? 1 : 0);
			if (rest)
				rest--;
		}
}

/* NUMA indices local to the cpus (each cpu's nearest node). */
static void local_nodes(const struct bnd_topology *t, const bnd_cpuset_t *cpus, bnd_nodeset_t *out)
{
	bnd_nodeset_zero(out);
	for (int p = 0; p < t->npus; p++)
		if (bnd_cpuset_isset(cpus, t->pu_os[p]) && t->cores[t->pu_core[p]].numa >= 0)
			bnd_nodeset_set(out, t->cores[t->pu_core[p]].numa);
}

/* The same from the task's cores (placement knows them): no scan of every
 * PU, which matters on 1000-PU nodes where placement runs in microseconds. */
static void task_nodes(const struct bnd_topology *t, const struct bnd_task_place *tp,
		       bnd_nodeset_t *out)
{
	if (!tp->ncores) {
		/* An unbound task: its memory lands anywhere; count it on every
		 * node with cpus so no node looks emptier than it is. */
		local_nodes(t, &t->all_cpus, out);
		return;
	}
	bnd_nodeset_zero(out);
	for (int c = 0; c < tp->ncores; c++)
		if (t->cores[tp->cores[c]].numa >= 0)
			bnd_nodeset_set(out, t->cores[tp->cores[c]].numa);
}

void bnd_mem_demand(const struct bnd_topology *t, const struct bnd_placement *p,
		    enum bnd_mbind m, const bnd_nodeset_t *nodes, uint64_t step_mib,
		    uint64_t *demand)
{
	memset(demand, 0, (size_t)t->nnuma * sizeof(*demand));
	if (!step_mib || !p || p->ntasks < 1)
		return;
	uint64_t share = bnd_mem_task_share(step_mib, p->ntasks);
	bnd_nodeset_t where, one;
	if (m == BND_M_NLOCAL && nodes) {
		spread(t, nodes, share * (uint64_t)p->ntasks, demand);
		return;
	}
	if (m == BND_M_ROUND_ROBIN) {
		bnd_nodeset_zero(&where);
		for (int i = 0; i < p->ntasks; i++) {
			task_nodes(t, &p->tasks[i], &one);
			bnd_nodeset_or(&where, &one);
		}
		spread(t, &where, share * (uint64_t)p->ntasks, demand);
		return;
	}
	for (int i = 0; i < p->ntasks; i++) {
		if (m == BND_M_GPU && p->tasks[i].gpus)
			bnd_near_host_numa(t, p->tasks[i].gpus, &where);
		else
			task_nodes(t, &p->tasks[i], &where);
		spread(t, &where, share, demand);
	}
}

int bnd_mem_shares(const struct bnd_topology *t, const uint64_t *demand,
		   struct bnd_mem_share *out, int max)
{
	int n = 0;
	/* Ascending OS node id: one canonical text for the state file. */
	for (int os = 0, left = t->nnuma; left > 0 && os < BND_MAX_CPUS; os++) {
		int k = bnd_topology_numa_index(t, os);
		if (k < 0)
			continue;
		left--;
		if (demand[k] && n < max) {
			out[n].node = os;
			out[n].mib = demand[k];
			n++;
		}
	}
	return n;
}
