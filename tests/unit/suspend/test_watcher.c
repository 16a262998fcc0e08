/* watcher: real processes stopped and continued, a fake freezer file, a
 * fake slurmctld answer; a user's stop is no suspension; stop joins at once
 * and leaves no thread or fd behind. Every wait is for a state, bounded
 * only by a hang guard. */
#include <check.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binding/hooks/watcher.h"
#include "binding/state/statewake.h"
#include "binding/suspend/watcher.h"
#include "binding/util/error.h"
#include "cgscratch.h"
#include "testutil.h"

#define HANG_GUARD_S 30

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int n_susp, n_res, n_state, n_user, want_state_events;
static atomic_int job_answer;
static atomic_long n_reads; /* slurmctld reads (job_cb calls) */
/* When set, the second state event stops this process (from inside the
 * callback, so the watcher's next sample finds it stopped). */
static pid_t stop_at_second_state;
/* When set, called from inside the first state event's callback. */
static void (*at_first_state)(void);

static enum bnd_job_state job_cb(void *ctx)
{
	(void)ctx;
	atomic_fetch_add(&n_reads, 1);
	return (enum bnd_job_state)atomic_load(&job_answer);
}

static int event_cb(void *ctx, enum bnd_watch_event ev, long long seen)
{
	(void)ctx;
	ck_assert(seen > 0);
	pthread_mutex_lock(&mu);
	n_susp += ev == BND_WATCH_SUSPENDED;
	n_res += ev == BND_WATCH_RESUMED;
	n_state += ev == BND_WATCH_STATE;
	n_user += ev == BND_WATCH_USER_STOP;
	int w = want_state_events;
	int stop = stop_at_second_state && ev == BND_WATCH_STATE && n_state == 2;
	int first = at_first_state && ev == BND_WATCH_STATE && n_state == 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	if (first)
		at_first_state();
	if (stop) {
		int st;
		ck_assert_int_eq(kill(stop_at_second_state, SIGSTOP), 0);
		ck_assert_int_eq(waitpid(stop_at_second_state, &st, WUNTRACED), stop_at_second_state);
	}
	return w;
}

/* Waits until *v >= want; fails the test after the hang guard. */
static void wait_count(int *v, int want, const char *what)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += HANG_GUARD_S;
	pthread_mutex_lock(&mu);
	while (*v < want)
		if (pthread_cond_timedwait(&cv, &mu, &dl)) {
			pthread_mutex_unlock(&mu);
			ck_abort_msg("hang guard: no %s within %d s", what, HANG_GUARD_S);
		}
	pthread_mutex_unlock(&mu);
}

static int get(int *v)
{
	pthread_mutex_lock(&mu);
	int n = *v;
	pthread_mutex_unlock(&mu);
	return n;
}

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the DIR's own fd or nothing: counted the same both times */
}

static void wait_threads(int want)
{
	for (int i = 0; i < HANG_GUARD_S * 100; i++) {
		if (count_dir("/proc/self/task") == want)
			return;
		usleep(10000);
	}
	ck_abort_msg("hang guard: thread count never came back to %d", want);
}

static void reset(void)
{
	n_susp = n_res = n_state = n_user = want_state_events = 0;
	stop_at_second_state = 0;
	at_first_state = NULL;
	atomic_store(&job_answer, BND_JOB_RUNNING);
	atomic_store(&n_reads, 0);
}

START_TEST(user_stop_is_kept_slurm_suspend_is_seen)
{
	reset();
	int fds = count_dir("/proc/self/fd"), threads = count_dir("/proc/self/task");
	pid_t pid = tu_sleeper();
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "";
	struct bnd_watch_cfg c = {
		.pids = &pid, .npids = 1, .proc_root = "/proc", .sample_ms = 10, .fast_ms = 10, .recheck_ms = 20,
		.job_state = job_cb, .event = event_cb,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	/* A running task is no stop at all: the first samples report none
	 * (a first sample once counted as a stop). Wait until the watcher
	 * has sampled a few times. */
	long wk = 0;
	for (int i = 0; i < HANG_GUARD_S * 100 && wk < 3; i++) {
		bnd_watch_counts(w, &wk, NULL);
		usleep(10000);
	}
	ck_assert_int_ge(wk, 3);
	ck_assert_int_eq(get(&n_user), 0);

	/* The user's stop: slurmctld says RUNNING. The watcher reports it
	 * as such once it has judged it, and no suspension. */
	int st;
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	ck_assert_int_eq(waitpid(pid, &st, WUNTRACED), pid);
	wait_count(&n_user, 1, "user stop verdict");
	ck_assert_int_eq(get(&n_susp), 0);
	long reads = 0;
	bnd_watch_counts(w, NULL, &reads);
	ck_assert_int_ge(reads, 1);

	/* Now Slurm suspends the stopped job. */
	atomic_store(&job_answer, BND_JOB_SUSPENDED);
	wait_count(&n_susp, 1, "suspension");
	/* and resumes it */
	atomic_store(&job_answer, BND_JOB_RUNNING);
	ck_assert_int_eq(kill(pid, SIGCONT), 0);
	wait_count(&n_res, 1, "resume");
	ck_assert_int_eq(get(&n_susp), 1);

	bnd_watch_stop(w);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(count_dir("/proc/self/fd"), fds);
	wait_threads(threads);
}
END_TEST

START_TEST(freezer_without_slurmctld)
{
	reset();
	char path[] = "/tmp/bnd-freezer-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "THAWED\n", 7, 0), 7);
	pid_t me = getpid();
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "";
	struct bnd_watch_cfg c = {
		.pids = &me, .npids = 1, .freezer = path, .sample_ms = 10, .fast_ms = 10, .event = event_cb,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(pwrite(fd, "FROZEN\n", 7, 0), 7);
	wait_count(&n_susp, 1, "suspension from the freezer");
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd, "THAWED\n", 7, 0), 7);
	wait_count(&n_res, 1, "resume from the freezer");
	bnd_watch_stop(w);

	/* With slurmctld: the thaw of a suspended step is a resume, without
	 * a read (slurmctld here would still say SUSPENDED, and be ignored). */
	reset();
	atomic_store(&job_answer, BND_JOB_SUSPENDED);
	c.job_state = job_cb;
	c.recheck_ms = 600000; /* no periodic re-read in this test's lifetime */
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(pwrite(fd, "FROZEN\n", 7, 0), 7);
	wait_count(&n_susp, 1, "suspension with slurmctld");
	long reads_frozen = 0;
	bnd_watch_counts(w, NULL, &reads_frozen);
	ck_assert_int_eq(pwrite(fd, "THAWED\n", 7, 0), 7);
	wait_count(&n_res, 1, "resume at the thaw");
	long reads_after = 0;
	bnd_watch_counts(w, NULL, &reads_after);
	ck_assert_int_eq(reads_after, reads_frozen);
	bnd_watch_stop(w);
	close(fd);
	unlink(path);
}
END_TEST

/* What a transaction that lets the step in does to its doorbell
 * (statewake.c's ring): a write open and a close. */
static void ring_doorbell(const char *dir, uint32_t job, uint32_t step)
{
	char name[64], path[200];
	ck_assert_int_eq(bnd_state_wake_name(job, step, name, sizeof(name)), BND_OK);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	close(fd);
}

START_TEST(state_changes_wake_a_deferred_step)
{
	reset();
	want_state_events = 1;
	char dir[] = "/tmp/bnd-wstate-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	pid_t me = getpid();
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "", a[64], b[64];
	/* A sample interval no test waits for: only inotify can wake it. */
	struct bnd_watch_cfg c = {
		.pids = &me, .npids = 1, .state_dir = dir, .sample_ms = 600000,
		.event = event_cb, .start_deferred = 1, .job = 7, .step = 3,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	wait_count(&n_state, 1, "first try of a deferred step");
	/* The doorbell is made before the owner's first try (else a change
	 * right after a failed try would be lost): a ring wakes it. */
	snprintf(a, sizeof(a), "%s/wake.7.3", dir);
	ck_assert_int_eq(access(a, F_OK), 0);
	int n = get(&n_state);
	ring_doorbell(dir, 7, 3);
	wait_count(&n_state, n + 1, "state event after a ring");
	/* And stop is immediate, whatever the sample interval; the doorbell
	 * goes with the watcher. */
	bnd_watch_stop(w);
	ck_assert_int_ne(access(a, F_OK), 0);
	(void)b;
	rmdir(dir);
}
END_TEST

/* The inotify watches of this process, from the kernel's fdinfo of every
 * inotify descriptor: "<inode> <mask>" lines (hex, as fdinfo has them). */
static void inotify_watches(char *out, size_t len)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t used = 0;
	out[0] = '\0';
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		char link[300], target[64] = "", line[512];
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0 || strncmp(target, "anon_inode:inotify", 18))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fdinfo/%s", e->d_name);
		FILE *f = fopen(link, "r");
		while (f && fgets(line, sizeof(line), f)) {
			char ino[32], mask[32];
			if (sscanf(line, "inotify wd:%*d ino:%31s sdev:%*s mask:%31s", ino, mask) == 2)
				used += (size_t)snprintf(out + used, len - used, "%s %s\n", ino, mask);
		}
		if (f)
			fclose(f);
	}
	closedir(d);
}

/* A waiting step listens to its own doorbell and nothing else (issue 32
 * item 12: every watcher watched the state dir, so every change of the
 * node's state woke every waiting step): the kernel's list of the
 * process's inotify watches holds one, on the doorbell's inode, for a
 * close after writing; none once the step waits no more, and the doorbell
 * is gone. */
START_TEST(a_waiting_step_watches_only_its_doorbell)
{
	reset();
	want_state_events = 1;
	char dir[] = "/tmp/bnd-wbell-XXXXXX", watches[512], want[128], bell[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	pid_t me = getpid();
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "";
	struct bnd_watch_cfg c = {
		.pids = &me, .npids = 1, .state_dir = dir, .sample_ms = 600000,
		.retry_ms = 600000, .event = event_cb, .start_deferred = 1, .job = 12, .step = 4294967291u,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	wait_count(&n_state, 1, "first try of a deferred step");
	snprintf(bell, sizeof(bell), "%s/wake.12.4294967291", dir);
	struct stat st;
	ck_assert_int_eq(stat(bell, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	snprintf(want, sizeof(want), "%lx %x\n", (unsigned long)st.st_ino, IN_CLOSE_WRITE);
	inotify_watches(watches, sizeof(watches));
	ck_assert_str_eq(watches, want);
	/* the next ring lets it in: no watch, no doorbell */
	pthread_mutex_lock(&mu);
	want_state_events = 0;
	pthread_mutex_unlock(&mu);
	ring_doorbell(dir, 12, 4294967291u);
	wait_count(&n_state, 2, "the ring that lets it in");
	for (int i = 0; i < HANG_GUARD_S * 1000 && !access(bell, F_OK); i++) /* a hang guard */
		usleep(1000);
	ck_assert_int_ne(access(bell, F_OK), 0);
	inotify_watches(watches, sizeof(watches));
	ck_assert_str_eq(watches, "");
	bnd_watch_stop(w);
	rmdir(dir);
}
END_TEST

/* With no change of the state at all, a waiting step still tries every
 * retry_ms: a holder of its cpus may die without a transaction. */
START_TEST(a_deferred_step_retries_without_a_change)
{
	reset();
	want_state_events = 1;
	char dir[] = "/tmp/bnd-wretry-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	pid_t me = getpid();
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "";
	struct bnd_watch_cfg c = {
		.pids = &me, .npids = 1, .state_dir = dir, .sample_ms = 20, .retry_ms = 50,
		.event = event_cb, .start_deferred = 1,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	wait_count(&n_state, 3, "retries of a deferred step");
	bnd_watch_stop(w);
	rmdir(dir);
}
END_TEST

/* A task stopped by its user: slurmctld is asked when the stop is seen,
 * then after 20, 40, 80, ... ms (doubling, up to recheck_max_ms). Over a
 * stop of about a second that is a handful of reads; without the back-off
 * (every 20 ms) it was 50. An upper bound: a slower machine only asks
 * less. */
START_TEST(a_stopped_steps_rereads_back_off)
{
	reset();
	pid_t pid = tu_sleeper();
	char dir[] = "/tmp/bnd-wback-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "";
	struct bnd_watch_cfg c = {
		.pids = &pid, .npids = 1, .proc_root = "/proc", .state_dir = dir,
		.sample_ms = 10, .fast_ms = 10, .recheck_ms = 20, .recheck_max_ms = 10000,
		.node_recheck_ms = 1, .job_state = job_cb, .event = event_cb,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	int st;
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	ck_assert_int_eq(waitpid(pid, &st, WUNTRACED), pid);
	wait_count(&n_user, 1, "the user's stop");
	usleep(1000000);
	bnd_watch_stop(w);
	long reads = atomic_load(&n_reads);
	ck_assert_msg(reads >= 1 && reads <= 8, "%ld slurmctld reads in a second's stop", reads);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	char p[64];
	snprintf(p, sizeof(p), "%s/pollrate", dir);
	unlink(p);
	rmdir(dir);
}
END_TEST

/* Waits until the watcher has polled again after now: two more wakeups
 * (the poll under way may have begun before; the next one began after). */
static void wait_polled(struct bnd_watch *w)
{
	long a = 0, b = 0;
	bnd_watch_counts(w, &a, NULL);
	for (int i = 0; i < HANG_GUARD_S * 1000 && b < a + 2; i++) {
		bnd_watch_counts(w, &b, NULL);
		usleep(1000);
	}
	ck_assert_int_ge(b, a + 2);
}

/* Issue 32 item 3: stopped-state changes a user makes at will (SIGSTOP,
 * SIGCONT) each made a slurmctld read, past the node's budget of one per
 * node_recheck_ms (40 reads in 10 s from 4 steps, as root, where
 * slurmctld's per-user limit does not apply). Two steps' tasks are
 * stopped and continued 15 times each, every change seen by its watcher;
 * all reads of the node must fit the budget over the time it took: at
 * most 1 + elapsed / node_recheck_ms (a slower machine only allows more).
 * Before, every stop was read: 30. A stop that stays is still judged once
 * the budget allows. */
START_TEST(stop_toggles_keep_the_nodes_budget)
{
	reset();
	pid_t pids[2] = { tu_sleeper(), tu_sleeper() };
	char dir[] = "/tmp/bnd-wtoggle-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct bnd_watch *w[2];
	char err[BND_ERRLEN] = "";
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int k = 0; k < 2; k++) {
		struct bnd_watch_cfg c = {
			.pids = &pids[k], .npids = 1, .proc_root = "/proc", .state_dir = dir,
			.sample_ms = 10, .fast_ms = 10, .recheck_ms = 600000,
			.node_recheck_ms = 500, .job_state = job_cb, .event = event_cb,
		};
		ck_assert_msg(bnd_watch_start(&w[k], &c, err, sizeof(err)) == BND_OK, "%s", err);
	}
	int st;
	for (int round = 0; round < 15; round++)
		for (int k = 0; k < 2; k++) {
			ck_assert_int_eq(kill(pids[k], SIGSTOP), 0);
			ck_assert_int_eq(waitpid(pids[k], &st, WUNTRACED), pids[k]);
			wait_polled(w[k]);
			ck_assert_int_eq(kill(pids[k], SIGCONT), 0);
			ck_assert_int_eq(waitpid(pids[k], &st, WCONTINUED), pids[k]);
			wait_polled(w[k]);
		}
	/* a stop that stays is judged, when the budget allows */
	int users = get(&n_user);
	ck_assert_int_eq(kill(pids[0], SIGSTOP), 0);
	ck_assert_int_eq(waitpid(pids[0], &st, WUNTRACED), pids[0]);
	wait_count(&n_user, users + 1, "the judgment of a stop that stays");
	for (int k = 0; k < 2; k++)
		bnd_watch_stop(w[k]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long elapsed = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	/* +2 ms: the watcher reads its clock in whole ms */
	long reads = atomic_load(&n_reads), allowed = 1 + (elapsed + 2) / 500;
	printf("# stop toggles: %ld slurmctld reads in %ld ms (at most %ld), 30 stops\n", reads,
	       elapsed, allowed);
	ck_assert_msg(reads >= 1 && reads <= allowed, "%ld reads in %ld ms: over the node's budget "
		      "(%ld)", reads, elapsed, allowed);
	for (int k = 0; k < 2; k++) {
		kill(pids[k], SIGKILL);
		waitpid(pids[k], NULL, 0);
	}
	char p[64];
	snprintf(p, sizeof(p), "%s/pollrate", dir);
	unlink(p);
	rmdir(dir);
}
END_TEST

/* The pass that ends a suspension is no user's stop, whatever it finds:
 * here the freezer never got past FREEZING (a v1 freezer can stay there
 * with tasks that SIGTSTP stopped), and the task is found stopped (state T,
 * as after Slurm's SIGTSTP, before its SIGCONT) in the pass that sees the
 * thaw, or in one before it where slurmctld already says RUNNING. Either
 * order once logged "tasks stopped, not by a Slurm suspension" at every
 * resume (seen in the gang e2e logs). */
START_TEST(resume_from_freezing_is_no_user_stop)
{
	reset();
	char path[] = "/tmp/bnd-freezing-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "THAWED\n", 7, 0), 7);
	pid_t pid = tu_sleeper();
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "";
	struct bnd_watch_cfg c = {
		.pids = &pid, .npids = 1, .proc_root = "/proc", .freezer = path,
		.sample_ms = 10, .fast_ms = 10, .recheck_ms = 600000,
		.job_state = job_cb, .event = event_cb,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	atomic_store(&job_answer, BND_JOB_SUSPENDED);
	ck_assert_int_eq(pwrite(fd, "FREEZING\n", 9, 0), 9);
	wait_count(&n_susp, 1, "suspension while FREEZING");
	/* slurmctld says RUNNING first; no re-read until something changes */
	atomic_store(&job_answer, BND_JOB_RUNNING);
	int st;
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	ck_assert_int_eq(waitpid(pid, &st, WUNTRACED), pid);
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd, "THAWED\n", 7, 0), 7);
	wait_count(&n_res, 1, "resume");
	bnd_watch_stop(w);
	ck_assert_int_eq(get(&n_user), 0);
	ck_assert_int_eq(get(&n_susp), 1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fd);
	unlink(path);
}
END_TEST

/* A step that stops wanting state events (it got its cpus) is not woken
 * again by the removal of its own inotify watch. That removal queues an
 * IN_IGNORED event; taken for a change of the state it made such a step
 * call its owner, re-add and remove the watch, and wake again, in a loop
 * that burnt a CPU in slurmstepd for the rest of the step (seen in the
 * gang e2e test). No timing: the callback of the second state event stops
 * a task and returns 0; the watcher's next pass finds the queued
 * IN_IGNORED and the stopped task together, so the user-stop event and
 * any spurious state event come from the same pass, which has ended when
 * bnd_watch_stop has joined the thread. */
START_TEST(a_removed_watch_wakes_nobody)
{
	reset();
	pid_t pid = tu_sleeper();
	want_state_events = 1;
	stop_at_second_state = pid;
	char dir[] = "/tmp/bnd-wignored-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "", a[64], b[64];
	struct bnd_watch_cfg c = {
		.pids = &pid, .npids = 1, .proc_root = "/proc", .state_dir = dir,
		.sample_ms = 600000, .fast_ms = 600000, .recheck_ms = 600000,
		.job_state = job_cb, .event = event_cb, .start_deferred = 1,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	wait_count(&n_state, 1, "first try of a deferred step");
	pthread_mutex_lock(&mu);
	want_state_events = 0; /* the next try succeeds */
	pthread_mutex_unlock(&mu);
	ring_doorbell(dir, 0, 0);
	wait_count(&n_user, 1, "the stop made inside the second state event");
	bnd_watch_stop(w);
	ck_assert_int_eq(get(&n_state), 2);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	(void)a, (void)b;
	snprintf(a, sizeof(a), "%s/pollrate", dir);
	unlink(a);
	rmdir(dir);
}
END_TEST

/* What counts in a read of the inotify fd: a ring of the doorbell (a
 * close after writing) and an overflow, never the IN_IGNORED that removing
 * a watch queues, nor a rename. */
START_TEST(inotify_events_that_count)
{
	char buf[4 * sizeof(struct inotify_event) + 64]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	struct inotify_event ev = { .wd = 1, .mask = IN_IGNORED };
	memcpy(buf, &ev, sizeof(ev));
	ck_assert_int_eq(bnd_watch_rung(buf, sizeof(ev)), 0);
	ev.mask = IN_Q_OVERFLOW;
	memcpy(buf, &ev, sizeof(ev));
	ck_assert_int_eq(bnd_watch_rung(buf, sizeof(ev)), 1);
	/* an ignored event, then a ring */
	ev.mask = IN_IGNORED;
	memcpy(buf, &ev, sizeof(ev));
	struct inotify_event cw = { .wd = 1, .mask = IN_CLOSE_WRITE, .len = 0 };
	memcpy(buf + sizeof(ev), &cw, sizeof(cw));
	ck_assert_int_eq(bnd_watch_rung(buf, 2 * sizeof(ev)), 1);
	ck_assert_int_eq(bnd_watch_rung(buf, sizeof(ev) - 1), 0);
	/* a rename into a watched dir is no ring */
	struct inotify_event mv = { .wd = 1, .mask = IN_MOVED_TO, .len = 16 };
	memcpy(buf + sizeof(ev), &mv, sizeof(mv));
	memset(buf + 2 * sizeof(ev), 0, 16);
	memcpy(buf + 2 * sizeof(ev), "state", 6);
	ck_assert_int_eq(bnd_watch_rung(buf, 2 * sizeof(ev) + 16), 0);

	/* and from the kernel: add a watch, remove it, read */
	char dir[] = "/tmp/bnd-wev-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	int wd = inotify_add_watch(fd, dir, IN_CLOSE_WRITE);
	ck_assert_int_ge(wd, 0);
	ck_assert_int_eq(inotify_rm_watch(fd, wd), 0);
	ssize_t n = read(fd, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(bnd_watch_rung(buf, (size_t)n), 0);
	close(fd);
	rmdir(dir);
}
END_TEST

/* The real kernfs file, in a cgroup of this host's cgroup v2 hierarchy:
 * a freeze and a thaw wake the watcher (its sampling interval is 10 min,
 * so nothing else could), and between changes it sleeps. kernfs keeps a
 * changed cgroup.events ready for POLLPRI until that open file is read
 * again; the watcher once read the path through another fd and spun. A
 * bound on wakeups cannot fail on a slow machine: slower only wakes less. */
START_TEST(cgroup_v2_events_wake_only_on_change)
{
	struct cg_scratch cg;
	char why[600], events[600];
	if (cg_scratch_make(&cg, "bnd-watch", why, sizeof(why))) {
		printf("# SKIP cgroup v2 watcher test: %s\n", why);
		return;
	}
	snprintf(events, sizeof(events), "%s/cgroup.events", cg.dir);
	if (access(events, R_OK) || cg_scratch_write(&cg, "cgroup.freeze", "0")) {
		cg_scratch_remove(&cg, 0, HANG_GUARD_S);
		printf("# SKIP cgroup v2 watcher test: no cgroup.freeze in %s\n", cg.dir);
		return;
	}
	reset();
	pid_t pid = tu_sleeper();
	if (cg_scratch_move(&cg, pid)) {
		int e = errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		cg_scratch_remove(&cg, 0, HANG_GUARD_S);
		printf("# SKIP cgroup v2 watcher test: cannot move a process into %s: %s\n", cg.dir,
		       strerror(e));
		return;
	}
	struct bnd_watch *w;
	char err[BND_ERRLEN] = "";
	struct bnd_watch_cfg c = {
		.pids = &pid, .npids = 1, .proc_root = "/proc", .freezer = events, .freezer_v2 = 1,
		.sample_ms = 600000, .fast_ms = 600000, .recheck_ms = 600000, .event = event_cb,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(cg_scratch_write(&cg, "cgroup.freeze", "1"), 0);
	wait_count(&n_susp, 1, "suspension from cgroup.events");
	ck_assert_int_eq(cg_scratch_write(&cg, "cgroup.freeze", "0"), 0);
	wait_count(&n_res, 1, "resume from cgroup.events");
	long a = 0, b = 0;
	bnd_watch_counts(w, &a, NULL);
	usleep(500000);
	bnd_watch_counts(w, &b, NULL);
	/* a late notification of the last change may still come, once */
	ck_assert_msg(b - a <= 2, "the watcher woke %ld times in 0.5 s with nothing changing", b - a);
	bnd_watch_stop(w);
	ck_assert_int_eq(get(&n_susp), 1);
	ck_assert_int_eq(get(&n_user), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_msg(cg_scratch_remove(&cg, 0, HANG_GUARD_S) == 0, "%s stays", cg.dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("watcher");
	TCase *tc = tcase_create("watcher");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, user_stop_is_kept_slurm_suspend_is_seen);
	tcase_add_test(tc, freezer_without_slurmctld);
	tcase_add_test(tc, state_changes_wake_a_deferred_step);
	tcase_add_test(tc, a_removed_watch_wakes_nobody);
	tcase_add_test(tc, resume_from_freezing_is_no_user_stop);
	tcase_add_test(tc, inotify_events_that_count);
	tcase_add_test(tc, a_waiting_step_watches_only_its_doorbell);
	tcase_add_test(tc, a_deferred_step_retries_without_a_change);
	tcase_add_test(tc, a_stopped_steps_rereads_back_off);
	tcase_add_test(tc, stop_toggles_keep_the_nodes_budget);
	tcase_add_test(tc, cgroup_v2_events_wake_only_on_change);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
