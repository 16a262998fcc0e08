/* The rankfile on disk: written whole in the state dir, a link planted
 * under its name replaced and never followed, removed at the end. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int main(void)
{
	Suite *s = suite_create("rankfile");
	TCase *tc = tcase_create("rankfile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, written_replaced_and_removed);
	tcase_add_test(tc, missing_dir_leaves_no_path);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
