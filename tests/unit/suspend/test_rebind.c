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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/hooks/rebind.h"
#include "binding/suspend/rebind.h"
#include "binding/task/apply.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"
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
		int threads = 0, total = 0;
		ck_assert_msg(bnd_rebind_tree("/proc", pid, &target, NULL, NULL, NULL, &threads, NULL, err,
					      sizeof(err)) ==
			      BND_OK, "%s", err);
		ck_assert_int_eq(threads, THREADS + 1 + GRAND_THREADS + 1);
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
	ck_assert_int_eq(bnd_rebind_tree("/proc", getpid(), &none, NULL, NULL, NULL, NULL, NULL, err,
					 sizeof(err)),
			 BND_EINVAL);
	ck_assert_int_eq(bnd_rebind_tree("/proc", 0, &one, NULL, NULL, NULL, NULL, NULL, err, sizeof(err)),
			 BND_EINVAL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	int n = -1;
	ck_assert_int_eq(bnd_rebind_tree("/proc", pid, &one, NULL, NULL, NULL, &n, NULL, err, sizeof(err)),
			 BND_ESYS);
	ck_assert_int_eq(n, 0);
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
	int threads = 0, procs = 0;
	ck_assert_msg(bnd_rebind_tree("/proc", pid, &mine, NULL, &n0, &n0, &threads, &procs, err,
					  sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(threads, THREADS + 1 + GRAND_THREADS + 1);
	ck_assert_int_eq(procs, 2);
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
	link_proc(root, t, t);
	link_proc(root, c, c);
	struct bnd_rebind r;
	int fresh = 0, threads = 0, skipped = 0;
	ck_assert_msg(bnd_rebind_begin(&r, root, t, &one, NULL, err, sizeof(err)) == BND_OK, "%s",
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
	ck_assert_int_eq(bnd_rebind_end(&r, NULL, NULL, &threads, NULL, &skipped), BND_OK);
	ck_assert_int_eq(threads, 2);
	ck_assert_str_eq(tu_affinity_of(u), all);

	/* A children file naming U, which is not T's child: left alone. */
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/%d", root, (int)t);
	unlink(dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/%d/task", root, (int)t);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/%d/task/%d", root, (int)t, (int)t);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/children", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%d ", (int)u);
	fclose(f);
	link_proc(root, u, u);
	ck_assert_msg(bnd_rebind_tree(root, t, &one, NULL, NULL, NULL, &threads, NULL, err,
				      sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(threads, 1);
	ck_assert_str_eq(tu_affinity_of(u), all);

	kill(t, SIGKILL);
	kill(u, SIGKILL);
	waitpid(t, NULL, 0);
	waitpid(u, NULL, 0);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
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
		int threads = 0;
		ck_assert_msg(bnd_rebind_tree("/proc", t, &one, cgroup, NULL, NULL, &threads, NULL,
					      err, sizeof(err)) == BND_OK, "%s", err);
		ck_assert_int_eq(threads, 1);
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
	tcase_add_test(tc, cgroup_containment);
	tcase_add_test(tc, only_threads_in_the_step_cgroup_move);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
