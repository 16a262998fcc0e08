#include "binding/state/state.h"
#include "binding/state/statewake.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/state/history.h"
#include "binding/state/statequeue.h"
#include "binding/state/statetxn.h"
#include "binding/util/defaults.h"
#include "binding/util/safefile.h"

static void explain(const struct bnd_topology *t, const struct bnd_request *r,
		    const struct bnd_alloc_args *a, const bnd_cpuset_t *others,
		    const bnd_cpuset_t *script, const bnd_cpuset_t *siblings, struct bnd_nofit *n)
{
	struct bnd_domain alone = { a->allowed, NULL, a->near };
	struct bnd_placement tmp;
	n->alone_err[0] = '\0';
	n->alone_rc = bnd_place(t, &alone, r, a->ntasks, &tmp, n->alone_err,
				sizeof(n->alone_err));
	if (n->alone_rc == BND_OK)
		bnd_placement_free(&tmp);
	n->others = *others;
	n->script = *script;
	n->siblings = *siblings;
}

/* The memory a booked step places: its own (Slurm's step memory) up to
 * what the booking has left, all of that when Slurm gave none. */
static uint64_t booked_step_mib(const struct bnd_topology *t, const struct bnd_alloc_args *a,
				const uint64_t *avail)
{
	uint64_t total = 0;
	for (int k = 0; k < t->nnuma; k++)
		total += avail[k];
	return a->mem_mib && a->mem_mib < total ? a->mem_mib : total;
}

/* numamem: the cores steered to the booked nodes (memory never blocks:
 * Slurm guaranteed it), then each task's part of the booking. nlocal
 * binds one core per task, as without a booking. */
static int place_booked(const struct bnd_topology *t, const struct bnd_domain *d,
			const struct bnd_request *r, const struct bnd_alloc_args *a,
			const uint64_t *avail, struct bnd_placement *out,
			struct bnd_mem_result *mres, char *err, size_t errlen)
{
	struct bnd_request lin;
	r = bnd_request_cores(r, &lin);
	uint64_t mib = booked_step_mib(t, a, avail), demand[BND_BOOKING_MAX];
	struct bnd_mem_request m = { a->mbind == BND_M_ROUND_ROBIN ? BND_M_ROUND_ROBIN : BND_M_CORES,
				     mib, avail };
	int rc = bnd_place_mem(t, d, r, a->ntasks, &m, out, mres, err, errlen);
	if (rc != BND_OK)
		return rc;
	if (bnd_booking_plan(t, out, a->mbind, avail, mib, demand, &mres->nsplit, &mres->nremote)) {
		bnd_placement_free(out);
		return bnd_fail(err, errlen, BND_EINVAL, "numamem: more than %d NUMA nodes",
				BND_BOOKING_MAX);
	}
	mres->nshares = bnd_mem_shares(t, demand, mres->shares,
				       (int)(sizeof(mres->shares) / sizeof(mres->shares[0])));
	mres->booked = 1;
	mres->booked_mib = mib;
	memcpy(mres->left, avail, (size_t)t->nnuma * sizeof(*avail));
	return BND_OK;
}

/* One placement attempt in the domain, against each node's free memory
 * (or what the job's booking has left). */
static int place_in(const struct bnd_topology *t, const struct bnd_domain *d,
		    const struct bnd_request *r, const struct bnd_alloc_args *a,
		    const uint64_t *avail, struct bnd_placement *out, struct bnd_mem_result *mres,
		    char *err, size_t errlen)
{
	if (a->booked)
		return place_booked(t, d, r, a, avail, out, mres, err, errlen);
	struct bnd_mem_request m = { a->mbind, a->mem_mib, avail };
	return bnd_place_mem(t, d, r, a->ntasks, &m, out, mres, err, errlen);
}

/* What the job's booking has left for step a (malloc'd, per NUMA index):
 * the booking, less what the job's other steps hold now; the batch
 * script's memory is its steps' too. */
static int booking_left(const struct bnd_topology *t, const struct bnd_state_file *f,
			const struct bnd_alloc_args *a, uint64_t **avail)
{
	if (t->nnuma > BND_BOOKING_MAX)
		return BND_EINVAL;
	uint64_t *left = calloc((size_t)t->nnuma + 1, sizeof(*left));
	if (!left)
		return BND_ENOMEM;
	bnd_booking_per_index(t, a->booked, left);
	for (int i = 0; i < f->nrec; i++) {
		const struct bnd_state_record *rec = &f->rec[i];
		if (rec->job != a->job || rec->step == a->step || rec->step == BND_STEP_BATCH ||
		    rec->status == BND_ST_DEFERRED)
			continue;
		for (int k = 0; k < rec->nmem; k++) {
			int x = bnd_topology_numa_index(t, rec->mem[k].node);
			if (x >= 0)
				left[x] -= left[x] < rec->mem[k].mib ? left[x] : rec->mem[k].mib;
		}
	}
	*avail = left;
	return BND_OK;
}

/* Each node's free MiB for a's placement (malloc'd), or *avail NULL when
 * the step asks no memory: then only nlocal reads it (to pick the node
 * with the most free), so every other launch skips reading the records'
 * reservations. */
static int free_memory(const struct bnd_topology *t, struct bnd_state_file *f,
		       const struct bnd_alloc_args *a, uint64_t **avail)
{
	*avail = NULL;
	if (!bnd_state_asks_memory(a))
		return BND_OK;
	/* Every record's memory: their tails, which a transaction reads only
	 * here. A tail that does not parse holds nothing knowable: refused. */
	for (int i = 0; i < f->nrec; i++) {
		int rc = bnd_statefile_whole(f, i);
		if (rc)
			return rc;
	}
	if (a->booked)
		return booking_left(t, f, a, avail);
	uint64_t *cap = calloc((size_t)t->nnuma + 1, sizeof(*cap));
	uint64_t *used = calloc((size_t)t->nnuma + 1, sizeof(*used));
	int rc = cap && used ? bnd_state_mem_used(t, f, a->job, used) : BND_ENOMEM;
	if (!rc) {
		bnd_mem_capacity(t, a->mem_reserve, cap);
		bnd_mem_free(t, cap, used, cap);
		*avail = cap;
		cap = NULL;
	}
	free(cap);
	free(used);
	return rc;
}

int bnd_state_asks_memory(const struct bnd_alloc_args *a)
{
	return a->mem_mib || a->mbind == BND_M_NLOCAL || a->booked;
}

static int place(const struct bnd_topology *t, struct bnd_state_file *f,
		 const struct bnd_request *r, const struct bnd_alloc_args *a,
		 struct bnd_placement *out, struct bnd_mem_result *mres, char *err, size_t errlen)
{
	uint64_t *avail;
	int mrc = free_memory(t, f, a, &avail);
	if (mrc)
		return bnd_fail(err, errlen, mrc, mrc == BND_ENOMEM ? "state allocate: out of memory"
				: "state: a record's memory does not parse");
	bnd_cpuset_t others, script, siblings, taken, ahead;
	bnd_state_occupancy(f, a->job, a->step, &others, &script, &siblings);
	if (bnd_state_queue_ahead(t, f, a, &ahead)) {
		free(avail);
		return bnd_fail(err, errlen, BND_ENOMEM, "state allocate: out of memory");
	}
	/* What the steps waiting before this one take counts as another job's. */
	bnd_cpuset_or(&others, &ahead);
	if (a->held_elsewhere)
		bnd_cpuset_or(&others, a->held_elsewhere);
	bnd_state_taken_of(a, &others, &script, &siblings, &taken);
	if (a->inherit_job && !bnd_cpuset_empty(&script)) {
		/* The script's cores first (minus what sibling steps hold), so a
		 * step stays where its job already is. */
		bnd_cpuset_t inside = a->allowed ? *a->allowed : t->all_cpus;
		bnd_cpuset_and(&inside, &script);
		struct bnd_domain d = { &inside, &taken, a->near };
		int rc = place_in(t, &d, r, a, avail, out, mres, err, errlen);
		if (rc != BND_ENOFIT) {
			free(avail);
			return rc;
		}
	}
	struct bnd_domain d = { a->allowed, &taken, a->near };
	int rc = place_in(t, &d, r, a, avail, out, mres, err, errlen);
	free(avail);
	if (rc == BND_ENOFIT && a->nofit)
		explain(t, r, a, &others, &script, &siblings, a->nofit);
	return rc;
}

int bnd_state_record_make(struct bnd_state_record *rec, const struct bnd_request *r,
			  const struct bnd_alloc_args *a, pid_t owner, unsigned long long start,
			  const struct bnd_placement *p, const struct bnd_mem_result *m)
{
	memset(rec, 0, sizeof(*rec));
	rec->job = a->job;
	rec->step = a->step;
	rec->owner_pid = (int)owner;
	rec->owner_start = start;
	rec->uid = a->uid;
	rec->status = BND_ST_ACTIVE;
	rec->created = (long long)time(NULL);
	rec->job_mem_mib = a->job_mem_mib;
	rec->mbind = a->mbind;
	snprintf(rec->request, sizeof(rec->request), "%s", r->text);
	int n = m ? (m->nshares < BND_STATE_MAX_MEM ? m->nshares : BND_STATE_MAX_MEM) : 0;
	if (bnd_state_record_mem(rec, n) ||
	    (a->near && bnd_state_record_gpus(rec, a->near->gpus, a->near->ntasks)))
		return BND_ENOMEM;
	for (int i = 0; i < n; i++) {
		rec->mem[i].node = m->shares[i].node;
		rec->mem[i].mib = m->shares[i].mib;
	}
	if (a->booked && bnd_state_record_booked(rec, a->booked->n))
		return BND_ENOMEM;
	for (int i = 0; a->booked && i < a->booked->n; i++) {
		rec->booked[i].node = a->booked->s[i].node;
		rec->booked[i].mib = a->booked->s[i].mib;
	}
	rec->split = m && m->booked ? m->nsplit : 0;
	return p ? bnd_state_record_place(rec, p) : BND_OK;
}

int bnd_state_record_place(struct bnd_state_record *rec, const struct bnd_placement *p)
{
	bnd_cpuset_t *tasks = malloc((size_t)p->ntasks * sizeof(*tasks));
	if (!tasks)
		return BND_ENOMEM;
	for (int i = 0; i < p->ntasks; i++)
		tasks[i] = p->tasks[i].cpus;
	free(rec->tasks);
	rec->tasks = tasks;
	rec->ntasks = p->ntasks;
	rec->cpus = p->all_cpus;
	return BND_OK;
}

/* Does some task of p have cores on more than one NUMA node? */
static int crosses_numa(const struct bnd_topology *t, const struct bnd_placement *p)
{
	for (int i = 0; i < p->ntasks; i++) {
		bnd_nodeset_t nodes;
		bnd_topology_numa_of_cpus(t, &p->tasks[i].cpus, &nodes);
		if (bnd_nodeset_count(&nodes) > 1)
			return 1;
	}
	return 0;
}

/* A GPU-aware placement with a task's cores away from its GPUs. */
static int gpu_nonlocal(const struct bnd_placement *p)
{
	for (int i = 0; i < p->ntasks; i++)
		if (p->tasks[i].nlocal >= 0 && p->tasks[i].nlocal < p->tasks[i].ncores)
			return 1;
	return 0;
}

void bnd_state_count_placement(struct bnd_state_txn *tx, const struct bnd_topology *t,
			       const struct bnd_request *r, const struct bnd_alloc_args *a,
			       const struct bnd_placement *p, const struct bnd_mem_result *m)
{
	bnd_state_txn_count(tx, (enum bnd_counter)(BND_CNT_PLACEMENT + r->strategy));
	if (crosses_numa(t, p))
		bnd_state_txn_count(tx, BND_CNT_CROSS_NUMA);
	if (gpu_nonlocal(p))
		bnd_state_txn_count(tx, BND_CNT_GPU_NONLOCAL);
	if (a->mbind == BND_M_NLOCAL && m && !m->bind)
		bnd_state_txn_count(tx, (enum bnd_counter)(BND_CNT_FALLBACK + BND_FB_MEMORY_PREFERRED));
}

enum bnd_refusal bnd_state_refusal_of(const struct bnd_nofit *n, const bnd_cpuset_t *allowed)
{
	if (n->alone_rc == BND_ENOFIT)
		return BND_R_ALLOCATION_TOO_SMALL;
	bnd_cpuset_t held = n->others, steps = n->siblings;
	if (allowed) {
		bnd_cpuset_and(&held, allowed);
		bnd_cpuset_and(&steps, allowed);
	}
	if (!bnd_cpuset_empty(&held))
		return BND_R_HELD_BY_OTHER_JOBS;
	return bnd_cpuset_empty(&steps) ? BND_R_MEMORY_SHORT : BND_R_HELD_BY_OWN_STEPS;
}

int bnd_state_allocate(const struct bnd_state_opts *o, const struct bnd_topology *t,
		       const struct bnd_request *r, const struct bnd_alloc_args *a,
		       struct bnd_placement *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!t || !r || !a || a->ntasks < 1 || a->ntasks > BND_STATE_MAX_TASKS)
		return bnd_fail(err, errlen, BND_EINVAL,
				"state allocate: need a topology, a request and 1..%d tasks",
				BND_STATE_MAX_TASKS);
	pid_t owner;
	unsigned long long start;
	int orc = bnd_state_owner_of(a, &owner, &start, err, errlen);
	if (orc)
		return orc;

	struct bnd_state_txn tx;
	int rc = bnd_state_txn_begin(&tx, o, err, errlen);
	if (rc)
		return rc;
	struct bnd_mem_result mres;
	memset(&mres, 0, sizeof(mres));
	int prc = place(t, &tx.f, r, a, out, &mres, err, errlen);
	/* Before saying no: owners that only look alive (a reused pid, a
	 * zombie) of what the request needs give their cores and memory back,
	 * and the request is tried again. */
	if (prc == BND_ENOFIT &&
	    bnd_state_txn_reclaim_holders(&tx, a->allowed, bnd_state_asks_memory(a)) > 0) {
		memset(&mres, 0, sizeof(mres));
		prc = place(t, &tx.f, r, a, out, &mres, err, errlen);
	}
	if (a->mem_out)
		*a->mem_out = mres;
	if (prc == BND_OK && !bnd_cpuset_empty(&out->all_cpus)) {
		struct bnd_state_record rec;
		int old = bnd_statefile_find(&tx.f, a->job, a->step);
		if (old >= 0)
			bnd_state_txn_drop(&tx, old, "release");
		rc = bnd_state_record_make(&rec, r, a, owner, start, out, &mres);
		if (!rc)
			rc = bnd_hist_append(&rec.hist, BND_H_BOUND, bnd_state_now_ms(), &out->all_cpus,
					     NULL);
		if (!rc)
			rc = bnd_statefile_add(&tx.f, &rec);
		if (!rc) {
			bnd_state_txn_note(&tx, "grant", &rec);
			bnd_state_count_placement(&tx, t, r, a, out, &mres);
		} else {
			bnd_fail(err, errlen, rc, "state allocate: out of memory");
		}
		bnd_state_record_free(&rec);
	}
	/* Repairs made on the way are worth keeping even when nothing fits. */
	if (!rc)
		rc = bnd_state_txn_commit(&tx, prc ? NULL : err, prc ? 0 : errlen);
	bnd_state_txn_end(&tx);
	if (rc || prc)
		bnd_placement_free(out);
	return prc ? prc : rc;
}

int bnd_state_refuse(const struct bnd_state_opts *o, const struct bnd_state_refusal *rf,
		     char *err, size_t errlen)
{
	const struct bnd_alloc_args *a = rf->a;
	pid_t owner;
	unsigned long long start;
	int rc = bnd_state_owner_of(a, &owner, &start, err, errlen);
	if (rc)
		return rc;
	struct bnd_state_txn tx;
	if ((rc = bnd_state_txn_begin(&tx, o, err, errlen)))
		return rc;
	struct bnd_request none = { .strategy = BND_S_NONE };
	snprintf(none.text, sizeof(none.text), "%s", rf->request ? rf->request : "");
	struct bnd_state_record rec;
	struct bnd_alloc_args bare = *a;
	bare.near = NULL;
	rc = bnd_state_record_make(&rec, &none, &bare, owner, start, NULL, NULL);
	if (!rc) {
		rec.status = BND_ST_UNBOUND;
		rec.since_ms = bnd_state_now_ms();
		bnd_state_why_clean(rec.why, rf->why);
		rc = bnd_hist_append(&rec.hist, BND_H_UNBOUND, rec.since_ms, NULL, rec.why);
	}
	int old = bnd_statefile_find(&tx.f, a->job, a->step);
	if (!rc && old >= 0)
		bnd_state_txn_drop(&tx, old, "release");
	if (!rc)
		rc = bnd_statefile_add(&tx.f, &rec);
	bnd_state_record_free(&rec);
	if (!rc) {
		bnd_state_txn_note(&tx, "refuse", &tx.f.rec[tx.f.nrec - 1]);
		bnd_state_txn_count(&tx, (enum bnd_counter)(BND_CNT_REFUSAL + rf->reason));
		bnd_state_txn_count(&tx, (enum bnd_counter)(BND_CNT_FALLBACK + rf->fallback));
		rc = bnd_state_txn_commit(&tx, err, errlen);
	} else {
		bnd_fail(err, errlen, rc, "state refuse: out of memory");
	}
	bnd_state_txn_end(&tx);
	return rc;
}

static int release_where(const struct bnd_state_opts *o, uint32_t job, int whole_job,
			 uint32_t step, int *released, char *err, size_t errlen)
{
	struct bnd_state_txn tx;
	int n = 0;
	int rc = bnd_state_txn_begin(&tx, o, err, errlen);
	if (rc)
		return rc;
	for (int i = 0; i < tx.f.nrec; i++)
		if (tx.f.rec[i].job == job && (whole_job || tx.f.rec[i].step == step)) {
			bnd_state_txn_drop(&tx, i--, "release");
			n++;
		}
	rc = bnd_state_txn_commit(&tx, err, errlen);
	bnd_state_txn_end(&tx);
	if (released)
		*released = rc ? 0 : n;
	return rc;
}

int bnd_state_release(const struct bnd_state_opts *o, uint32_t job, uint32_t step,
		      int *released, char *err, size_t errlen)
{
	return release_where(o, job, 0, step, released, err, errlen);
}

int bnd_state_release_job(const struct bnd_state_opts *o, uint32_t job, int *released,
			  char *err, size_t errlen)
{
	return release_where(o, job, 1, 0, released, err, errlen);
}

int bnd_state_gc(const struct bnd_state_opts *o, int *reclaimed, char *err, size_t errlen)
{
	struct bnd_state_txn tx;
	int rc = bnd_state_txn_begin(&tx, o, err, errlen);
	if (rc)
		return rc;
	bnd_state_txn_reclaim_all(&tx);
	int n = tx.dropped;
	/* doorbells of steps that wait no more (a killed slurmstepd's) */
	bnd_state_wake_sweep(tx.dirfd, &tx.f);
	rc = bnd_state_txn_commit(&tx, err, errlen);
	bnd_state_txn_end(&tx);
	if (reclaimed)
		*reclaimed = rc ? 0 : n;
	return rc;
}

/* The state as it is, without the lock: a file in place is never
 * rewritten, so no retry is needed. lazy: bnd_statefile_load's parse. */
static int read_state(const struct bnd_state_opts *o, struct bnd_state_file *out, int lazy,
		      char *err, size_t errlen)
{
	const char *dir = o && o->dir && *o->dir ? o->dir : BND_DEFAULT_STATE_DIR;
	int dirfd;
	bnd_statefile_init(out);
	int rc = bnd_safedir_open(dir, 0, &dirfd, err, errlen);
	if (rc || dirfd < 0)
		return rc;
	char why[256];
	int verdict = BND_SF_CLEAN;
	char *text;
	size_t len;
	rc = bnd_statedir_read(dirfd, &text, &len, err, errlen);
	if (!rc && text) {
		if (lazy) {
			verdict = bnd_statefile_load(text, len, out, why, sizeof(why));
		} else {
			verdict = bnd_statefile_parse(text, len, out, why, sizeof(why));
			free(text);
		}
	}
	close(dirfd);
	if (rc)
		return rc;
	if (verdict < 0)
		return bnd_fail(err, errlen, BND_ENOMEM, "reading the state: out of memory");
	if (verdict == BND_SF_NEWER)
		return bnd_fail(err, errlen, BND_ESTATE, "state %s/%s: %s", dir,
				BND_STATE_FILE_NAME, why);
	if (verdict == BND_SF_CORRUPT)
		bnd_state_log(o, "state %s damaged (%s): showing the %d record(s) that parse; "
			      "the next transaction repairs it", dir, why, out->nrec);
	return BND_OK;
}

int bnd_state_list(const struct bnd_state_opts *o, struct bnd_state_file *out,
		   char *err, size_t errlen)
{
	return read_state(o, out, 0, err, errlen);
}

int bnd_state_snapshot(const struct bnd_state_opts *o, struct bnd_state_file *out,
		       char *err, size_t errlen)
{
	return read_state(o, out, 1, err, errlen);
}

int bnd_state_place(const struct bnd_topology *t, struct bnd_state_file *f,
		    const struct bnd_request *r, const struct bnd_alloc_args *a,
		    struct bnd_placement *out, char *err, size_t errlen)
{
	struct bnd_mem_result mres;
	int rc = place(t, f, r, a, out, &mres, err, errlen);
	if (a->mem_out)
		*a->mem_out = mres;
	return rc;
}

int bnd_state_preview(const struct bnd_state_opts *o, const struct bnd_topology *t,
		      const struct bnd_request *r, const struct bnd_alloc_args *a,
		      struct bnd_placement *out, char *err, size_t errlen)
{
	struct bnd_state_file f;
	memset(out, 0, sizeof(*out));
	if (!t || !r || !a || a->ntasks < 1 || a->ntasks > BND_STATE_MAX_TASKS)
		return bnd_fail(err, errlen, BND_EINVAL,
				"state preview: need a topology, a request and 1..%d tasks",
				BND_STATE_MAX_TASKS);
	bnd_statefile_init(&f);
	if (o) {
		int rc = bnd_state_list(o, &f, err, errlen);
		if (rc)
			return rc;
	}
	int rc = bnd_state_place(t, &f, r, a, out, err, errlen);
	bnd_statefile_free(&f);
	return rc;
}
