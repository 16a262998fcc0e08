/* The rankfile on disk: written whole in the state dir, a link planted
 * under its name replaced and never followed, removed at the end; sbind
 * gc's sweep of the rankfiles of gone steps. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/request/request.h"
#include "binding/state/state.h"
#include "binding/task/rankfile.h"
#include "binding/util/error.h"
#include "testutil.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_rankfile.XXXXXX");
	ck_assert(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

START_TEST(written_replaced_and_removed)
{
	char err[BND_ERRLEN], note[BND_ERRLEN], path[256], want[160], victim[160], link[160];
	snprintf(want, sizeof(want), "%s/rankfile.7.0.2", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/rankfile.7.0.2", dir);
	FILE *f = fopen(victim, "w");
	ck_assert(f);
	fputs("untouched\n", f);
	fclose(f);
	ck_assert_int_eq(symlink(victim, link), 0);

	ck_assert_msg(bnd_rankfile_write(dir, 7, "0", 2, 0, "rank 0=n1 slot=0:0\n", path,
					 sizeof(path), note, sizeof(note), err, sizeof(err)) == BND_OK,
		      "%s", err);
	ck_assert_msg(strstr(note, "was already there (a symlink"), "%s", note);
	ck_assert_str_eq(path, want);
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	ck_assert_str_eq(slurp(path), "rank 0=n1 slot=0:0\n");
	ck_assert_str_eq(slurp(victim), "untouched\n");

	bnd_rankfile_remove(path);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

START_TEST(missing_dir_leaves_no_path)
{
	char err[BND_ERRLEN], path[256] = "x", gone[96];
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	ck_assert_int_ne(bnd_rankfile_write(gone, 7, "0", 0, 0, "x\n", path, sizeof(path), NULL, 0,
					    err, sizeof(err)), BND_OK);
	ck_assert_str_eq(path, "");
	ck_assert_msg(strstr(err, gone), "%s", err);
}
END_TEST

static char gclog[4096];

static void log_cb(void *ctx, const char *msg)
{
	(void)ctx;
	size_t n = strlen(gclog);
	snprintf(gclog + n, sizeof(gclog) - n, "%s\n", msg);
}

/* A record of (job, step) held by this process. */
static void record(const struct bnd_state_opts *o, const struct bnd_topology *t, uint32_t job,
		   uint32_t step)
{
	char err[BND_ERRLEN];
	struct bnd_request r;
	struct bnd_placement p;
	struct bnd_alloc_args a = { .job = job, .step = step, .ntasks = 1 };
	ck_assert_int_eq(bnd_request_parse(&r, "linear:1", err, sizeof(err)), BND_OK);
	ck_assert_msg(bnd_state_allocate(o, t, &r, &a, &p, err, sizeof(err)) == BND_OK, "%s", err);
	bnd_placement_free(&p);
}

/* Makes dir/name with the mtime of `ref` shifted by delta seconds. */
static void plant(const char *name, const char *ref, long delta)
{
	char path[160];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(stat(ref, &st), 0);
	struct timespec ts[2] = { st.st_mtim, st.st_mtim };
	ts[0].tv_sec += delta;
	ts[1].tv_sec += delta;
	ck_assert_int_eq(futimens(fd, ts), 0);
	close(fd);
}

static int there(const char *name)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static int gc(const struct bnd_state_opts *o)
{
	char err[BND_ERRLEN] = "";
	int n = -1;
	ck_assert_msg(bnd_rankfile_gc(o, &n, err, sizeof(err)) == BND_OK, "%s", err);
	return n;
}

START_TEST(gc_removes_the_rankfiles_of_gone_steps)
{
	struct bnd_state_opts o = { .dir = dir, .log = log_cb };
	char statefile[96], name[96];
	snprintf(statefile, sizeof(statefile), "%s/state", dir);
	/* no state yet: nothing to go by, nothing removed */
	ck_assert_int_eq(gc(&o), 0);
	struct bnd_topology *t = tu_topo("pack:1 core:4");
	record(&o, t, 7, 0);
	record(&o, t, 9, BND_STEP_BATCH);
	pid_t dead = fork();
	ck_assert_int_ge(dead, 0);
	if (!dead)
		_exit(0);
	ck_assert_int_eq(waitpid(dead, NULL, 0), dead);

	/* written before the state's last change */
	plant("rankfile.7.0.0", statefile, -3600);          /* its step runs */
	plant("rankfile.9.batch.0", statefile, -3600);      /* its step runs */
	plant("rankfile.8.0.0", statefile, -3600);          /* gone */
	plant("rankfile.8.batch.1", statefile, -3600);      /* gone */
	snprintf(name, sizeof(name), "rankfile.8.0.2.new.%d", (int)dead);
	plant(name, statefile, -3600);                      /* its writer died */
	char live[96];
	snprintf(live, sizeof(live), "rankfile.8.0.3.new.%d", (int)getpid());
	plant(live, statefile, -3600);                      /* being written */
	plant("rankfile.x.0.0", statefile, -3600);          /* not one of ours */
	plant("rankfile.8.0", statefile, -3600);
	plant("elsewhere", statefile, -3600);
	/* written since that version: maybe a record gc's read missed */
	plant("rankfile.10.0.0", statefile, 0);
	plant("rankfile.11.0.0", statefile, 5);

	ck_assert_int_eq(gc(&o), 3);
	ck_assert(!there("rankfile.8.0.0") && !there("rankfile.8.batch.1") && !there(name));
	ck_assert(there("rankfile.7.0.0") && there("rankfile.9.batch.0") && there(live));
	ck_assert(there("rankfile.x.0.0") && there("rankfile.8.0") && there("elsewhere"));
	ck_assert(there("rankfile.10.0.0") && there("rankfile.11.0.0"));
	char want[256];
	snprintf(want, sizeof(want), "removed %s/rankfile.8.0.0: its step has no record\n", dir);
	ck_assert_msg(strstr(gclog, want), "%s", gclog);
	snprintf(want, sizeof(want), "removed %s/%s: its writer is gone\n", dir, name);
	ck_assert_msg(strstr(gclog, want), "%s", gclog);

	/* job 7 ends; that change of the state (dated 10 s on: a jiffy may
	 * hold both versions) makes every older rankfile without a record go */
	char err[BND_ERRLEN];
	struct stat st;
	ck_assert_int_eq(stat(statefile, &st), 0);
	struct timespec was = st.st_mtim;
	ck_assert_int_eq(bnd_state_release(&o, 7, 0, NULL, err, sizeof(err)), BND_OK);
	struct timespec ts[2] = { was, was };
	ts[0].tv_sec += 10;
	ts[1].tv_sec += 10;
	ck_assert_int_eq(utimensat(AT_FDCWD, statefile, ts, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert_int_eq(gc(&o), 3);
	ck_assert(!there("rankfile.7.0.0") && !there("rankfile.10.0.0") && !there("rankfile.11.0.0"));
	ck_assert(there("rankfile.9.batch.0") && there(live));
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rankfile");
	TCase *tc = tcase_create("rankfile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, written_replaced_and_removed);
	tcase_add_test(tc, missing_dir_leaves_no_path);
	tcase_add_test(tc, gc_removes_the_rankfiles_of_gone_steps);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
