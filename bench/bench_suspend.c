/* The suspend layer's own costs (`make bench`; reported, never asserted):
 *   - rebinding a task of 64 threads from outside (bnd_rebind_tree), next
 *     to one sched_setaffinity call measured in the same run (the anchor:
 *     the rebind is 65 of those plus the /proc walk); goal <= 1 ms;
 *   - the watcher's CPU time on an idle step (a sleeping task, no slurmctld
 *     reads), as a share of one CPU, extrapolated from BENCH_WATCH_SECONDS
 *     (default 10) of watching; goal <= 0.1 %. Once with no freezer (the
 *     task's state sampled 4 times a second), and once with the task in a
 *     cgroup of the host's cgroup v2 hierarchy, its cgroup.events polled
 *     (as root, where one is mounted; else a line says why not).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binding/suspend/rebind.h"
#include "binding/suspend/watcher.h"
#include "binding/task/apply.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"
#include "bench.h"
#include "cgscratch.h"

#define THREADS 64
#define REPS 200

static int hold_fd;

static void *blocker(void *arg)
{
	(void)arg;
	char c;
	while (read(hold_fd, &c, 1) < 0)
		;
	return NULL;
}

static pid_t start_task(int *hold_w)
{
	int hold[2], ready[2];
	if (pipe(hold) || pipe(ready))
		exit(1);
	pid_t pid = fork();
	if (pid < 0)
		exit(1);
	if (!pid) {
		hold_fd = hold[0];
		pthread_t t;
		for (int i = 0; i < THREADS - 1; i++)
			if (pthread_create(&t, NULL, blocker, NULL))
				_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(hold[0]);
	close(ready[1]);
	char c;
	if (read(ready[0], &c, 1) != 1)
		exit(1);
	close(ready[0]);
	*hold_w = hold[1];
	return pid;
}

static void summary(const char *what, double *v, int n, const char *extra)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	printf("%-46s median %8.1f us  p99 %8.1f us  (%d samples)%s\n", what, v[n / 2],
	       v[(int)((n - 1) * 0.99)], n, extra);
}

static int event_cb(void *ctx, enum bnd_watch_event ev, long long seen)
{
	(void)ctx;
	(void)ev;
	(void)seen;
	return 0;
}

/* CPU time of every thread of this process, in ns precision from
 * schedstat (getrusage counts whole scheduler ticks: 4 ms, too coarse for
 * an idle thread). The main thread only sleeps meanwhile. */
static double cpu_s(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	double ns = 0;
	while (d && (e = readdir(d))) {
		char path[300];
		unsigned long long run = 0;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fscanf(f, "%llu", &run) == 1)
			ns += (double)run;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return ns / 1e9;
}

/* The watcher of one idle task for BENCH_WATCH_SECONDS: its CPU share. */
static int idle_watcher(const char *label, pid_t pid, const char *freezer, int v2)
{
	char err[BND_ERRLEN];
	const char *sec = getenv("BENCH_WATCH_SECONDS");
	int secs = sec && atoi(sec) > 0 ? atoi(sec) : 10;
	struct bnd_watch *w;
	struct bnd_watch_cfg c = { .pids = &pid, .npids = 1, .proc_root = "/proc",
				   .freezer = freezer, .freezer_v2 = v2, .event = event_cb };
	if (bnd_watch_start(&w, &c, err, sizeof(err)) != BND_OK) {
		printf("suspend: watcher: %s\n", err);
		return 1;
	}
	/* steady state: the thread's start (stack pages, first reads) is a
	 * cost per step, not per hour */
	sleep(1);
	long wakeups, w_start;
	bnd_watch_counts(w, &w_start, NULL);
	double c0 = cpu_s(), w0 = bench_now_us();
	sleep((unsigned)secs);
	bnd_watch_counts(w, &wakeups, NULL);
	wakeups -= w_start;
	/* before the stop: a joined thread's time leaves /proc/self/task */
	double cpu = cpu_s() - c0, wall = (bench_now_us() - w0) / 1e6;
	bnd_watch_stop(w);
	printf("suspend: idle watcher, %s: %.3f s CPU in %.1f s (%ld wakeups, %.1f us each): "
	       "%.4f %% of one CPU, %.2f s per idle hour (goal <= 0.1 %%, 3.6 s/h)\n", label,
	       cpu, wall, wakeups, wakeups ? cpu * 1e6 / (double)wakeups : 0.0,
	       100.0 * cpu / wall, cpu / wall * 3600);
	return 0;
}

/* The same with the task in a new cgroup of the host's cgroup v2 hierarchy
 * (its cgroup.events polled), then the cgroup removed again. */
static int idle_watcher_cgroup_v2(pid_t pid)
{
	struct cg_scratch cg;
	char why[600], events[600];
	if (cg_scratch_make(&cg, "bnd-bench", why, sizeof(why))) {
		printf("suspend: idle watcher, cgroup v2: not measured (%s)\n", why);
		return 0;
	}
	int rc = 0;
	snprintf(events, sizeof(events), "%s/cgroup.events", cg.dir);
	if (!cg_scratch_move(&cg, pid))
		rc = idle_watcher("cgroup v2 cgroup.events", pid, events, 1);
	else
		printf("suspend: idle watcher, cgroup v2: not measured (cannot move the task into %s)\n",
		       cg.dir);
	cg_scratch_remove(&cg, pid, 10);
	return rc;
}

int main(void)
{
	cpu_set_t mine;
	int cpus[2], n = 0;
	sched_getaffinity(0, sizeof(mine), &mine);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &mine))
			cpus[n++] = c;
	if (n < 1) {
		printf("suspend: no usable cpu?\n");
		return 0;
	}
	int hold;
	pid_t pid = start_task(&hold);
	bnd_cpuset_t set[2];
	for (int i = 0; i < 2; i++) {
		bnd_cpuset_zero(&set[i]);
		bnd_cpuset_set(&set[i], cpus[i % n]);
	}
	char err[BND_ERRLEN];
	double *v = malloc(REPS * sizeof(*v)), *a = malloc(REPS * sizeof(*a));
	struct bnd_task_id id;
	struct bnd_rebind_counts moved = { 0 };
	if (bnd_task_identify("/proc", pid, &id) != BND_OK) {
		printf("suspend: the task is gone\n");
		return 1;
	}
	for (int r = 0; r < REPS; r++) {
		double t0 = bench_now_us();
		if (bnd_rebind_tree("/proc", &id, &set[r & 1], NULL, NULL, NULL, &moved, err,
				    sizeof(err)) != BND_OK) {
			printf("suspend: rebind failed: %s\n", err);
			return 1;
		}
		v[r] = bench_now_us() - t0;
		t0 = bench_now_us();
		bnd_apply_affinity(pid, &set[r & 1], err, sizeof(err));
		a[r] = bench_now_us() - t0;
	}
	char extra[128];
	summary("suspend: one sched_setaffinity (anchor)", a, REPS, "");
	double anchor = a[REPS / 2];
	qsort(v, REPS, sizeof(*v), bench_cmp_double);
	snprintf(extra, sizeof(extra), "  %d threads, %.0fx the anchor, goal <= 1000 us",
		 moved.threads, v[REPS / 2] / anchor);
	summary("suspend: rebind a task of 64 threads", v, REPS, extra);

	int rc = idle_watcher("no freezer", pid, NULL, 0);
	if (!rc)
		rc = idle_watcher_cgroup_v2(pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(hold);
	free(v);
	free(a);
	return rc;
}
