/* gang: a step's transitions driven as the watcher drives them, on a real
 * state dir with real task processes whose affinity is read back from
 * /proc: suspend releases, resume rebinds (same cpus or moved), a resume
 * into held cpus defers and binds when they free up. */
#include <check.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/hooks/gang.h"
#include "binding/request/config.h"
#include "binding/state/state.h"
#include "binding/state/transition.h"
#include "binding/task/apply.h"
#include "binding/suspend/gang.h"
#include "binding/suspend/rebind.h"
#include "binding/suspend/watcher.h"
#include "statetest.h"
#include "testutil.h"

static struct st_env env;
static char glog[8192];

static void log_cb(void *ctx, const char *msg)
{
	(void)ctx;
	size_t n = strlen(glog);
	snprintf(glog + n, sizeof(glog) - n, "%s\n", msg);
}

static int have_cpus_0_1(void)
{
	cpu_set_t m;
	if (sched_getaffinity(0, sizeof(m), &m) || !CPU_ISSET(0, &m) || !CPU_ISSET(1, &m)) {
		printf("# SKIP gang: needs cpus 0 and 1 usable\n");
		return 0;
	}
	return 1;
}

static pid_t task_on(const char *cpus)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		for (;;)
			pause();
	bnd_cpuset_t c;
	char err[BND_ERRLEN];
	bnd_cpuset_parse_list(&c, cpus, NULL, 0);
	ck_assert_int_eq(bnd_apply_affinity(pid, &c, err, sizeof(err)), BND_OK);
	return pid;
}

/* The steps' settings (a step points at its config). */
static struct bnd_config step_cfg;

/* A process's start time; 0 once gone. */
static unsigned long long proc_start(pid_t pid)
{
	struct bnd_task_id id;
	return bnd_task_identify("/proc", pid, &id) == BND_OK ? id.start : 0;
}

/* A step started as bnd_step_prepare and bnd_step_place would: placed
 * and recorded. */
static void make_step(struct bnd_step *s, struct bnd_topology *t, uint32_t job, int ntasks,
		      const char *req)
{
	char err[BND_ERRLEN] = "";
	memset(s, 0, sizeof(*s));
	bnd_config_defaults(&step_cfg);
	snprintf(step_cfg.state_dir, sizeof(step_cfg.state_dir), "%s", env.dir);
	s->cfg = &step_cfg;
	s->source = BND_SRC_OPTION; /* a request that places: it asks for cores */
	s->req = &s->made;
	s->topo = t;
	s->job = job;
	s->step = 0;
	s->ntasks = ntasks;
	s->owner = getpid();
	s->uid = 1000;
	s->log = log_cb;
	bnd_cpuset_parse_list(&s->domain, "0-1", NULL, 0);
	ck_assert_int_eq(bnd_request_parse(&s->made, req, err, sizeof(err)), BND_OK);
	struct bnd_state_opts o;
	bnd_step_state_opts(s, &o);
	struct bnd_alloc_args a = { .job = job, .step = 0, .ntasks = ntasks, .uid = 1000,
				    .allowed = &s->domain };
	ck_assert_msg(bnd_state_allocate(&o, t, s->req, &a, &s->pl, err, sizeof(err)) == BND_OK,
		      "%s", err);
	ck_assert_int_eq(bnd_step_move(s, BND_STEP_READY), BND_OK);
	ck_assert_int_eq(bnd_step_move(s, BND_STEP_PLACED), BND_OK);
}

static const struct bnd_state_record *find(struct bnd_state_file *f, uint32_t job)
{
	char err[BND_ERRLEN] = "";
	bnd_statefile_free(f);
	ck_assert_int_eq(bnd_state_list(&env.opts, f, err, sizeof(err)), BND_OK);
	for (int i = 0; i < f->nrec; i++)
		if (f->rec[i].job == job)
			return &f->rec[i];
	return NULL;
}

static void setup(void)
{
	st_setup(&env);
	glog[0] = '\0';
}

static void teardown(void)
{
	st_teardown(&env);
}

START_TEST(suspend_defer_and_bind_when_freed)
{
	if (!have_cpus_0_1())
		return;
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step s;
	make_step(&s, t, 1, 2, "linear:1");
	pid_t pids[2] = { task_on(bnd_cpuset_isset(&s.pl.tasks[0].cpus, 0) ? "0" : "1"),
			  task_on(bnd_cpuset_isset(&s.pl.tasks[1].cpus, 0) ? "0" : "1") };
	char t0[8], t1[8], err[BND_ERRLEN];
	bnd_cpuset_format_list(&s.pl.tasks[0].cpus, t0, sizeof(t0));
	bnd_cpuset_format_list(&s.pl.tasks[1].cpus, t1, sizeof(t1));
	struct bnd_gang *g;
	struct bnd_gang_in in = { .step = &s, .pids = pids, .npids = 2, .proc_root = "/proc",
				  .verbose = 1 };
	ck_assert_int_eq(bnd_gang_open(&g, &in, err, sizeof(err)), BND_OK);
	struct bnd_state_file f;
	bnd_statefile_init(&f);

	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_SUSPENDED, bnd_state_now_ms()), 0);
	const struct bnd_state_record *r = find(&f, 1);
	ck_assert_int_eq(r->status, BND_ST_SUSPENDED);
	ck_assert(bnd_cpuset_empty(&r->cpus));
	ck_assert_ptr_nonnull(strstr(glog, "job 1 step 0: suspended by Slurm: cpus 0-1 released ("));
	/* frozen tasks keep their affinity */
	ck_assert_str_eq(tu_affinity_of(pids[0]), t0);

	/* Job 2 runs meanwhile on both cpus; job 1 is resumed: deferred. */
	struct bnd_step s2;
	make_step(&s2, t, 2, 2, "linear:1");
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_RESUMED, bnd_state_now_ms()), 1);
	r = find(&f, 1);
	ck_assert_int_eq(r->status, BND_ST_DEFERRED);
	ck_assert_str_eq(r->why, "held-by-job:2");
	ck_assert_int_eq(find(&f, 2)->status, BND_ST_ACTIVE);
	ck_assert_ptr_nonnull(strstr(glog, "deferred: held-by-job:2"));
	/* A change that frees nothing keeps it deferred. */
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_STATE, bnd_state_now_ms()), 1);

	/* Deferred, the tasks keep their affinity. Say they were moved
	 * meanwhile (a user's taskset); job 2 ends; the state event binds
	 * them again, one cpu each, every thread from outside. */
	ck_assert_str_eq(tu_affinity_of(pids[0]), t0);
	ck_assert_int_eq(bnd_apply_affinity(pids[0], &s.domain, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_apply_affinity(pids[1], &s.domain, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_step_finish(&s2), BND_OK);
	bnd_placement_free(&s2.pl);
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_STATE, bnd_state_now_ms()), 0);
	ck_assert_str_eq(tu_affinity_of(pids[0]), t0);
	ck_assert_str_eq(tu_affinity_of(pids[1]), t1);
	ck_assert_str_ne(t0, t1);
	r = find(&f, 1);
	ck_assert_int_eq(r->status, BND_ST_ACTIVE);
	ck_assert_ptr_nonnull(strstr(glog, "bound (was deferred) on cpus 0-1 (its previous cpus), "
				     "2 threads moved"));
	int su, re, de;
	bnd_gang_counts(g, &su, &re, &de);
	ck_assert_int_eq(su, 1);
	ck_assert_int_eq(re, 1);
	ck_assert_int_eq(de, 1);

	bnd_gang_stop(g);
	for (int i = 0; i < 2; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	bnd_statefile_free(&f);
	bnd_step_finish(&s);
	bnd_placement_free(&s.pl);
	bnd_topology_free(t);
}
END_TEST

START_TEST(resume_moves_a_task_whose_cpus_are_taken)
{
	if (!have_cpus_0_1())
		return;
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step s, s3;
	make_step(&s, t, 1, 1, "linear:1");
	ck_assert(bnd_cpuset_isset(&s.pl.all_cpus, 0));
	pid_t pid = task_on("0");
	char err[BND_ERRLEN];
	struct bnd_gang *g;
	struct bnd_gang_in in = { .step = &s, .pids = &pid, .npids = 1, .verbose = 1 };
	ck_assert_int_eq(bnd_gang_open(&g, &in, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_SUSPENDED, bnd_state_now_ms()), 0);
	make_step(&s3, t, 3, 1, "linear:1"); /* takes cpu 0 */
	ck_assert(bnd_cpuset_isset(&s3.pl.all_cpus, 0));
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_RESUMED, bnd_state_now_ms()), 0);
	ck_assert_str_eq(tu_affinity_of(pid), "1");
	ck_assert_ptr_nonnull(strstr(glog, "resumed on cpus 1 (a new placement), 1 thread moved"));
	/* With a memory policy (prev_only) it would have waited instead. */
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_SUSPENDED, bnd_state_now_ms()), 0);
	s.mbind = BND_M_CORES_STRICT;
	bnd_step_finish(&s3);
	bnd_placement_free(&s3.pl);
	make_step(&s3, t, 3, 1, "linear:1");
	ck_assert(bnd_cpuset_isset(&s3.pl.all_cpus, 0)); /* 1 is free, 0 taken */
	struct bnd_step s4;
	make_step(&s4, t, 4, 1, "linear:1"); /* now 1 is taken too */
	bnd_step_finish(&s3); /* 0 free again, s's previous cpu is 1 */
	bnd_placement_free(&s3.pl);
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_RESUMED, bnd_state_now_ms()), 1);
	/* deferred: its affinity is left as it was */
	ck_assert_str_eq(tu_affinity_of(pid), "1");
	bnd_gang_stop(g);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	bnd_step_finish(&s4);
	bnd_placement_free(&s4.pl);
	bnd_step_finish(&s);
	bnd_placement_free(&s.pl);
	bnd_topology_free(t);
}
END_TEST

/* Issue 32 item 2: with task/affinity alone (no step cgroup to check) a
 * resume looked each task's pid up by number; a task that had ended and
 * whose pid went to another user's process got that process (and its
 * tree) moved onto the step's cpus. The task's identity is its start time
 * from when it was forked: a process with its pid and another start time
 * is never touched. The reuse is made in a proc root of links whose
 * target the test swaps (test_rebind's way). */
START_TEST(a_resume_never_moves_a_process_that_took_a_tasks_pid)
{
	if (!have_cpus_0_1())
		return;
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step s;
	make_step(&s, t, 1, 1, "linear:1");
	char cpus[8], err[BND_ERRLEN], root[] = "/tmp/bnd-gang-proc-XXXXXX", from[128], to[64];
	bnd_cpuset_format_list(&s.pl.all_cpus, cpus, sizeof(cpus));
	pid_t task = task_on(cpus), other = fork();
	ck_assert_int_ge(other, 0);
	if (!other)
		for (;;)
			pause();
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(from, sizeof(from), "%s/%d", root, (int)task);
	snprintf(to, sizeof(to), "/proc/%d", (int)task);
	ck_assert_int_eq(symlink(to, from), 0);
	struct bnd_gang *g;
	struct bnd_gang_in in = { .step = &s, .pids = &task, .npids = 1, .proc_root = root,
				  .verbose = 1 };
	ck_assert_int_eq(bnd_gang_open(&g, &in, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_SUSPENDED, bnd_state_now_ms()), 0);
	/* The task ends; its number now leads to `other`, started in another
	 * clock tick (as a reused pid always is). */
	unsigned long long ts = proc_start(task);
	kill(task, SIGKILL);
	waitpid(task, NULL, 0);
	for (int i = 0; i < 5000 && proc_start(other) == ts; i++) { /* a hang guard */
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
		usleep(1000);
		other = fork();
		ck_assert_int_ge(other, 0);
		if (!other)
			for (;;)
				pause();
	}
	ck_assert(proc_start(other) != ts);
	unlink(from);
	snprintf(to, sizeof(to), "/proc/%d", (int)other);
	ck_assert_int_eq(symlink(to, from), 0);
	char all[64];
	snprintf(all, sizeof(all), "%s", tu_affinity_of(other));
	ck_assert_int_eq(bnd_gang_event(g, BND_WATCH_RESUMED, bnd_state_now_ms()), 0);
	ck_assert_str_eq(tu_affinity_of(other), all);
	ck_assert_ptr_nonnull(strstr(glog, "0 threads moved"));
	bnd_gang_stop(g);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	unlink(from);
	rmdir(root);
	bnd_step_finish(&s);
	bnd_placement_free(&s.pl);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gang");
	TCase *tc = tcase_create("gang");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, suspend_defer_and_bind_when_freed);
	tcase_add_test(tc, resume_moves_a_task_whose_cpus_are_taken);
	tcase_add_test(tc, a_resume_never_moves_a_process_that_took_a_tasks_pid);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
