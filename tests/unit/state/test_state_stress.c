/* state under stress: many processes at once, unlocked readers, and
 * processes dying at every fault point of a transaction. Nothing here
 * depends on timing: overlap is forced with pipes, crashes happen at named
 * points (util/fault.h). */
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
#include "binding/util/fault.h"
#include "binding/placement/place.h"
#include "binding/state/state.h"
#include "statetest.h"
#include "testutil.h"

#define NPROC 32
#define NCYCLES 200

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

/* Allocate/release cycles of linear:1. The first allocation is held until
 * the parent says go (`hold`), after telling it (`ready`): so every worker
 * holds a cpu at the same moment in every run, however the machine
 * schedules them. Then it loops until `stop` is readable (when stop >= 0)
 * or for NCYCLES. */
static int worker(const struct bnd_topology *t, uint32_t job, int ready, int hold, int stop)
{
	char err[BND_ERRLEN], b;
	for (int i = 0; stop >= 0 || i < NCYCLES; i++) {
		if (stop >= 0 && i > 0 && read(stop, &b, 1) != -1)
			break;
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
		if (i == 0 && ready >= 0 &&
		    (write(ready, "r", 1) != 1 || (hold >= 0 && read(hold, &b, 1) < 0)))
			return 84;
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

static void wait_ok(pid_t pid, const char *who)
{
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %#x", who, status);
}

/* 32 processes x 200 allocate/release cycles of linear:1 on 64 cores; the
 * journal, written under the lock, is replayed: no cpu is ever granted while
 * another holds it, and the state ends empty. All 32 hold a cpu at once at
 * the start, by construction, so the replay always sees real overlap. */
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
	int ready[2], hold[2];
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(hold), 0);
	pid_t pids[NPROC];
	for (int k = 0; k < NPROC; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			close(ready[0]);
			close(hold[1]);
			_exit(worker(t, (uint32_t)k + 1, ready[1], hold[0], -1));
		}
	}
	close(ready[1]);
	close(hold[0]);
	char b;
	for (int k = 0; k < NPROC; k++)
		ck_assert_int_eq(read(ready[0], &b, 1), 1);
	close(hold[1]); /* every worker holds its first cpu: go on */
	close(ready[0]);
	for (int k = 0; k < NPROC; k++) {
		char who[32];
		snprintf(who, sizeof(who), "worker %d", k);
		wait_ok(pids[k], who);
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
	ck_assert_int_eq(most, NPROC); /* the held first allocations */
	printf("# concurrency: %d grants, %d releases, %.1f s\n", grants, releases, secs() - t0);

	struct bnd_state_file f;
	char err[BND_ERRLEN] = "";
	ck_assert_int_eq(bnd_state_list(&env.opts, &f, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(f.nrec, 0);
	bnd_statefile_free(&f);
	ck_assert_str_eq(env.log, "");
	bnd_topology_free(t);
}
END_TEST

#define READS 5000

/* Readers without the lock (cat, sbind status) always get a whole file:
 * one process reads the state raw READS times while 8 writers run
 * allocate/release cycles; the writers stop only when the reader is done,
 * so every read races real writes however fast either side runs. Not one
 * read may fail its checksum. */
START_TEST(unlocked_readers_see_whole_files)
{
	struct bnd_topology *t = tu_topo("pack:4 core:16");
	st_make_dir(&env);
	/* one allocation first, so that the state file exists for the reader */
	char err[BND_ERRLEN] = "";
	struct bnd_alloc_args keep = { .job = 1000, .step = 0, .ntasks = 1, .uid = 0 };
	struct bnd_placement p;
	ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req("linear:1"), &keep, &p, err,
					 sizeof(err)) == BND_OK, "%s", err);
	bnd_placement_free(&p);
	int stop[2], started[2];
	ck_assert_int_eq(pipe(stop), 0);
	ck_assert_int_eq(pipe(started), 0);
	pid_t pids[8];
	for (int k = 0; k < 8; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			close(stop[1]);
			close(started[0]);
			fcntl(stop[0], F_SETFL, O_NONBLOCK);
			/* the first cycle is done before the reader starts */
			_exit(worker(t, (uint32_t)k + 1, started[1], -1, stop[0]));
		}
	}
	close(stop[0]);
	close(started[1]);
	char b;
	for (int k = 0; k < 8; k++)
		ck_assert_int_eq(read(started[0], &b, 1), 1);
	close(started[0]);
	long torn = 0;
	char why[256] = "";
	for (long r = 0; r < READS; r++) {
		size_t len;
		char *text = st_read(st_path(&env, "state"), &len);
		ck_assert_ptr_nonnull(text);
		struct bnd_state_file f;
		if (bnd_statefile_parse(text, len, &f, why, sizeof(why)) != BND_SF_CLEAN)
			torn++;
		bnd_statefile_free(&f);
		free(text);
	}
	close(stop[1]); /* EOF: the writers stop */
	for (int k = 0; k < 8; k++)
		wait_ok(pids[k], "writer");
	printf("# unlocked reader: %d reads, %ld torn\n", READS, torn);
	ck_assert_msg(torn == 0, "%ld of %d unlocked reads saw a torn state (%s)", torn, READS, why);
	bnd_topology_free(t);
}
END_TEST

/* The cases of killed_at_every_fault_point: a point and how the process dies. */
enum { HOW_KILL, HOW_EXIT, NHOW };
static const char *const how_name[NHOW] = { "kill", "exit" };

/* A state damaged so that the next transaction keeps it aside: a whole
 * file with its last bytes (the checksum) cut off. */
static void damage_state(void)
{
	size_t len;
	char *text = st_read(st_path(&env, "state"), &len), why[256];
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_gt(len, 8);
	struct bnd_state_file f;
	ck_assert_int_eq(bnd_statefile_parse(text, len - 4, &f, why, sizeof(why)), BND_SF_CORRUPT);
	bnd_statefile_free(&f);
	st_write(st_path(&env, "state"), text, len - 4);
	free(text);
}

/* One case: the state holds a live record (ours, job 1000); a child runs
 * one allocation with BINDING_FAULT set and must die at that very point
 * (else the point was not reached: a failure). Then: the state on disk is
 * whole, holds the child's record exactly when the point is past the
 * exchange, the next transaction repairs everything, and our record has
 * its cpus. */
static void crash_at(const struct bnd_topology *t, const char *point, int how)
{
	char err[BND_ERRLEN] = "";
	int n = snprintf(env.dir, sizeof(env.dir), "%s/%s-%s", env.base, point, how_name[how]);
	ck_assert(n > 0 && (size_t)n < sizeof(env.dir));
	const char *sub = env.dir;
	env.opts.dir = env.dir;
	env.log[0] = '\0';
	int new_lock = !strcmp(point, "lock.init");
	int corrupt = !strcmp(point, "txn.kept_aside");
	int past_exchange = !strcmp(point, "txn.exchanged") || !strcmp(point, "txn.committed");
	bnd_cpuset_t kept;
	bnd_cpuset_zero(&kept);
	if (new_lock) {
		/* the child makes the dir's first lock */
		ck_assert_int_eq(mkdir(sub, 0755), 0);
	} else {
		struct bnd_alloc_args keep = { .job = 1000, .step = 0, .ntasks = 1, .uid = 0 };
		struct bnd_placement p;
		ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req("linear:2"), &keep, &p, err,
						 sizeof(err)) == BND_OK, "%s", err);
		kept = p.all_cpus;
		bnd_placement_free(&p);
		if (corrupt)
			damage_state();
	}

	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (c == 0) {
		char v[64];
		snprintf(v, sizeof(v), "%s:%s", point, how_name[how]);
		setenv(BND_FAULT_ENV, v, 1);
		struct bnd_alloc_args a = { .job = 1, .step = 0, .ntasks = 1, .uid = 1000 };
		struct bnd_placement p;
		int rc = bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err, sizeof(err));
		_exit(rc ? 2 : 1); /* the point was not reached */
	}
	int status;
	ck_assert_int_eq(waitpid(c, &status, 0), c);
	if (how == HOW_KILL)
		ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			      "%s: the child was not killed there (status %#x)", sub, status);
	else
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == BND_FAULT_EXIT_CODE,
			      "%s: the child did not exit there (status %#x)", sub, status);

	/* what a reader without the lock sees now */
	size_t len;
	char *text = st_read(st_path(&env, "state"), &len), why[256];
	if (new_lock) {
		ck_assert_ptr_null(text);
		ck_assert_int_eq(st_count_prefix(env.dir, "lock.init."), 1);
	} else {
		ck_assert_ptr_nonnull(text);
		struct bnd_state_file f;
		int verdict = bnd_statefile_parse(text, len, &f, why, sizeof(why));
		ck_assert_msg(verdict == (corrupt ? BND_SF_CORRUPT : BND_SF_CLEAN), "%s: %s", sub, why);
		int child_rec = 0;
		for (int i = 0; i < f.nrec; i++)
			child_rec += f.rec[i].job == 1;
		ck_assert_msg(child_rec == past_exchange, "%s: %d records of the dead child on disk",
			      sub, child_rec);
		/* the counters are in the same file: the child's placement is
		 * counted exactly when its record is there */
		unsigned long long placed = f.counts.v[BND_CNT_PLACEMENT + BND_S_LINEAR];
		ck_assert_msg(placed == 1u + (unsigned)past_exchange, "%s: %llu placements counted",
			      sub, placed);
		bnd_statefile_free(&f);
		free(text);
	}

	/* the next transaction takes over the lock and repairs */
	ck_assert_msg(bnd_state_gc(&env.opts, NULL, err, sizeof(err)) == BND_OK, "%s: %s", sub, err);
	int held_lock = strstr(env.log, "previous lock holder died inside a transaction") != NULL;
	ck_assert_msg(held_lock == !new_lock, "%s: log: %s", sub, env.log);
	if (past_exchange)
		ck_assert_msg(strstr(env.log, "reclaimed job 1 step 0"), "%s: log: %s", sub, env.log);
	ck_assert_int_eq(st_count_prefix(env.dir, "lock.init."), 0);
	struct bnd_state_file f;
	ck_assert_int_eq(bnd_state_list(&env.opts, &f, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(f.nrec, new_lock ? 0 : 1);
	if (!new_lock) {
		ck_assert_uint_eq(f.rec[0].job, 1000);
		ck_assert_int_eq(f.rec[0].owner_pid, getpid());
		ck_assert(bnd_cpuset_equal(&f.rec[0].cpus, &kept));
	}
	bnd_statefile_free(&f);
	ck_assert_int_eq(st_count_prefix(env.dir, "state.corrupt."), corrupt ? 1 : 0);

	/* and the dir works as before: a cycle leaves no temp file */
	struct bnd_alloc_args a = { .job = 2, .step = 0, .ntasks = 1, .uid = 1000 };
	struct bnd_placement p;
	ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err,
					 sizeof(err)) == BND_OK, "%s: %s", sub, err);
	ck_assert(!bnd_cpuset_intersects(&p.all_cpus, &kept));
	bnd_placement_free(&p);
	ck_assert_int_eq(bnd_state_release(&env.opts, 2, 0, NULL, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(st_count_prefix(env.dir, BND_STATE_TEMP_NAME), 0);
	if (!new_lock)
		ck_assert_int_eq(bnd_state_release(&env.opts, 1000, 0, NULL, err, sizeof(err)),
				 BND_OK);
	st_rmdir_files(env.dir);
}

/* Every fault point the library has, reached in every run, with SIGKILL
 * and with _exit: the state survives a death at each exact point. */
START_TEST(killed_at_every_fault_point)
{
	struct bnd_topology *t = tu_topo("pack:4 core:16");
	int cases = 0;
	for (int i = 0; bnd_fault_points[i]; i++)
		for (int how = 0; how < NHOW; how++, cases++)
			crash_at(t, bnd_fault_points[i], how);
	printf("# fault points: %d cases, each died at its point and was repaired\n", cases);
	ck_assert_int_ge(cases, 2 * 7);
	bnd_topology_free(t);
}
END_TEST

/* The point name table and the environment variable only exist in test
 * builds; an unknown name in BINDING_FAULT is ignored, a pass count waits. */
START_TEST(fault_variable_is_exact)
{
	struct bnd_topology *t = tu_topo("pack:1 core:4");
	char err[BND_ERRLEN] = "";
	const char *harmless[] = { "txn", "txn.locked2", "nosuch:kill", "txn.committed@2" };
	for (size_t k = 0; k < sizeof(harmless) / sizeof(*harmless); k++) {
		pid_t c = fork();
		ck_assert_int_ge(c, 0);
		if (c == 0) {
			setenv(BND_FAULT_ENV, harmless[k], 1);
			struct bnd_alloc_args a = { .job = 5, .step = (uint32_t)k, .ntasks = 1 };
			struct bnd_placement p;
			if (bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err, sizeof(err)))
				_exit(3);
			bnd_placement_free(&p);
			_exit(0);
		}
		char who[64];
		snprintf(who, sizeof(who), "BINDING_FAULT=%s", harmless[k]);
		wait_ok(c, who);
	}
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
	tcase_add_test(tc, killed_at_every_fault_point);
	tcase_add_test(tc, fault_variable_is_exact);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
