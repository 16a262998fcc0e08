#include "binding/suspend/rebind.h"
#include "binding/hooks/rebind.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/task/apply.h"
#include "binding/util/error.h"
#include "binding/util/fault.h"
#include "binding/util/proc.h"

/* A process of the tree, held by its /proc directory: an open /proc/PID
 * stays bound to that process, and once it has exited every lookup under
 * it fails, even when its pid number has gone to another process since.
 * So a process is opened once, when it is found, and never again by
 * number. */
struct proc {
	pid_t pid;
	int dirfd;
};

struct bnd_rebind_walk {
	int procfd; /* proc_root */
	const bnd_cpuset_t *cpus;
	const char *cgroup; /* the step's cgroup, or NULL */
	int nprocs, capprocs;
	struct proc *procs;
	int nthreads, capthreads;
	pid_t *threads; /* set already (tids are unique while their process lives) */
	int failed, skipped;
	/* Moved, but gone right after the call: the id may have reached
	 * another process (the first one, for the caller's log). */
	int vanished, vanished_threads;
	pid_t vanished_tid, vanished_pid;
	char *err;
	size_t errlen;
};

static int has_thread(const struct bnd_rebind_walk *w, pid_t tid)
{
	for (int i = 0; i < w->nthreads; i++)
		if (w->threads[i] == tid)
			return 1;
	return 0;
}

static int grow(void **v, int *cap, int n, size_t size)
{
	if (n < *cap)
		return BND_OK;
	int c = *cap ? 2 * *cap : 64;
	void *g = realloc(*v, (size_t)c * size);
	if (!g)
		return BND_ENOMEM;
	*v = g;
	*cap = c;
	return BND_OK;
}

/* A small file under a held directory, NUL-terminated; -1 when gone. */
static ssize_t read_at(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Field 4 of /proc/PID/stat: the parent. -1 when unreadable. */
static pid_t parent_of(int dirfd)
{
	char buf[1024];
	if (read_at(dirfd, "stat", buf, sizeof(buf)) < 0)
		return -1;
	const char *rp = strrchr(buf, ')');
	int ppid;
	char state;
	return rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 ? (pid_t)ppid : -1;
}

int bnd_cgroup_contains(const char *file_text, const char *cgroup)
{
	size_t n = strlen(cgroup);
	for (const char *l = file_text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		/* "<id>:<controllers>:<path>" */
		const char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		const char *eol = strchr(l, '\n');
		if (!c2 || (eol && c2 > eol))
			continue;
		const char *path = c2 + 1;
		size_t plen = eol ? (size_t)(eol - path) : strlen(path);
		if (plen >= n && !strncmp(path, cgroup, n) && (plen == n || path[n] == '/'))
			return 1;
	}
	return 0;
}

/* Is the thread (its /proc/PID/task/TID dir) in the step's cgroup now? */
static int in_step(const struct bnd_rebind_walk *w, int tidfd)
{
	char buf[4096];
	if (!w->cgroup)
		return 1;
	return read_at(tidfd, "cgroup", buf, sizeof(buf)) > 0 &&
	       bnd_cgroup_contains(buf, w->cgroup);
}

/* The start time of the process a held /proc/PID directory is; 0 and
 * -1 when it is gone. */
static int start_of(int dirfd, unsigned long long *start)
{
	char buf[1024], state;
	if (read_at(dirfd, "stat", buf, sizeof(buf)) < 0)
		return -1;
	return bnd_proc_stat_parse(buf, &state, start);
}

int bnd_task_identify(const char *proc_root, pid_t pid, struct bnd_task_id *id)
{
	char name[32];
	id->pid = pid;
	id->start = 0;
	snprintf(name, sizeof(name), "%d", (int)pid);
	int dfd = open(proc_root ? proc_root : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int pfd = dfd >= 0 && pid > 0 ? openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	int rc = pfd >= 0 && !start_of(pfd, &id->start) ? BND_OK : BND_ESYS;
	if (pfd >= 0)
		close(pfd);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/* Opens pid when it is still the child of parent (a pid read from a
 * children file may have ended and gone to an unrelated process since),
 * or, for the task itself (parent 0), still the process that started at
 * *start; adds it. */
static int add_process(struct bnd_rebind_walk *w, pid_t pid, pid_t parent,
		       const unsigned long long *start)
{
	for (int i = 0; i < w->nprocs; i++)
		if (w->procs[i].pid == pid)
			return BND_OK;
	char name[32];
	unsigned long long now;
	snprintf(name, sizeof(name), "%d", (int)pid);
	int fd = openat(w->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return BND_OK; /* gone */
	if ((parent > 0 && parent_of(fd) != parent) ||
	    (start && (start_of(fd, &now) || now != *start))) {
		close(fd);
		return BND_OK;
	}
	if (grow((void **)&w->procs, &w->capprocs, w->nprocs, sizeof(*w->procs))) {
		close(fd);
		return BND_ENOMEM;
	}
	w->procs[w->nprocs++] = (struct proc){ pid, fd };
	return BND_OK;
}

/* Adds the children a thread has forked. Read after its affinity is set:
 * a child it forks later inherits the new cpus. */
static int add_children(struct bnd_rebind_walk *w, const struct proc *p, int tidfd)
{
	char buf[8192];
	if (read_at(tidfd, "children", buf, sizeof(buf)) < 0)
		return BND_OK; /* gone */
	int rc = BND_OK;
	char *s = buf, *end;
	for (long child; rc == BND_OK && (child = strtol(s, &end, 10), end != s); s = end)
		if (child > 0)
			rc = add_process(w, (pid_t)child, p->pid, NULL);
	return rc;
}

/* A call by number reached the thread (or process) held by dirfd only if
 * it still exists after the call: while it exists its id is its own. Gone
 * by then, it may have ended before the call and its id gone to another
 * process, which the call then reached: counted for the caller's log. */
static void confirm(struct bnd_rebind_walk *w, int dirfd, pid_t tid, pid_t pid, int thread)
{
	char st[16];
	if (read_at(dirfd, "stat", st, sizeof(st)) >= 0)
		return;
	w->vanished_threads += thread;
	if (!w->vanished++) {
		w->vanished_tid = tid;
		w->vanished_pid = pid;
	}
}

/* Sets one thread of p, if it is in the step's cgroup. */
static void set_thread(struct bnd_rebind_walk *w, const struct proc *p, int tidfd, pid_t tid)
{
	char why[BND_ERRLEN];
	if (!in_step(w, tidfd)) {
		w->skipped++;
		return;
	}
	BND_PROBE("rebind.set", &tid);
	if (bnd_apply_affinity(tid, w->cpus, why, sizeof(why)) == BND_OK) {
		confirm(w, tidfd, tid, p->pid, 1);
		return;
	}
	/* A thread that exited is fine; one that refused is not. */
	char st[16];
	if (read_at(tidfd, "comm", st, sizeof(st)) >= 0 && !w->failed) {
		bnd_fail(w->err, w->errlen, BND_ESYS, "thread %d of pid %d: %s", (int)tid,
			 (int)p->pid, why);
		w->failed = 1;
	}
}

/* One pass over p's threads; *fresh counts threads not seen before. */
static int pass(struct bnd_rebind_walk *w, const struct proc *p, int *fresh)
{
	int tfd = openat(p->dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = tfd >= 0 ? fdopendir(tfd) : NULL;
	if (!d) {
		if (tfd >= 0)
			close(tfd);
		return BND_OK; /* ended: never looked up again */
	}
	struct dirent *e;
	int rc = BND_OK;
	while (rc == BND_OK && (e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0 || has_thread(w, (pid_t)tid))
			continue;
		int tidfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (tidfd < 0)
			continue; /* exited meanwhile */
		set_thread(w, p, tidfd, (pid_t)tid);
		rc = grow((void **)&w->threads, &w->capthreads, w->nthreads, sizeof(pid_t));
		if (rc == BND_OK) {
			w->threads[w->nthreads++] = (pid_t)tid;
			++*fresh;
			rc = add_children(w, p, tidfd);
		}
		close(tidfd);
	}
	closedir(d);
	return rc;
}

enum bnd_move_rule bnd_rebind_rule(enum bnd_mbind mbind, enum bnd_instance instance, int booked)
{
	if (instance != BND_I_SET || booked)
		return BND_MOVE_KEEP;
	switch (mbind) {
	case BND_M_NONE:
	case BND_M_GPU: /* its memory stays by the GPUs wherever the cores go */
		return BND_MOVE_FREE;
	case BND_M_CORES:
		return BND_MOVE_MIGRATE;
	default:
		return BND_MOVE_KEEP;
	}
}

int bnd_rebind_begin(struct bnd_rebind *r, const char *proc_root,
		     const struct bnd_task_id *task, const bnd_cpuset_t *cpus, const char *cgroup,
		     char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->w = NULL;
	pid_t root = task ? task->pid : 0;
	if (root <= 0 || !cpus || bnd_cpuset_empty(cpus))
		return bnd_fail(err, errlen, BND_EINVAL, "rebind: need a pid and some cpus");
	struct bnd_rebind_walk *w = calloc(1, sizeof(*w));
	if (!w)
		return bnd_fail(err, errlen, BND_ENOMEM, "rebind: out of memory");
	*w = (struct bnd_rebind_walk){ .cpus = cpus, .cgroup = cgroup && *cgroup ? cgroup : NULL,
			    .err = err, .errlen = errlen };
	w->procfd = open(proc_root ? proc_root : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = w->procfd < 0 ? BND_ESYS : add_process(w, root, 0, &task->start);
	if (rc == BND_OK && !w->nprocs)
		rc = BND_ESYS;
	if (rc != BND_OK) {
		int e = errno;
		if (w->procfd >= 0)
			close(w->procfd);
		free(w->procs);
		free(w);
		return rc == BND_ENOMEM ? bnd_fail(err, errlen, rc, "rebind: out of memory")
					: bnd_fail(err, errlen, BND_ESYS, "rebind: pid %d: %s (the task "
						   "started at %llu is gone; its number is never "
						   "acted on)", (int)root, strerror(e ? e : ESRCH),
						   task->start);
	}
	r->w = w;
	return BND_OK;
}

int bnd_rebind_pass(struct bnd_rebind *r, int *fresh)
{
	struct bnd_rebind_walk *w = r->w;
	int rc = BND_OK;
	*fresh = 0;
	/* procs may grow during the pass: index, not pointer */
	for (int i = 0; rc == BND_OK && i < w->nprocs; i++) {
		struct proc p = w->procs[i];
		rc = pass(w, &p, fresh);
	}
	if (rc != BND_OK)
		bnd_fail(w->err, w->errlen, rc, "rebind: out of memory");
	return rc;
}

/* Pages after affinity: the threads already run near their new memory.
 * Each process by its pid, checked alive through its held directory just
 * before (a migration reaching a reused pid would only move pages that sit
 * on `from` toward `to`, never change a binding). */
static void migrate(struct bnd_rebind_walk *w, const bnd_nodeset_t *from, const bnd_nodeset_t *to,
		    int *nprocs)
{
	for (int i = 0; i < w->nprocs; i++) {
		char why[BND_ERRLEN], st[16];
		if (read_at(w->procs[i].dirfd, "comm", st, sizeof(st)) < 0)
			continue;
		BND_PROBE("rebind.migrate", &w->procs[i].pid);
		if (bnd_apply_migrate_pages(w->procs[i].pid, from, to, NULL, why, sizeof(why)) ==
		    BND_OK) {
			confirm(w, w->procs[i].dirfd, w->procs[i].pid, w->procs[i].pid, 0);
			if (nprocs)
				++*nprocs;
		} else if (errno != ESRCH && !w->failed) {
			bnd_fail(w->err, w->errlen, BND_ESYS, "pid %d: %s", (int)w->procs[i].pid, why);
			w->failed = 1;
		}
	}
}

int bnd_rebind_end(struct bnd_rebind *r, const bnd_nodeset_t *from, const bnd_nodeset_t *to,
		   struct bnd_rebind_counts *c)
{
	struct bnd_rebind_walk *w = r->w;
	struct bnd_rebind_counts none;
	if (!c)
		c = &none;
	memset(c, 0, sizeof(*c));
	if (!w)
		return BND_EINVAL;
	if (from && to)
		migrate(w, from, to, &c->procs);
	c->threads = w->nthreads - w->skipped - w->vanished_threads;
	c->skipped = w->skipped;
	c->vanished = w->vanished;
	c->vanished_tid = w->vanished_tid;
	c->vanished_pid = w->vanished_pid;
	int rc = w->failed ? BND_ESYS : BND_OK;
	for (int i = 0; i < w->nprocs; i++)
		close(w->procs[i].dirfd);
	close(w->procfd);
	free(w->procs);
	free(w->threads);
	free(w);
	r->w = NULL;
	return rc;
}

int bnd_rebind_tree(const char *proc_root, const struct bnd_task_id *task,
		    const bnd_cpuset_t *cpus, const char *cgroup, const bnd_nodeset_t *from,
		    const bnd_nodeset_t *to, struct bnd_rebind_counts *c, char *err, size_t errlen)
{
	struct bnd_rebind r;
	if (c)
		memset(c, 0, sizeof(*c));
	int rc = bnd_rebind_begin(&r, proc_root, task, cpus, cgroup, err, errlen);
	if (rc)
		return rc;
	/* Until a whole pass over every known process finds no new thread:
	 * a thread not yet moved may have started another meanwhile. */
	for (int fresh = 1; rc == BND_OK && fresh;)
		rc = bnd_rebind_pass(&r, &fresh);
	int erc = bnd_rebind_end(&r, rc == BND_OK ? from : NULL, to, c);
	return rc ? rc : erc;
}

int bnd_step_cgroup(const char *proc_root, pid_t pid, char *out, size_t len)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "%d", (int)pid);
	out[0] = '\0';
	int dfd = open(proc_root ? proc_root : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int pfd = dfd >= 0 ? openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	ssize_t n = pfd >= 0 ? read_at(pfd, "cgroup", buf, sizeof(buf)) : -1;
	if (pfd >= 0)
		close(pfd);
	if (dfd >= 0)
		close(dfd);
	/* The first hierarchy whose path has a step_<id> component: Slurm's
	 * step cgroup (v1: .../job_J/step_S; v2: .../job_J/step_S/user/...). */
	for (char *l = n > 0 ? buf : NULL; l && *l;) {
		char *eol = strchr(l, '\n'), *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (eol)
			*eol = '\0';
		char *step = c2 ? strstr(c2 + 1, "/step_") : NULL;
		if (step) {
			char *after = strchr(step + 1, '/');
			size_t plen = after ? (size_t)(after - (c2 + 1)) : strlen(c2 + 1);
			if (plen < len) {
				memcpy(out, c2 + 1, plen);
				out[plen] = '\0';
				return 1;
			}
		}
		l = eol ? eol + 1 : NULL;
	}
	return 0;
}
