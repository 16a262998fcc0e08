/* Decimal text by hand (the state file's numbers, cpu lists): the digits
 * printf gives, for the edges of every width. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "binding/util/decimal.h"
#include "testutil.h"

START_TEST(same_as_printf)
{
	const uint64_t v[] = { 0, 1, 9, 10, 99, 100, 4095, 4096, UINT32_MAX,
			       (uint64_t)UINT32_MAX + 1, 9999999999999999999u, UINT64_MAX };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char want[32], got[BND_DECIMAL_MAX + 1];
		snprintf(want, sizeof(want), "%" PRIu64, v[i]);
		size_t n = bnd_decimal_u64(got, v[i]);
		ck_assert_uint_le(n, BND_DECIMAL_MAX);
		got[n] = '\0';
		ck_assert_str_eq(got, want);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decimal");
	TCase *tc = tcase_create("decimal");
	tcase_add_test(tc, same_as_printf);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
