#include "binding/state/transition.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/state/statetxn.h"
#include "binding/util/error.h"

long long bnd_state_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
	} else if (tx.f.rec[i].status != BND_ST_SUSPENDED) {
		struct bnd_state_record *r = &tx.f.rec[i];
		r->status = BND_ST_SUSPENDED;
		bnd_cpuset_zero(&r->cpus);
		free(r->tasks);
		r->tasks = NULL;
		r->ntasks = 0;
		r->since_ms = bnd_state_now_ms();
		bnd_state_why_clean(r->why, why && *why ? why : "suspended");
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
 * "held-by-step:3" (its own job's other steps), for why=. A job's batch
 * step and its srun steps hold the same cpus: each job is named once. */
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
			n += (size_t)snprintf(why + n, len - n, "%s%" PRIu32, named++ ? "," : "", id);
		}
	}
	if (!named)
		snprintf(why, len, "no-fitting-placement");
}

static int fill_record(struct bnd_state_record *rec, const struct bnd_placement *p)
{
	free(rec->tasks);
	rec->tasks = malloc((size_t)p->ntasks * sizeof(*rec->tasks));
	if (!rec->tasks) {
		rec->ntasks = 0;
		bnd_cpuset_zero(&rec->cpus);
		return BND_ENOMEM;
	}
	rec->ntasks = p->ntasks;
	for (int i = 0; i < p->ntasks; i++)
		rec->tasks[i] = p->tasks[i].cpus;
	rec->cpus = p->all_cpus;
	return BND_OK;
}

/* Would the request fit if no other record held anything? */
static int fits_when_idle(const struct bnd_topology *t, const struct bnd_request *r,
			  const struct bnd_resume_args *ra)
{
	if (ra->prev_only)
		return ra->prev && (!ra->a->allowed ||
				    bnd_cpuset_subset(&ra->prev->all_cpus, ra->a->allowed));
	struct bnd_placement tmp;
	struct bnd_domain d = { ra->a->allowed, NULL };
	char e[BND_ERRLEN];
	if (bnd_place(t, &d, r, ra->a->ntasks, &tmp, e, sizeof(e)) != BND_OK)
		return 0;
	bnd_placement_free(&tmp);
	return 1;
}

int bnd_state_resume(const struct bnd_state_opts *o, const struct bnd_topology *t,
		     const struct bnd_request *r, const struct bnd_resume_args *ra,
		     struct bnd_placement *out, enum bnd_resume_result *res,
		     char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	*res = BND_RESUME_NEVER;
	const struct bnd_alloc_args *a = ra ? ra->a : NULL;
	if (!t || !r || !a || a->ntasks < 1 || a->ntasks > BND_STATE_MAX_TASKS ||
	    (ra->prev && ra->prev->ntasks != a->ntasks))
		return bnd_fail(err, errlen, BND_EINVAL,
				"state resume: need a topology, a request, 1..%d tasks and a "
				"previous placement of as many tasks", BND_STATE_MAX_TASKS);
	pid_t owner;
	unsigned long long start;
	char why[BND_STATE_WHY_LEN];
	int orc = bnd_state_owner_of(a, &owner, &start, err, errlen);
	if (orc)
		return orc;

	struct bnd_state_txn tx;
	int rc = bnd_state_txn_begin(&tx, o, err, errlen);
	if (rc)
		return rc;
	int i = bnd_statefile_find(&tx.f, a->job, a->step);
	if (i >= 0 && tx.f.rec[i].status == BND_ST_ACTIVE) {
		*res = BND_RESUME_ALREADY;
		goto commit;
	}
	bnd_cpuset_t taken;
	int prc = BND_ENOFIT;
	/* A second pass only when the full owner check (reused pids, zombies)
	 * freed something: as for allocate, before deferring. */
	for (int pass = 0; pass < 2 && prc == BND_ENOFIT; pass++) {
		if (pass && bnd_state_txn_reclaim_all(&tx) == 0)
			break;
		bnd_state_taken(&tx.f, a, &taken);
		if (ra->prev && !bnd_cpuset_intersects(&ra->prev->all_cpus, &taken) &&
		    (!a->allowed || bnd_cpuset_subset(&ra->prev->all_cpus, a->allowed))) {
			prc = placement_copy(out, ra->prev);
			*res = BND_RESUME_SAME;
		} else if (!ra->prev_only) {
			prc = bnd_state_place(t, &tx.f, r, a, out, err, errlen);
			*res = BND_RESUME_MOVED;
			if (prc != BND_OK && prc != BND_ENOFIT) {
				rc = prc;
				goto commit;
			}
		}
	}
	if (i >= 0)
		i = bnd_statefile_find(&tx.f, a->job, a->step);
	if (prc == BND_ENOMEM) {
		rc = bnd_fail(err, errlen, BND_ENOMEM, "state resume: out of memory");
		goto commit;
	}
	if (prc != BND_OK && !fits_when_idle(t, r, ra)) {
		*res = BND_RESUME_NEVER;
		rc = bnd_fail(err, errlen, BND_ENOFIT,
			      "job %" PRIu32 ": --binding=%s cannot fit in the cpus Slurm gave "
			      "the step even with no other job on the node", a->job, r->text);
		goto commit;
	}
	if (prc != BND_OK)
		holders(&tx.f, a, &taken, why, sizeof(why));
	if (i < 0) {
		struct bnd_state_record rec;
		memset(&rec, 0, sizeof(rec));
		rec.job = a->job;
		rec.step = a->step;
		rec.owner_pid = (int)owner;
		rec.owner_start = start;
		rec.uid = a->uid;
		rec.created = (long long)time(NULL);
		snprintf(rec.request, sizeof(rec.request), "%s", r->text);
		rc = bnd_statefile_add(&tx.f, &rec);
		if (rc) {
			bnd_fail(err, errlen, rc, "state resume: out of memory");
			goto commit;
		}
		i = tx.f.nrec - 1;
		tx.f.rec[i].status = BND_ST_SUSPENDED; /* so "defer" below notes it */
	}
	struct bnd_state_record *rec = &tx.f.rec[i];
	if (prc == BND_OK) {
		rc = fill_record(rec, out);
		if (rc) {
			bnd_fail(err, errlen, rc, "state resume: out of memory");
			goto commit;
		}
		rec->status = BND_ST_ACTIVE;
		rec->since_ms = 0;
		rec->why[0] = '\0';
		bnd_state_txn_note(&tx, "resume", rec);
	} else {
		*res = BND_RESUME_DEFERRED;
		/* A retry that changes nothing writes nothing: every write wakes
		 * the node's deferred steps, and they would wake each other. */
		if (rec->status != BND_ST_DEFERRED || strcmp(rec->why, why)) {
			if (rec->status != BND_ST_DEFERRED)
				rec->since_ms = bnd_state_now_ms();
			rec->status = BND_ST_DEFERRED;
			bnd_cpuset_zero(&rec->cpus);
			free(rec->tasks);
			rec->tasks = NULL;
			rec->ntasks = 0;
			bnd_state_why_clean(rec->why, why);
			bnd_state_txn_note(&tx, "defer", rec);
		}
		rc = bnd_fail(err, errlen, BND_ENOFIT, "deferred: %s", why);
	}
commit:;
	int crc = bnd_state_txn_commit(&tx, rc ? NULL : err, rc ? 0 : errlen);
	bnd_state_txn_end(&tx);
	if (rc || crc || *res >= BND_RESUME_ALREADY)
		bnd_placement_free(out);
	return rc ? rc : crc;
}
