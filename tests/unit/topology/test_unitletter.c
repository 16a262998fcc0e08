/* The unit-letter table: every letter maps to its unit type and back, the
 * packed unit= names are exactly the documented 17, and the message list
 * is generated from the same rule. */
#include <stdio.h>
#include <string.h>

#include "binding/topology/topology.h"
#include "binding/topology/unitletter.h"
#include "testutil.h"

START_TEST(letters_round_trip)
{
	for (const char *l = BND_UNIT_LETTERS; *l; l++) {
		int type, kind;
		ck_assert(bnd_is_unit_letter(*l));
		ck_assert(bnd_is_unit_letter((char)(*l | 0x20)));
		ck_assert(bnd_unit_letter_type(*l, &type, &kind));
		ck_assert_int_eq(bnd_unit_type_letter(type, kind == BND_KIND_ANY ? 0 : kind), *l);
	}
	int type, kind;
	ck_assert(bnd_unit_letter_type('e', &type, &kind));
	ck_assert_int_eq(type, BND_U_CORE);
	ck_assert_int_eq(kind, BND_KIND_EFFICIENCY);
	ck_assert_int_eq(bnd_unit_type_letter(BND_U_CORE, BND_KIND_POWER), 'C');
	ck_assert_int_eq(bnd_unit_type_letter(BND_U_MACHINE, 0), 0);
	for (const char *bad = "ABDQZ0 -"; *bad; bad++)
		ck_assert(!bnd_is_unit_letter(*bad));
	ck_assert(!bnd_is_unit_letter('\0'));
	/* Grid Engine's form has S C T; the rest are OCS only. */
	for (const char *l = "NXYEnxye"; *l; l++)
		ck_assert(bnd_unit_letter_ocs_only(*l));
	for (const char *l = "SCTsct"; *l; l++)
		ck_assert(!bnd_unit_letter_ocs_only(*l));
}
END_TEST

START_TEST(packed_unit_names)
{
	static const char *const documented[] = {
		"T", "CT", "ET", "C", "E", "S", "CS", "ES", "X", "CX", "EX", "Y", "CY", "EY",
		"N", "CN", "EN",
	};
	int valid = 0;
	char cand[3];
	/* every one- and two-letter upper-case string: exactly the 17 */
	for (char a = 'A'; a <= 'Z'; a++) {
		cand[0] = a;
		cand[1] = '\0';
		valid += bnd_packed_unit_name(cand);
		for (char b = 'A'; b <= 'Z'; b++) {
			cand[1] = b;
			cand[2] = '\0';
			valid += bnd_packed_unit_name(cand);
		}
	}
	ck_assert_int_eq(valid, 17);
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
		ck_assert_msg(bnd_packed_unit_name(documented[i]), "%s", documented[i]);
	for (const char *const *b = (const char *const[]){ "", "c", "CC", "EC", "TT", "CTT", NULL }; *b; b++)
		ck_assert_msg(!bnd_packed_unit_name(*b), "%s", *b);
	ck_assert(!bnd_packed_unit_name(NULL));

	char names[64];
	bnd_packed_unit_names(' ', names, sizeof(names));
	ck_assert_str_eq(names, "T CT ET C E S CS ES X CX EX Y CY EY N CN EN");
	bnd_packed_unit_names('|', names, sizeof(names));
	ck_assert_str_eq(names, "T|CT|ET|C|E|S|CS|ES|X|CX|EX|Y|CY|EY|N|CN|EN");
	/* a short buffer is truncated, never overrun */
	char small[6];
	memset(small, 'x', sizeof(small));
	bnd_packed_unit_names(' ', small, sizeof(small));
	ck_assert_uint_lt(strlen(small), sizeof(small));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unitletter");
	TCase *tc = tcase_create("unitletter");
	tcase_add_test(tc, letters_round_trip);
	tcase_add_test(tc, packed_unit_names);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
