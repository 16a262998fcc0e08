#include "binding/state/state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/state/statetxn.h"
#include "binding/util/defaults.h"
#include "binding/util/safefile.h"

void bnd_state_held(const struct bnd_state_file *f, uint32_t except_job, bnd_cpuset_t *out)
{
	bnd_cpuset_zero(out);
	for (int i = 0; i < f->nrec; i++)
		if (f->rec[i].status == BND_ST_ACTIVE && (!except_job || f->rec[i].job != except_job))
			bnd_cpuset_or(out, &f->rec[i].cpus);
}

/* Occupancy seen by (job, step), in three parts:
 *   others    cpus of other jobs: never shared;
 *   script    cpus of the job's batch step (its job-level record): shared
 *             with the steps the script launches, that is what they inherit;
 *   siblings  cpus of the job's other steps: never shared either, so two
 *             steps running at once get distinct cores.
 * The step's own earlier record counts as free. */
static void occupancy(const struct bnd_state_file *f, uint32_t job, uint32_t step,
		      bnd_cpuset_t *others, bnd_cpuset_t *script, bnd_cpuset_t *siblings)
{
	bnd_cpuset_zero(others);
	bnd_cpuset_zero(script);
	bnd_cpuset_zero(siblings);
	for (int i = 0; i < f->nrec; i++) {
		const struct bnd_state_record *r = &f->rec[i];
		if (r->status != BND_ST_ACTIVE || (r->job == job && r->step == step))
			continue;
		if (r->job != job)
			bnd_cpuset_or(others, &r->cpus);
		else if (r->step == BND_STEP_BATCH)
			bnd_cpuset_or(script, &r->cpus);
		else
			bnd_cpuset_or(siblings, &r->cpus);
	}
}

static void explain(const struct bnd_topology *t, const struct bnd_request *r,
		    const struct bnd_alloc_args *a, const bnd_cpuset_t *others,
		    const bnd_cpuset_t *script, const bnd_cpuset_t *siblings, struct bnd_nofit *n)
{
	struct bnd_domain alone = { a->allowed, NULL };
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

static int holds_mem(const struct bnd_state_record *r, uint32_t except_job)
{
	return r->nmem > 0 && r->status != BND_ST_DEFERRED && (!except_job || r->job != except_job);
}

static int by_job(const void *a, const void *b)
{
	const struct bnd_state_record *x = *(const struct bnd_state_record *const *)a;
	const struct bnd_state_record *y = *(const struct bnd_state_record *const *)b;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* A job's steps share its memory, as in Slurm: the job never holds more on
 * this host than its memory, which is its largest record (the batch
 * script's, or a step's that got the whole job's memory, and every step's
 * memory is part of it). So on each node a job reserves the sum of its
 * records there, capped at its largest record's total: its own records
 * never make its next step's memory "taken", and a script and its steps do
 * not count twice against other jobs. */
int bnd_state_mem_used(const struct bnd_topology *t, const struct bnd_state_file *f,
		       uint32_t except_job, uint64_t *used)
{
	size_t nn = (size_t)t->nnuma;
	memset(used, 0, nn * sizeof(*used));
	int n = 0;
	for (int i = 0; i < f->nrec; i++)
		n += holds_mem(&f->rec[i], except_job);
	if (!n)
		return BND_OK;
	const struct bnd_state_record **recs = malloc((size_t)n * sizeof(*recs));
	uint64_t *sum = calloc(nn + 1, sizeof(*sum));
	if (!recs || !sum) {
		free(recs);
		free(sum);
		return BND_ENOMEM;
	}
	n = 0;
	for (int i = 0; i < f->nrec; i++)
		if (holds_mem(&f->rec[i], except_job))
			recs[n++] = &f->rec[i];
	qsort(recs, (size_t)n, sizeof(*recs), by_job);
	uint64_t largest = 0;
	for (int i = 0; i < n; i++) {
		const struct bnd_state_record *r = recs[i];
		struct bnd_mem_share s[BND_STATE_MAX_MEM];
		uint64_t total = 0;
		for (int k = 0; k < r->nmem; k++) {
			s[k] = (struct bnd_mem_share){ r->mem[k].node, r->mem[k].mib };
			total += r->mem[k].mib;
		}
		bnd_mem_add(t, s, r->nmem, sum);
		if (total > largest)
			largest = total;
		if (i + 1 == n || recs[i + 1]->job != r->job) {
			for (size_t k = 0; k < nn; k++)
				used[k] += sum[k] < largest ? sum[k] : largest;
			memset(sum, 0, nn * sizeof(*sum));
			largest = 0;
		}
	}
	free(recs);
	free(sum);
	return BND_OK;
}

/* One placement attempt in the domain, against each node's free memory. */
static int place_in(const struct bnd_topology *t, const struct bnd_domain *d,
		    const struct bnd_request *r, const struct bnd_alloc_args *a,
		    const uint64_t *avail, struct bnd_placement *out, struct bnd_mem_result *mres,
		    char *err, size_t errlen)
{
	struct bnd_mem_request m = { a->mbind, a->mem_mib, avail };
	return bnd_place_mem(t, d, r, a->ntasks, &m, out, mres, err, errlen);
}

/* The occupancy rule: what (a->job, a->step) must not take. The batch
 * step's record is the job's: its steps run inside it, so it never counts
 * them as taken (a script that resumes after its steps gets its cores
 * back); a step takes its script's cores only when it inherits them. */
static void taken_of(const struct bnd_alloc_args *a, const bnd_cpuset_t *others,
		     const bnd_cpuset_t *script, const bnd_cpuset_t *siblings, bnd_cpuset_t *taken)
{
	*taken = *others;
	if (a->step != BND_STEP_BATCH)
		bnd_cpuset_or(taken, siblings);
	if (!a->inherit_job)
		bnd_cpuset_or(taken, script);
}

/* Each node's free MiB for a's placement (malloc'd), or *avail NULL when
 * the step asks no memory: then only nlocal reads it (to pick the node
 * with the most free), so every other launch skips reading the records'
 * reservations. */
static int free_memory(const struct bnd_topology *t, const struct bnd_state_file *f,
		       const struct bnd_alloc_args *a, uint64_t **avail)
{
	*avail = NULL;
	if (!a->mem_mib && a->mbind != BND_M_NLOCAL)
		return BND_OK;
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

static int place(const struct bnd_topology *t, const struct bnd_state_file *f,
		 const struct bnd_request *r, const struct bnd_alloc_args *a,
		 struct bnd_placement *out, struct bnd_mem_result *mres, char *err, size_t errlen)
{
	uint64_t *avail;
	if (free_memory(t, f, a, &avail))
		return bnd_fail(err, errlen, BND_ENOMEM, "state allocate: out of memory");
	bnd_cpuset_t others, script, siblings, taken;
	occupancy(f, a->job, a->step, &others, &script, &siblings);
	taken_of(a, &others, &script, &siblings, &taken);
	if (a->inherit_job && !bnd_cpuset_empty(&script)) {
		/* The script's cores first (minus what sibling steps hold), so a
		 * step stays where its job already is. */
		bnd_cpuset_t inside = a->allowed ? *a->allowed : t->all_cpus;
		bnd_cpuset_and(&inside, &script);
		struct bnd_domain d = { &inside, &taken };
		int rc = place_in(t, &d, r, a, avail, out, mres, err, errlen);
		if (rc != BND_ENOFIT) {
			free(avail);
			return rc;
		}
	}
	struct bnd_domain d = { a->allowed, &taken };
	int rc = place_in(t, &d, r, a, avail, out, mres, err, errlen);
	free(avail);
	if (rc == BND_ENOFIT && a->nofit)
		explain(t, r, a, &others, &script, &siblings, a->nofit);
	return rc;
}

static int make_record(struct bnd_state_record *rec, const struct bnd_request *r,
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
	rec->cpus = p->all_cpus;
	rec->ntasks = p->ntasks;
	rec->tasks = malloc((size_t)p->ntasks * sizeof(*rec->tasks));
	if (!rec->tasks)
		return BND_ENOMEM;
	for (int i = 0; i < p->ntasks; i++)
		rec->tasks[i] = p->tasks[i].cpus;
	for (int i = 0; i < m->nshares && i < BND_STATE_MAX_MEM; i++) {
		rec->mem[i].node = m->shares[i].node;
		rec->mem[i].mib = m->shares[i].mib;
		rec->nmem++;
	}
	snprintf(rec->request, sizeof(rec->request), "%s", r->text);
	return BND_OK;
}

int bnd_state_owner_of(const struct bnd_alloc_args *a, pid_t *owner, unsigned long long *start,
		       char *err, size_t errlen)
{
	char why[256];
	*owner = a->owner_pid > 0 ? a->owner_pid : getpid();
	if (bnd_proc_start_time(*owner, start, why, sizeof(why)))
		return bnd_fail(err, errlen, BND_EINVAL, "owner pid %d is not running (%s)",
				(int)*owner, why);
	return BND_OK;
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
	 * zombie) give their cores and memory back, and the request is tried
	 * again. */
	if (prc == BND_ENOFIT && bnd_state_txn_reclaim_all(&tx) > 0) {
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
		rc = make_record(&rec, r, a, owner, start, out, &mres);
		if (!rc)
			rc = bnd_statefile_add(&tx.f, &rec);
		if (!rc)
			bnd_state_txn_note(&tx, "grant", &rec);
		else
			bnd_fail(err, errlen, rc, "state allocate: out of memory");
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
	rc = bnd_state_txn_commit(&tx, err, errlen);
	bnd_state_txn_end(&tx);
	if (reclaimed)
		*reclaimed = rc ? 0 : n;
	return rc;
}

int bnd_state_list(const struct bnd_state_opts *o, struct bnd_state_file *out,
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
	/* No retry needed: a state file in place is never rewritten. */
	char *text;
	size_t len;
	rc = bnd_statedir_read(dirfd, &text, &len, err, errlen);
	if (!rc && text) {
		verdict = bnd_statefile_parse(text, len, out, why, sizeof(why));
		free(text);
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

/* For the suspend/resume transitions (transition.c): the same occupancy
 * and placement rules as bnd_state_allocate, on a transaction's file. */
void bnd_state_taken(const struct bnd_state_file *f, const struct bnd_alloc_args *a,
		     bnd_cpuset_t *taken)
{
	bnd_cpuset_t others, script, siblings;
	occupancy(f, a->job, a->step, &others, &script, &siblings);
	taken_of(a, &others, &script, &siblings, taken);
}

int bnd_state_place(const struct bnd_topology *t, const struct bnd_state_file *f,
		    const struct bnd_request *r, const struct bnd_alloc_args *a,
		    struct bnd_placement *out, char *err, size_t errlen)
{
	struct bnd_mem_result mres;
	int rc = place(t, f, r, a, out, &mres, err, errlen);
	if (a->mem_out)
		*a->mem_out = mres;
	return rc;
}
