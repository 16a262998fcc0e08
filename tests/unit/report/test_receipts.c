/* A job's receipt over its nodes: srun --label's output taken apart
 * (pieces of a long line joined, labels of any width), the nodes' answers
 * merged in the job's node order, the silent nodes named, and every
 * answer that is not a receipt of this job from one of its nodes refused. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/report/receipts.h"
#include "binding/util/error.h"
#include "testutil.h"

#define N1 "{\"job\":12,\"node\":\"n1\",\"steps\":[{\"step\":0,\"step_name\":\"0\",\"uid\":1001," \
	"\"owner_pid\":42,\"owner_alive\":true,\"status\":\"active\",\"since_ms\":1000,\"why\":\"\"," \
	"\"request\":\"linear:1\",\"binding\":\"set linear:1\",\"exec_binding_list\":\"n1=0,0\"," \
	"\"mbind\":\"none\",\"memory_mib\":{},\"job_memory_mib\":0,\"cpus\":\"0\",\"tasks\":[{\"task\":0," \
	"\"cores\":[\"0,0\"],\"cores_logical\":[0],\"cpus\":\"0\",\"cpus_logical\":\"0\",\"numa\":[0]," \
	"\"gpus\":[]}],\"history\":[{\"event\":\"bound\",\"ms\":1000,\"cpus\":\"0\",\"why\":\"\"}]," \
	"\"history_total\":1}]}"
#define N2 "{\"job\":12,\"node\":\"n2\",\"steps\":[]}"

static const char *const nodes[] = { "n1", "n2", "n3" };

START_TEST(split_joins_pieces)
{
	/* srun cuts N1 in two pieces, each labeled; task 10 pads the labels */
	char *out;
	ck_assert_int_ge(asprintf(&out, " 1: %s\n 0: %.100s\n 0: %s\n10: x\n", N2, N1, N1 + 100), 0);
	char **a, err[BND_ERRLEN];
	int n;
	ck_assert_int_eq(bnd_receipts_split(out, &a, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 11);
	ck_assert_str_eq(a[0], N1);
	ck_assert_str_eq(a[1], N2);
	ck_assert_ptr_null(a[5]);
	ck_assert_str_eq(a[10], "x");
	bnd_receipts_free_answers(a, n);
	free(out);
	ck_assert_int_eq(bnd_receipts_split("", &a, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 0);
}
END_TEST

START_TEST(split_refuses_an_unlabeled_line)
{
	char **a, err[BND_ERRLEN];
	int n;
	ck_assert_int_eq(bnd_receipts_split("0: {}\nsrun: warning\n", &a, &n, err, sizeof(err)),
			 BND_EINVAL);
	ck_assert_str_eq(err, "srun printed a line without a task label (\"<task>: <text>\"): "
			      "\"srun: warning\"");
	ck_assert_ptr_null(a);
}
END_TEST

START_TEST(merge_in_node_order)
{
	char *answers[] = { N2, NULL, N1 };
	json_t *m;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_receipts_merge(12, nodes, 3, answers, 3, &m, err, sizeof(err)), BND_OK);
	char *s = json_dumps(m, JSON_COMPACT);
	ck_assert_str_eq(s, "{\"job\":12,\"nodes\":[" N1 "," N2 "],\"missing\":[\"n3\"]}");
	free(s);
	/* the text: n1's step, then n2's "no record" */
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	ck_assert_int_eq(bnd_receipts_render(m, 3000, o), BND_OK);
	fclose(o);
	ck_assert_msg(strstr(buf, "job 12 step 0 on n1: active since 2s, uid 1001, owner pid 42\n"
				  "  binding:            set linear:1\n"
				  "  exec_binding_list:  n1=0,0\n"), "%s", buf);
	ck_assert_msg(strstr(buf, "  task 0:             cores 0,0 (L#0) cpus 0 (L#0) numa 0 gpus -\n"),
		      "%s", buf);
	ck_assert_msg(strstr(buf, "(2s ago) on cpus 0\njob 12: no record on n2 (not here, ended, or "
				  "no binding asked)\n"), "%s", buf);
	free(buf);
	json_decref(m);
}
END_TEST

static void refused(char *answer, const char *want)
{
	char *answers[] = { N1, answer };
	json_t *m = (json_t *)1;
	char err[BND_ERRLEN] = "";
	ck_assert_int_eq(bnd_receipts_merge(12, nodes, 3, answers, 2, &m, err, sizeof(err)),
			 BND_EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, want), "%s", err);
}

START_TEST(merge_refuses_what_is_no_receipt)
{
	refused("{\"job\":13,\"node\":\"n2\",\"steps\":[]}",
		"node n2 answered for job 13, not job 12");
	refused("{\"job\":12,\"node\":\"n9\",\"steps\":[]}",
		"an answer came from node \"n9\", which is not one of job 12's nodes");
	refused(N1, "node n1 answered twice");
	refused("{\"job\":12,\"node\":\"n2\"}", "a node's answer is not a receipt (no \"steps\")");
	refused("sbind: topology: no such file", "a node's answer is not a receipt (");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("receipts");
	TCase *tc = tcase_create("receipts");
	tcase_add_test(tc, split_joins_pieces);
	tcase_add_test(tc, split_refuses_an_unlabeled_line);
	tcase_add_test(tc, merge_in_node_order);
	tcase_add_test(tc, merge_refuses_what_is_no_receipt);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
