/* Whole text files by path: every byte read, the limit refused, not cut. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/textfile.h"
#include "testutil.h"

static void write_file(const char *path, size_t n)
{
	FILE *fp = fopen(path, "we");
	ck_assert_ptr_nonnull(fp);
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), fp);
	ck_assert_int_eq(fclose(fp), 0);
}

START_TEST(every_size)
{
	char path[] = "/tmp/bnd_textfile_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* Around the first buffer's size and its doublings. */
	const size_t sizes[] = { 0, 1, 4094, 4095, 4096, 8191, 8192, 100000 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		write_file(path, sizes[k]);
		char *text = NULL, err[BND_ERRLEN] = "";
		size_t len = 1;
		ck_assert_int_eq(bnd_textfile_read(path, 1 << 20, &text, &len, err, sizeof(err)),
				 BND_OK);
		ck_assert_uint_eq(len, sizes[k]);
		ck_assert_uint_eq(strlen(text), sizes[k]);
		for (size_t i = 0; i < len; i++)
			ck_assert_int_eq(text[i], 'a' + (int)(i % 26));
		free(text);
	}
	unlink(path);
}
END_TEST

START_TEST(too_long_or_missing)
{
	char path[] = "/tmp/bnd_textfile_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(path, 10000);
	char *text = NULL, err[BND_ERRLEN] = "";
	size_t len = 0;
	ck_assert_int_eq(bnd_textfile_read(path, 9999, &text, &len, err, sizeof(err)), BND_EINVAL);
	ck_assert_ptr_null(text);
	ck_assert_ptr_nonnull(strstr(err, "longer than 9999 bytes"));
	ck_assert_int_eq(bnd_textfile_read(path, 10000, &text, &len, err, sizeof(err)), BND_OK);
	free(text);
	unlink(path);
	ck_assert_int_eq(bnd_textfile_read(path, 10000, &text, &len, err, sizeof(err)), BND_ESYS);
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
}
END_TEST

/* Replaced whole, 0644, never through a link planted under its name; a
 * dir others may write refused unless it is sticky. */
START_TEST(replace_is_atomic_and_careful)
{
	char dir[] = "/tmp/bnd-textfile-XXXXXX", path[64], other[64], err[BND_ERRLEN];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/a.prom", dir);
	snprintf(other, sizeof(other), "%s/target", dir);
	ck_assert_int_eq(bnd_textfile_replace(path, "one\n", 4, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_textfile_replace(path, "two\n", 4, err, sizeof(err)), BND_OK);
	char *text;
	size_t len;
	ck_assert_int_eq(bnd_textfile_read(path, 100, &text, &len, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(text, "two\n");
	free(text);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	/* a symlink in its place is replaced, its target left alone */
	FILE *fp = fopen(other, "w");
	ck_assert_ptr_nonnull(fp);
	fclose(fp);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink(other, path), 0);
	ck_assert_int_eq(bnd_textfile_replace(path, "three\n", 6, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(stat(other, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert_int_eq(bnd_textfile_replace("/", "x", 1, err, sizeof(err)), BND_EINVAL);
	/* others may write: refused; sticky as well: fine */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(bnd_textfile_replace(path, "x", 1, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "writable by others than its owner (mode 777)"), "%s", err);
	ck_assert_int_eq(chmod(dir, 01777), 0);
	ck_assert_int_eq(bnd_textfile_replace(path, "x", 1, err, sizeof(err)), BND_OK);
	unlink(path);
	unlink(other);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("textfile");
	TCase *tc = tcase_create("textfile");
	tcase_add_test(tc, every_size);
	tcase_add_test(tc, too_long_or_missing);
	tcase_add_test(tc, replace_is_atomic_and_careful);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
