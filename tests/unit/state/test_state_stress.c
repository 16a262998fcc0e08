/* state under stress: many processes at once, and processes killed inside
 * a transaction. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/state/state.h"
#include "statetest.h"
#include "testutil.h"

#define NPROC 32
#define NCYCLES 200
#define CRASH_ROUNDS 200

static struct st_env env;

static double secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void setup(void)
{
	st_setup(&env);
}

static void teardown(void)
{
	st_teardown(&env);
}

/* One write per line: O_APPEND keeps lines whole and, since the journal is
 * called under the state lock, in commit order. */
static void journal_to_fd(void *ctx, const char *line)
{
	int fd = *(int *)ctx;
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (n > 0 && (size_t)n < sizeof(buf) && write(fd, buf, (size_t)n) != n)
		_exit(90);
}

static int worker(const struct bnd_topology *t, uint32_t job, int gate)
{
	char err[BND_ERRLEN], b;
	if (read(gate, &b, 1) < 0)
		return 80;
	for (int i = 0; i < NCYCLES; i++) {
		struct bnd_alloc_args a = { .job = job, .step = (uint32_t)i, .ntasks = 1, .uid = 1000 };
		struct bnd_placement p;
		int rc = bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "job %u cycle %d: allocate: %s\n", job, i, err);
			return 81;
		}
		int one = bnd_cpuset_count(&p.all_cpus) == 1;
		bnd_placement_free(&p);
		if (!one)
			return 82;
		int n = 0;
		if (bnd_state_release(&env.opts, job, (uint32_t)i, &n, err, sizeof(err)) || n != 1) {
			fprintf(stderr, "job %u cycle %d: release (%d): %s\n", job, i, n, err);
			return 83;
		}
	}
	return 0;
}

/* "<verb> job=J step=S ... cpus=LIST tasks=..." */
static void parse_line(char *line, char **verb, unsigned *job, unsigned *step, bnd_cpuset_t *cpus)
{
	char *sp = strchr(line, ' ');
	ck_assert_ptr_nonnull(sp);
	*sp = '\0';
	*verb = line;
	ck_assert_int_eq(sscanf(sp + 1, "job=%u step=%u ", job, step), 2);
	char *c = strstr(sp + 1, " cpus=");
	ck_assert_ptr_nonnull(c);
	c += 6;
	char *end = strchr(c, ' ');
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	ck_assert_int_eq(bnd_cpuset_parse_list(cpus, c, NULL, 0), BND_OK);
}

/* 32 processes x 200 allocate/release cycles of linear:1 on 64 cores; the
 * journal, written under the lock, is replayed: no cpu is ever granted while
 * another holds it, and the state ends empty. */
START_TEST(concurrent_allocations_never_share_a_cpu)
{
	struct bnd_topology *t = tu_topo("pack:4 core:16");
	ck_assert_int_eq(t->ncores, 64);
	char jpath[128];
	snprintf(jpath, sizeof(jpath), "%s/journal", env.base);
	int jfd = open(jpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	ck_assert_int_ge(jfd, 0);
	env.opts.journal = journal_to_fd;
	env.opts.journal_ctx = &jfd;
	st_make_dir(&env);

	double t0 = secs();
	int gate[2];
	ck_assert_int_eq(pipe(gate), 0);
	pid_t pids[NPROC];
	for (int k = 0; k < NPROC; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			close(gate[1]);
			_exit(worker(t, (uint32_t)k + 1, gate[0]));
		}
	}
	close(gate[0]);
	close(gate[1]); /* go */
	for (int k = 0; k < NPROC; k++) {
		int status;
		ck_assert_int_eq(waitpid(pids[k], &status, 0), pids[k]);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "worker %d: status %#x", k, status);
	}
	close(jfd);

	size_t len;
	char *text = st_read(jpath, &len);
	ck_assert_ptr_nonnull(text);
	bnd_cpuset_t held, mine[NPROC + 1];
	bnd_cpuset_zero(&held);
	for (int k = 0; k <= NPROC; k++)
		bnd_cpuset_zero(&mine[k]);
	int grants = 0, releases = 0, most = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *verb;
		unsigned job, step;
		bnd_cpuset_t cpus;
		parse_line(line, &verb, &job, &step, &cpus);
		ck_assert_uint_ge(job, 1);
		ck_assert_uint_le(job, NPROC);
		ck_assert_int_eq(bnd_cpuset_count(&cpus), 1);
		if (!strcmp(verb, "grant")) {
			ck_assert_msg(!bnd_cpuset_intersects(&held, &cpus),
				      "grant %d (job %u step %u) of a held cpu", grants, job, step);
			ck_assert(bnd_cpuset_empty(&mine[job]));
			bnd_cpuset_or(&held, &cpus);
			mine[job] = cpus;
			grants++;
			if (bnd_cpuset_count(&held) > most)
				most = bnd_cpuset_count(&held);
		} else {
			ck_assert_str_eq(verb, "release");
			ck_assert(bnd_cpuset_equal(&mine[job], &cpus));
			bnd_cpuset_andnot(&held, &cpus);
			bnd_cpuset_zero(&mine[job]);
			releases++;
		}
	}
	free(text);
	ck_assert_int_eq(grants, NPROC * NCYCLES);
	ck_assert_int_eq(releases, NPROC * NCYCLES);
	ck_assert(bnd_cpuset_empty(&held));
	ck_assert_int_ge(most, 2); /* the processes really overlapped */
	printf("# concurrency: %d grants, %d releases, up to %d cpus held at once, %.1f s\n",
	       grants, releases, most, secs() - t0);

	struct bnd_state_file f;
	char err[BND_ERRLEN] = "";
	ck_assert_int_eq(bnd_state_list(&env.opts, &f, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(f.nrec, 0);
	bnd_statefile_free(&f);
	ck_assert_str_eq(env.log, "");
	bnd_topology_free(t);
}
END_TEST

static void loop_forever(const struct bnd_topology *t, uint32_t job)
{
	char err[BND_ERRLEN];
	setenv(BND_STATE_TEST_DELAY_ENV, "300", 1);
	for (uint32_t i = 0;; i++) {
		struct bnd_alloc_args a = { .job = job, .step = i, .ntasks = 1, .uid = 1000 };
		struct bnd_placement p;
		if (bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err, sizeof(err)))
			_exit(1);
		bnd_placement_free(&p);
		if (bnd_state_release(&env.opts, job, i, NULL, err, sizeof(err)))
			_exit(2);
	}
}

/* 200 processes killed with SIGKILL at a random moment, most of them inside
 * a transaction: the state always parses whole, a live record survives, and
 * gc leaves nothing of the dead. */
/* Readers without the lock (cat, sbind status) always get a whole file:
 * one process reads the state raw, as fast as it can, while 8 writers run
 * allocate/release cycles; not one read may fail its checksum. */
START_TEST(unlocked_readers_see_whole_files)
{
	struct bnd_topology *t = tu_topo("pack:4 core:16");
	st_make_dir(&env);
	int stop[2], gate[2];
	ck_assert_int_eq(pipe(stop), 0);
	pid_t reader = fork();
	ck_assert_int_ge(reader, 0);
	if (reader == 0) {
		close(stop[1]);
		fcntl(stop[0], F_SETFL, O_NONBLOCK);
		char path[160], b, why[256];
		snprintf(path, sizeof(path), "%s/state", env.dir);
		long reads = 0, torn = 0;
		while (read(stop[0], &b, 1) < 0 && errno == EAGAIN) {
			size_t len;
			char *text = st_read(path, &len);
			if (!text)
				continue;
			struct bnd_state_file f;
			if (bnd_statefile_parse(text, len, &f, why, sizeof(why)) != BND_SF_CLEAN)
				torn++;
			bnd_statefile_free(&f);
			free(text);
			reads++;
		}
		printf("# unlocked reader: %ld reads, %ld torn\n", reads, torn);
		fflush(stdout);
		_exit(torn ? 1 : reads < 50 ? 2 : 0);
	}
	close(stop[0]);
	/* after the reader's fork: the writers start when every gate writer is closed */
	ck_assert_int_eq(pipe(gate), 0);
	pid_t pids[8];
	for (int k = 0; k < 8; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			close(gate[1]);
			_exit(worker(t, (uint32_t)k + 1, gate[0]));
		}
	}
	close(gate[0]);
	close(gate[1]);
	for (int k = 0; k < 8; k++) {
		int status;
		ck_assert_int_eq(waitpid(pids[k], &status, 0), pids[k]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(stop[1]);
	int status;
	ck_assert_int_eq(waitpid(reader, &status, 0), reader);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "reader: %s", WEXITSTATUS(status) == 1 ? "saw a torn state" : "too few reads");
	bnd_topology_free(t);
}
END_TEST

START_TEST(killed_inside_a_transaction)
{
	struct bnd_topology *t = tu_topo("pack:4 core:16");
	struct bnd_alloc_args keep = { .job = 1000, .step = 0, .ntasks = 1, .uid = 0 };
	struct bnd_placement p;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req("linear:2"), &keep, &p, err,
					 sizeof(err)) == BND_OK, "%s", err);
	bnd_cpuset_t kept = p.all_cpus;
	bnd_placement_free(&p);

	unsigned seed = 4242;
	double t0 = secs();
	int dead_holder = 0, dead_record = 0;
	for (int round = 0; round < CRASH_ROUNDS; round++) {
		pid_t c = fork();
		ck_assert_int_ge(c, 0);
		if (c == 0)
			loop_forever(t, (uint32_t)round + 1);
		struct timespec ts = { 0, (long)(rand_r(&seed) % 2500) * 1000 };
		nanosleep(&ts, NULL);
		ck_assert_int_eq(kill(c, SIGKILL), 0);
		int status;
		ck_assert_int_eq(waitpid(c, &status, 0), c);
		ck_assert_msg(WIFSIGNALED(status), "round %d: child ended by itself (%#x)", round,
			      status);

		size_t len;
		char *text = st_read(st_path(&env, "state"), &len), why[256];
		ck_assert_ptr_nonnull(text);
		struct bnd_state_file f;
		ck_assert_msg(bnd_statefile_parse(text, len, &f, why, sizeof(why)) == BND_SF_CLEAN,
			      "round %d: %s", round, why);
		free(text);
		dead_record += f.nrec > 1;
		bnd_statefile_free(&f);

		env.log[0] = '\0';
		ck_assert_msg(bnd_state_gc(&env.opts, NULL, err, sizeof(err)) == BND_OK, "%s", err);
		dead_holder += strstr(env.log, "previous lock holder died inside a transaction") != NULL;
		ck_assert_int_eq(bnd_state_list(&env.opts, &f, err, sizeof(err)), BND_OK);
		ck_assert_int_eq(f.nrec, 1);
		ck_assert_uint_eq(f.rec[0].job, 1000);
		ck_assert_int_eq(f.rec[0].owner_pid, getpid());
		ck_assert(bnd_cpuset_equal(&f.rec[0].cpus, &kept));
		bnd_statefile_free(&f);
	}
	printf("# crash: of %d kills, %d hit a process holding the lock, %d left a record of "
	       "the dead, %.1f s\n", CRASH_ROUNDS, dead_holder, dead_record, secs() - t0);
	/* the kills did land inside transactions */
	ck_assert_int_ge(dead_holder, CRASH_ROUNDS / 4);
	ck_assert_int_ge(dead_record, 10);
	ck_assert_int_eq(st_count_prefix(env.dir, "state.corrupt."), 0);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("state_stress");
	TCase *tc = tcase_create("state_stress");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, concurrent_allocations_never_share_a_cpu);
	tcase_add_test(tc, unlocked_readers_see_whole_files);
	tcase_add_test(tc, killed_inside_a_transaction);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
