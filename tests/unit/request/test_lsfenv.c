/* LSF's LSB_USER_BIND_JOB / LSB_USER_BIND_CPU_LIST values, as the LSF
 * documents list them, and the request each one becomes. */
#include <check.h>
#include <string.h>

#include "binding/request/lsfenv.h"
#include "binding/request/request.h"
#include "binding/util/error.h"
#include "testutil.h"

static void expect(const char *job, const char *list, int amount, const char *want)
{
	char buf[BND_MAX_REQUEST_TEXT], err[BND_ERRLEN] = "";
	int rc = bnd_lsf_user_request(job, list, amount, buf, sizeof(buf), err, sizeof(err));
	ck_assert_msg(rc == BND_OK, "%s/%s: %s", job ? job : "-", list ? list : "-", err);
	ck_assert_msg(!strcmp(buf, want), "%s/%s: \"%s\", want \"%s\"", job ? job : "-",
		      list ? list : "-", buf, want);
	ck_assert_int_eq(bnd_lsf_user_wanted(job, list), *want != '\0');
	if (*want) {
		/* every request made is one the parser takes */
		static struct bnd_request r;
		ck_assert_msg(bnd_request_parse(&r, buf, err, sizeof(err)) == BND_OK, "%s: %s", buf,
			      err);
	}
}

/* The LSF document: LSB_USER_BIND_JOB is Y, N, NONE, BALANCE, PACK or
 * ANY, "any other value" is ANY; USER and USER_CPU_LIST are the admin's
 * BIND_JOB values, so a user's USER is ANY too. */
START_TEST(documented_values)
{
	expect("BALANCE", NULL, 1, "balance:1");
	expect("PACK", NULL, 2, "pack:2");
	expect("ANY", NULL, 1, "any:1");
	expect("Y", NULL, 1, "balance:1");
	expect("N", NULL, 1, "");
	expect("NONE", NULL, 1, "");
	/* anything else is ANY: the admin's words included */
	expect("FOO", NULL, 3, "any:3");
	expect("USER", NULL, 2, "any:2");
	expect("USER_CPU_LIST", NULL, 1, "any:1");
	expect("pack", NULL, 1, "pack:1");
	/* neither */
	expect(NULL, NULL, 1, "");
	expect("", "", 1, "");
	/* an amount below 1 counts as 1 */
	expect("BALANCE", NULL, 0, "balance:1");
}
END_TEST

/* A list is read as under the admin's BIND_JOB=USER_CPU_LIST, where LSF
 * reads the list and not LSB_USER_BIND_JOB: alone, or whatever
 * LSB_USER_BIND_JOB says. */
START_TEST(a_list_wins)
{
	expect(NULL, "2-3", 1, "cpus:2-3");
	expect("", "2-3", 1, "cpus:2-3");
	expect("USER_CPU_LIST", "0,5,7,9-11", 1, "cpus:0,5,7,9-11");
	expect("USER", "0,5,7,9-11", 1, "cpus:0,5,7,9-11");
	expect("PACK", "1", 2, "cpus:1");
	expect("NONE", "0-3", 1, "cpus:0-3");
}
END_TEST

START_TEST(a_list_too_long)
{
	char err[BND_ERRLEN] = "", small[8];
	ck_assert_int_eq(bnd_lsf_user_request(NULL, "0,1,2,3,4,5", 1, small, sizeof(small), err,
					      sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(small, "");
	ck_assert_ptr_nonnull(strstr(err, "LSB_USER_BIND_CPU_LIST is longer"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lsfenv");
	TCase *tc = tcase_create("lsfenv");
	tcase_add_test(tc, documented_values);
	tcase_add_test(tc, a_list_wins);
	tcase_add_test(tc, a_list_too_long);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
