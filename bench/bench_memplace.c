/* Memory-aware placement (memory/memplace.h) against plain placement of the
 * same request on the same topology, measured in the same run: medians of
 * single calls, and their ratio. Topologies: the 384-PU Zen5 XML (when
 * $BINDING_TOPOLOGIES has it) and a 1024-PU synthetic one with 16 NUMA
 * nodes. Figures only, never asserted (goal: <= 10 us median). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/memory/memplace.h"
#include "binding/topology/topology.h"
#include "bench.h"

#define SAMPLES 2001

/* Median microseconds of one call; mem NULL = plain bnd_place. */
static double median(const struct bnd_topology *t, const struct bnd_request *r, int ntasks,
		     const struct bnd_mem_request *mem)
{
	static double s[SAMPLES];
	char err[BND_ERRLEN];
	for (int i = 0; i < SAMPLES; i++) {
		struct bnd_placement p;
		struct bnd_mem_result res;
		double t0 = bench_now_us();
		int rc = mem ? bnd_place_mem(t, NULL, r, ntasks, mem, &p, &res, err, sizeof(err))
			     : bnd_place(t, NULL, r, ntasks, &p, err, sizeof(err));
		s[i] = bench_now_us() - t0;
		if (rc != BND_OK) {
			fprintf(stderr, "bench_memplace: %s\n", err);
			return -1;
		}
		bnd_placement_free(&p);
	}
	qsort(s, SAMPLES, sizeof(s[0]), bench_cmp_double);
	return s[SAMPLES / 2];
}

static void run(const char *label, const char *src)
{
	struct bnd_topology *t;
	char err[BND_ERRLEN];
	if (bnd_topology_load(&t, src, err, sizeof(err)) != BND_OK) {
		printf("bench_memplace: %s: skipped (%s)\n", label, err);
		return;
	}
	struct bnd_request r;
	bnd_request_parse(&r, "linear:4", err, sizeof(err));
	uint64_t *avail = calloc((size_t)t->nnuma, sizeof(*avail));
	for (int k = 0; k < t->nnuma; k++)
		avail[k] = 64 * 1024;
	/* The first node backs one task only: strict must leave its other
	 * cores out and run the strategy again. */
	avail[t->cores[0].numa] = 3 * 1024;
	struct bnd_mem_request strict = { BND_M_CORES_STRICT, 4 * 8 * 1024, avail };
	struct bnd_mem_request nlocal = { BND_M_NLOCAL, 4 * 8 * 1024, avail };
	double plain = median(t, &r, 4, NULL);
	double ms = median(t, &r, 4, &strict);
	double mn = median(t, &r, 4, &nlocal);
	printf("bench_memplace: %s (%d PUs, %d NUMA nodes), 4 tasks x linear:4, 8 GiB each:\n"
	       "  plain bnd_place (anchor)   %7.2f us median\n"
	       "  cores:strict, one retry    %7.2f us median  (%.1fx the anchor)\n"
	       "  nlocal                     %7.2f us median  (%.1fx the anchor)\n",
	       label, t->npus, t->nnuma, plain, ms, ms / plain, mn, mn / plain);
	free(avail);
	bnd_topology_free(t);
}

int main(void)
{
	const char *dir = getenv("BINDING_TOPOLOGIES");
	char path[4096];
	snprintf(path, sizeof(path), "%s/AMD-Epyc-Zen5-c4d-highmem-384.xml", dir ? dir : ".");
	if (dir && access(path, R_OK) == 0)
		run("AMD-Epyc-Zen5-c4d-highmem-384.xml", path);
	else
		printf("bench_memplace: 384-PU XML skipped ($BINDING_TOPOLOGIES has no %s)\n", path);
	run("synthetic pack:4 numa:4 core:32 pu:2", "pack:4 numa:4 core:32 pu:2");
	return 0;
}
