/* A record's history: events appended in order, the first and the last
 * ones kept, read back as written; anything else is not a history. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/state/history.h"
#include "binding/util/error.h"
#include "testutil.h"

static bnd_cpuset_t cpus(const char *list)
{
	bnd_cpuset_t s;
	ck_assert_int_eq(bnd_cpuset_parse_list(&s, list, NULL, 0), BND_OK);
	return s;
}

START_TEST(events_read_back)
{
	char *h = NULL;
	bnd_cpuset_t c = cpus("0-3");
	ck_assert_int_eq(bnd_hist_append(&h, BND_H_BOUND, 1000, &c, NULL), BND_OK);
	ck_assert_str_eq(h, "1/bound@1000=0-3");
	ck_assert_int_eq(bnd_hist_append(&h, BND_H_SUSPENDED, 2000, &c, "slurm-suspend"), BND_OK);
	ck_assert_int_eq(bnd_hist_append(&h, BND_H_DEFERRED, 3000, NULL, "held-by-job:12,13"),
			 BND_OK);
	bnd_cpuset_t d = cpus("4-7");
	ck_assert_int_eq(bnd_hist_append(&h, BND_H_REBOUND, 4000, &d, "a b/c@d"), BND_OK);
	ck_assert_str_eq(h, "4/bound@1000=0-3/suspended@2000=0-3:slurm-suspend/"
			 "deferred@3000:held-by-job:12,13/rebound@4000=4-7:a-b-c-d");
	ck_assert_int_eq(bnd_hist_check(h, strlen(h)), 0);
	ck_assert_uint_eq(bnd_hist_total(h), 4);
	struct bnd_hist_event ev;
	size_t pos = 0;
	const char *kinds[] = { "bound", "suspended", "deferred", "rebound" };
	const char *whys[] = { "", "slurm-suspend", "held-by-job:12,13", "a-b-c-d" };
	const char *lists[] = { "0-3", "0-3", "", "4-7" };
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(bnd_hist_next(h, &pos, &ev), 1);
		ck_assert_str_eq(bnd_hist_kind_name(ev.kind), kinds[i]);
		ck_assert_int_eq(ev.ms, 1000 * (i + 1));
		ck_assert_str_eq(ev.why, whys[i]);
		ck_assert_str_eq(ev.cpus, lists[i]);
	}
	ck_assert_int_eq(bnd_hist_next(h, &pos, &ev), 0);
	free(h);
}
END_TEST

/* A gang-scheduled step for hours: its first event and the last ones. */
START_TEST(first_and_last_events_kept)
{
	char *h = NULL;
	bnd_cpuset_t c = cpus("1");
	ck_assert_int_eq(bnd_hist_append(&h, BND_H_BOUND, 1, &c, NULL), BND_OK);
	for (int i = 2; i <= 100; i++)
		ck_assert_int_eq(bnd_hist_append(&h, i % 2 ? BND_H_REBOUND : BND_H_SUSPENDED, i, &c,
						 i % 2 ? NULL : "slurm-suspend"), BND_OK);
	ck_assert_uint_eq(bnd_hist_total(h), 100);
	ck_assert_int_eq(bnd_hist_check(h, strlen(h)), 0);
	struct bnd_hist_event ev;
	size_t pos = 0;
	int n = 0;
	long long first = -1, last = -1;
	while (bnd_hist_next(h, &pos, &ev)) {
		if (!n)
			first = ev.ms;
		last = ev.ms;
		n++;
	}
	ck_assert_int_eq(n, BND_HIST_KEEP);
	ck_assert_int_eq(first, 1);
	ck_assert_int_eq(last, 100);
	free(h);
}
END_TEST

/* A long cpu list is left out of its event, never cut. */
START_TEST(long_cpu_lists_are_left_out)
{
	char *h = NULL;
	bnd_cpuset_t c = cpus("0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42,44,46");
	ck_assert_int_eq(bnd_hist_append(&h, BND_H_BOUND, 5, &c, NULL), BND_OK);
	ck_assert_str_eq(h, "1/bound@5");
	free(h);
}
END_TEST

START_TEST(what_is_no_history)
{
	const char *bad[] = {
		"", "0/bound@1", "1/", "1/bound", "1/bound@", "1/bound@x", "1/bond@1", "1/bound@1/",
		"1/bound@1=", "1/bound@1:", "1/bound@1=a", "1/bound@1 x", "2/bound@1/bound@2/bound@3",
		"1/bound@1;x", "9/bound@1/bound@2/bound@3/bound@4/bound@5/bound@6/bound@7/bound@8/bound@9",
		"1/bound@99999999999999999999",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(bnd_hist_check(bad[i], strlen(bad[i])) == -1, "\"%s\" taken", bad[i]);
	const char *good = "3/unbound@1:no_topology";
	ck_assert_int_eq(bnd_hist_check(good, strlen(good)), 0);
	struct bnd_hist_event ev;
	size_t pos = 0;
	ck_assert_int_eq(bnd_hist_next(NULL, &pos, &ev), 0);
	ck_assert_int_eq(bnd_hist_next("garbage", &pos, &ev), 0);
	ck_assert_uint_eq(bnd_hist_total("garbage"), 0);
	ck_assert_int_eq(bnd_hist_append(&(char *){ NULL }, BND_H_COUNT, 1, NULL, NULL), BND_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("history");
	tcase_add_test(tc, events_read_back);
	tcase_add_test(tc, first_and_last_events_kept);
	tcase_add_test(tc, long_cpu_lists_are_left_out);
	tcase_add_test(tc, what_is_no_history);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
