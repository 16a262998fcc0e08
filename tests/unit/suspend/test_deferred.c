/* Deferred steps at scale: a change of the state costs the node's lock
 * only for the steps it lets in (counted by the transactions' own fault
 * point, never timed), they are served oldest first, a waiting step's
 * check takes no lock, a user's waiting steps are capped per node, and the
 * node-wide budget of a stopped step's slurmctld re-reads. */
#include <check.h>
#include <pthread.h>
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
#include "binding/state/statewake.h"
#include "binding/state/transition.h"
#include "binding/suspend/gang.h"
#include "binding/suspend/pollrate.h"
#include "binding/suspend/watcher.h"
#include "binding/util/fault.h"
#include "statetest.h"
#include "testutil.h"

#define WAITING 20

static struct st_env env;

static void setup(void)
{
	st_setup(&env);
}

static void teardown(void)
{
	st_teardown(&env);
}

static int have_cpus_0_1(void)
{
	cpu_set_t m;
	if (sched_getaffinity(0, sizeof(m), &m) || !CPU_ISSET(0, &m) || !CPU_ISSET(1, &m)) {
		printf("# SKIP deferred: needs cpus 0 and 1 usable\n");
		return 0;
	}
	return 1;
}

/* The steps' settings (a step points at its config). */
static struct bnd_config step_cfg;

/* A step of job on cpus 0-1 asking req, as bnd_step_prepare leaves it
 * (READY). */
static void init_step(struct bnd_step *s, struct bnd_topology *t, uint32_t job, const char *req)
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
	s->ntasks = 1;
	s->share = 1;
	s->owner = getpid();
	s->uid = 1000 + job % 2;
	bnd_cpuset_parse_list(&s->domain, "0-1", NULL, 0);
	ck_assert_int_eq(bnd_request_parse(&s->made, req, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_step_move(s, BND_STEP_READY), BND_OK);
}

/* Placed and recorded, as bnd_step_place places it. */
static void run_step(struct bnd_step *s, struct bnd_topology *t, uint32_t job, const char *req)
{
	char err[BND_ERRLEN] = "";
	init_step(s, t, job, req);
	struct bnd_state_opts o;
	struct bnd_alloc_args a;
	bnd_step_state_opts(s, &o);
	bnd_step_alloc_args(s, &s->domain, &a);
	ck_assert_msg(bnd_state_allocate(&o, t, s->req, &a, &s->pl, err, sizeof(err)) == BND_OK,
		      "%s", err);
	ck_assert_int_eq(bnd_step_move(s, BND_STEP_PLACED), BND_OK);
}

/* Deferred at its start, as bnd_step_place defers. Returns the result. */
static enum bnd_resume_result defer_step(struct bnd_step *s, struct bnd_topology *t,
					 uint32_t job, const char *req, int defer_max)
{
	char err[BND_ERRLEN] = "";
	init_step(s, t, job, req);
	struct bnd_state_opts o;
	struct bnd_alloc_args a;
	bnd_step_state_opts(s, &o);
	bnd_step_alloc_args(s, &s->domain, &a);
	struct bnd_resume_args ra = { .a = &a, .defer_max = defer_max };
	struct bnd_placement p;
	enum bnd_resume_result res;
	ck_assert_int_eq(bnd_state_resume(&o, t, s->req, &ra, &p, &res, err, sizeof(err)),
			 BND_ENOFIT);
	if (res == BND_RESUME_DEFERRED)
		ck_assert_int_eq(bnd_step_move(s, BND_STEP_DEFERRED), BND_OK);
	return res;
}

static const struct bnd_state_record *record_of(struct bnd_state_file *f, uint32_t job)
{
	char err[BND_ERRLEN] = "";
	bnd_statefile_free(f);
	ck_assert_int_eq(bnd_state_list(&env.opts, f, err, sizeof(err)), BND_OK);
	for (int i = 0; i < f->nrec; i++)
		if (f->rec[i].job == job)
			return &f->rec[i];
	return NULL;
}

/* Jobs 1 and 2 hold cpus 0 and 1; WAITING steps wait, oldest first. Job 2
 * ends: one change of the state. Every waiting step's watcher sees it
 * (youngest first, the worst order for fairness): the oldest, and only it,
 * takes the lock and gets cpu 1; the others answer from a lock-free read.
 * Before, every one of them ran a transaction (WAITING + 1 lock passes),
 * and the first to run got the core. */
START_TEST(a_state_change_takes_the_lock_only_for_the_step_it_lets_in)
{
	if (!have_cpus_0_1())
		return;
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step held[2], waiting[WAITING];
	struct bnd_gang *g[WAITING];
	char err[BND_ERRLEN];
	run_step(&held[0], t, 1, "linear:1");
	run_step(&held[1], t, 2, "linear:1");
	pid_t task = tu_sleeper();
	for (int i = 0; i < WAITING; i++) {
		ck_assert_int_eq(defer_step(&waiting[i], t, 10 + (uint32_t)i, "linear:1", 0),
				 BND_RESUME_DEFERRED);
		struct bnd_gang_in in = { .step = &waiting[i], .pids = &task, .npids = 1,
					  .proc_root = "/proc" };
		ck_assert_int_eq(bnd_gang_open(&g[i], &in, err, sizeof(err)), BND_OK);
	}
	/* Nothing freed: the watchers' tries take no lock at all. */
	long before = bnd_fault_passes("txn.locked");
	for (int i = WAITING - 1; i >= 0; i--)
		ck_assert_int_eq(bnd_gang_event(g[i], BND_WATCH_STATE, bnd_state_now_ms()), 1);
	ck_assert_int_eq(bnd_fault_passes("txn.locked") - before, 0);

	ck_assert_int_eq(bnd_step_finish(&held[1]), BND_OK);
	before = bnd_fault_passes("txn.locked");
	for (int i = WAITING - 1; i >= 0; i--)
		ck_assert_int_eq(bnd_gang_event(g[i], BND_WATCH_STATE, bnd_state_now_ms()),
				 i == 0 ? 0 : 1);
	ck_assert_int_eq(bnd_fault_passes("txn.locked") - before, 1);

	struct bnd_state_file f;
	bnd_statefile_init(&f);
	const struct bnd_state_record *r = record_of(&f, 10);
	ck_assert_int_eq(r->status, BND_ST_ACTIVE);
	char cpus[16];
	bnd_cpuset_format_list(&r->cpus, cpus, sizeof(cpus));
	ck_assert_str_eq(cpus, "1");
	for (int i = 1; i < WAITING; i++)
		ck_assert_int_eq(record_of(&f, 10 + (uint32_t)i)->status, BND_ST_DEFERRED);
	ck_assert(waiting[0].state != BND_STEP_DEFERRED && waiting[1].state == BND_STEP_DEFERRED);

	/* The next change (job 1 ends) lets the next oldest in, and only it. */
	ck_assert_int_eq(bnd_step_finish(&held[0]), BND_OK);
	before = bnd_fault_passes("txn.locked");
	for (int i = WAITING - 1; i >= 1; i--)
		ck_assert_int_eq(bnd_gang_event(g[i], BND_WATCH_STATE, bnd_state_now_ms()),
				 i == 1 ? 0 : 1);
	ck_assert_int_eq(bnd_fault_passes("txn.locked") - before, 1);
	bnd_cpuset_format_list(&record_of(&f, 11)->cpus, cpus, sizeof(cpus));
	ck_assert_str_eq(cpus, "0");

	bnd_statefile_free(&f);
	for (int i = 0; i < WAITING; i++) {
		bnd_gang_stop(g[i]);
		bnd_step_finish(&waiting[i]);
		bnd_placement_free(&waiting[i].pl);
	}
	for (int i = 0; i < 2; i++)
		bnd_placement_free(&held[i].pl);
	kill(task, SIGKILL);
	waitpid(task, NULL, 0);
	bnd_topology_free(t);
}
END_TEST

/* Issue 32 item 12, the herd: each change of the node's state woke every
 * waiting step's watcher (an inotify watch on the state dir each), and
 * each read and placed the whole state to find it still did not fit. Now
 * a transaction rings only the doorbells of the deferred steps it lets in,
 * oldest first. WAITING steps wait, each with its real watcher thread; the
 * rings are counted and ordered at their probe, and each watcher counts
 * the state events it gets. A change that frees nothing rings nobody; one
 * freed cpu (released without a topology: the count rule) rings the oldest
 * step alone; two (by a step, with its topology) ring the two oldest, in
 * order. A watcher's only other wake-ups (its first try, its retry) are
 * its first event and never in this test's lifetime. */
static uint32_t rung[64];
static int nrung;
static void on_ring(const void *arg, void *ctx)
{
	(void)ctx;
	if (nrung < 64)
		rung[nrung++] = ((const struct bnd_state_record *)arg)->job;
}

struct waiter {
	pthread_mutex_t mu;
	int events;
};

static int count_event(void *ctx, enum bnd_watch_event ev, long long seen)
{
	struct waiter *w = ctx;
	(void)seen;
	pthread_mutex_lock(&w->mu);
	w->events += ev == BND_WATCH_STATE;
	pthread_mutex_unlock(&w->mu);
	return 1; /* still waiting: the test's watchers never take the lock */
}

static int events_of(struct waiter *w)
{
	pthread_mutex_lock(&w->mu);
	int n = w->events;
	pthread_mutex_unlock(&w->mu);
	return n;
}

static void wait_events(struct waiter *w, int want)
{
	for (int i = 0; i < 60000 && events_of(w) < want; i++) /* a hang guard */
		usleep(1000);
	ck_assert_int_ge(events_of(w), want);
}

START_TEST(a_state_change_wakes_only_the_steps_it_lets_in)
{
	if (!have_cpus_0_1())
		return;
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step held[2], waiting[WAITING], late;
	struct bnd_watch *w[WAITING];
	struct waiter ws[WAITING];
	char err[BND_ERRLEN];
	run_step(&held[0], t, 1, "linear:1");
	run_step(&held[1], t, 2, "linear:1");
	pid_t task = tu_sleeper();
	for (int i = 0; i < WAITING; i++) {
		ck_assert_int_eq(defer_step(&waiting[i], t, 10 + (uint32_t)i, "linear:1", 0),
				 BND_RESUME_DEFERRED);
		pthread_mutex_init(&ws[i].mu, NULL);
		ws[i].events = 0;
		struct bnd_watch_cfg c = {
			.pids = &task, .npids = 1, .proc_root = "/proc", .state_dir = env.dir,
			.job = 10 + (uint32_t)i, .step = 0, .sample_ms = 600000, .fast_ms = 600000,
			.recheck_ms = 600000, .retry_ms = 600000, .event = count_event, .ctx = &ws[i],
			.start_deferred = 1,
		};
		ck_assert_msg(bnd_watch_start(&w[i], &c, err, sizeof(err)) == BND_OK, "%s", err);
	}
	for (int i = 0; i < WAITING; i++)
		wait_events(&ws[i], 1); /* each one's first try: its doorbell is in place */
	nrung = 0;
	bnd_probe_hook("state.wake", on_ring, NULL);

	/* a change that frees nothing: one more step waits */
	ck_assert_int_eq(defer_step(&late, t, 3, "linear:1", 0), BND_RESUME_DEFERRED);
	ck_assert_int_eq(nrung, 0);
	/* job 2 ends, released without a topology: the oldest waiting step */
	ck_assert_int_eq(bnd_state_release(&env.opts, 2, 0, NULL, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(nrung, 1);
	ck_assert_uint_eq(rung[0], 10);
	wait_events(&ws[0], 2);
	/* job 1 ends through its step (its topology): the two oldest, in order */
	nrung = 0;
	ck_assert_int_eq(bnd_step_finish(&held[0]), BND_OK);
	ck_assert_int_eq(nrung, 2);
	ck_assert_uint_eq(rung[0], 10);
	ck_assert_uint_eq(rung[1], 11);
	wait_events(&ws[0], 3);
	wait_events(&ws[1], 2);
	bnd_probe_hook("state.wake", NULL, NULL);

	for (int i = 0; i < WAITING; i++)
		bnd_watch_stop(w[i]);
	/* every event a watcher got was its first try or a ring of its own */
	ck_assert_int_eq(events_of(&ws[0]), 3);
	ck_assert_int_eq(events_of(&ws[1]), 2);
	for (int i = 2; i < WAITING; i++)
		ck_assert_msg(events_of(&ws[i]) == 1, "job %d woke %d times", 10 + i,
			      events_of(&ws[i]));
	for (int i = 0; i < WAITING; i++) {
		bnd_step_finish(&waiting[i]);
		bnd_placement_free(&waiting[i].pl);
	}
	bnd_step_finish(&late);
	bnd_placement_free(&late.pl);
	for (int i = 0; i < 2; i++)
		bnd_placement_free(&held[i].pl);
	kill(task, SIGKILL);
	waitpid(task, NULL, 0);
	bnd_topology_free(t);
}
END_TEST

/* gc removes the doorbell a killed step's watcher left behind (its step
 * has no deferred record), never a waiting step's. */
START_TEST(gc_removes_the_doorbells_of_steps_that_wait_no_more)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step held, wait;
	char err[BND_ERRLEN], path[300], bell[300];
	run_step(&held, t, 1, "linear:2");
	ck_assert_int_eq(defer_step(&wait, t, 2, "linear:1", 0), BND_RESUME_DEFERRED);
	ck_assert_int_eq(bnd_state_wake_make(env.dir, 2, 0, bell, sizeof(bell), err, sizeof(err)),
			 BND_OK);
	ck_assert_int_eq(bnd_state_wake_make(env.dir, 99, 0, path, sizeof(path), err, sizeof(err)),
			 BND_OK);
	ck_assert_int_eq(bnd_state_gc(&env.opts, NULL, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(access(bell, F_OK), 0);
	ck_assert_int_ne(access(path, F_OK), 0);
	bnd_state_wake_remove(env.dir, 2, 0);
	ck_assert_int_ne(access(bell, F_OK), 0);
	bnd_step_finish(&wait);
	bnd_step_finish(&held);
	bnd_placement_free(&held.pl);
	bnd_placement_free(&wait.pl);
	bnd_topology_free(t);
}
END_TEST

/* The same rule for a new step: a core freed goes to the step waiting for
 * it, not to one that arrives after. */
START_TEST(a_new_step_queues_behind_waiting_ones)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step held, old, late;
	run_step(&held, t, 1, "linear:2");
	ck_assert_int_eq(defer_step(&old, t, 2, "linear:1", 0), BND_RESUME_DEFERRED);
	ck_assert_int_eq(bnd_step_finish(&held), BND_OK);
	/* The waiting step's turn is one core: the newcomer gets the other. */
	run_step(&late, t, 3, "linear:1");
	char cpus[16];
	bnd_cpuset_format_list(&late.pl.all_cpus, cpus, sizeof(cpus));
	ck_assert_str_eq(cpus, "1");
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	const struct bnd_state_record *r = record_of(&f, 2);
	ck_assert_int_eq(r->status, BND_ST_DEFERRED);
	ck_assert_int_eq(r->want_groups, 1);
	ck_assert_int_eq(r->want_need, 1);
	bnd_cpuset_format_list(r->want, cpus, sizeof(cpus));
	ck_assert_str_eq(cpus, "0-1");
	/* And the waiting step, asked, would fit on the core kept for it. */
	struct bnd_state_opts o;
	struct bnd_alloc_args a;
	bnd_step_state_opts(&old, &o);
	bnd_step_alloc_args(&old, &old.domain, &a);
	struct bnd_resume_args ra = { .a = &a };
	ck_assert_int_eq(bnd_state_resume_may_fit(&o, t, old.req, &ra), 1);
	bnd_statefile_free(&f);
	bnd_placement_free(&held.pl);
	bnd_placement_free(&late.pl);
	bnd_topology_free(t);
}
END_TEST

/* The lock-free check says no when nothing fits and takes no lock; a
 * holder whose owner is dead makes it say yes (the transaction reclaims). */
START_TEST(a_waiting_steps_check_takes_no_lock)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step held, wait;
	run_step(&held, t, 1, "linear:2");
	ck_assert_int_eq(defer_step(&wait, t, 2, "linear:1", 0), BND_RESUME_DEFERRED);
	struct bnd_state_opts o;
	struct bnd_alloc_args a;
	bnd_step_state_opts(&wait, &o);
	bnd_step_alloc_args(&wait, &wait.domain, &a);
	struct bnd_resume_args ra = { .a = &a };
	long before = bnd_fault_passes("txn.locked");
	ck_assert_int_eq(bnd_state_resume_may_fit(&o, t, wait.req, &ra), 0);
	ck_assert_int_eq(bnd_fault_passes("txn.locked"), before);

	/* The holder's record now names a process that has exited. */
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	ck_assert_ptr_nonnull(record_of(&f, 1));
	pid_t dead = fork();
	if (!dead)
		_exit(0);
	ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
	for (int i = 0; i < f.nrec; i++)
		if (f.rec[i].job == 1)
			f.rec[i].owner_pid = (int)dead;
	char *text;
	size_t len = st_format(&f, NULL, &text);
	st_write(st_path(&env, BND_STATE_FILE_NAME), text, len);
	free(text);
	ck_assert_int_eq(bnd_state_resume_may_fit(&o, t, wait.req, &ra), 1);
	ck_assert_int_eq(bnd_fault_passes("txn.locked"), before);
	bnd_statefile_free(&f);
	bnd_placement_free(&held.pl);
	bnd_topology_free(t);
}
END_TEST

/* defer_max: a user's new steps wait up to N at a time on a node; the next
 * is not recorded (it runs unbound), another user's still waits, and a
 * step that held cpus before is never refused. */
START_TEST(a_users_waiting_steps_are_capped)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_step held, w[4];
	run_step(&held, t, 1, "linear:2");
	/* uid 1000 + job % 2: jobs 10, 12 and 14 are one user's, 11 another's */
	ck_assert_int_eq(defer_step(&w[0], t, 10, "linear:1", 2), BND_RESUME_DEFERRED);
	ck_assert_int_eq(defer_step(&w[1], t, 12, "linear:1", 2), BND_RESUME_DEFERRED);
	ck_assert_int_eq(defer_step(&w[2], t, 14, "linear:1", 2), BND_RESUME_CAPPED);
	ck_assert_int_eq(defer_step(&w[3], t, 11, "linear:1", 2), BND_RESUME_DEFERRED);
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	ck_assert_ptr_null(record_of(&f, 14));
	ck_assert_int_eq(f.nrec, 4);
	/* 0: no limit */
	ck_assert_int_eq(defer_step(&w[2], t, 14, "linear:1", 0), BND_RESUME_DEFERRED);
	bnd_statefile_free(&f);
	bnd_placement_free(&held.pl);
	bnd_topology_free(t);
}
END_TEST

/* One budget for the node: whoever takes it, the next re-read of any step
 * waits interval ms; a value from another clock (far ahead) is ignored. No
 * clock is read: the test names the times. */
START_TEST(stopped_steps_share_one_budget_of_rereads)
{
	struct bnd_pollrate *a, *b;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_pollrate_open(env.dir, &a, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_msg(bnd_pollrate_open(env.dir, &b, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(bnd_pollrate_take(a, 100000, 1000), 1);
	ck_assert_int_eq(bnd_pollrate_take(b, 100000, 1000), 0);
	ck_assert_int_eq(bnd_pollrate_take(a, 100999, 1000), 0);
	ck_assert_int_eq(bnd_pollrate_take(b, 101000, 1000), 1);
	ck_assert_int_eq(bnd_pollrate_take(a, 101500, 1000), 0);
	/* a clock far behind the stored one (another boot's file) */
	ck_assert_int_eq(bnd_pollrate_take(a, 5, 1000), 1);
	ck_assert_int_eq(bnd_pollrate_take(NULL, 5, 1000), 1);
	struct stat st;
	ck_assert_int_eq(stat(st_path(&env, BND_POLLRATE_FILE_NAME), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	bnd_pollrate_close(a);
	bnd_pollrate_close(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("deferred");
	TCase *tc = tcase_create("deferred");
	tcase_set_timeout(tc, 120); /* a hang guard only */
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_state_change_takes_the_lock_only_for_the_step_it_lets_in);
	tcase_add_test(tc, a_state_change_wakes_only_the_steps_it_lets_in);
	tcase_add_test(tc, gc_removes_the_doorbells_of_steps_that_wait_no_more);
	tcase_add_test(tc, a_new_step_queues_behind_waiting_ones);
	tcase_add_test(tc, a_waiting_steps_check_takes_no_lock);
	tcase_add_test(tc, a_users_waiting_steps_are_capped);
	tcase_add_test(tc, stopped_steps_share_one_budget_of_rereads);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
