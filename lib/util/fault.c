#include "binding/util/fault.h"

#ifdef BND_FAULT_POINTS

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const bnd_fault_points[] = {
	"lock.init",        /* a new lock file is initialised, not linked in yet */
	"txn.locked",       /* the lock is held, nothing read */
	"txn.loaded",       /* the state is read and repaired, nothing written */
	"txn.kept_aside",   /* a damaged state is linked aside, not yet replaced */
	"txn.temp_written", /* the next state is whole in the temp file */
	"txn.exchanged",    /* the next state is in place, the old one not unlinked */
	"txn.committed",    /* the transaction is on disk, the lock still held */
	NULL,
};

#define NPOINTS (sizeof(bnd_fault_points) / sizeof(bnd_fault_points[0]) - 1)

/* Passes through each point, in this process: what tests count. */
static _Atomic long seen[NPOINTS];

static int index_of(const char *name)
{
	for (int i = 0; bnd_fault_points[i]; i++)
		if (!strcmp(bnd_fault_points[i], name))
			return i;
	return -1;
}

long bnd_fault_passes(const char *name)
{
	int i = index_of(name);
	return i < 0 ? -1 : atomic_load(&seen[i]);
}

/* The count is per process: a test forks a child per point. */
static long passes;

void bnd_fault_point(const char *name)
{
	int k = index_of(name);
	if (k < 0) {
		fprintf(stderr, "fault point %s is missing from bnd_fault_points\n", name);
		abort();
	}
	atomic_fetch_add(&seen[k], 1);
	const char *v = getenv(BND_FAULT_ENV);
	size_t n = strlen(name);
	if (!v || strncmp(v, name, n) || (v[n] && v[n] != ':' && v[n] != '@'))
		return;
	const char *at = strchr(v + n, '@');
	long nth = at ? atol(at + 1) : 1;
	if (++passes < nth)
		return;
	if (!strncmp(v + n, ":exit", 5))
		_exit(BND_FAULT_EXIT_CODE);
	kill(getpid(), SIGKILL);
	for (;;)
		pause();
}

#endif
