/* Slurm's per-node GRES detail (slurm_load_job's gres_detail_str) into a
 * numamem booking: the strings Slurm 22.05, 24.11 and 26.05 printed for
 * the jobs of docs/memory.md (the same form on all three), with GPUs
 * beside them, and what is refused. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "binding/step/gresdetail.h"
#include "binding/util/error.h"
#include "testutil.h"

static const char *booked(const char *detail)
{
	static char out[BND_ERRLEN + 16];
	struct bnd_booking b;
	char err[BND_ERRLEN] = "";
	if (bnd_gres_detail_booking(detail, BND_NUMAMEM_GRES, &b, err, sizeof(err)) != BND_OK) {
		ck_assert_int_eq(b.n, 0);
		snprintf(out, sizeof(out), "EINVAL: %s", err);
		return out;
	}
	bnd_booking_text(&b, out, sizeof(out));
	return out;
}

START_TEST(slurms_detail_strings)
{
	/* 400 MiB whole, and split by Slurm over two NUMA nodes */
	ck_assert_str_eq(booked("numamem:n0(CNT:419430400)"), "0:400");
	ck_assert_str_eq(booked("numamem:n0(CNT:52428800),numamem:n1(CNT:367001600)"),
			 "0:50,1:350");
	/* GPUs beside it, with commas inside their index lists */
	ck_assert_str_eq(booked("gpu:tesla:2(IDX:0,2),numamem:n3(CNT:419430400)"), "3:400");
	ck_assert_str_eq(booked("gpu:4(IDX:0-3)"), "");
	ck_assert_str_eq(booked(""), "");
	ck_assert_str_eq(booked(NULL), "");
	/* a count that is not whole MiB rounds up; a count after a colon */
	ck_assert_str_eq(booked("numamem:n2(CNT:1)"), "2:1");
	ck_assert_str_eq(booked("numamem:n1:1048576"), "1:1");
	/* another GRES whose name starts the same is not ours */
	ck_assert_str_eq(booked("numamemx:n1(CNT:1048576)"), "");
}
END_TEST

START_TEST(bad_entries_are_named)
{
	const char *s = booked("gpu:1(IDX:0),numamem(CNT:419430400)");
	ck_assert_msg(strstr(s, "EINVAL: GRES detail \"numamem(CNT:419430400)\": expected "
			     "numamem:n<NUMA node>(CNT:<bytes>)"), "%s", s);
	ck_assert_str_eq(booked("numamem:socket0(CNT:5)"),
			 "EINVAL: GRES detail \"numamem:socket0(CNT:5)\": expected numamem:n<NUMA "
			 "node>(CNT:<bytes>) (gres.conf: one type n<node> per NUMA node, sbind "
			 "gres-conf)");
	ck_assert_msg(!strncmp(booked("numamem:n0(CNT:x)"), "EINVAL", 6), "count");
	ck_assert_msg(!strncmp(booked("numamem:n0"), "EINVAL", 6), "no count");
	ck_assert_msg(!strncmp(booked("numamem:n(CNT:5)"), "EINVAL", 6), "no node");
	ck_assert_msg(!strncmp(booked("numamem:n0(CNT:5"), "EINVAL", 6), "unclosed");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gresdetail");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, slurms_detail_strings);
	tcase_add_test(tc, bad_entries_are_named);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
