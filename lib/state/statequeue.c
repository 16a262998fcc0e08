#include "binding/state/statequeue.h"

#include <stdlib.h>

#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/util/error.h"

/* A record's place in the queue: since=, then its place in the file (a
 * record is appended when it is made, and keeps its place). x and y are in
 * one array. */
static int before(const struct bnd_state_record *x, const struct bnd_state_record *y)
{
	if (x->since_ms != y->since_ms)
		return x->since_ms < y->since_ms;
	return x < y;
}

static int by_queue(const void *a, const void *b)
{
	const struct bnd_state_record *x = *(const struct bnd_state_record *const *)a;
	const struct bnd_state_record *y = *(const struct bnd_state_record *const *)b;
	return before(x, y) ? -1 : before(y, x);
}

/* Could record d fit at all with the cpus nobody holds? A count, not a
 * placement. */
static int may_fit(const struct bnd_state_record *d, const bnd_cpuset_t *held)
{
	bnd_cpuset_t free_cpus = *d->want;
	bnd_cpuset_andnot(&free_cpus, held);
	return bnd_cpuset_count(&free_cpus) >= (d->want_need > 0 ? d->want_need : 1);
}

/* The deferred records ahead of (a->job, a->step) that may fit, whole, in
 * queue order (a NULL: all of them); *n of them. NULL with *n 0 when there
 * are none. */
static const struct bnd_state_record **candidates(struct bnd_state_file *f,
						  const struct bnd_alloc_args *a, int *n, int *oom)
{
	const struct bnd_state_record *me = NULL;
	const struct bnd_state_record **v = NULL;
	bnd_cpuset_t held;
	int cap = 0;
	*n = *oom = 0;
	int waiting = 0;
	for (int k = 0; k < f->nrec && !waiting; k++)
		waiting = f->rec[k].status == BND_ST_DEFERRED;
	if (!waiting)
		return NULL; /* the usual node: no scan of the holders */
	int i = a ? bnd_statefile_find(f, a->job, a->step) : -1;
	if (i >= 0 && f->rec[i].status == BND_ST_DEFERRED && bnd_statefile_whole(f, i) == BND_OK)
		me = &f->rec[i];
	bnd_state_held(f, 0, &held);
	for (int k = 0; k < f->nrec; k++) {
		struct bnd_state_record *d = &f->rec[k];
		if (k == i || d->status != BND_ST_DEFERRED || bnd_statefile_whole(f, k) != BND_OK ||
		    !d->want || (me && !before(d, me)) ||
		    (a && a->allowed && !bnd_cpuset_intersects(d->want, a->allowed)) ||
		    !may_fit(d, &held))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			const struct bnd_state_record **grown = realloc(v, (size_t)cap * sizeof(*v));
			if (!grown) {
				free(v);
				*oom = 1;
				*n = 0;
				return NULL;
			}
			v = grown;
		}
		v[(*n)++] = d;
	}
	if (*n > 1)
		qsort(v, (size_t)*n, sizeof(*v), by_queue);
	return v;
}

/* Places d as its own transaction would (its occupancy, its cpus, what the
 * queue ahead of it takes); adds what it would take to ahead. 1 when it
 * was placed, 0 when it does not fit, -1 when its request (cut short in
 * the file) cannot be parsed again: only its own retry can tell. */
static int serve(const struct bnd_topology *t, const struct bnd_state_file *f,
		 const struct bnd_state_record *d, bnd_cpuset_t *ahead)
{
	char err[BND_ERRLEN];
	struct bnd_request req;
	if (bnd_request_parse(&req, d->request, err, sizeof(err)) != BND_OK)
		return -1;
	struct bnd_alloc_args da = {
		.job = d->job, .step = d->step, .ntasks = d->want_groups, .allowed = d->want,
		.inherit_job = d->step != BND_STEP_BATCH,
	};
	bnd_cpuset_t taken;
	bnd_state_taken(f, &da, &taken);
	bnd_cpuset_or(&taken, ahead);
	struct bnd_domain dom = { d->want, &taken, NULL };
	struct bnd_placement p;
	int rc = bnd_place(t, &dom, &req, d->want_groups, &p, err, sizeof(err));
	bnd_request_clear(&req);
	if (rc != BND_OK)
		return 0;
	bnd_cpuset_or(ahead, &p.all_cpus);
	bnd_placement_free(&p);
	return 1;
}

/* Without a topology: d fits by count when its want= has need= cpus free
 * of what is held and what the steps before it claimed; it claims the
 * first need= of them (a stand-in for its placement). */
static int count_fits(const struct bnd_state_record *d, const bnd_cpuset_t *held,
		      bnd_cpuset_t *ahead)
{
	bnd_cpuset_t free_cpus = *d->want;
	bnd_cpuset_andnot(&free_cpus, held);
	bnd_cpuset_andnot(&free_cpus, ahead);
	int need = d->want_need > 0 ? d->want_need : 1;
	if (bnd_cpuset_count(&free_cpus) < need)
		return 0;
	for (int c = -1, k = 0; k < need && (c = bnd_cpuset_next(&free_cpus, c)) >= 0; k++)
		bnd_cpuset_set(ahead, c);
	return 1;
}

int bnd_state_queue_may_fit(struct bnd_state_file *f)
{
	int n, oom;
	free(candidates(f, NULL, &n, &oom));
	return n || oom;
}

int bnd_state_queue_fits(const struct bnd_topology *t, struct bnd_state_file *f,
			 const struct bnd_state_record ***out, int *nout)
{
	int n, oom, kept = 0;
	*out = NULL;
	*nout = 0;
	const struct bnd_state_record **v = candidates(f, NULL, &n, &oom);
	if (oom) {
		free(v);
		return BND_ENOMEM;
	}
	bnd_cpuset_t ahead, held;
	bnd_cpuset_zero(&ahead);
	bnd_state_held(f, 0, &held);
	for (int k = 0; k < n; k++)
		if (t ? serve(t, f, v[k], &ahead) != 0 : count_fits(v[k], &held, &ahead))
			v[kept++] = v[k];
	if (!kept) {
		free(v);
		v = NULL;
	}
	*out = v;
	*nout = kept;
	return BND_OK;
}

int bnd_state_queue_ahead(const struct bnd_topology *t, struct bnd_state_file *f,
			  const struct bnd_alloc_args *a, bnd_cpuset_t *ahead)
{
	int n, oom;
	bnd_cpuset_zero(ahead);
	const struct bnd_state_record **v = candidates(f, a, &n, &oom);
	if (oom)
		return BND_ENOMEM;
	if (!n)
		return BND_OK;
	for (int k = 0; k < n; k++)
		serve(t, f, v[k], ahead);
	free(v);
	return BND_OK;
}
