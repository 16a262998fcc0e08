/* The state file's records in memory (statefile.h): status and step
 * names, a record's parts, the file's array of them. Its text is written
 * by stateformat.c and read by stateparse.c. */
#include "binding/state/statefile.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/state/history.h"
#include "binding/util/decimal.h"
#include "binding/util/error.h"
#include "binding/util/spare.h"


/* ---- records ---- */

static const char *const status_names[] = { "active", "suspended", "deferred", "unbound" };

const char *bnd_state_status_name(enum bnd_state_status s)
{
	if ((unsigned)s < sizeof(status_names) / sizeof(status_names[0]))
		return status_names[s];
	return "unknown";
}

int bnd_state_status_parse(const char *name, enum bnd_state_status *s)
{
	for (unsigned i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (!strcmp(name, status_names[i])) {
			*s = (enum bnd_state_status)i;
			return BND_OK;
		}
	return BND_EINVAL;
}

static const struct {
	uint32_t id;
	const char *name;
} step_names[] = {
	{ BND_STEP_BATCH, "batch" },
	{ BND_STEP_EXTERN, "extern" },
	{ BND_STEP_INTERACTIVE, "interactive" },
};

const char *bnd_step_name(uint32_t step, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(step_names) / sizeof(step_names[0]); i++)
		if (step_names[i].id == step)
			return step_names[i].name;
	snprintf(buf, len, "%" PRIu32, step);
	return buf;
}

int bnd_step_by_name(const char *name, uint32_t *step)
{
	for (size_t i = 0; i < sizeof(step_names) / sizeof(step_names[0]); i++)
		if (!strcmp(name, step_names[i].name)) {
			*step = step_names[i].id;
			return BND_OK;
		}
	return BND_EINVAL;
}

void bnd_statefile_init(struct bnd_state_file *f)
{
	memset(f, 0, sizeof(*f));
	f->version = BND_STATE_VERSION;
}

void bnd_state_record_free(struct bnd_state_record *r)
{
	if (!r->tasks && !r->want && !r->mem && !r->gpus && !r->hist && !r->booked)
		return;
	free(r->tasks);
	r->tasks = NULL;
	r->ntasks = 0;
	free(r->want);
	r->want = NULL;
	r->want_groups = r->want_need = 0;
	free(r->mem);
	r->mem = NULL;
	r->nmem = 0;
	free(r->gpus);
	r->gpus = NULL;
	r->ngpus = 0;
	free(r->hist);
	r->hist = NULL;
	free(r->booked);
	r->booked = NULL;
	r->nbooked = 0;
}

/* n zeroed shares in *arr (freed first; 0: none). */
static int shares_alloc(struct bnd_state_mem **arr, int *count, int n)
{
	if (n < 0 || n > BND_STATE_MAX_MEM)
		return BND_EINVAL;
	free(*arr);
	*arr = NULL;
	*count = 0;
	if (!n)
		return BND_OK;
	if (!(*arr = calloc((size_t)n, sizeof(**arr))))
		return BND_ENOMEM;
	*count = n;
	return BND_OK;
}

int bnd_state_record_mem(struct bnd_state_record *r, int n)
{
	return shares_alloc(&r->mem, &r->nmem, n);
}

int bnd_state_record_booked(struct bnd_state_record *r, int n)
{
	return shares_alloc(&r->booked, &r->nbooked, n);
}

void bnd_statefile_free(struct bnd_state_file *f)
{
	for (int i = 0; i < f->nrec; i++)
		bnd_state_record_free(&f->rec[i]);
	bnd_spare_free(BND_SPARE_RECORDS, f->rec, (size_t)f->cap * sizeof(*f->rec));
	f->rec = NULL;
	f->nrec = f->cap = 0;
	bnd_spare_free(BND_SPARE_READ, f->text, f->textcap);
	f->text = NULL;
	f->textcap = 0;
}

int bnd_state_record_gpus(struct bnd_state_record *r, const uint64_t *masks, int n)
{
	free(r->gpus);
	r->gpus = NULL;
	r->ngpus = 0;
	if (n <= 0)
		return BND_OK;
	if (!(r->gpus = malloc((size_t)n * sizeof(*r->gpus))))
		return BND_ENOMEM;
	memcpy(r->gpus, masks, (size_t)n * sizeof(*r->gpus));
	r->ngpus = n;
	return BND_OK;
}

int bnd_state_record_want(struct bnd_state_record *r, const bnd_cpuset_t *want, int groups,
			  int need)
{
	if (!want) {
		free(r->want);
		r->want = NULL;
		r->want_groups = r->want_need = 0;
		return BND_OK;
	}
	if (!r->want && !(r->want = malloc(sizeof(*r->want))))
		return BND_ENOMEM;
	*r->want = *want;
	r->want_groups = groups;
	r->want_need = need;
	return BND_OK;
}

/* Deep copy (tasks and want included) of a whole record; BND_OK,
 * BND_ENOMEM, or BND_EINVAL for a record parsed only to its head. */
static int record_copy(struct bnd_state_record *dst, const struct bnd_state_record *src)
{
	if (src->parsed != BND_REC_WHOLE)
		return BND_EINVAL;
	*dst = *src;
	dst->tasks = NULL;
	dst->want = NULL;
	dst->mem = NULL;
	dst->nmem = 0;
	dst->gpus = NULL;
	dst->ngpus = 0;
	dst->hist = NULL;
	dst->booked = NULL;
	dst->nbooked = 0;
	dst->raw = NULL;
	dst->rawlen = dst->tail = 0;
	if (src->ntasks > 0) {
		dst->tasks = malloc((size_t)src->ntasks * sizeof(*dst->tasks));
		if (!dst->tasks) {
			dst->ntasks = 0;
			return BND_ENOMEM;
		}
		memcpy(dst->tasks, src->tasks, (size_t)src->ntasks * sizeof(*dst->tasks));
	}
	if ((src->want &&
	     bnd_state_record_want(dst, src->want, src->want_groups, src->want_need)) ||
	    bnd_state_record_mem(dst, src->nmem) || bnd_state_record_booked(dst, src->nbooked) ||
	    bnd_state_record_gpus(dst, src->gpus, src->ngpus) ||
	    (src->hist && !(dst->hist = strdup(src->hist)))) {
		bnd_state_record_free(dst);
		return BND_ENOMEM;
	}
	if (src->nmem)
		memcpy(dst->mem, src->mem, (size_t)src->nmem * sizeof(*dst->mem));
	if (src->nbooked)
		memcpy(dst->booked, src->booked, (size_t)src->nbooked * sizeof(*dst->booked));
	return BND_OK;
}

/* The record array is large (1 KB a record): a spare block (spare.h). */
int bnd_statefile_reserve(struct bnd_state_file *f, int cap)
{
	if (cap <= f->cap)
		return 0;
	if (!f->cap) {
		size_t got;
		if (!(f->rec = bnd_spare_alloc(BND_SPARE_RECORDS, (size_t)cap * sizeof(*f->rec), &got)))
			return -1;
		f->cap = (int)(got / sizeof(*f->rec));
		return 0;
	}
	struct bnd_state_record *n = realloc(f->rec, (size_t)cap * sizeof(*n));
	if (!n)
		return -1;
	f->rec = n;
	f->cap = cap;
	return 0;
}

struct bnd_state_record *bnd_statefile_slot(struct bnd_state_file *f)
{
	if (f->nrec == f->cap && bnd_statefile_reserve(f, f->cap ? f->cap * 2 : 8))
		return NULL;
	return &f->rec[f->nrec];
}

int bnd_statefile_find(const struct bnd_state_file *f, uint32_t job, uint32_t step)
{
	for (int i = 0; i < f->nrec; i++)
		if (f->rec[i].job == job && f->rec[i].step == step)
			return i;
	return -1;
}

int bnd_statefile_add(struct bnd_state_file *f, const struct bnd_state_record *r)
{
	struct bnd_state_record *slot = bnd_statefile_slot(f);
	if (!slot)
		return BND_ENOMEM;
	int rc = record_copy(slot, r);
	if (rc)
		return rc;
	f->nrec++;
	return BND_OK;
}

void bnd_statefile_remove(struct bnd_state_file *f, int i)
{
	if (i < 0 || i >= f->nrec)
		return;
	bnd_state_record_free(&f->rec[i]);
	memmove(&f->rec[i], &f->rec[i + 1], (size_t)(f->nrec - i - 1) * sizeof(f->rec[0]));
	f->nrec--;
}
