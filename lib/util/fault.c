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

const char *const bnd_probe_points[] = {
	"hostlist.entry",   /* a host list walk made one more name */
	"rebind.set",       /* a thread's affinity is about to be set (arg: its tid) */
	"rebind.migrate",   /* a process's pages are about to move (arg: its pid) */
	"state.wake",       /* a waiting step's doorbell rings (arg: its record) */
	"watch.job_read",   /* a watcher asks slurmctld for the job's state */
	NULL,
};

#define NPROBES (sizeof(bnd_probe_points) / sizeof(bnd_probe_points[0]) - 1)

/* Passes through each point and probe, in this process: what tests count. */
static _Atomic long seen[NPOINTS];
static _Atomic long probed[NPROBES];
static void (*hook_fn[NPROBES])(const void *arg, void *ctx);
static void *hook_ctx[NPROBES];

static int index_of(const char *name)
{
	for (int i = 0; bnd_fault_points[i]; i++)
		if (!strcmp(bnd_fault_points[i], name))
			return i;
	return -1;
}

static int probe_of(const char *name)
{
	for (int i = 0; bnd_probe_points[i]; i++)
		if (!strcmp(bnd_probe_points[i], name))
			return i;
	return -1;
}

long bnd_fault_passes(const char *name)
{
	int i = index_of(name), p = i < 0 ? probe_of(name) : -1;
	return i >= 0 ? atomic_load(&seen[i]) : p >= 0 ? atomic_load(&probed[p]) : -1;
}

void bnd_probe_point(const char *name, const void *arg)
{
	int k = probe_of(name);
	if (k < 0) {
		fprintf(stderr, "probe %s is missing from bnd_probe_points\n", name);
		abort();
	}
	atomic_fetch_add(&probed[k], 1);
	if (hook_fn[k])
		hook_fn[k](arg, hook_ctx[k]);
}

void bnd_probe_hook(const char *name, void (*fn)(const void *arg, void *ctx), void *ctx)
{
	int k = probe_of(name);
	if (k < 0) {
		fprintf(stderr, "probe %s is missing from bnd_probe_points\n", name);
		abort();
	}
	hook_ctx[k] = ctx;
	hook_fn[k] = fn;
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
