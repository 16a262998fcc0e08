/* Whole text files by path: every byte read, the limit refused, not cut. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
	Suite *s = suite_create("textfile");
	TCase *tc = tcase_create("textfile");
	tcase_add_test(tc, every_size);
	tcase_add_test(tc, too_long_or_missing);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
