/* cpu lists in and out (the Cpus_allowed_list and SLURM_BINDING forms). */
#include <check.h>
#include <string.h>

#include "binding/util/cpuset.h"
#include "binding/util/error.h"
#include "testutil.h"

static const char *roundtrip(const char *in)
{
	static char out[256];
	char err[BND_ERRLEN] = "";
	bnd_cpuset_t s;
	ck_assert_msg(bnd_cpuset_parse_list(&s, in, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(bnd_cpuset_format_list(&s, out, sizeof(out)), BND_OK);
	return out;
}

START_TEST(lists)
{
	ck_assert_str_eq(roundtrip("0-3,8,10-11"), "0-3,8,10-11");
	ck_assert_str_eq(roundtrip("3,2,1,0"), "0-3");
	ck_assert_str_eq(roundtrip("5-5"), "5");
	ck_assert_str_eq(roundtrip(""), "");
	ck_assert_str_eq(roundtrip("0-3\n"), "0-3");
	ck_assert_str_eq(roundtrip("4095"), "4095");
	ck_assert_str_eq(roundtrip("63-65,127,128"), "63-65,127-128");
}
END_TEST

/* hwloc's cpuset string (SGE_BINDING_CPUSET, slurmd's log line). */
START_TEST(hwloc_form)
{
	const char *in[] = { "", "0-1", "31", "32", "0,33", "64-65", "0,100" };
	const char *want[] = { "0x0", "0x00000003", "0x80000000", "0x00000001,0x0",
			       "0x00000002,0x00000001", "0x00000003,,0x0",
			       "0x00000010,,,0x00000001" };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		bnd_cpuset_t s;
		char buf[64];
		ck_assert_int_eq(bnd_cpuset_parse_list(&s, in[i], NULL, 0), BND_OK);
		ck_assert_int_eq(bnd_cpuset_format_hwloc(&s, buf, sizeof(buf)), BND_OK);
		ck_assert_str_eq(buf, want[i]);
	}
	bnd_cpuset_t big;
	char small[12];
	ck_assert_int_eq(bnd_cpuset_parse_list(&big, "40", NULL, 0), BND_OK);
	ck_assert_int_eq(bnd_cpuset_format_hwloc(&big, small, sizeof(small)), BND_EINVAL);
}
END_TEST

START_TEST(bad_lists)
{
	static const char *const bad[] = { "1-", "-1", "a", "1,,2", "1,", "3-1", "4096", "1 2",
					   "99999999999999999999", "0x1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char err[BND_ERRLEN] = "";
		bnd_cpuset_t s;
		ck_assert_msg(bnd_cpuset_parse_list(&s, bad[i], err, sizeof(err)) == BND_EINVAL, "%s", bad[i]);
		ck_assert_msg(strstr(err, "cpu list"), "%s: %s", bad[i], err);
	}
}
END_TEST

START_TEST(set_operations)
{
	bnd_cpuset_t a, b;
	char err[BND_ERRLEN], buf[64];
	bnd_cpuset_parse_list(&a, "0-7", err, sizeof(err));
	bnd_cpuset_parse_list(&b, "4-5,100", err, sizeof(err));
	ck_assert(bnd_cpuset_intersects(&a, &b));
	ck_assert(!bnd_cpuset_subset(&b, &a));
	ck_assert_int_eq(bnd_cpuset_count(&a), 8);
	bnd_cpuset_andnot(&a, &b);
	bnd_cpuset_format_list(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-3,6-7");
	bnd_cpuset_and(&b, &a);
	ck_assert(bnd_cpuset_empty(&b));
	bnd_cpuset_set(&b, 100);
	bnd_cpuset_or(&a, &b);
	ck_assert_int_eq(bnd_cpuset_next(&a, 7), 100);
	ck_assert_int_eq(bnd_cpuset_next(&a, 100), -1);
	bnd_cpuset_format_spaced(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0 1 2 3 6 7 100");
	/* ids outside the set's range are ignored, never written */
	bnd_cpuset_set(&a, BND_MAX_CPUS);
	bnd_cpuset_set(&a, -1);
	ck_assert(!bnd_cpuset_isset(&a, BND_MAX_CPUS));
	ck_assert_int_eq(bnd_cpuset_count(&a), 7);
	/* a too small buffer is an error, not a truncated list */
	ck_assert_int_eq(bnd_cpuset_format_list(&a, buf, 4), BND_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpuset");
	TCase *tc = tcase_create("cpuset");
	tcase_add_test(tc, lists);
	tcase_add_test(tc, hwloc_form);
	tcase_add_test(tc, bad_lists);
	tcase_add_test(tc, set_operations);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
