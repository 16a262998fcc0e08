/* Slurm's cli_filter JSON (slurm.json_cli_options) read with jansson: the
 * plugin's two options, every allocation key the translation reads (a
 * number as well as a string), arrays and other members passed over;
 * anything that is not one object, or a bad value, refused and named. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "binding/submit/clijson.h"
#include "binding/util/error.h"
#include "testutil.h"

static struct bnd_cli_request req;
static struct bnd_alloc a;
static char err[BND_ERRLEN];

static int read_json(const char *json)
{
	err[0] = '\0';
	bnd_alloc_init(&a, BND_CMD_SRUN);
	return bnd_cli_json_read(json, &req, &a, err, sizeof(err));
}

/* As Slurm 22.05 writes it for srun -n4 -c2 --binding=linear:2 true */
START_TEST(slurms_json)
{
	ck_assert_int_eq(read_json("{\"ntasks\":\"4\",\"cpus-per-task\":\"2\","
				   "\"spank:binding\":\"linear:2\",\"argv\":[\"true\",\"a\\\"b\"],"
				   "\"wrap\":\"echo \\\"x\\\" \\/ \\u0041\"}"), BND_OK);
	ck_assert_str_eq(req.binding, "linear:2");
	ck_assert_str_eq(req.mbind, "");
	ck_assert_int_eq(a.ntasks, 4);
	ck_assert_int_eq(a.cpus_per_task, 2);
	ck_assert(bnd_cli_request_binds(&req));
}
END_TEST

START_TEST(numbers_flags_and_mbind)
{
	ck_assert_int_eq(read_json("{\"ntasks\":3,\"overcommit\":\"set\",\"spank:mbind\":\"nlocal\"}"),
			 BND_OK);
	ck_assert_int_eq(a.ntasks, 3);
	ck_assert_str_eq(req.binding, "");
	ck_assert_str_eq(req.mbind, "nlocal");
	ck_assert(bnd_cli_request_binds(&req));
	ck_assert_int_eq(read_json("{\"ntasks\":\"2\",\"spank:mbind\":\"cores\"}"), BND_OK);
	ck_assert(!bnd_cli_request_binds(&req));
	ck_assert_int_eq(read_json("{}"), BND_OK);
	ck_assert(!bnd_cli_request_binds(&req));
}
END_TEST

START_TEST(refused_and_named)
{
	ck_assert_int_eq(read_json("{\"spank:binding\":\"linear:2\","), BND_EINVAL);
	ck_assert_msg(strstr(err, "not a JSON object"), "%s", err);
	ck_assert_int_eq(read_json("[\"ntasks\"]"), BND_EINVAL);
	ck_assert_msg(strstr(err, "not a JSON object"), "%s", err);
	ck_assert_int_eq(read_json("{\"spank:binding\":2}"), BND_EINVAL);
	ck_assert_msg(strstr(err, "spank:binding"), "%s", err);
	ck_assert_int_eq(read_json("{\"cpus-per-task\":\"x\",\"spank:binding\":\"linear:2\"}"),
			 BND_EINVAL);
	ck_assert_msg(strstr(err, "cpus-per-task"), "%s", err);
	ck_assert_int_eq(read_json("{\"ntasks\":[1]}"), BND_EINVAL);
	ck_assert_msg(strstr(err, "--ntasks"), "%s", err);
	char big[BND_MAX_REQUEST_TEXT + 64];
	snprintf(big, sizeof(big), "{\"spank:binding\":\"%0*d\"}", BND_MAX_REQUEST_TEXT, 0);
	ck_assert_int_eq(read_json(big), BND_EINVAL);
	ck_assert_msg(strstr(err, "longer than"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clijson");
	TCase *tc = tcase_create("clijson");
	tcase_add_test(tc, slurms_json);
	tcase_add_test(tc, numbers_flags_and_mbind);
	tcase_add_test(tc, refused_and_named);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
