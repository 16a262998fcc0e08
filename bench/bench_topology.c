/* Per-load cost of the node topology: hwloc discovery (or XML parsing) and
 * flattening, against reading the per-boot cache (boot id check, file
 * read, validation) that job steps use. Figures only, never asserted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/topology/topocache.h"
#include "binding/topology/topology.h"
#include "../tests/unit/testtopo.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per call, repeating for about `budget` seconds (at least 3). */
static double per_call(int (*fn)(const char *), const char *arg, double budget)
{
	int n = 0;
	double t0 = now(), t;
	do {
		if (fn(arg) != BND_OK)
			return -1;
		n++;
		t = now() - t0;
	} while (n < 3 || (t < budget && n < 100000));
	return t / n;
}

static int hwloc_load(const char *src)
{
	struct bnd_topology *t;
	char err[BND_ERRLEN];
	int rc = bnd_topology_load(&t, src, err, sizeof(err));
	if (rc != BND_OK)
		fprintf(stderr, "bench_topology: %s\n", err);
	bnd_topology_free(t);
	return rc;
}

static int cache_dir_load(const char *dir)
{
	struct bnd_topology *t;
	char err[BND_ERRLEN], note[BND_ERRLEN];
	int rc = bnd_topocache_load_note(&t, dir, note, sizeof(note), err, sizeof(err));
	if (rc == BND_OK && strncmp(note, "cache hit", 9)) {
		fprintf(stderr, "bench_topology: cache not used: %s\n", note);
		rc = BND_ESTATE;
	}
	bnd_topology_free(t);
	return rc;
}

static int cache_file_read(const char *path)
{
	struct bnd_topology *t;
	char err[BND_ERRLEN];
	int rc = bnd_topocache_read(&t, path, NULL, err, sizeof(err));
	if (rc != BND_OK)
		fprintf(stderr, "bench_topology: %s\n", err);
	bnd_topology_free(t);
	return rc;
}

static void report(const char *name, int npus, double hw, double cache)
{
	if (hw < 0 || cache < 0) {
		printf("topology %s: failed\n", name);
		return;
	}
	printf("topology %s (%d PUs): hwloc %.2f ms/load, cache %.1f us/load, ratio %.0fx\n",
	       name, npus, hw * 1e3, cache * 1e6, hw / cache);
}

int main(void)
{
	char dir[] = "/tmp/bnd-bench-topo-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char path[256], err[BND_ERRLEN];
	snprintf(path, sizeof(path), "%s/%s", dir, BND_TOPOCACHE_FILE);
	int rc = 0;

	struct bnd_topology *t;
	if (bnd_topology_load(&t, NULL, err, sizeof(err)) != BND_OK) {
		fprintf(stderr, "bench_topology: %s\n", err);
		rc = 1;
	} else {
		int npus = t->npus;
		bnd_topology_free(t);
		/* The first load builds the cache. */
		if (bnd_topocache_load(&t, dir, err, sizeof(err)) == BND_OK)
			bnd_topology_free(t);
		double hw = per_call(hwloc_load, NULL, 0.5);
		double c = per_call(cache_dir_load, dir, 0.3);
		report("this-machine", npus, hw, c);
	}

	const char *topos = getenv("BINDING_TOPOLOGIES");
	char xml[4096];
	snprintf(xml, sizeof(xml), "%s/AMD-Epyc-Zen5-c4d-highmem-384.xml", topos ? topos : ".");
	if (!topos || access(xml, R_OK) != 0) {
		printf("topology 384-PU XML: skipped (%s absent)\n", xml);
	} else if (bnd_topology_load(&t, xml, err, sizeof(err)) != BND_OK) {
		fprintf(stderr, "bench_topology: %s\n", err);
		rc = 1;
	} else {
		int npus = t->npus;
		int w = tu_cache_write(t, path, NULL, err, sizeof(err));
		bnd_topology_free(t);
		if (w != BND_OK) {
			fprintf(stderr, "bench_topology: %s\n", err);
			rc = 1;
		} else {
			double hw = per_call(hwloc_load, xml, 0.5);
			double c = per_call(cache_file_read, path, 0.3);
			report("AMD-Epyc-Zen5-c4d-highmem-384.xml", npus, hw, c);
		}
	}
	unlink(path);
	rmdir(dir);
	return rc;
}
