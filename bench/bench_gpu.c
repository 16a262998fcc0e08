/* GPU-aware placement (placement/near.h, strategy_gpu.c) against plain
 * placement of as many cores on the same topology, measured in the same
 * run: medians of single bnd_place calls, and their ratio. Topologies: a
 * 1024-PU node (synthetic pack:2 numa:8 core:32 pu:2, 16 NUMA nodes) with
 * 16 GPUs, one attached to each NUMA node as hwloc reports a DGX or a
 * Trento's (a synthetic topology has no I/O, so the GPUs are added to the
 * flattened topology here); and the real DGX-2H XML (96 PUs, 16 V100s)
 * when $BINDING_TOPOLOGIES has it. 16 tasks, each with its own GPU.
 * Figures only, never asserted (goal: <= 10 us median at 1024 PUs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/placement/place.h"
#include "binding/topology/topogpu.h"
#include "binding/topology/topology.h"
#include "binding/util/error.h"
#include "bench.h"

#define SAMPLES 2001
#define TASKS 16

static double median(const struct bnd_topology *t, const struct bnd_domain *d, const char *req)
{
	static double s[SAMPLES];
	struct bnd_request r;
	char err[BND_ERRLEN];
	if (bnd_request_parse(&r, req, err, sizeof(err)) != BND_OK) {
		fprintf(stderr, "bench_gpu: %s\n", err);
		return -1;
	}
	for (int i = 0; i < SAMPLES; i++) {
		struct bnd_placement p;
		double t0 = bench_now_us();
		int rc = bnd_place(t, d, &r, TASKS, &p, err, sizeof(err));
		s[i] = bench_now_us() - t0;
		if (rc != BND_OK) {
			fprintf(stderr, "bench_gpu: %s: %s\n", req, err);
			return -1;
		}
		bnd_placement_free(&p);
	}
	qsort(s, SAMPLES, sizeof(s[0]), bench_cmp_double);
	return s[SAMPLES / 2];
}

/* One GPU per NUMA node, local to that node's cores. */
static int attach_gpus(struct bnd_topology *t)
{
	t->gpus = calloc(BND_MAX_GPUS, sizeof(*t->gpus));
	if (!t->gpus)
		return BND_ENOMEM;
	for (int k = 0; k < t->nnuma && t->ngpus < BND_MAX_GPUS; k++) {
		struct bnd_gpu *g = &t->gpus[t->ngpus];
		int first = -1, n = 0;
		for (int c = 0; c < t->ncores; c++)
			if (t->cores[c].numa == k) {
				first = first < 0 ? c : first;
				n++;
			}
		snprintf(g->busid, sizeof(g->busid), "0000:%02x:00.0", 0x10 + t->ngpus);
		snprintf(g->names, sizeof(g->names), "nvml%d", t->ngpus);
		g->vendor = 0x10de;
		g->device = 0x1db8;
		g->pci_class = 0x0302;
		g->compute = 1;
		g->core_first = first < 0 ? 0 : first;
		g->core_count = n;
		g->mem_numa = -1;
		t->ngpus++;
	}
	return bnd_topogpu_fill_sets(t);
}

static void run(const char *label, struct bnd_topology *t, int amount, int busy_too)
{
	char plain_req[32], gpu_req[32], packed_req[32];
	snprintf(plain_req, sizeof(plain_req), "linear:%d", amount);
	snprintf(gpu_req, sizeof(gpu_req), "gpu:%d", amount);
	snprintf(packed_req, sizeof(packed_req), "packed:%d:near=gpu", amount);
	uint64_t gpus[TASKS];
	for (int i = 0; i < TASKS; i++)
		gpus[i] = 1ull << (i % t->ngpus);
	struct bnd_near near = { TASKS, gpus };
	struct bnd_domain none = { NULL, NULL, NULL }, with = { NULL, NULL, &near };
	/* Every other GPU's node with all but two of its cores held: those
	 * tasks get two local cores and the others by distance. */
	bnd_cpuset_t taken;
	bnd_cpuset_zero(&taken);
	for (int g = 1; busy_too && g < t->ngpus; g += 2) {
		const struct bnd_gpu *d = &t->gpus[g];
		for (int c = d->core_first + 2; c < d->core_first + d->core_count; c++) {
			bnd_cpuset_t one;
			bnd_topology_core_cpus(t, c, &one);
			bnd_cpuset_or(&taken, &one);
		}
	}
	struct bnd_domain busy = { NULL, &taken, &near };
	double plain = median(t, &none, plain_req);
	double gpu = median(t, &with, gpu_req);
	double packed = median(t, &with, packed_req);
	printf("bench_gpu: %s (%d PUs, %d NUMA nodes, %d GPUs), %d tasks x %d cores, each "
	       "next to its own GPU:\n"
	       "  plain %-28s %7.2f us median\n"
	       "  %-34s %7.2f us median  (%.1fx the anchor)\n"
	       "  %-34s %7.2f us median  (%.1fx the anchor)\n",
	       label, t->npus, t->nnuma, t->ngpus, TASKS, amount, plain_req, plain, gpu_req, gpu,
	       gpu / plain, packed_req, packed, packed / plain);
	if (!busy_too)
		return;
	double far = median(t, &busy, gpu_req);
	double pfar = median(t, &busy, packed_req);
	printf("  half the GPUs' nodes held but 2 cores each (those tasks: 2 local, %d by distance):\n"
	       "  %-34s %7.2f us median  (%.1fx the anchor)\n"
	       "  %-34s %7.2f us median  (%.1fx the anchor)\n",
	       amount - 2, gpu_req, far, far / plain, packed_req, pfar, pfar / plain);
}

int main(void)
{
	struct bnd_topology *t;
	char err[BND_ERRLEN], path[4096];
	if (bnd_topology_load(&t, "pack:2 numa:8 core:32 pu:2", err, sizeof(err)) != BND_OK ||
	    attach_gpus(t) != BND_OK) {
		fprintf(stderr, "bench_gpu: %s\n", err);
		return 1;
	}
	run("synthetic pack:2 numa:8 core:32 pu:2 + 16 GPUs", t, 4, 1);
	bnd_topology_free(t);
	const char *dir = getenv("BINDING_TOPOLOGIES");
	snprintf(path, sizeof(path), "%s/NVIDIA-DGX2H-2pa24co+16nvml+1nvswitch+10ib.xml",
		 dir ? dir : ".");
	if (!dir || access(path, R_OK) || bnd_topology_load(&t, path, err, sizeof(err)) != BND_OK) {
		printf("bench_gpu: DGX-2H XML skipped ($BINDING_TOPOLOGIES has no %s)\n", path);
		return 0;
	}
	/* Its 16 V100s (the ASPEED VGA is not one). */
	int k = 0;
	for (int g = 0; g < t->ngpus; g++)
		if (t->gpus[g].compute)
			t->gpus[k++] = t->gpus[g];
	t->ngpus = k;
	if (bnd_topogpu_fill_sets(t) == BND_OK)
		run("NVIDIA-DGX2H XML", t, 3, 0);
	bnd_topology_free(t);
	return 0;
}
