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
 * this host than its memory. That is the job's memory its records carry
 * (jobmem=, Slurm's S_JOB_ALLOC_MEM), or, for records without it (version
 * 1 files), its largest record (the batch script's, or a step's that got
 * the whole job's memory, and every step's memory is part of it). So on
 * each node a job reserves the sum of its records there, capped at that:
 * its own records never make its next step's memory "taken", a script and
 * its steps do not count twice against other jobs, and steps with their
 * own --mem add up to the job's memory (salloc's steps running at once). */
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
	uint64_t largest = 0, job_mem = 0;
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
		if (r->job_mem_mib > job_mem)
			job_mem = r->job_mem_mib;
		if (i + 1 == n || recs[i + 1]->job != r->job) {
			uint64_t cap = job_mem > largest ? job_mem : largest;
			for (size_t k = 0; k < nn; k++)
				used[k] += sum[k] < cap ? sum[k] : cap;
			memset(sum, 0, nn * sizeof(*sum));
			largest = job_mem = 0;
		}
	}
	free(recs);
	free(sum);
	return BND_OK;
}

