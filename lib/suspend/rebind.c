#include "binding/suspend/rebind.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/task/apply.h"
#include "binding/util/error.h"

/* Ids already handled (threads) or queued (processes). */
struct idset {
	int n, cap;
	pid_t *v;
};

static int idset_has(const struct idset *s, pid_t id)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i] == id)
			return 1;
	return 0;
}

static int idset_add(struct idset *s, pid_t id)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 64;
		pid_t *v = realloc(s->v, (size_t)cap * sizeof(*v));
		if (!v)
			return BND_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = id;
	return BND_OK;
}

struct walk {
	const char *proc;
	const bnd_cpuset_t *cpus;
	struct idset threads, procs;
	int failed;
	char *err;
	size_t errlen;
};

/* Queues the children a thread has forked. Read once per thread, after
 * its affinity is set: a child it forks later inherits the new cpus. */
static int add_children(struct walk *w, pid_t pid, pid_t tid)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task/%d/children", w->proc, (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return BND_OK; /* gone */
	size_t cap = 256, len = 0;
	char *buf = malloc(cap);
	ssize_t n;
	while (buf && (n = read(fd, buf + len, cap - 1 - len)) > 0) {
		len += (size_t)n;
		if (len == cap - 1) {
			char *b = realloc(buf, cap *= 2);
			if (!b) {
				free(buf);
				buf = NULL;
			}
			buf = b;
		}
	}
	close(fd);
	if (!buf)
		return BND_ENOMEM;
	buf[len] = '\0';
	int rc = BND_OK;
	char *p = buf, *end;
	for (long child; rc == BND_OK && (child = strtol(p, &end, 10), end != p); p = end)
		if (child > 0 && !idset_has(&w->procs, (pid_t)child))
			rc = idset_add(&w->procs, (pid_t)child);
	free(buf);
	return rc;
}

/* One pass over pid's threads; *fresh counts threads not seen before. */
static int pass(struct walk *w, pid_t pid, int *fresh)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task", w->proc, (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return BND_OK; /* ended meanwhile */
	struct dirent *e;
	int rc = BND_OK;
	while (rc == BND_OK && (e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		if (!idset_has(&w->threads, (pid_t)tid)) {
			char why[BND_ERRLEN];
			if (bnd_apply_affinity((pid_t)tid, w->cpus, why, sizeof(why)) != BND_OK) {
				/* A thread that exited is fine; one that refused is not. */
				snprintf(path, sizeof(path), "%s/%d/task/%ld", w->proc, (int)pid, tid);
				FILE *alive = fopen(path, "re");
				if (alive || errno != ENOENT) {
					if (!w->failed)
						bnd_fail(w->err, w->errlen, BND_ESYS,
							 "thread %ld of pid %d: %s", tid, (int)pid, why);
					w->failed = 1;
				}
				if (alive)
					fclose(alive);
			}
			rc = idset_add(&w->threads, (pid_t)tid);
			++*fresh;
			if (rc == BND_OK)
				rc = add_children(w, pid, (pid_t)tid);
		}
	}
	closedir(d);
	return rc;
}

enum bnd_move_rule bnd_rebind_rule(enum bnd_mbind mbind, enum bnd_instance instance)
{
	if (instance != BND_I_SET)
		return BND_MOVE_KEEP;
	switch (mbind) {
	case BND_M_NONE:
		return BND_MOVE_FREE;
	case BND_M_CORES:
		return BND_MOVE_MIGRATE;
	default:
		return BND_MOVE_KEEP;
	}
}

int bnd_rebind_tree(const char *proc_root, pid_t root, const bnd_cpuset_t *cpus,
			const bnd_nodeset_t *from, const bnd_nodeset_t *to, int *nthreads,
			int *nprocs, char *err, size_t errlen)
{
	if (nthreads)
		*nthreads = 0;
	if (nprocs)
		*nprocs = 0;
	if (root <= 0 || !cpus || bnd_cpuset_empty(cpus))
		return bnd_fail(err, errlen, BND_EINVAL, "rebind: need a pid and some cpus");
	struct walk w = { proc_root ? proc_root : "/proc", cpus, { 0 }, { 0 }, 0, err, errlen };
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task", w.proc, (int)root);
	DIR *d = opendir(path);
	if (!d)
		return bnd_fail(err, errlen, BND_ESYS, "rebind: pid %d: %s", (int)root,
				strerror(errno));
	closedir(d);
	int rc = idset_add(&w.procs, root);
	/* Until a whole pass over every known process finds no new thread:
	 * a thread not yet moved may have started another meanwhile. */
	for (int fresh = 1; rc == BND_OK && fresh;) {
		fresh = 0;
		for (int i = 0; rc == BND_OK && i < w.procs.n; i++)
			rc = pass(&w, w.procs.v[i], &fresh);
	}
	if (nthreads)
		*nthreads = w.threads.n;
	/* Pages after affinity: the threads already run near their new
	 * memory. A process that ended meanwhile is no failure. */
	for (int i = 0; rc == BND_OK && from && to && i < w.procs.n; i++) {
		char why[BND_ERRLEN];
		if (bnd_apply_migrate_pages(w.procs.v[i], from, to, NULL, why, sizeof(why)) == BND_OK) {
			if (nprocs)
				++*nprocs;
		} else if (errno != ESRCH && !w.failed) {
			bnd_fail(err, errlen, BND_ESYS, "pid %d: %s", (int)w.procs.v[i], why);
			w.failed = 1;
		}
	}
	free(w.threads.v);
	free(w.procs.v);
	if (rc != BND_OK)
		return bnd_fail(err, errlen, rc, "rebind: out of memory");
	return w.failed ? BND_ESYS : BND_OK;
}
