/* The state dir's walk from / (bnd_safedir_open): created component by
 * component with *at calls, refusing a component a user could change or a
 * symlink a user planted, and creating nothing below it; and the dir
 * listing's own descriptor. Ownership cases need root (skipped otherwise,
 * with the reason). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/safefile.h"
#include "testutil.h"

static char base[64];

/* base/rel; two buffers in turn, for calls that take two paths */
static const char *at(const char *rel)
{
	static char path[2][256];
	static int turn;
	turn = !turn;
	snprintf(path[turn], sizeof(path[turn]), "%s/%s", base, rel);
	return path[turn];
}

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/test_safefile.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert_int_eq(chmod(base, 0755), 0);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

static int is_root(const char *what)
{
	if (geteuid() == 0)
		return 1;
	printf("# SKIP %s: needs root (ownership)\n", what);
	return 0;
}

/* Opens rel under base; returns the rc, err gets the message. */
static int open_dir(const char *rel, int create, int *fd, char *err)
{
	err[0] = '\0';
	return bnd_safedir_open(at(rel), create, fd, err, BND_ERRLEN);
}

static void assert_absent(const char *rel)
{
	struct stat st;
	ck_assert_msg(lstat(at(rel), &st) && errno == ENOENT, "%s exists", at(rel));
}

START_TEST(creates_each_missing_component_0755_root_owned)
{
	char err[BND_ERRLEN];
	int fd;
	umask(077);
	if (geteuid() == 0) {
		/* a setgid parent hands its group down: the walk sets root's */
		ck_assert_int_eq(chown(base, 0, 65534), 0);
		ck_assert_int_eq(chmod(base, 02755), 0);
	}
	ck_assert_msg(open_dir("a/b/c", 1, &fd, err) == BND_OK, "%s", err);
	ck_assert_int_ge(fd, 0);
	struct stat st, got;
	ck_assert_int_eq(fstat(fd, &got), 0);
	close(fd);
	ck_assert_int_eq(stat(at("a/b/c"), &st), 0);
	ck_assert(st.st_ino == got.st_ino && st.st_dev == got.st_dev);
	const char *each[] = { "a", "a/b", "a/b/c" };
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(lstat(at(each[i]), &st), 0);
		ck_assert_msg((st.st_mode & 0777) == 0755, "%s mode %o", each[i], st.st_mode & 07777);
		if (geteuid() == 0)
			ck_assert_msg(st.st_uid == 0 && st.st_gid == 0, "%s owned %d:%d", each[i],
				      (int)st.st_uid, (int)st.st_gid);
	}
	/* there now: opened again, nothing changed */
	ck_assert_int_eq(open_dir("a/b/c", 0, &fd, err), BND_OK);
	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

START_TEST(missing_without_create_is_no_dir)
{
	char err[BND_ERRLEN];
	int fd = 7;
	ck_assert_int_eq(open_dir("x/y", 0, &fd, err), BND_OK);
	ck_assert_int_eq(fd, -1);
	assert_absent("x");
}
END_TEST

START_TEST(a_user_owned_component_is_refused_and_nothing_made_below)
{
	if (!is_root("user-owned component"))
		return;
	char err[BND_ERRLEN], want[BND_ERRLEN];
	int fd = 7;
	ck_assert_int_eq(mkdir(at("user"), 0755), 0);
	ck_assert_int_eq(chown(at("user"), 65534, 65534), 0);
	ck_assert_int_eq(open_dir("user/state", 1, &fd, err), BND_ESTATE);
	ck_assert_int_eq(fd, -1);
	snprintf(want, sizeof(want), "state dir %s/user/state refused: component %s/user: not owned by root",
		 base, base);
	ck_assert_str_eq(err, want);
	assert_absent("user/state");
	/* the attack of make_dirs by path: the user's dir holds a link to
	 * root's dir, through which the old mkdir+chown went */
	ck_assert_int_eq(mkdir(at("victim"), 0755), 0);
	ck_assert_int_eq(symlink(at("victim"), at("user/sub")), 0);
	ck_assert_int_eq(lchown(at("user/sub"), 65534, 65534), 0);
	ck_assert_int_eq(open_dir("user/sub/state", 1, &fd, err), BND_ESTATE);
	ck_assert_ptr_nonnull(strstr(err, "not owned by root"));
	assert_absent("victim/state");
}
END_TEST

START_TEST(a_planted_symlink_in_a_sticky_dir_is_refused)
{
	if (!is_root("planted symlink"))
		return;
	char err[BND_ERRLEN], want[BND_ERRLEN];
	int fd = 7;
	ck_assert_int_eq(mkdir(at("sticky"), 0755), 0);
	ck_assert_int_eq(chmod(at("sticky"), 01777), 0);
	ck_assert_int_eq(mkdir(at("victim"), 0755), 0);
	/* what a user can do in /tmp: a link of theirs where root's dir goes */
	ck_assert_int_eq(symlink(at("victim"), at("sticky/link")), 0);
	ck_assert_int_eq(lchown(at("sticky/link"), 65534, 65534), 0);
	ck_assert_int_eq(open_dir("sticky/link/state", 1, &fd, err), BND_ESTATE);
	ck_assert_int_eq(fd, -1);
	snprintf(want, sizeof(want),
		 "state dir %s/sticky/link/state refused: component %s/sticky/link: a symlink not owned by root",
		 base, base);
	ck_assert_str_eq(err, want);
	assert_absent("victim/state");
	/* and their dir there */
	ck_assert_int_eq(mkdir(at("sticky/mine"), 0755), 0);
	ck_assert_int_eq(chown(at("sticky/mine"), 65534, 65534), 0);
	ck_assert_int_eq(open_dir("sticky/mine/state", 1, &fd, err), BND_ESTATE);
	ck_assert_ptr_nonnull(strstr(err, "component"));
	assert_absent("sticky/mine/state");
	/* root's own dir in the sticky dir is a way through */
	ck_assert_int_eq(mkdir(at("sticky/roots"), 0755), 0);
	ck_assert_msg(open_dir("sticky/roots/state", 1, &fd, err) == BND_OK, "%s", err);
	close(fd);
}
END_TEST

START_TEST(a_group_writable_component_is_refused)
{
	char err[BND_ERRLEN];
	int fd = 7;
	ck_assert_int_eq(mkdir(at("grp"), 0755), 0);
	ck_assert_int_eq(chmod(at("grp"), 0775), 0);
	ck_assert_int_eq(open_dir("grp/state", 1, &fd, err), BND_ESTATE);
	ck_assert_int_eq(fd, -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
	assert_absent("grp/state");
	/* world-writable without the sticky bit, even root's */
	ck_assert_int_eq(chmod(at("grp"), 0777), 0);
	ck_assert_int_eq(open_dir("grp/state", 1, &fd, err), BND_ESTATE);
	assert_absent("grp/state");
}
END_TEST

START_TEST(roots_symlinks_on_the_way_are_followed)
{
	char err[BND_ERRLEN];
	int fd;
	/* like /var/run -> /run: absolute and relative, even chained */
	ck_assert_int_eq(mkdir(at("real"), 0755), 0);
	ck_assert_int_eq(symlink(at("real"), at("abs")), 0);
	ck_assert_int_eq(symlink("real", at("rel")), 0);
	ck_assert_int_eq(symlink("./abs/", at("chain")), 0);
	const char *via[] = { "abs/s1", "rel/s2", "chain/s3", "./rel//./s4/" };
	const char *land[] = { "real/s1", "real/s2", "real/s3", "real/s4" };
	for (int i = 0; i < 4; i++) {
		ck_assert_msg(open_dir(via[i], 1, &fd, err) == BND_OK, "%s: %s", via[i], err);
		close(fd);
		struct stat st;
		ck_assert_msg(lstat(at(land[i]), &st) == 0 && S_ISDIR(st.st_mode), "%s", land[i]);
	}
	/* a loop ends */
	ck_assert_int_eq(symlink("loop2", at("loop1")), 0);
	ck_assert_int_eq(symlink("loop1", at("loop2")), 0);
	ck_assert_int_eq(open_dir("loop1/s", 1, &fd, err), BND_ESTATE);
	ck_assert_ptr_nonnull(strstr(err, "too many symlinks"));
}
END_TEST

START_TEST(the_state_dir_itself_may_not_be_a_symlink_or_a_file)
{
	char err[BND_ERRLEN], want[BND_ERRLEN];
	int fd = 7;
	ck_assert_int_eq(mkdir(at("real"), 0755), 0);
	ck_assert_int_eq(symlink(at("real"), at("st")), 0);
	ck_assert_int_eq(open_dir("st", 1, &fd, err), BND_ESTATE);
	snprintf(want, sizeof(want), "state dir %s/st is a symlink, refused", base);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(fd, -1);
	int f = open(at("file"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(f, 0);
	close(f);
	ck_assert_int_eq(open_dir("file/st", 1, &fd, err), BND_ESTATE);
	ck_assert_ptr_nonnull(strstr(err, "not a directory"));
	/* group-writable state dir: the rule of the files in it */
	ck_assert_int_eq(mkdir(at("gw"), 0755), 0);
	ck_assert_int_eq(chmod(at("gw"), 0775), 0);
	ck_assert_int_eq(open_dir("gw", 1, &fd, err), BND_ESTATE);
	snprintf(want, sizeof(want), "state dir %s/gw refused: writable by group or others", base);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(a_relative_dir_is_walked_from_the_root_too)
{
	char err[BND_ERRLEN];
	int fd;
	ck_assert_int_eq(chdir(base), 0);
	ck_assert_int_eq(bnd_safedir_open("rel/st", 1, &fd, err, sizeof(err)), BND_OK);
	close(fd);
	struct stat st;
	ck_assert_int_eq(lstat(at("rel/st"), &st), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(base, 65534, 0), 0);
		ck_assert_int_eq(bnd_safedir_open("rel/st", 0, &fd, err, sizeof(err)), BND_ESTATE);
		ck_assert_ptr_nonnull(strstr(err, "not owned by root"));
		ck_assert_int_eq(chown(base, 0, 0), 0);
	}
	ck_assert_int_eq(chdir("/"), 0);
}
END_TEST

/* The dir walked last is kept open for the next transactions: it must
 * still be what the path leads to, and still root's. */
START_TEST(the_dir_kept_open_follows_the_path)
{
	char err[BND_ERRLEN];
	int fd;
	struct stat a, b;
	ck_assert_int_eq(open_dir("k/st", 1, &fd, err), BND_OK);
	ck_assert_int_eq(fstat(fd, &a), 0);
	close(fd);
	/* the admin moves it away and makes another: the new one is used */
	ck_assert_int_eq(rename(at("k/st"), at("k/old")), 0);
	ck_assert_int_eq(mkdir(at("k/st"), 0755), 0);
	ck_assert_int_eq(open_dir("k/st", 0, &fd, err), BND_OK);
	ck_assert_int_eq(fstat(fd, &b), 0);
	close(fd);
	ck_assert(a.st_ino != b.st_ino);
	ck_assert_int_eq(stat(at("k/st"), &a), 0);
	ck_assert(a.st_ino == b.st_ino);
	/* removed: made again */
	ck_assert_int_eq(rmdir(at("k/st")), 0);
	ck_assert_int_eq(open_dir("k/st", 1, &fd, err), BND_OK);
	close(fd);
	ck_assert_int_eq(stat(at("k/st"), &a), 0);
	/* loosened: refused, whatever was kept */
	ck_assert_int_eq(chmod(at("k/st"), 0777), 0);
	ck_assert_int_eq(open_dir("k/st", 0, &fd, err), BND_ESTATE);
	ck_assert_int_eq(fd, -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
	ck_assert_int_eq(chmod(at("k/st"), 0755), 0);
	ck_assert_int_eq(open_dir("k/st", 0, &fd, err), BND_OK);
	close(fd);
	/* a component on the way loosened after the walk: the kept dir stays
	 * in use while the path leads to it (only root can change it so) */
	if (!is_root("component owner change"))
		return;
	ck_assert_int_eq(chown(at("k"), 65534, 0), 0);
	ck_assert_int_eq(open_dir("k/st", 0, &fd, err), BND_OK);
	close(fd);
	/* but another dir there is walked to, and refused */
	ck_assert_int_eq(rename(at("k/st"), at("k/old2")), 0);
	ck_assert_int_eq(mkdir(at("k/st"), 0755), 0);
	ck_assert_int_eq(open_dir("k/st", 0, &fd, err), BND_ESTATE);
	ck_assert_ptr_nonnull(strstr(err, "not owned by root"));
}
END_TEST

static int count_entries(DIR *d)
{
	int n = 0;
	const struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	return n;
}

START_TEST(listings_have_their_own_offset_and_close_on_exec)
{
	char err[BND_ERRLEN];
	int fd;
	ck_assert_int_eq(open_dir("l", 1, &fd, err), BND_OK);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%d", i);
		int f = openat(fd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		ck_assert_int_ge(f, 0);
		close(f);
	}
	DIR *a = bnd_safedir_list(fd);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(fcntl(dirfd(a), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(count_entries(a), 3);
	closedir(a);
	/* a dup() would share the first listing's offset, now at the end */
	DIR *b = bnd_safedir_list(fd);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(count_entries(b), 3);
	closedir(b);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("safefile");
	TCase *tc = tcase_create("safefile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, creates_each_missing_component_0755_root_owned);
	tcase_add_test(tc, missing_without_create_is_no_dir);
	tcase_add_test(tc, a_user_owned_component_is_refused_and_nothing_made_below);
	tcase_add_test(tc, a_planted_symlink_in_a_sticky_dir_is_refused);
	tcase_add_test(tc, a_group_writable_component_is_refused);
	tcase_add_test(tc, roots_symlinks_on_the_way_are_followed);
	tcase_add_test(tc, the_state_dir_itself_may_not_be_a_symlink_or_a_file);
	tcase_add_test(tc, a_relative_dir_is_walked_from_the_root_too);
	tcase_add_test(tc, the_dir_kept_open_follows_the_path);
	tcase_add_test(tc, listings_have_their_own_offset_and_close_on_exec);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
