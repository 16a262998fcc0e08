/* "Next to its GPUs" (near.h): the rank of a core for a task, and the
 * words that say where a task's cores went when not all are local. */
#include "binding/placement/near.h"

#include <stdio.h>
#include <string.h>

#include "binding/topology/topogpu.h"
#include "binding/util/error.h"

uint64_t bnd_near_gpus(const struct bnd_domain *dom, int task)
{
	if (!dom || !dom->near || !dom->near->gpus || task < 0 || task >= dom->near->ntasks)
		return 0;
	return dom->near->gpus[task];
}

static int has(uint64_t gpus, int g)
{
	return g < 64 && (gpus >> g) & 1;
}

static int local_to(const struct bnd_topology *t, uint64_t gpus, int core)
{
	for (int g = 0; g < t->ngpus; g++)
		if (has(gpus, g) && core >= t->gpus[g].core_first &&
		    core < t->gpus[g].core_first + t->gpus[g].core_count)
			return 1;
	return 0;
}

void bnd_near_ctx_init(const struct bnd_topology *t, uint64_t gpus, struct bnd_near_ctx *c)
{
	bnd_nodeset_t n;
	c->gpus = gpus;
	c->nranges = 0;
	c->nnodes = 0;
	for (int g = 0; g < t->ngpus && g < BND_MAX_GPUS; g++)
		if (has(gpus, g)) {
			c->first[c->nranges] = t->gpus[g].core_first;
			c->count[c->nranges++] = t->gpus[g].core_count;
		}
	bnd_near_numa(t, gpus, &n);
	for (int k = bnd_nodeset_next(&n, -1); k >= 0 && c->nnodes < BND_MAX_GPUS;
	     k = bnd_nodeset_next(&n, k))
		c->nodes[c->nnodes++] = k;
}

int bnd_near_ctx_rank(const struct bnd_topology *t, const struct bnd_near_ctx *c, int core)
{
	if (!c->gpus)
		return 0;
	for (int i = 0; i < c->nranges; i++)
		if (core >= c->first[i] && core < c->first[i] + c->count[i])
			return 0;
	int n = t->cores[core].numa, best = BND_NEAR_FAR;
	for (int i = 0; n >= 0 && i < c->nnodes; i++) {
		int d = bnd_topology_numa_distance(t, c->nodes[i], n);
		if (d < best)
			best = d;
	}
	return best < 1 ? 1 : best;
}

int bnd_near_rank(const struct bnd_topology *t, uint64_t gpus, int core)
{
	struct bnd_near_ctx c;
	bnd_near_ctx_init(t, gpus, &c);
	return bnd_near_ctx_rank(t, &c, core);
}

void bnd_near_numa(const struct bnd_topology *t, uint64_t gpus, bnd_nodeset_t *out)
{
	bnd_nodeset_zero(out);
	for (int g = 0; g < t->ngpus; g++)
		if (has(gpus, g))
			bnd_nodeset_or(out, &t->gpu_numa[g]);
}

void bnd_near_host_numa(const struct bnd_topology *t, uint64_t gpus, bnd_nodeset_t *out)
{
	bnd_nodeset_zero(out);
	for (int g = 0; g < t->ngpus; g++) {
		if (!has(gpus, g))
			continue;
		const struct bnd_gpu *d = &t->gpus[g];
		for (int c = d->core_first; c < d->core_first + d->core_count; c++)
			if (t->cores[c].numa >= 0)
				bnd_nodeset_set(out, t->cores[c].numa);
	}
}

void bnd_near_labels(const struct bnd_topology *t, uint64_t gpus, char *buf, size_t len)
{
	size_t used = 0;
	if (!len)
		return;
	buf[0] = '\0';
	for (int g = 0; g < t->ngpus; g++) {
		char l[BND_GPU_LABEL_LEN];
		if (!has(gpus, g))
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
				 bnd_gpu_label(t, g, l, sizeof(l)));
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

int bnd_near_local(const struct bnd_topology *t, uint64_t gpus, const int *cores, int ncores)
{
	if (!gpus)
		return -1;
	int n = 0;
	for (int i = 0; i < ncores; i++)
		n += local_to(t, gpus, cores[i]);
	return n;
}

/* Where the GPUs' local cores are: outside what Slurm gave the step,
 * held by other jobs (or the site), or taken by the step's earlier tasks. */
struct whereabouts {
	int local, outside, held, earlier;
	bnd_cpuset_t cpus;
};

static void locate(const struct bnd_topology *t, const struct bnd_domain *dom, uint64_t gpus,
		   const bnd_cpuset_t *earlier, struct whereabouts *w)
{
	memset(w, 0, sizeof(*w));
	for (int c = 0; c < t->ncores; c++) {
		if (!local_to(t, gpus, c))
			continue;
		const struct bnd_core *k = &t->cores[c];
		int out = 0, held = 0, mine = 0;
		for (int p = k->pu_first; p < k->pu_first + k->npus; p++) {
			int os = t->pu_os[p];
			bnd_cpuset_set(&w->cpus, os);
			out |= dom && dom->allowed && !bnd_cpuset_isset(dom->allowed, os);
			held |= dom && dom->taken && bnd_cpuset_isset(dom->taken, os);
			mine |= earlier && bnd_cpuset_isset(earlier, os);
		}
		w->local++;
		w->outside += out;
		w->held += !out && held;
		w->earlier += !out && !held && mine;
	}
}

void bnd_near_explain(const struct bnd_topology *t, const struct bnd_domain *dom, int task,
		      const bnd_cpuset_t *earlier, const int *cores, int ncores, char *buf,
		      size_t len)
{
	uint64_t gpus = bnd_near_gpus(dom, task);
	int nlocal = bnd_near_local(t, gpus, cores, ncores);
	if (!len)
		return;
	buf[0] = '\0';
	if (nlocal < 0 || nlocal == ncores)
		return;
	struct whereabouts w;
	char labels[256], list[BND_CPULIST_TEXT];
	locate(t, dom, gpus, earlier, &w);
	bnd_near_labels(t, gpus, labels, sizeof(labels));
	if (bnd_cpuset_format_list(&w.cpus, list, sizeof(list)) != BND_OK)
		snprintf(list, sizeof(list), "...");
	int far = 0;
	for (int i = 0; i < ncores; i++) {
		int r = bnd_near_rank(t, gpus, cores[i]);
		if (r > far)
			far = r;
	}
	snprintf(buf, len, "task %d: %s has %d local core%s (cpus %s): %d held by other jobs, "
		 "%d outside this step's cpus, %d taken by its earlier tasks; %d of its %d cores "
		 "are elsewhere, the farthest at NUMA distance %d", task, labels, w.local,
		 w.local == 1 ? "" : "s", list, w.held, w.outside, w.earlier, ncores - nlocal, ncores,
		 far);
}
