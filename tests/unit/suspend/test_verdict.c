/* verdict: a Slurm suspension releases cpus, a user's own stop does not;
 * the freezer and task-state readers on real processes and fake files. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/suspend/verdict.h"
#include "binding/util/error.h"
#include "testutil.h"

static int verdict(enum bnd_freeze fz, enum bnd_job_state job, int stopped)
{
	struct bnd_suspend_obs o = { fz, job, stopped, 0 };
	return bnd_suspend_verdict(&o);
}

START_TEST(user_stop_is_not_a_suspension)
{
	/* scancel -s STOP, a debugger, Ctrl-Z: tasks in T, slurmctld says
	 * RUNNING, the cgroup is thawed (or there is none). */
	ck_assert_int_eq(verdict(BND_FREEZE_THAWED, BND_JOB_RUNNING, 2), 0);
	ck_assert_int_eq(verdict(BND_FREEZE_NONE, BND_JOB_RUNNING, 2), 0);
	/* slurmctld unreachable: a stop alone never releases cores. */
	ck_assert_int_eq(verdict(BND_FREEZE_NONE, BND_JOB_UNKNOWN, 2), 0);
	ck_assert_int_eq(verdict(BND_FREEZE_THAWED, BND_JOB_UNKNOWN, 2), 0);
	/* A completing job is not suspended either. */
	ck_assert_int_eq(verdict(BND_FREEZE_NONE, BND_JOB_OTHER, 2), 0);
}
END_TEST

START_TEST(slurm_suspension_is_one)
{
	/* At SIGTSTP (before the freeze), with or without a freezer. */
	ck_assert_int_eq(verdict(BND_FREEZE_THAWED, BND_JOB_SUSPENDED, 1), 1);
	ck_assert_int_eq(verdict(BND_FREEZE_NONE, BND_JOB_SUSPENDED, 2), 1);
	/* Tasks with a SIGTSTP handler keep running until the freeze. */
	ck_assert_int_eq(verdict(BND_FREEZE_THAWED, BND_JOB_SUSPENDED, 0), 1);
	/* Without slurmctld, the freeze itself (only slurmstepd freezes). */
	ck_assert_int_eq(verdict(BND_FREEZE_FROZEN, BND_JOB_UNKNOWN, 0), 1);
	ck_assert_int_eq(verdict(BND_FREEZE_FREEZING, BND_JOB_UNKNOWN, 0), 1);
	/* A thaw of a step judged suspended: resumed, whatever was asked. */
	struct bnd_suspend_obs th = { BND_FREEZE_THAWED, BND_JOB_UNKNOWN, 0, 1 };
	ck_assert_int_eq(bnd_suspend_verdict(&th), 0);
	/* Resumed: slurmctld says RUNNING before the thaw; its word wins. */
	ck_assert_int_eq(verdict(BND_FREEZE_FROZEN, BND_JOB_RUNNING, 0), 0);
}
END_TEST

static char dir[64];

static void mkfile(const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/bnd-verdict-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(freezer_files)
{
	char proc[128], cg[128], path[512], want[512];
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(cg, sizeof(cg), "%s/cg", dir);
	/* cgroup v1 (as slurmd makes it), freezer joined with nothing */
	mkfile("proc/100/cgroup", "12:cpuset:/slurm_n1/uid_1001/job_7/step_0\n"
				  "5:freezer:/slurm_n1/uid_1001/job_7/step_0\n"
				  "0::/user.slice\n");
	int v2 = -1;
	ck_assert_int_eq(bnd_freezer_find(proc, cg, 100, path, sizeof(path), &v2), BND_OK);
	snprintf(want, sizeof(want), "%s/freezer/slurm_n1/uid_1001/job_7/step_0/freezer.state", cg);
	ck_assert_str_eq(path, want);
	ck_assert_int_eq(v2, 0);
	mkfile("cg/freezer/slurm_n1/uid_1001/job_7/step_0/freezer.state", "THAWED\n");
	ck_assert_int_eq(bnd_freezer_read(path), BND_FREEZE_THAWED);
	mkfile("cg/freezer/slurm_n1/uid_1001/job_7/step_0/freezer.state", "FREEZING\n");
	ck_assert_int_eq(bnd_freezer_read(path), BND_FREEZE_FREEZING);
	mkfile("cg/freezer/slurm_n1/uid_1001/job_7/step_0/freezer.state", "FROZEN\n");
	ck_assert_int_eq(bnd_freezer_read(path), BND_FREEZE_FROZEN);
	/* "net_cls,freezer" style joint mounts; "freezerx" is not it */
	mkfile("proc/101/cgroup", "3:freezerx:/a\n4:net_cls,freezer:/b\n");
	ck_assert_int_eq(bnd_freezer_find(proc, cg, 101, path, sizeof(path), NULL), BND_OK);
	snprintf(want, sizeof(want), "%s/freezer/b/freezer.state", cg);
	ck_assert_str_eq(path, want);
	/* linuxproc on a v1 host: the root freezer cgroup is no freezer */
	mkfile("proc/103/cgroup", "5:freezer:/\n");
	ck_assert_int_eq(bnd_freezer_find(proc, cg, 103, path, sizeof(path), NULL), BND_ENOFIT);
	/* hybrid host, no freezer: none (v2 tree of a hybrid freezes nothing) */
	mkfile("proc/102/cgroup", "0::/x\n");
	ck_assert_int_eq(bnd_freezer_find(proc, cg, 102, path, sizeof(path), NULL), BND_ENOFIT);
	ck_assert_str_eq(path, "");
	ck_assert_int_eq(bnd_freezer_read(path), BND_FREEZE_NONE);
	ck_assert_int_eq(bnd_freezer_read(NULL), BND_FREEZE_NONE);
	/* pure cgroup v2: cgroup.events */
	mkfile("cg/cgroup.controllers", "cpuset cpu\n");
	ck_assert_int_eq(bnd_freezer_find(proc, cg, 102, path, sizeof(path), &v2), BND_OK);
	snprintf(want, sizeof(want), "%s/x/cgroup.events", cg);
	ck_assert_str_eq(path, want);
	ck_assert_int_eq(v2, 1);
	mkfile("cg/x/cgroup.events", "populated 1\nfrozen 0\n");
	ck_assert_int_eq(bnd_freezer_read(path), BND_FREEZE_THAWED);
	mkfile("cg/x/cgroup.events", "populated 1\nfrozen 1\n");
	ck_assert_int_eq(bnd_freezer_read(path), BND_FREEZE_FROZEN);
	/* gone */
	ck_assert_int_eq(bnd_freezer_find(proc, cg, 999, path, sizeof(path), NULL), BND_ESYS);
}
END_TEST

START_TEST(task_state_of_a_real_process)
{
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		for (;;)
			pause();
	}
	int st;
	ck_assert_int_eq(bnd_task_stopped("/proc", child), 0);
	ck_assert_int_eq(kill(child, SIGSTOP), 0);
	/* waitpid reports the stop once the kernel has stopped it */
	ck_assert_int_eq(waitpid(child, &st, WUNTRACED), child);
	ck_assert(WIFSTOPPED(st));
	ck_assert_int_eq(bnd_task_stopped("/proc", child), 1);
	ck_assert_int_eq(kill(child, SIGCONT), 0);
	ck_assert_int_eq(waitpid(child, &st, WCONTINUED), child);
	ck_assert(WIFCONTINUED(st));
	ck_assert_int_eq(bnd_task_stopped("/proc", child), 0);
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	ck_assert_int_eq(bnd_task_stopped("/proc", child), 0);
	/* a comm with ") T" in it cannot fool the reader */
	char proc[128];
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	mkfile("proc/200/stat", "200 (a) T (b) S 1 200 200 0 -1\n");
	ck_assert_int_eq(bnd_task_stopped(proc, 200), 0);
	mkfile("proc/201/stat", "201 (a) S (b) T 1 201 201 0 -1\n");
	ck_assert_int_eq(bnd_task_stopped(proc, 201), 1);
	/* the letter itself, as the watcher reads it from an open file */
	ck_assert_int_eq(bnd_task_state_parse("300 (x) D (y) D 1 300"), 'D');
	ck_assert_int_eq(bnd_task_state_parse("300 (x) D (y)"), 0);
	ck_assert_int_eq(bnd_task_state_parse(""), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verdict");
	TCase *tc = tcase_create("verdict");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, user_stop_is_not_a_suspension);
	tcase_add_test(tc, slurm_suspension_is_one);
	tcase_add_test(tc, freezer_files);
	tcase_add_test(tc, task_state_of_a_real_process);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
