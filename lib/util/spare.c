#include "binding/util/spare.h"

#include <pthread.h>
#include <stdlib.h>

/* Larger blocks go back to malloc: a one-off, not worth holding. */
#define KEEP_MAX ((size_t)64 << 20)

struct pool {
	void *p[BND_SPARE_USES];
	size_t cap[BND_SPARE_USES];
	/* The block last handed out for each use, and its real size: its
	 * user may only know a lower bound when it gives it back. */
	void *out[BND_SPARE_USES];
	size_t outcap[BND_SPARE_USES];
};

static pthread_key_t pool_key;
static int pool_ok;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_drop(void *arg)
{
	struct pool *pl = arg;
	for (int i = 0; i < BND_SPARE_USES; i++)
		free(pl->p[i]);
	free(pl);
}

static void pool_init(void)
{
	pool_ok = !pthread_key_create(&pool_key, pool_drop);
}

static struct pool *pool_of_thread(void)
{
	pthread_once(&pool_once, pool_init);
	if (!pool_ok)
		return NULL;
	struct pool *pl = pthread_getspecific(pool_key);
	if (!pl && (pl = calloc(1, sizeof(*pl))) && pthread_setspecific(pool_key, pl)) {
		free(pl);
		pl = NULL;
	}
	return pl;
}

void *bnd_spare_alloc(enum bnd_spare_use use, size_t need, size_t *cap)
{
	struct pool *pl = (unsigned)use < BND_SPARE_USES ? pool_of_thread() : NULL;
	void *p;
	if (!pl || !pl->p[use] || pl->cap[use] < need) {
		/* Room to grow: the state gains a record now and then. */
		*cap = need + need / 4 + 4096;
		if (!(p = malloc(*cap)))
			return NULL;
	} else {
		p = pl->p[use];
		*cap = pl->cap[use];
		pl->p[use] = NULL;
		pl->cap[use] = 0;
	}
	if (pl) {
		pl->out[use] = p;
		pl->outcap[use] = *cap;
	}
	return p;
}

void bnd_spare_free(enum bnd_spare_use use, void *p, size_t cap)
{
	struct pool *pl = p && cap <= KEEP_MAX && (unsigned)use < BND_SPARE_USES
				  ? pool_of_thread() : NULL;
	if (pl && p == pl->out[use]) {
		cap = cap > pl->outcap[use] ? cap : pl->outcap[use];
		pl->out[use] = NULL;
	}
	if (!pl || (pl->p[use] && pl->cap[use] >= cap)) {
		free(p);
		return;
	}
	free(pl->p[use]);
	pl->p[use] = p;
	pl->cap[use] = cap;
}
