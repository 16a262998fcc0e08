#include "binding/report/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/memory/memreport.h"
#include "binding/state/counters.h"
#include "binding/state/occupancy.h"
#include "binding/state/state.h"
#include "binding/state/statelock.h"
#include "binding/util/error.h"
#include "binding/util/safefile.h"
#include "binding/util/textfile.h"

#define MIB UINT64_C(1048576)

/* The counters' metrics: each counter belongs to the family its key
 * starts with (counters.h's table names them; "placements.linear" is
 * spank_binding_placements_total{strategy="linear"}). */
struct family {
	const char *prefix, *name, *label, *help;
};

static const struct family families[] = {
	{ "placements", "spank_binding_placements_total", "strategy",
	  "Steps bound on this node, by the strategy of their request (nlocal: --mbind=nlocal "
	  "without --binding)." },
	{ "refusals", "spank_binding_refusals_total", "reason",
	  "Steps whose binding request was refused on this node, by reason." },
	{ "fallbacks", "spank_binding_fallbacks_total", "fallback",
	  "What steps got instead of their binding: deferred, unbound, failed tasks; or nlocal "
	  "memory only preferred." },
	{ "cross_numa", "spank_binding_cross_numa_placements_total", NULL,
	  "Placements with a task's cores on more than one NUMA node." },
	{ "gpu_nonlocal", "spank_binding_gpu_nonlocal_placements_total", NULL,
	  "GPU-aware placements with a task's cores away from its GPUs." },
	{ "rankfiles", "spank_binding_rankfiles_written_total", NULL,
	  "OpenMPI rankfiles written for pe steps." },
};

#define LOCKWAIT "spank_binding_state_lock_wait_seconds"

static void header(FILE *o, const char *name, const char *type, const char *help)
{
	fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The family's counters: key prefix then '.' and the label value, or the
 * bare prefix for a family of one. */
static void counter_family(FILE *o, const struct family *fam, const struct bnd_counts *c)
{
	size_t pl = strlen(fam->prefix);
	header(o, fam->name, "counter", fam->help);
	for (int k = 0; k < BND_CNT_COUNT; k++) {
		char key[48];
		bnd_counter_key((enum bnd_counter)k, key, sizeof(key));
		if (strncmp(key, fam->prefix, pl) || (key[pl] != '.' && key[pl] != '\0'))
			continue;
		if (fam->label && key[pl] == '.')
			fprintf(o, "%s{%s=\"%s\"} %" PRIu64 "\n", fam->name, fam->label, key + pl + 1,
				c->v[k]);
		else if (!fam->label && !key[pl])
			fprintf(o, "%s %" PRIu64 "\n", fam->name, c->v[k]);
	}
}

static void lock_wait(FILE *o, const struct bnd_counts *c)
{
	header(o, LOCKWAIT, "histogram",
	       "Time state transactions that changed the state waited for its lock (a timed-out "
	       "wait counts at the waiter's next transaction).");
	uint64_t cum = 0;
	for (int b = 0; b < BND_LOCKWAIT_BUCKETS; b++) {
		cum += c->v[BND_CNT_LOCKWAIT_BUCKET + b];
		fprintf(o, "%s_bucket{le=\"%g\"} %" PRIu64 "\n", LOCKWAIT,
			(double)bnd_lockwait_bounds_us[b] / 1e6, cum);
	}
	fprintf(o, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", LOCKWAIT, c->v[BND_CNT_LOCKWAIT_COUNT]);
	fprintf(o, "%s_sum %.9f\n", LOCKWAIT, (double)c->v[BND_CNT_LOCKWAIT_SUM_NS] / 1e9);
	fprintf(o, "%s_count %" PRIu64 "\n", LOCKWAIT, c->v[BND_CNT_LOCKWAIT_COUNT]);
}

/* Cores and threads of one socket or NUMA node: total, held, free. */
struct tally {
	int cores, cores_held, threads, threads_held;
};

static void tally_core(const struct bnd_topology *t, int c, const bnd_cpuset_t *held,
		       struct tally *y)
{
	int h = 0;
	for (int p = t->cores[c].pu_first; p < t->cores[c].pu_first + t->cores[c].npus; p++)
		h += bnd_cpuset_isset(held, t->pu_os[p]);
	y->cores++;
	y->cores_held += h > 0;
	y->threads += t->cores[c].npus;
	y->threads_held += h;
}

/* cores or threads of every socket (numa 0) or NUMA node (1): in total,
 * held, free. */
static void unit_gauges(FILE *o, const struct bnd_topology *t, const struct tally *y, int n,
			int numa, int threads)
{
	static const char *const help[3] = { "on this node in total", "held by active records",
					     "free for placements" };
	static const char *const suffix[3] = { "", "_held", "_free" };
	for (int g = 0; g < 3; g++) {
		char name[64];
		snprintf(name, sizeof(name), "spank_binding_%s_%s%s", numa ? "numa" : "socket",
			 threads ? "threads" : "cores", suffix[g]);
		char h[160];
		snprintf(h, sizeof(h), "%s of each %s %s.", threads ? "Hardware threads" : "Cores",
			 numa ? "NUMA node" : "socket", help[g]);
		header(o, name, "gauge", h);
		for (int i = 0; i < n; i++) {
			int total = threads ? y[i].threads : y[i].cores;
			int held = threads ? y[i].threads_held : y[i].cores_held;
			int v = g == 0 ? total : g == 1 ? held : total - held;
			fprintf(o, "%s{%s=\"%d\"} %d\n", name, numa ? "numa" : "socket",
				numa ? t->numa_os[i] : i, v);
		}
	}
}

static int topology_gauges(FILE *o, const struct bnd_topology *t, const struct bnd_state_file *f)
{
	bnd_cpuset_t held;
	bnd_state_held(f, 0, &held);
	struct tally *s = calloc((size_t)t->nsockets + 1, sizeof(*s));
	struct tally *n = calloc((size_t)t->nnuma + 1, sizeof(*n));
	if (!s || !n) {
		free(s);
		free(n);
		return BND_ENOMEM;
	}
	for (int c = 0; c < t->ncores; c++) {
		tally_core(t, c, &held, &s[t->cores[c].socket]);
		if (t->cores[c].numa >= 0)
			tally_core(t, c, &held, &n[t->cores[c].numa]);
	}
	for (int k = 0; k < 4; k++)
		unit_gauges(o, t, k < 2 ? s : n, k < 2 ? t->nsockets : t->nnuma, k >= 2, k % 2);
	free(s);
	free(n);
	return BND_OK;
}

static int memory_gauges(FILE *o, const struct bnd_topology *t, const struct bnd_state_file *f,
			 const struct bnd_mem_reserve *reserve)
{
	static const char *const names[3] = { "spank_binding_numa_memory_bytes",
					      "spank_binding_numa_memory_reserved_bytes",
					      "spank_binding_numa_memory_free_bytes" };
	static const char *const help[3] = {
		"Memory of each NUMA node.",
		"Memory of each NUMA node reserved by the records (a job's steps share its memory).",
		("Memory of each NUMA node placement may still give (after mem_reserve= and the "
		 "records' reservations).") };
	uint64_t *used = calloc((size_t)t->nnuma + 1, sizeof(*used));
	struct bnd_memreport m;
	if (!used || bnd_state_mem_used(t, f, 0, used) ||
	    bnd_memreport_build(t, reserve, used, &m) != BND_OK) {
		free(used);
		return BND_ENOMEM;
	}
	for (int g = 0; g < 3; g++) {
		header(o, names[g], "gauge", help[g]);
		for (int i = 0; i < m.n; i++) {
			uint64_t mib = g == 0 ? m.node[i].total_mib
				       : g == 1 ? m.node[i].reserved_jobs_mib : m.node[i].free_mib;
			fprintf(o, "%s{numa=\"%d\"} %" PRIu64 "\n", names[g], m.node[i].os, mib * MIB);
		}
	}
	bnd_memreport_free(&m);
	free(used);
	return BND_OK;
}

static void step_gauges(FILE *o, const struct bnd_state_file *f)
{
	/* in the order of enum bnd_state_status */
	static const char *const words[] = { "bound", "suspended", "deferred", "unbound" };
	int n[4] = { 0 };
	for (int i = 0; i < f->nrec; i++)
		if ((unsigned)f->rec[i].status < 4)
			n[f->rec[i].status]++;
	header(o, "spank_binding_steps", "gauge",
	       "Steps with a record on this node: bound (holding cores), deferred (waiting for "
	       "them), suspended (by Slurm, cores released), unbound (request refused).");
	for (int k = 0; k < 4; k++)
		fprintf(o, "spank_binding_steps{status=\"%s\"} %d\n", words[k], n[k]);
}

int bnd_metrics_format(const struct bnd_metrics_in *in, char **text, size_t *len, char *err,
		       size_t errlen)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *o = open_memstream(&buf, &size);
	if (!o)
		return bnd_fail(err, errlen, BND_ENOMEM, "metrics: out of memory");
	int rc = BND_OK;
	header(o, "spank_binding_state_ok", "gauge",
	       "1 when the node's binding state was read whole, 0 when it was damaged or refused.");
	fprintf(o, "spank_binding_state_ok %d\n", in->state_ok ? 1 : 0);
	/* A state that could not be read has no counters to show: zeros
	 * would read as a reset. */
	if (!in->state_read)
		goto out;
	step_gauges(o, in->f);
	if (in->t) {
		rc = topology_gauges(o, in->t, in->f);
		if (!rc)
			rc = memory_gauges(o, in->t, in->f, in->reserve);
	}
	for (size_t i = 0; !rc && i < sizeof(families) / sizeof(families[0]); i++)
		counter_family(o, &families[i], &in->f->counts);
	if (!rc)
		lock_wait(o, &in->f->counts);
out:
	if (fclose(o) || rc) {
		free(buf);
		return bnd_fail(err, errlen, BND_ENOMEM, "metrics: out of memory");
	}
	*text = buf;
	*len = size;
	return BND_OK;
}

/* A damaged state is read as far as it parses, and said through the log. */
struct damage {
	void (*log)(void *, const char *);
	void *ctx;
	int damaged;
};

static void heard(void *ctx, const char *msg)
{
	struct damage *d = ctx;
	d->damaged = 1;
	if (d->log)
		d->log(d->ctx, msg);
}

/* The metrics lock of the state dir, when this process may take it: a
 * user (who cannot) writes without it, and so does anyone where no state
 * dir exists yet (no plugin ran here: nobody else writes). */
static int lock_metrics(const char *state_dir, struct bnd_statelock *lk, char *err,
			size_t errlen)
{
	int dfd = -1;
	lk->map = NULL;
	if (geteuid() != 0)
		return BND_OK;
	int rc = bnd_safedir_open(state_dir, 0, &dfd, err, errlen);
	if (rc == BND_OK && dfd >= 0) {
		rc = bnd_statelock_acquire(dfd, BND_METRICS_LOCK_NAME, 0, lk, err, errlen);
		close(dfd);
	}
	return rc;
}

int bnd_metrics_update(const char *state_dir, const char *path, const struct bnd_topology *t,
		       const struct bnd_mem_reserve *reserve, void (*log)(void *, const char *),
		       void *log_ctx, char *err, size_t errlen)
{
	struct bnd_statelock lk;
	int rc = lock_metrics(state_dir, &lk, err, errlen);
	if (rc)
		return rc;
	char why[BND_ERRLEN] = "";
	struct damage seen = { log, log_ctx, 0 };
	struct bnd_state_opts o = { .dir = state_dir, .log = heard, .log_ctx = &seen };
	struct bnd_state_file f;
	int src = bnd_state_list(&o, &f, why, sizeof(why));
	struct bnd_metrics_in in = { t, &f, reserve, src == BND_OK, src == BND_OK && !seen.damaged };
	char *text = NULL;
	size_t len = 0;
	if (src != BND_OK && log)
		log(log_ctx, why);
	rc = bnd_metrics_format(&in, &text, &len, err, errlen);
	if (!rc)
		rc = bnd_textfile_replace(path, text, len, err, errlen);
	free(text);
	bnd_statefile_free(&f);
	bnd_statelock_release(&lk);
	return rc;
}
