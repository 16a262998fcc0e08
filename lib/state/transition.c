#include "binding/state/transition.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/state/statetxn.h"
#include "binding/util/error.h"

/* Record i, whole and detached from the file's text, to change it. */
static int edit(struct bnd_state_txn *tx, int i, char *err, size_t errlen)
{
	int rc = bnd_statefile_edit(&tx->f, i);
	if (rc == BND_ENOMEM)
		return bnd_fail(err, errlen, rc, "state: out of memory");
	if (rc)
		return bnd_fail(err, errlen, rc, "state: the record of job %" PRIu32 " step %" PRIu32
				" does not parse", tx->f.rec[i].job, tx->f.rec[i].step);
	return BND_OK;
}

int bnd_state_suspend(const struct bnd_state_opts *o, uint32_t job, uint32_t step,
		      const char *why, char *err, size_t errlen)
{
	struct bnd_state_txn tx;
	int rc = bnd_state_txn_begin(&tx, o, err, errlen);
	if (rc)
		return rc;
	int i = bnd_statefile_find(&tx.f, job, step);
	if (i < 0) {
		rc = bnd_fail(err, errlen, BND_EINVAL,
			      "state: no record for job %" PRIu32 " step %" PRIu32, job, step);
	} else if (tx.f.rec[i].status != BND_ST_SUSPENDED &&
		   !(rc = edit(&tx, i, err, errlen))) {
		struct bnd_state_record *r = &tx.f.rec[i];
		bnd_state_record_want(r, NULL, 0, 0);
		r->since_ms = bnd_state_now_ms();
		bnd_state_why_clean(r->why, why && *why ? why : "suspended");
		/* the history is for people: out of memory loses the event only */
		(void)bnd_hist_append(&r->hist, BND_H_SUSPENDED, r->since_ms, &r->cpus, r->why);
		r->status = BND_ST_SUSPENDED;
		bnd_cpuset_zero(&r->cpus);
		free(r->tasks);
		r->tasks = NULL;
		r->ntasks = 0;
		bnd_state_txn_note(&tx, "suspend", r);
	}
	int crc = bnd_state_txn_commit(&tx, rc ? NULL : err, rc ? 0 : errlen);
	bnd_state_txn_end(&tx);
	return rc ? rc : crc;
}

static int placement_copy(struct bnd_placement *dst, const struct bnd_placement *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->tasks = calloc((size_t)src->ntasks, sizeof(*dst->tasks));
	if (!dst->tasks)
		return BND_ENOMEM;
	dst->ntasks = src->ntasks;
	dst->all_cpus = src->all_cpus;
	for (int i = 0; i < src->ntasks; i++) {
		struct bnd_task_place *d = &dst->tasks[i];
		const struct bnd_task_place *s = &src->tasks[i];
		d->cpus = s->cpus;
		if (s->ncores > 0) {
			d->cores = malloc((size_t)s->ncores * sizeof(*d->cores));
			if (!d->cores) {
				bnd_placement_free(dst);
				return BND_ENOMEM;
			}
			memcpy(d->cores, s->cores, (size_t)s->ncores * sizeof(*d->cores));
			d->ncores = s->ncores;
		}
	}
	return BND_OK;
}

/* Does record r count as a holder in this pass (0: other jobs, 1: the
 * job's own other steps)? */
static int holds(const struct bnd_state_record *r, int pass, const struct bnd_alloc_args *a,
		 const bnd_cpuset_t *taken)
{
	return r->status == BND_ST_ACTIVE && (pass ? r->job == a->job : r->job != a->job) &&
	       (!a->allowed || bnd_cpuset_intersects(&r->cpus, a->allowed)) &&
	       bnd_cpuset_intersects(&r->cpus, taken);
}

/* "held-by-job:12,13" (other jobs hold cpus of the step's allocation) or
 * "held-by-step:batch,3" (its own job's other steps, by sbind's names),
 * for why=. A job's batch step and its srun steps hold the same cpus: each
 * job is named once. */
static void holders(const struct bnd_state_file *f, const struct bnd_alloc_args *a,
		    const bnd_cpuset_t *taken, char *why, size_t len)
{
	size_t n = 0;
	int named = 0;
	why[0] = '\0';
	for (int pass = 0; pass < 2 && !named; pass++) {
		n = (size_t)snprintf(why, len, pass ? "held-by-step:" : "held-by-job:");
		for (int i = 0; i < f->nrec && n < len; i++) {
			const struct bnd_state_record *r = &f->rec[i];
			uint32_t id = pass ? r->step : r->job;
			int dup = 0;
			for (int j = 0; j < i && !dup; j++)
				dup = holds(&f->rec[j], pass, a, taken) &&
				      (pass ? f->rec[j].step : f->rec[j].job) == id;
			if (!holds(r, pass, a, taken) || dup)
				continue;
			char buf[16];
			snprintf(buf, sizeof(buf), "%" PRIu32, id);
			const char *nm = pass ? bnd_step_name(id, buf, sizeof(buf)) : buf;
			n += (size_t)snprintf(why + n, len - n, "%s%s", named++ ? "," : "", nm);
		}
	}
	if (!named)
		snprintf(why, len, "no-fitting-placement");
}

/* The cpus the request takes on an idle node (its allowed cpus, nothing
 * held), 0 when it cannot fit even there. */
static int need_when_idle(const struct bnd_topology *t, const struct bnd_request *r,
			  const struct bnd_resume_args *ra)
{
	if (ra->prev_only)
		return ra->prev && (!ra->a->allowed ||
				    bnd_cpuset_subset(&ra->prev->all_cpus, ra->a->allowed))
			       ? bnd_cpuset_count(&ra->prev->all_cpus) : 0;
	struct bnd_placement tmp;
	struct bnd_domain d = { ra->a->allowed, NULL, ra->a->near };
	char e[BND_ERRLEN];
	if (bnd_place(t, &d, r, ra->a->ntasks, &tmp, e, sizeof(e)) != BND_OK)
		return 0;
	int n = bnd_cpuset_count(&tmp.all_cpus);
	bnd_placement_free(&tmp);
	return n;
}

/* The placement a resume gets on f now: prev when none of its cpus is
 * taken, else a new one of r (unless prev_only). BND_OK (out, *res SAME or
 * MOVED), BND_ENOFIT, or another error. */
static int resume_place(const struct bnd_topology *t, struct bnd_state_file *f,
			const struct bnd_request *r, const struct bnd_resume_args *ra,
			struct bnd_placement *out, enum bnd_resume_result *res, bnd_cpuset_t *taken,
			char *err, size_t errlen)
{
	const struct bnd_alloc_args *a = ra->a;
	bnd_state_taken(f, a, taken);
	if (ra->prev && !bnd_cpuset_intersects(&ra->prev->all_cpus, taken) &&
	    (!a->allowed || bnd_cpuset_subset(&ra->prev->all_cpus, a->allowed))) {
		*res = BND_RESUME_SAME;
		return placement_copy(out, ra->prev);
	}
	if (ra->prev_only)
		return BND_ENOFIT;
	*res = BND_RESUME_MOVED;
	return bnd_state_place(t, f, r, a, out, err, errlen);
}

/* Does uid have max (not 0) deferred records in f? */
static int over_cap(const struct bnd_state_file *f, uint32_t uid, int max)
{
	int n = 0;
	for (int i = 0; max > 0 && i < f->nrec; i++)
		n += f->rec[i].status == BND_ST_DEFERRED && f->rec[i].uid == uid;
	return max > 0 && n >= max;
}

/* A step with no record yet (deferred at its start): one, to defer. */
static int add_record(struct bnd_state_txn *tx, const struct bnd_request *r,
		      const struct bnd_alloc_args *a, pid_t owner, unsigned long long start,
		      char *err, size_t errlen)
{
	struct bnd_state_record rec;
	int rc = bnd_state_record_make(&rec, r, a, owner, start, NULL, NULL);
	if (!rc)
		rc = bnd_statefile_add(&tx->f, &rec);
	bnd_state_record_free(&rec);
	if (rc)
		return bnd_fail(err, errlen, rc, "state resume: out of memory");
	/* so that "defer" below notes it */
	tx->f.rec[tx->f.nrec - 1].status = BND_ST_SUSPENDED;
	return BND_OK;
}

/* One resume: what it places, for whom, and what it answers. */
struct resume {
	const struct bnd_topology *t;
	const struct bnd_request *r;
	const struct bnd_resume_args *ra;
	pid_t owner;
	unsigned long long start;
	struct bnd_placement *out;
	enum bnd_resume_result *res;
};

/* Bound: again (it held cpus before) or for the first time (a step
 * deferred at its start: its placement counts as one). */
static int mark_active(struct bnd_state_txn *tx, struct bnd_state_record *rec,
		       const struct resume *rs, char *err, size_t errlen)
{
	const struct bnd_placement *p = rs->out;
	int rc = bnd_state_record_place(rec, p);
	if (rc)
		return bnd_fail(err, errlen, rc, "state resume: out of memory");
	bnd_state_record_want(rec, NULL, 0, 0);
	rec->status = BND_ST_ACTIVE;
	rec->since_ms = 0;
	rec->why[0] = '\0';
	(void)bnd_hist_append(&rec->hist, rs->ra->prev ? BND_H_REBOUND : BND_H_BOUND,
			      bnd_state_now_ms(), &p->all_cpus, NULL);
	bnd_state_txn_note(tx, "resume", rec);
	if (!rs->ra->prev)
		bnd_state_count_placement(tx, rs->t, rs->r, rs->ra->a, p, rs->ra->a->mem_out);
	return BND_OK;
}

/* A retry that changes nothing writes nothing: every write wakes the
 * node's deferred steps' checks. */
static int mark_deferred(struct bnd_state_txn *tx, struct bnd_state_record *rec,
			 const struct bnd_alloc_args *a, const struct bnd_topology *t, int need,
			 const char *why, char *err, size_t errlen)
{
	const bnd_cpuset_t *want = a->allowed ? a->allowed : &t->all_cpus;
	if (rec->status == BND_ST_DEFERRED && !strcmp(rec->why, why) && rec->want &&
	    bnd_cpuset_equal(rec->want, want) && rec->want_groups == a->ntasks &&
	    rec->want_need == need)
		return BND_OK;
	if (bnd_state_record_want(rec, want, a->ntasks, need))
		return bnd_fail(err, errlen, BND_ENOMEM, "state resume: out of memory");
	int fresh = rec->status != BND_ST_DEFERRED;
	if (fresh)
		rec->since_ms = bnd_state_now_ms();
	bnd_state_why_clean(rec->why, why);
	if (fresh)
		(void)bnd_hist_append(&rec->hist, BND_H_DEFERRED, rec->since_ms, NULL, rec->why);
	rec->status = BND_ST_DEFERRED;
	bnd_cpuset_zero(&rec->cpus);
	free(rec->tasks);
	rec->tasks = NULL;
	rec->ntasks = 0;
	bnd_state_txn_note(tx, "defer", rec);
	return BND_OK;
}

static int resume_args_ok(const struct bnd_topology *t, const struct bnd_request *r,
			  const struct bnd_resume_args *ra, char *err, size_t errlen)
{
	const struct bnd_alloc_args *a = ra ? ra->a : NULL;
	if (!t || !r || !a || a->ntasks < 1 || a->ntasks > BND_STATE_MAX_TASKS ||
	    (ra->prev && ra->prev->ntasks != a->ntasks))
		return bnd_fail(err, errlen, BND_EINVAL,
				"state resume: need a topology, a request, 1..%d tasks and a "
				"previous placement of as many tasks", BND_STATE_MAX_TASKS);
	return BND_OK;
}

/* Places the step; before deferring, the full owner check (reused pids,
 * zombies) of what stands in the way, and a second try if it freed
 * something. */
static int resume_try(struct bnd_state_txn *tx, const struct resume *rs, bnd_cpuset_t *taken,
		      char *err, size_t errlen)
{
	const struct bnd_alloc_args *a = rs->ra->a;
	int prc = resume_place(rs->t, &tx->f, rs->r, rs->ra, rs->out, rs->res, taken, err, errlen);
	if (prc == BND_ENOFIT &&
	    bnd_state_txn_reclaim_holders(tx, a->allowed, bnd_state_asks_memory(a)) > 0)
		prc = resume_place(rs->t, &tx->f, rs->r, rs->ra, rs->out, rs->res, taken, err,
				   errlen);
	return prc;
}

/* Writes the outcome into the step's record (made when it has none): bound
 * (prc BND_OK) or deferred until need cpus free, unless the user is at
 * defer_max already. */
static int resume_record(struct bnd_state_txn *tx, const struct resume *rs, int prc, int need,
			 const char *why, char *err, size_t errlen)
{
	const struct bnd_alloc_args *a = rs->ra->a;
	int i = bnd_statefile_find(&tx->f, a->job, a->step), rc;
	if (prc != BND_OK && i < 0 && over_cap(&tx->f, a->uid, rs->ra->defer_max)) {
		*rs->res = BND_RESUME_CAPPED;
		return bnd_fail(err, errlen, BND_ENOFIT, "uid %" PRIu32 " has %d deferred steps "
				"waiting on this node already (defer_max=%d)", a->uid,
				rs->ra->defer_max, rs->ra->defer_max);
	}
	int fresh = i < 0;
	if (fresh && (rc = add_record(tx, rs->r, a, rs->owner, rs->start, err, errlen)))
		return rc;
	if (i < 0)
		i = tx->f.nrec - 1;
	if ((rc = edit(tx, i, err, errlen)))
		return rc;
	if (prc == BND_OK)
		return mark_active(tx, &tx->f.rec[i], rs, err, errlen);
	*rs->res = BND_RESUME_DEFERRED;
	rc = mark_deferred(tx, &tx->f.rec[i], a, rs->t, need, why, err, errlen);
	if (!rc && fresh) {
		bnd_state_txn_count(tx, (enum bnd_counter)(BND_CNT_REFUSAL + rs->ra->reason));
		bnd_state_txn_count(tx, (enum bnd_counter)(BND_CNT_FALLBACK + BND_FB_DEFERRED));
	}
	return rc ? rc : bnd_fail(err, errlen, BND_ENOFIT, "deferred: %s", why);
}

static int resume_txn(struct bnd_state_txn *tx, const struct resume *rs, char *err,
		      size_t errlen)
{
	const struct bnd_alloc_args *a = rs->ra->a;
	int i = bnd_statefile_find(&tx->f, a->job, a->step);
	if (i >= 0 && tx->f.rec[i].status == BND_ST_ACTIVE) {
		*rs->res = BND_RESUME_ALREADY;
		return BND_OK;
	}
	bnd_cpuset_t taken;
	int prc = resume_try(tx, rs, &taken, err, errlen);
	if (prc != BND_OK && prc != BND_ENOFIT)
		return prc == BND_ENOMEM ? bnd_fail(err, errlen, prc, "state resume: out of memory")
					 : prc;
	int need = prc == BND_OK ? 0 : need_when_idle(rs->t, rs->r, rs->ra);
	if (prc != BND_OK && !need) {
		*rs->res = BND_RESUME_NEVER;
		return bnd_fail(err, errlen, BND_ENOFIT,
				"job %" PRIu32 ": --binding=%s cannot fit in the cpus Slurm gave "
				"the step even with no other job on the node", a->job, rs->r->text);
	}
	char why[BND_STATE_WHY_LEN] = "";
	if (prc != BND_OK)
		holders(&tx->f, a, &taken, why, sizeof(why));
	return resume_record(tx, rs, prc, need, why, err, errlen);
}

int bnd_state_resume(const struct bnd_state_opts *o, const struct bnd_topology *t,
		     const struct bnd_request *r, const struct bnd_resume_args *ra,
		     struct bnd_placement *out, enum bnd_resume_result *res,
		     char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	*res = BND_RESUME_NEVER;
	int rc = resume_args_ok(t, r, ra, err, errlen);
	if (rc)
		return rc;
	struct resume rs = { .t = t, .r = r, .ra = ra, .out = out, .res = res };
	rc = bnd_state_owner_of(ra->a, &rs.owner, &rs.start, err, errlen);
	if (rc)
		return rc;
	struct bnd_state_txn tx;
	rc = bnd_state_txn_begin(&tx, o, err, errlen);
	if (rc)
		return rc;
	rc = resume_txn(&tx, &rs, err, errlen);
	int crc = bnd_state_txn_commit(&tx, rc ? NULL : err, rc ? 0 : errlen);
	bnd_state_txn_end(&tx);
	if (rc || crc || *res >= BND_RESUME_ALREADY)
		bnd_placement_free(out);
	return rc ? rc : crc;
}

/* A holder of cpus the step may use whose owner is dead (the full check):
 * a transaction would reclaim it. */
static int dead_holder(struct bnd_state_file *f, const struct bnd_alloc_args *a)
{
	for (int i = 0; i < f->nrec; i++) {
		const struct bnd_state_record *r = &f->rec[i];
		if (r->status == BND_ST_ACTIVE && !(r->job == a->job && r->step == a->step) &&
		    (!a->allowed || bnd_cpuset_intersects(&r->cpus, a->allowed)) &&
		    !bnd_state_owner_alive_at(f, i))
			return 1;
	}
	return 0;
}

int bnd_state_resume_may_fit(const struct bnd_state_opts *o, const struct bnd_topology *t,
			     const struct bnd_request *r, const struct bnd_resume_args *ra)
{
	char err[BND_ERRLEN];
	if (resume_args_ok(t, r, ra, err, sizeof(err)))
		return 1;
	struct bnd_state_file f;
	if (bnd_state_snapshot(o, &f, err, sizeof(err)) != BND_OK)
		return 1;
	int i = bnd_statefile_find(&f, ra->a->job, ra->a->step);
	int fits = 1;
	if (i < 0 || f.rec[i].status != BND_ST_ACTIVE) {
		struct bnd_alloc_args a = *ra->a;
		struct bnd_resume_args quiet = *ra;
		struct bnd_placement p;
		enum bnd_resume_result res;
		bnd_cpuset_t taken;
		a.nofit = NULL;
		a.mem_out = NULL;
		quiet.a = &a;
		int rc = resume_place(t, &f, r, &quiet, &p, &res, &taken, err, sizeof(err));
		if (rc == BND_OK)
			bnd_placement_free(&p);
		fits = rc != BND_ENOFIT || dead_holder(&f, &a);
	}
	bnd_statefile_free(&f);
	return fits;
}
