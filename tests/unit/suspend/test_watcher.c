/* watcher: real processes stopped and continued, a fake freezer file, a
 * fake slurmctld answer; a user's stop is no suspension; stop joins at once
 * and leaves no thread or fd behind. Every wait is for a state, bounded
 * only by a hang guard. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binding/suspend/watcher.h"
#include "binding/util/error.h"
#include "testutil.h"

#define HANG_GUARD_S 30

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int n_susp, n_res, n_state, n_user, want_state_events;
static atomic_int job_answer;

static enum bnd_job_state job_cb(void *ctx)
{
	(void)ctx;
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
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
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
	atomic_store(&job_answer, BND_JOB_RUNNING);
}

static pid_t sleeper(void)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		for (;;)
			pause();
	return pid;
}

START_TEST(user_stop_is_kept_slurm_suspend_is_seen)
{
	reset();
	int fds = count_dir("/proc/self/fd"), threads = count_dir("/proc/self/task");
	pid_t pid = sleeper();
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
		.event = event_cb, .start_deferred = 1,
	};
	ck_assert_msg(bnd_watch_start(&w, &c, err, sizeof(err)) == BND_OK, "%s", err);
	wait_count(&n_state, 1, "first try of a deferred step");
	/* The watch is in place before the owner's first try (else a change
	 * right after a failed try would be lost): a rename into the dir (how
	 * every transaction ends) wakes it. */
	snprintf(a, sizeof(a), "%s/tmp", dir);
	snprintf(b, sizeof(b), "%s/state", dir);
	int n = get(&n_state);
	FILE *f = fopen(a, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(rename(a, b), 0);
	wait_count(&n_state, n + 1, "state event after a rename");
	/* And stop is immediate, whatever the sample interval. */
	bnd_watch_stop(w);
	unlink(b);
	rmdir(dir);
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
	suite_add_tcase(s, tc);
	return tu_run(s);
}
