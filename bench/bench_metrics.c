/* What metrics_file= adds to a change of the state: after each transaction
 * that wrote, the step writes the node's metrics (report/metrics.h: take
 * the metrics lock, read the state, format, replace the file). Measured
 * interleaved with the anchor, the state transaction itself (half an
 * allocate + release pair, as a launch makes it), on a 256-PU topology at
 * 10 and 1000 records, in $BINDING_BENCH_DIR (default /dev/shm: a tmpfs,
 * as /run). Also the formatting alone (sbind metrics, the timer's cost).
 * Figures are reported, never asserted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/report/metrics.h"
#include "binding/request/request.h"
#include "binding/state/state.h"
#include "binding/topology/topology.h"
#include "binding/util/error.h"
#include "bench.h"

#define TOPO "pack:4 core:32 pu:2"

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

/* nrec records of other jobs (this process owns them): a core each for
 * the first 64 (half the node), the rest refused (unbound records, which
 * hold nothing), so the measured step always finds a core. */
static int fill(const struct bnd_state_opts *o, const struct bnd_topology *t,
		const struct bnd_request *r, int nrec)
{
	char err[BND_ERRLEN];
	for (int i = 0; i < nrec; i++) {
		struct bnd_alloc_args a = { .job = 1000 + (uint32_t)i, .ntasks = 1 };
		struct bnd_placement p;
		struct bnd_state_refusal rf = { &a, "linear:1", BND_R_HELD_BY_OTHER_JOBS,
						BND_FB_UNBOUND, "held" };
		if (i >= 64 ? bnd_state_refuse(o, &rf, err, sizeof(err))
			    : bnd_state_allocate(o, t, r, &a, &p, err, sizeof(err)))
			return -1;
		if (i < 64)
			bnd_placement_free(&p);
	}
	return 0;
}

static int one_case(const char *root, const struct bnd_topology *t, const struct bnd_request *r,
		    int nrec, int rounds)
{
	char base[256], dir[300], prom[300], err[BND_ERRLEN] = "";
	snprintf(base, sizeof(base), "%s/bnd-metrics-XXXXXX", root);
	if (!mkdtemp(base) || chmod(base, 0755))
		return -1;
	snprintf(dir, sizeof(dir), "%s/st", base);
	snprintf(prom, sizeof(prom), "%s/node.prom", base);
	struct bnd_state_opts o = { .dir = dir };
	double *txn = calloc((size_t)rounds, sizeof(double)), *upd = calloc((size_t)rounds, sizeof(double));
	double *fmt = calloc((size_t)rounds, sizeof(double));
	int rc = -1;
	if (!txn || !upd || !fmt || fill(&o, t, r, nrec))
		goto out;
	for (int i = 0; i < rounds; i++) {
		struct bnd_alloc_args a = { .job = 1, .step = (uint32_t)i, .ntasks = 1 };
		struct bnd_placement p;
		double t0 = bench_now_us();
		if (bnd_state_allocate(&o, t, r, &a, &p, err, sizeof(err)) == BND_OK)
			bnd_placement_free(&p);
		if (bnd_state_release(&o, 1, (uint32_t)i, NULL, err, sizeof(err)))
			goto out;
		double t1 = bench_now_us();
		if (bnd_metrics_update(dir, prom, t, NULL, NULL, NULL, err, sizeof(err)))
			goto out;
		double t2 = bench_now_us();
		struct bnd_state_file f;
		if (bnd_state_list(&o, &f, err, sizeof(err)))
			goto out;
		struct bnd_metrics_in in = { t, &f, NULL, 1, 1 };
		char *text;
		size_t len;
		double t3 = bench_now_us();
		if (bnd_metrics_format(&in, &text, &len, err, sizeof(err)))
			goto out;
		fmt[i] = bench_now_us() - t3;
		free(text);
		bnd_statefile_free(&f);
		txn[i] = (t1 - t0) / 2;
		upd[i] = t2 - t1;
	}
	double mt = median(txn, rounds), mu = median(upd, rounds), mf = median(fmt, rounds);
	printf("metrics, %4d records, %s: transaction %7.1f us; metrics_file write %7.1f us "
	       "(ratio %.2f to the transaction); formatting alone %7.1f us  (%d rounds)\n", nrec,
	       root, mt, mu, mu / mt, mf, rounds);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "bench_metrics: %d records: %s\n", nrec, err);
	free(txn);
	free(upd);
	free(fmt);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		rc = -1;
	return rc;
}

int main(void)
{
	struct bnd_topology *t = NULL;
	struct bnd_request r;
	char err[BND_ERRLEN] = "";
	if (bnd_topology_load(&t, TOPO, err, sizeof(err)) ||
	    bnd_request_parse(&r, "linear:1", err, sizeof(err))) {
		fprintf(stderr, "bench_metrics: %s\n", err);
		return 1;
	}
	const char *root = getenv("BINDING_BENCH_DIR");
	if (!root || !*root)
		root = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	printf("bench_metrics: %s (%d PUs), request linear:1\n", TOPO, t->npus);
	int rc = one_case(root, t, &r, 10, 400) | one_case(root, t, &r, 1000, 40);
	bnd_topology_free(t);
	return rc ? 1 : 0;
}
