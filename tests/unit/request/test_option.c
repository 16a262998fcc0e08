/* The options as srun, sbatch and salloc check them when they are typed. */
#include <check.h>
#include <string.h>

#include "binding/request/option.h"
#include "binding/util/error.h"
#include "testutil.h"

START_TEST(options_checked_where_typed)
{
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_option_check(BND_OPT_BINDING, "linear:1", err, sizeof(err)), BND_OK);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(bnd_option_check(BND_OPT_BINDING, "linear:0", err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "linear:0"), "%s", err);
	ck_assert_int_eq(bnd_option_check(BND_OPT_BINDING, "bogus", err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "bogus"), "%s", err);
	ck_assert_int_eq(bnd_option_check(BND_OPT_MBIND, "nowhere", err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "nowhere"), "%s", err);
	ck_assert_int_eq(bnd_option_check(BND_OPT_MBIND, "nlocal", err, sizeof(err)), BND_OK);
	ck_assert_msg(strstr(err, "not supported yet"), "%s", err);
	ck_assert_int_eq(bnd_option_check(BND_OPT_MBIND, "", err, sizeof(err)), BND_EINVAL);
	ck_assert(strstr(bnd_option_help(BND_OPT_BINDING), "linear:<amount>"));
	ck_assert(strstr(bnd_option_help(BND_OPT_MBIND), "round_robin"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("option");
	TCase *tc = tcase_create("option");
	tcase_add_test(tc, options_checked_where_typed);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
