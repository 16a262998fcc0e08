/* rebind: every thread of every process of a task's tree moves, read back
 * from /proc/TID/status as the kernel has it. */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/suspend/rebind.h"
#include "binding/task/apply.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"
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
	ck_assert_int_eq(bnd_rebind_rule(BND_M_NONE, BND_I_SET), BND_MOVE_FREE);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_CORES, BND_I_SET), BND_MOVE_MIGRATE);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_CORES_STRICT, BND_I_SET), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_NLOCAL, BND_I_SET), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_ROUND_ROBIN, BND_I_SET), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_NONE, BND_I_ENV), BND_MOVE_KEEP);
	ck_assert_int_eq(bnd_rebind_rule(BND_M_CORES, BND_I_PE), BND_MOVE_KEEP);
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

int main(void)
{
	Suite *s = suite_create("rebind");
	TCase *tc = tcase_create("rebind");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_thread_of_the_tree_moves);
	tcase_add_test(tc, bad_and_gone);
	tcase_add_test(tc, move_rule_by_memory_policy);
	tcase_add_test(tc, tree_pages_are_migrated);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
