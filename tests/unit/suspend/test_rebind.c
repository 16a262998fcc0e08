/* rebind: every thread of every process of a task's tree moves, read back
 * from /proc/TID/status as the kernel has it. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/hooks/rebind.h"
#include "binding/suspend/rebind.h"
#include "binding/task/apply.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"
#include "binding/util/fault.h"
#include "cgscratch.h"
#include "testutil.h"

#define THREADS 64
#define GRAND_THREADS 4

static int hold_fd; /* threads block reading it until the test ends */

static void *blocker(void *arg)
{
	(void)arg;
	char c;
	while (read(hold_fd, &c, 1) < 0)
		;
	return NULL;
}

/* n threads, then one byte on ready; never returns. */
static void spawn_threads(int n, int ready)
{
	pthread_t t;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, NULL, blocker, NULL))
			_exit(3);
	if (write(ready, "r", 1) != 1)
		_exit(4);
	for (;;)
		pause();
}

/* A task: THREADS threads and a child with GRAND_THREADS threads. */
static pid_t start_tree(int *hold_w)
{
	int hold[2], ready[2];
	ck_assert_int_eq(pipe(hold), 0);
	ck_assert_int_eq(pipe(ready), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		close(hold[1]);
		close(ready[0]);
		hold_fd = hold[0];
		if (fork() == 0)
			spawn_threads(GRAND_THREADS, ready[1]);
		spawn_threads(THREADS, ready[1]);
	}
	close(hold[0]);
	close(ready[1]);
	char c;
	for (int got = 0; got < 2; got++)
		ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	*hold_w = hold[1];
	return pid;
}

/* Cpus_allowed_list of every thread of pid and its children; returns how
 * many threads had exactly want. */
static int count_on(pid_t pid, const char *want, int *total)
{
	char path[512], line[512];
	int ok = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		++*total;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid, e->d_name);
		FILE *f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "Cpus_allowed_list:", 18)) {
				char *v = line + 18;
				v += strspn(v, " \t");
				v[strcspn(v, "\n")] = '\0';
				ok += !strcmp(v, want);
			}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)pid, e->d_name);
		f = fopen(path, "r");
		int child;
		while (f && fscanf(f, "%d", &child) == 1)
			ok += count_on(child, want, total);
		if (f)
			fclose(f);
	}
	closedir(d);
	return ok;
}

static struct bnd_task_id id_of(pid_t pid)
{
	struct bnd_task_id id;
	ck_assert_int_eq(bnd_task_identify("/proc", pid, &id), BND_OK);
	return id;
}

static void end_tree(pid_t pid, int hold_w)
{
	char path[64];
	int child = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	if (f && fscanf(f, "%d", &child) == 1 && child > 0)
		kill(child, SIGKILL);
	if (f)
		fclose(f);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(hold_w);
}

START_TEST(every_thread_of_the_tree_moves)
{
	cpu_set_t mine;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(mine), &mine), 0);
	int cpus[2], n = 0;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &mine))
			cpus[n++] = c;
	if (n < 2) {
		printf("# SKIP every_thread_of_the_tree_moves: needs 2 usable cpus, this process has %d\n", n);
		return;
	}
	int hold;
	pid_t pid = start_tree(&hold);
	char err[BND_ERRLEN] = "";
	for (int round = 0; round < 2; round++) {
		bnd_cpuset_t target;
		bnd_cpuset_zero(&target);
		bnd_cpuset_set(&target, cpus[round]);
		char want[16];
		snprintf(want, sizeof(want), "%d", cpus[round]);
		int total = 0;
		struct bnd_task_id id = id_of(pid);
		struct bnd_rebind_counts c;
		ck_assert_msg(bnd_rebind_tree("/proc", &id, &target, NULL, NULL, NULL, &c, err,
					      sizeof(err)) == BND_OK, "%s", err);
		ck_assert_int_eq(c.threads, THREADS + 1 + GRAND_THREADS + 1);
		ck_assert_int_eq(c.vanished, 0);
		ck_assert_int_eq(count_on(pid, want, &total), THREADS + 1 + GRAND_THREADS + 1);
		ck_assert_int_eq(total, THREADS + 1 + GRAND_THREADS + 1);
	}
	end_tree(pid, hold);
}
END_TEST

START_TEST(bad_and_gone)
{
	char err[BND_ERRLEN] = "";
	bnd_cpuset_t none, one;
	bnd_cpuset_zero(&none);
	bnd_cpuset_zero(&one);
	bnd_cpuset_set(&one, 0);
	struct bnd_task_id me = id_of(getpid()), zero = { 0, 0 };
	ck_assert_int_eq(bnd_rebind_tree("/proc", &me, &none, NULL, NULL, NULL, NULL, err,
					 sizeof(err)),
			 BND_EINVAL);
	ck_assert_int_eq(bnd_rebind_tree("/proc", &zero, &one, NULL, NULL, NULL, NULL, err, sizeof(err)),
			 BND_EINVAL);
	ck_assert_int_eq(bnd_rebind_tree("/proc", NULL, &one, NULL, NULL, NULL, NULL, err, sizeof(err)),
			 BND_EINVAL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	struct bnd_task_id gone = { pid, 1 };
	waitpid(pid, NULL, 0);
	struct bnd_rebind_counts c = { .threads = -1 };
	ck_assert_int_eq(bnd_rebind_tree("/proc", &gone, &one, NULL, NULL, NULL, &c, err, sizeof(err)),
			 BND_ESYS);
	ck_assert_int_eq(c.threads, 0);
	ck_assert_ptr_nonnull(strstr(err, "rebind: pid"));
}
END_TEST

/* Which tasks may move on resume, by memory policy: the one rule. */
START_TEST(move_rule_by_memory_policy)
{
	ck_assert_int_eq(bnd_rebind_rule(BND_M_NONE, BND_I_SET, 0), BND_MOVE_FREE);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_CORES, BND_I_SET, 0), BND_MOVE_MIGRATE);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_CORES_STRICT, BND_I_SET, 0), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_GPU, BND_I_SET, 0), BND_MOVE_FREE);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_GPU, BND_I_ENV, 0), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_NLOCAL, BND_I_SET, 0), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_ROUND_ROBIN, BND_I_SET, 0), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_NONE, BND_I_ENV, 0), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_CORES, BND_I_PE, 0), BND_MOVE_KEEP);
	/* memory where Slurm booked it (numamem) never moves */
	ck_assert_int_eq(bnd_rebind_rule(BND_M_CORES, BND_I_SET, 1), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_NONE, BND_I_SET, 1), BND_MOVE_KEEP);
}
END_TEST

/* With nodes to migrate between, every process of the tree is asked
 * (node 0 to node 0 here: this machine may have one node; the pages really
 * moving between nodes is checked in the multi-NUMA guest, tests/numa). */
START_TEST(tree_pages_are_migrated)
{
	int hold;
	pid_t pid = start_tree(&hold);
	char err[BND_ERRLEN] = "";
	bnd_cpuset_t mine;
	ck_assert_int_eq(bnd_affinity_get(0, &mine, err, sizeof(err)), BND_OK);
	bnd_nodeset_t n0;
	bnd_nodeset_zero(&n0);
	bnd_nodeset_set(&n0, 0);
	struct bnd_task_id id = id_of(pid);
	struct bnd_rebind_counts c;
	ck_assert_msg(bnd_rebind_tree("/proc", &id, &mine, NULL, &n0, &n0, &c, err,
					  sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(c.threads, THREADS + 1 + GRAND_THREADS + 1);
	ck_assert_int_eq(c.procs, 2);
	ck_assert_int_eq(c.vanished, 0);
	end_tree(pid, hold);
	bnd_nodeset_t none;
	bnd_nodeset_zero(&none);
	ck_assert_int_eq(bnd_apply_migrate_pages(getpid(), &none, &n0, NULL, err, sizeof(err)),
			 BND_EINVAL);
}
END_TEST

/* One usable cpu other than the first this process may use, as a set, and
 * the list of all this process may use ("0-1"). 0 when only one. */
static int second_cpu(bnd_cpuset_t *one, char *all, size_t len)
{
	char err[BND_ERRLEN];
	bnd_cpuset_t mine;
	ck_assert_int_eq(bnd_affinity_get(0, &mine, err, sizeof(err)), BND_OK);
	bnd_cpuset_format_list(&mine, all, len);
	int first = bnd_cpuset_next(&mine, -1), second = bnd_cpuset_next(&mine, first);
	bnd_cpuset_zero(one);
	if (second < 0)
		return 0;
	bnd_cpuset_set(one, second);
	return 1;
}

/* A task T with a child C (which T reaps when it exits). */
static pid_t task_with_child(pid_t *child)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t t = fork();
	ck_assert_int_ge(t, 0);
	if (!t) {
		pid_t c = fork();
		if (!c)
			for (;;)
				pause();
		if (write(p[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		for (;;)
			if (waitpid(-1, NULL, 0) < 0)
				pause();
	}
	ck_assert_int_eq(read(p[0], child, sizeof(*child)), (ssize_t)sizeof(*child));
	close(p[0]);
	close(p[1]);
	return t;
}

static void link_proc(const char *root, pid_t pid, pid_t target)
{
	char from[128], to[64];
	snprintf(from, sizeof(from), "%s/%d", root, (int)pid);
	snprintf(to, sizeof(to), "/proc/%d", (int)target);
	unlink(from);
	ck_assert_int_eq(symlink(to, from), 0);
}

/* Root sets the affinity of pids found in /proc: a pid it saw in an
 * earlier pass, whose process has exited since and whose number now
 * belongs to an unrelated process U, is never touched (the walk holds each
 * process by its /proc dir), nor is a pid that a children file lists but
 * whose parent is not the process that listed it. Reuse is simulated in a
 * proc root of links whose target the test swaps between passes. Looking
 * pids up again by number (the walk before) moved U to the step's cpu. */
START_TEST(a_reused_pid_is_never_touched)
{
	bnd_cpuset_t one;
	char all[64], root[] = "/tmp/bnd-proc-XXXXXX", err[BND_ERRLEN] = "", want[16];
	if (!second_cpu(&one, all, sizeof(all))) {
		printf("# SKIP a_reused_pid_is_never_touched: needs 2 usable cpus\n");
		return;
	}
	bnd_cpuset_format_list(&one, want, sizeof(want));
	ck_assert_ptr_nonnull(mkdtemp(root));
	pid_t c, t = task_with_child(&c), u = tu_sleeper();
	/* U must not share T's start time (clock ticks: processes made in one
	 * tick have the same), as a reused pid never does */
	for (int i = 0; i < 5000 && id_of(u).start == id_of(t).start; i++) { /* a hang guard */
		kill(u, SIGKILL);
		waitpid(u, NULL, 0);
		usleep(1000);
		u = tu_sleeper();
	}
	ck_assert(id_of(u).start != id_of(t).start);
	link_proc(root, t, t);
	link_proc(root, c, c);
	struct bnd_rebind r;
	struct bnd_rebind_counts rc;
	struct bnd_task_id tid = id_of(t);
	int fresh = 0;
	ck_assert_msg(bnd_rebind_begin(&r, root, &tid, &one, NULL, err, sizeof(err)) == BND_OK, "%s",
		      err);
	ck_assert_int_eq(bnd_rebind_pass(&r, &fresh), BND_OK);
	ck_assert_int_eq(fresh, 2);
	ck_assert_str_eq(tu_affinity_of(c), want);
	/* C exits (T reaps it); its number now leads to U. */
	kill(c, SIGKILL);
	char path[300];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)c);
	for (int i = 0; i < 3000 && !access(path, F_OK); i++) /* a hang guard */
		usleep(1000);
	ck_assert_int_ne(access(path, F_OK), 0);
	link_proc(root, c, u);
	ck_assert_int_eq(bnd_rebind_pass(&r, &fresh), BND_OK);
	ck_assert_int_eq(fresh, 0);
	ck_assert_int_eq(bnd_rebind_end(&r, NULL, NULL, &rc), BND_OK);
	ck_assert_int_eq(rc.threads, 2);
	ck_assert_str_eq(tu_affinity_of(u), all);

	/* A children file naming U, which is not T's child: left alone. */
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/%d", root, (int)t);
	unlink(dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	/* its stat as the kernel has it: the task's identity holds */
	char stat_text[1024], spath[300];
	snprintf(spath, sizeof(spath), "/proc/%d/stat", (int)t);
	FILE *sf = fopen(spath, "r");
	ck_assert_ptr_nonnull(sf);
	ck_assert_ptr_nonnull(fgets(stat_text, sizeof(stat_text), sf));
	fclose(sf);
	snprintf(spath, sizeof(spath), "%s/%d/stat", root, (int)t);
	sf = fopen(spath, "w");
	ck_assert_ptr_nonnull(sf);
	fputs(stat_text, sf);
	fclose(sf);
	snprintf(dir, sizeof(dir), "%s/%d/task", root, (int)t);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/%d/task/%d", root, (int)t, (int)t);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(spath, sizeof(spath), "%s/stat", dir);
	sf = fopen(spath, "w");
	ck_assert_ptr_nonnull(sf);
	fputs(stat_text, sf);
	fclose(sf);
	snprintf(path, sizeof(path), "%s/children", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%d ", (int)u);
	fclose(f);
	link_proc(root, u, u);
	ck_assert_msg(bnd_rebind_tree(root, &tid, &one, NULL, NULL, NULL, &rc, err,
				      sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(rc.threads, 1);
	ck_assert_str_eq(tu_affinity_of(u), all);

	/* The task itself gone and its number now U's (issue 32 item 2: with
	 * task/affinity alone, no cgroup to check, the rebind looked the
	 * task's pid up by number and moved U and its whole tree): U has
	 * another start time, so nothing is touched and the walk says why. */
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%d'", root, (int)t);
	ck_assert_int_eq(system(cmd), 0);
	link_proc(root, t, u);
	ck_assert_int_eq(bnd_rebind_tree(root, &tid, &one, NULL, NULL, NULL, &rc, err, sizeof(err)),
			 BND_ESYS);
	ck_assert_int_eq(rc.threads, 0);
	ck_assert_msg(strstr(err, "its number is never acted on"), "%s", err);
	ck_assert_str_eq(tu_affinity_of(u), all);
	/* U's own identity opens it: the check is the start time, nothing else */
	struct bnd_task_id uid_ = id_of(u);
	uid_.pid = t;
	ck_assert_msg(bnd_rebind_tree(root, &uid_, &one, NULL, NULL, NULL, &rc, err,
				      sizeof(err)) == BND_OK, "%s", err);
	ck_assert_str_eq(tu_affinity_of(u), want);

	kill(t, SIGKILL);
	kill(u, SIGKILL);
	waitpid(t, NULL, 0);
	waitpid(u, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A thread id reused during its own move (issue 32 item 10): the walk
 * holds the thread's /proc dir, checks the step's cgroup, then calls
 * sched_setaffinity with the number; a thread that exits between the two
 * frees its id, and the call reaches whatever process has the id by then.
 * The race is reached for real in a pid namespace of its own, where the
 * next pid is chosen (ns_last_pid): at the probe before the call the
 * thread X exits and a new process U is forked onto X's id. The call then
 * moves U (the kernel's answer, read back), and the walk, finding X's held
 * dir gone after the call, reports it (vanished, with the tid) instead of
 * counting a thread moved. Runs as pid 1 of the namespace; exit codes
 * below say which check failed, 77 that the namespace cannot be made. */
struct race {
	pid_t x, u;
	int release;     /* write end: X exits when it reads EOF */
	char proc[64];   /* the namespace's own /proc */
	int hit;
};

static int x_tid_pipe[2];

static void *x_thread(void *arg)
{
	int fd = *(int *)arg;
	pid_t me = (pid_t)gettid();
	char c;
	if (write(x_tid_pipe[1], &me, sizeof(me)) != sizeof(me))
		_exit(3);
	while (read(fd, &c, 1) < 0)
		;
	return NULL;
}

/* Forks U onto pid want (ns_last_pid); -1 when the namespace says no. */
static pid_t fork_onto(pid_t want)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	if (!f)
		return -1;
	fprintf(f, "%d", (int)want - 1);
	if (fclose(f))
		return -1;
	pid_t u = fork();
	if (!u)
		for (;;)
			pause();
	return u;
}

static void at_set(const void *arg, void *ctx)
{
	struct race *r = ctx;
	if (*(const pid_t *)arg != r->x || r->hit++)
		return;
	close(r->release);
	/* X's id is free once X is gone: until U gets it (a hang guard) */
	for (int i = 0; i < 5000; i++) {
		r->u = fork_onto(r->x);
		if (r->u < 0)
			_exit(20);
		if (r->u == r->x)
			return;
		kill(r->u, SIGKILL);
		waitpid(r->u, NULL, 0);
		usleep(1000);
	}
}

static int pidns_race(const bnd_cpuset_t *one, const char *dir)
{
	struct race r = { .x = 0 };
	char err[BND_ERRLEN] = "";
	snprintf(r.proc, sizeof(r.proc), "%s", dir);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", r.proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return 77;
	int rel[2];
	if (pipe(rel) || pipe(x_tid_pipe))
		return 10;
	pid_t t = fork();
	if (!t) {
		pthread_t th;
		close(rel[1]);
		if (pthread_create(&th, NULL, x_thread, &rel[0]))
			_exit(3);
		pthread_join(th, NULL);
		for (;;)
			pause();
	}
	close(rel[0]);
	r.release = rel[1];
	if (read(x_tid_pipe[0], &r.x, sizeof(r.x)) != sizeof(r.x))
		return 11;
	struct bnd_task_id id;
	if (bnd_task_identify(r.proc, t, &id))
		return 12;
	bnd_probe_hook("rebind.set", at_set, &r);
	struct bnd_rebind_counts c;
	int rc = bnd_rebind_tree(r.proc, &id, one, NULL, NULL, NULL, &c, err, sizeof(err));
	bnd_probe_hook("rebind.set", NULL, NULL);
	if (rc != BND_OK || !r.hit)
		return 13;
	if (r.u != r.x)
		return 14; /* the id was not reused: nothing to show */
	bnd_cpuset_t got;
	if (bnd_affinity_get(r.u, &got, err, sizeof(err)) || !bnd_cpuset_equal(&got, one))
		return 15; /* the call did not reach U: no race after all */
	if (c.vanished != 1 || c.vanished_tid != r.x || c.vanished_pid != t)
		return 16;
	if (c.threads != 1) /* T's own thread; X is not counted as moved */
		return 17;
	kill(r.u, SIGKILL);
	kill(t, SIGKILL);
	return 0;
}

START_TEST(a_tid_reused_during_its_move_is_reported)
{
	bnd_cpuset_t one;
	char all[64];
	if (!second_cpu(&one, all, sizeof(all))) {
		printf("# SKIP a_tid_reused_during_its_move_is_reported: needs 2 usable cpus\n");
		return;
	}
	char dir[] = "/tmp/bnd-pidns-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (!c) {
		if (unshare(CLONE_NEWPID | CLONE_NEWNS))
			_exit(77);
		pid_t g = fork();
		if (g < 0)
			_exit(77);
		if (!g)
			_exit(pidns_race(&one, dir));
		int st = 0;
		waitpid(g, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 99);
	}
	int st = 0;
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	rmdir(dir); /* the proc mount went with the namespace */
	ck_assert(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		printf("# SKIP a_tid_reused_during_its_move_is_reported: no pid and mount namespace "
		       "here (unshare or mount refused)\n");
		return;
	}
	ck_assert_msg(WEXITSTATUS(st) == 0, "the race in the pid namespace: check %d failed "
		      "(14: the id was not reused, 15: the call missed U, 16: not reported, 17: "
		      "miscounted)", WEXITSTATUS(st));
}
END_TEST

/* The cgroup rule: a /proc/PID/cgroup text is inside a cgroup when one of
 * its hierarchies' paths is that cgroup or below it. */
START_TEST(cgroup_containment)
{
	const char *v2 = "0::/system.slice/n_slurmstepd.scope/job_7/step_0/user/task_1\n";
	ck_assert_int_eq(bnd_cgroup_contains(v2, "/system.slice/n_slurmstepd.scope/job_7/step_0"), 1);
	ck_assert_int_eq(bnd_cgroup_contains(v2, "/system.slice/n_slurmstepd.scope/job_7/step_"), 0);
	ck_assert_int_eq(bnd_cgroup_contains(v2, "/system.slice/n_slurmstepd.scope/job_7/step_1"), 0);
	const char *v1 = "12:freezer:/slurm_n/uid_0/job_7/step_batch\n"
			 "3:cpuset:/slurm_n/uid_0/job_7/step_batch\n1:name=systemd:/x\n";
	ck_assert_int_eq(bnd_cgroup_contains(v1, "/slurm_n/uid_0/job_7/step_batch"), 1);
	ck_assert_int_eq(bnd_cgroup_contains(v1, "/slurm_n/uid_0/job_7"), 1);
	ck_assert_int_eq(bnd_cgroup_contains(v1, "/slurm_n/uid_0/job_8"), 0);
	ck_assert_int_eq(bnd_cgroup_contains("", "/x"), 0);
}
END_TEST

/* On the kernel's own cgroup v2 files: T in one scratch cgroup, its child
 * moved to another. The walk given T's cgroup sets T's thread and leaves
 * the child, which left the step, alone. */
START_TEST(only_threads_in_the_step_cgroup_move)
{
	bnd_cpuset_t one;
	char all[64], err[BND_ERRLEN] = "", want[16], why[600];
	if (!second_cpu(&one, all, sizeof(all))) {
		printf("# SKIP only_threads_in_the_step_cgroup_move: needs 2 usable cpus\n");
		return;
	}
	bnd_cpuset_format_list(&one, want, sizeof(want));
	struct cg_scratch in, out;
	if (cg_scratch_make(&in, "bnd-rebind-in", why, sizeof(why))) {
		printf("# SKIP only_threads_in_the_step_cgroup_move: %s\n", why);
		return;
	}
	if (cg_scratch_make(&out, "bnd-rebind-out", why, sizeof(why))) {
		cg_scratch_remove(&in, 0, 30);
		printf("# SKIP only_threads_in_the_step_cgroup_move: %s\n", why);
		return;
	}
	pid_t c, t = task_with_child(&c);
	if (cg_scratch_move(&in, t) || cg_scratch_move(&out, c)) {
		printf("# SKIP only_threads_in_the_step_cgroup_move: cgroup.procs refused: %s\n",
		       strerror(errno));
	} else {
		char cgroup[600];
		snprintf(cgroup, sizeof(cgroup), "%s", in.dir + strlen(in.mnt));
		struct bnd_task_id id = id_of(t);
		struct bnd_rebind_counts rc;
		ck_assert_msg(bnd_rebind_tree("/proc", &id, &one, cgroup, NULL, NULL, &rc,
					      err, sizeof(err)) == BND_OK, "%s", err);
		ck_assert_int_eq(rc.threads, 1);
		ck_assert_str_eq(tu_affinity_of(t), want);
		ck_assert_str_eq(tu_affinity_of(c), all);
	}
	kill(c, SIGKILL);
	kill(t, SIGKILL);
	waitpid(t, NULL, 0);
	cg_scratch_remove(&out, c, 30);
	cg_scratch_remove(&in, t, 30);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rebind");
	TCase *tc = tcase_create("rebind");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_thread_of_the_tree_moves);
	tcase_add_test(tc, bad_and_gone);
	tcase_add_test(tc, move_rule_by_memory_policy);
	tcase_add_test(tc, tree_pages_are_migrated);
	tcase_add_test(tc, a_reused_pid_is_never_touched);
	tcase_add_test(tc, a_tid_reused_during_its_move_is_reported);
	tcase_add_test(tc, cgroup_containment);
	tcase_add_test(tc, only_threads_in_the_step_cgroup_move);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
