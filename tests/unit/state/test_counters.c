/* The counters' one table: every counter has one key, found again by it;
 * the lock wait histogram's buckets; sums saturate. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "binding/state/counters.h"
#include "testutil.h"

START_TEST(every_counter_has_one_key)
{
	for (int c = 0; c < BND_CNT_COUNT; c++) {
		char key[48];
		bnd_counter_key((enum bnd_counter)c, key, sizeof(key));
		ck_assert_msg(key[0] && strlen(key) < sizeof(key) - 1, "counter %d has no key", c);
		for (const char *p = key; *p; p++)
			ck_assert_msg((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' ||
				      *p == '.', "%s: a character the state file's count line "
				      "cannot hold", key);
		ck_assert_int_eq(bnd_counter_by_key(key, strlen(key)), c);
	}
	char key[48];
	ck_assert_str_eq(bnd_counter_key(BND_CNT_PLACEMENT + BND_S_LINEAR, key, sizeof(key)),
			 "placements.linear");
	ck_assert_str_eq(bnd_counter_key(BND_CNT_PLACEMENT + BND_S_NONE, key, sizeof(key)),
			 "placements.nlocal");
	ck_assert_str_eq(bnd_counter_key(BND_CNT_REFUSAL + BND_R_LOCK_TIMEOUT, key, sizeof(key)),
			 "refusals.lock_timeout");
	ck_assert_str_eq(bnd_counter_key(BND_CNT_FALLBACK + BND_FB_DEFERRED, key, sizeof(key)),
			 "fallbacks.deferred");
	ck_assert_str_eq(bnd_counter_key(BND_CNT_LOCKWAIT_BUCKET, key, sizeof(key)),
			 "lock_wait.10us");
	ck_assert_str_eq(bnd_counter_key(BND_CNT_COUNT, key, sizeof(key)), "");
	ck_assert_int_eq(bnd_counter_by_key("placements.linea", 16), -1);
	ck_assert_int_eq(bnd_counter_by_key("placements.linearx", 18), -1);
	ck_assert_str_eq(bnd_refusal_name(BND_R_COUNT), "unknown");
	ck_assert_str_eq(bnd_fallback_name(BND_FB_MEMORY_PREFERRED), "memory_preferred");
}
END_TEST

START_TEST(lock_wait_buckets)
{
	struct bnd_counts c = { { 0 } };
	/* each bound is inside its bucket, a nanosecond more is in the next */
	for (int b = 0; b < BND_LOCKWAIT_BUCKETS; b++) {
		bnd_counts_lockwait(&c, bnd_lockwait_bounds_us[b] * 1000);
		ck_assert_uint_eq(c.v[BND_CNT_LOCKWAIT_BUCKET + b], 1);
	}
	for (int b = 0; b < BND_LOCKWAIT_BUCKETS; b++)
		bnd_counts_lockwait(&c, bnd_lockwait_bounds_us[b] * 1000 + 1);
	ck_assert_uint_eq(c.v[BND_CNT_LOCKWAIT_BUCKET], 1);
	for (int b = 1; b < BND_LOCKWAIT_BUCKETS; b++)
		ck_assert_uint_eq(c.v[BND_CNT_LOCKWAIT_BUCKET + b], 2);
	/* past the last bound: only in the total */
	ck_assert_uint_eq(c.v[BND_CNT_LOCKWAIT_COUNT], 2 * BND_LOCKWAIT_BUCKETS);
	uint64_t sum = 0;
	for (int b = 0; b < BND_LOCKWAIT_BUCKETS; b++)
		sum += 2 * bnd_lockwait_bounds_us[b] * 1000 + 1;
	ck_assert_uint_eq(c.v[BND_CNT_LOCKWAIT_SUM_NS], sum);
	bnd_counts_lockwait(&c, 0);
	ck_assert_uint_eq(c.v[BND_CNT_LOCKWAIT_BUCKET], 2);
}
END_TEST

START_TEST(sums_saturate)
{
	struct bnd_counts a = { { 0 } }, b = { { 0 } };
	ck_assert(bnd_counts_empty(&a));
	a.v[BND_CNT_RANKFILE] = UINT64_MAX - 1;
	b.v[BND_CNT_RANKFILE] = 5;
	b.v[BND_CNT_CROSS_NUMA] = 3;
	bnd_counts_add(&a, &b);
	ck_assert_uint_eq(a.v[BND_CNT_RANKFILE], UINT64_MAX);
	ck_assert_uint_eq(a.v[BND_CNT_CROSS_NUMA], 3);
	bnd_counts_inc(&a, BND_CNT_RANKFILE);
	ck_assert_uint_eq(a.v[BND_CNT_RANKFILE], UINT64_MAX);
	bnd_counts_inc(&a, BND_CNT_COUNT); /* no such counter: nothing */
	ck_assert(!bnd_counts_empty(&a));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("counters");
	tcase_add_test(tc, every_counter_has_one_key);
	tcase_add_test(tc, lock_wait_buckets);
	tcase_add_test(tc, sums_saturate);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
