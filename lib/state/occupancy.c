#include "binding/state/occupancy.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/memory/memacct.h"
#include "binding/util/error.h"

void bnd_state_held(const struct bnd_state_file *f, uint32_t except_job, bnd_cpuset_t *out)
{
	bnd_cpuset_zero(out);
	for (int i = 0; i < f->nrec; i++)
		if (f->rec[i].status == BND_ST_ACTIVE && (!except_job || f->rec[i].job != except_job))
			bnd_cpuset_or(out, &f->rec[i].cpus);
}

void bnd_state_occupancy(const struct bnd_state_file *f, uint32_t job, uint32_t step,
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

/* A script that resumes after its steps gets its cores back; a step takes
 * its script's cores only when it inherits them. */
void bnd_state_taken_of(const struct bnd_alloc_args *a, const bnd_cpuset_t *others,
		     const bnd_cpuset_t *script, const bnd_cpuset_t *siblings, bnd_cpuset_t *taken)
{
	*taken = *others;
	if (a->step != BND_STEP_BATCH)
		bnd_cpuset_or(taken, siblings);
	if (!a->inherit_job)
		bnd_cpuset_or(taken, script);
}

void bnd_state_taken(const struct bnd_state_file *f, const struct bnd_alloc_args *a,
		     bnd_cpuset_t *taken)
{
	bnd_cpuset_t others, script, siblings;
	bnd_state_occupancy(f, a->job, a->step, &others, &script, &siblings);
	bnd_state_taken_of(a, &others, &script, &siblings, taken);
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

/* A record's memory counts unless it waits (deferred: its pages are not
 * there yet); a booking counts whatever the record's status: Slurm holds
 * it for the job, suspended or not. */
static int holds_mem(const struct bnd_state_record *r, uint32_t except_job)
{
	if (except_job && r->job == except_job)
		return 0;
	return (r->nmem > 0 && r->status != BND_ST_DEFERRED) || r->nbooked > 0;
}

static int by_job(const void *a, const void *b)
{
	const struct bnd_state_record *x = *(const struct bnd_state_record *const *)a;
	const struct bnd_state_record *y = *(const struct bnd_state_record *const *)b;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* One job's records' memory per NUMA index, as it accumulates. */
struct job_mem {
	uint64_t *sum, *booked;   /* [nnuma] */
	uint64_t largest, job_mem;
	int has_booking;
};

static void job_mem_add(const struct bnd_topology *t, struct job_mem *j,
			const struct bnd_state_record *r)
{
	uint64_t total = 0;
	for (int k = 0; r->status != BND_ST_DEFERRED && k < r->nmem; k++) {
		struct bnd_mem_share one = { r->mem[k].node, r->mem[k].mib };
		bnd_mem_add(t, &one, 1, j->sum);
		total += r->mem[k].mib;
	}
	if (total > j->largest)
		j->largest = total;
	if (r->job_mem_mib > j->job_mem)
		j->job_mem = r->job_mem_mib;
	for (int k = 0; k < r->nbooked; k++) {
		int i = bnd_topology_numa_index(t, r->booked[k].node);
		if (i >= 0 && r->booked[k].mib > j->booked[i])
			j->booked[i] = r->booked[k].mib;
	}
	j->has_booking |= r->nbooked > 0;
}

/* What the job holds per NUMA index into used; j starts over. A job Slurm
 * booked memory for holds its booking (memory/booking.h): its steps share
 * it, and Slurm never gives it to another job. */
static void job_mem_done(const struct bnd_topology *t, struct job_mem *j, uint64_t *used)
{
	size_t nn = (size_t)t->nnuma;
	uint64_t cap = j->job_mem > j->largest ? j->job_mem : j->largest;
	for (size_t k = 0; k < nn; k++)
		used[k] += j->has_booking ? j->booked[k] : j->sum[k] < cap ? j->sum[k] : cap;
	memset(j->sum, 0, nn * sizeof(*j->sum));
	memset(j->booked, 0, nn * sizeof(*j->booked));
	j->largest = j->job_mem = 0;
	j->has_booking = 0;
}

/* A job's steps share its memory, as in Slurm: the job never holds more on
 * this host than its memory. That is the job's memory its records carry
 * (jobmem=, Slurm's S_JOB_ALLOC_MEM), or, for records without it (version
 * 1 files), its largest record (the batch script's, or a step's that got
 * the whole job's memory, and every step's memory is part of it). So on
 * each node a job reserves the sum of its records there, capped at that:
 * its own records never make its next step's memory "taken", a script and
 * its steps do not count twice against other jobs, and steps with their
 * own --mem add up to the job's memory (salloc's steps running at once).
 * A job with a numamem booking holds exactly its booking. */
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
	struct job_mem j = { calloc(nn + 1, sizeof(uint64_t)), calloc(nn + 1, sizeof(uint64_t)),
			     0, 0, 0 };
	int rc = recs && j.sum && j.booked ? BND_OK : BND_ENOMEM;
	n = 0;
	for (int i = 0; !rc && i < f->nrec; i++)
		if (holds_mem(&f->rec[i], except_job))
			recs[n++] = &f->rec[i];
	if (!rc)
		qsort(recs, (size_t)n, sizeof(*recs), by_job);
	for (int i = 0; !rc && i < n; i++) {
		job_mem_add(t, &j, recs[i]);
		if (i + 1 == n || recs[i + 1]->job != recs[i]->job)
			job_mem_done(t, &j, used);
	}
	free(recs);
	free(j.sum);
	free(j.booked);
	return rc;
}

