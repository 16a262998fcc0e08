/* A job's receipt: each step's request and binding, each task's cores and
 * cpus in both numberings, NUMA nodes and GPUs, and its history; text and
 * JSON from the same records. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/report/receipt.h"
#include "binding/state/history.h"
#include "binding/util/error.h"
#include "statetest.h"
#include "testutil.h"

static char *text_of(const struct bnd_receipt_in *in, int json)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *o = open_memstream(&buf, &n);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json ? bnd_receipt_json(in, o) : bnd_receipt_text(in, o), BND_OK);
	fclose(o);
	return buf;
}

/* Job 7 on a 2-socket, 4-NUMA SMT node: step 0 bound on two tasks of
 * socket 1 with --mbind=cores:strict, suspended once and bound again;
 * its batch step refused (unbound). Another job's record is not shown. */
static void sample(struct bnd_state_file *f)
{
	bnd_statefile_init(f);
	snprintf(f->node, sizeof(f->node), "n7");
	struct bnd_state_record a = st_rec(7, 0, 1, 1, "8-9;10-11");
	snprintf(a.request, sizeof(a.request), "set:linear:1");
	a.mbind = BND_M_CORES_STRICT;
	ck_assert_int_eq(bnd_state_record_mem(&a, 1), BND_OK);
	a.mem[0].node = 2;
	a.mem[0].mib = 256;
	a.job_mem_mib = 1024;
	bnd_cpuset_t c;
	bnd_cpuset_parse_list(&c, "8-11", NULL, 0);
	ck_assert_int_eq(bnd_hist_append(&a.hist, BND_H_BOUND, 1000, &c, NULL), BND_OK);
	ck_assert_int_eq(bnd_hist_append(&a.hist, BND_H_SUSPENDED, 2000, &c, "slurm-suspend"), 0);
	ck_assert_int_eq(bnd_hist_append(&a.hist, BND_H_REBOUND, 3000, &c, NULL), BND_OK);
	struct bnd_state_record b = st_rec(7, BND_STEP_BATCH, 1, 1, "");
	b.ntasks = 0;
	b.status = BND_ST_UNBOUND;
	b.since_ms = 4000;
	snprintf(b.why, sizeof(b.why), "allocation_too_small");
	snprintf(b.request, sizeof(b.request), "linear:9");
	ck_assert_int_eq(bnd_hist_append(&b.hist, BND_H_UNBOUND, 4000, NULL, b.why), BND_OK);
	struct bnd_state_record other = st_rec(8, 0, 1, 1, "0");
	ck_assert_int_eq(bnd_statefile_add(f, &a), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(f, &other), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(f, &b), BND_OK);
	bnd_state_record_free(&a);
	bnd_state_record_free(&b);
	bnd_state_record_free(&other);
}

START_TEST(text_receipt)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:2 pu:2");
	struct bnd_state_file f;
	sample(&f);
	struct bnd_receipt_in in = { &f, t, "n7", 7, 5000 };
	char *s = text_of(&in, 0);
	ck_assert_msg(strstr(s, "job 7 step 0 on n7: active since ") &&
		      strstr(s, "  binding:            set linear:1\n"
				"  exec_binding_list:  n7=1,0:1,1\n"
				"  mbind:              cores:strict\n"
				"  memory:             numa 2: 256 MiB; the job's 1024 MiB on this node\n"
				"  task 0:             cores 1,0 (L#4) cpus 8-9 (L#8-9) numa 2 gpus -\n"
				"  task 1:             cores 1,1 (L#5) cpus 10-11 (L#10-11) numa 2 gpus -\n"
				"  history:            bound "), "%s", s);
	ck_assert_msg(strstr(s, "(4s ago) on cpus 8-11\n                      suspended ") &&
		      strstr(s, "(3s ago) on cpus 8-11: slurm-suspend\n                      rebound "),
		      "%s", s);
	ck_assert_msg(strstr(s, "job 7 step batch on n7: unbound since 1s: allocation_too_small, uid") &&
		      strstr(s, "  binding:            set linear:9 (not bound)\n"
				"  exec_binding_list:  n7=-\n") &&
		      strstr(s, "  tasks:              none bound now\n"
				"  history:            unbound ") &&
		      strstr(s, "(1s ago): allocation_too_small\n"), "%s", s);
	ck_assert_msg(!strstr(s, "job 8"), "%s", s);
	free(s);
	/* without a topology: the cpus only */
	in.t = NULL;
	s = text_of(&in, 0);
	ck_assert_msg(strstr(s, "  task 0:             cores ? (L#-) cpus 8-9 (L#?) numa - gpus -\n"),
		      "%s", s);
	free(s);
	bnd_statefile_free(&f);
	bnd_topology_free(t);
}
END_TEST

START_TEST(json_receipt)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:2 pu:2");
	struct bnd_state_file f;
	sample(&f);
	struct bnd_receipt_in in = { &f, t, "n7", 7, 5000 };
	char *s = text_of(&in, 1);
	json_error_t e;
	json_t *o = json_loads(s, 0, &e);
	ck_assert_msg(o, "%s: %s", e.text, s);
	json_t *steps = json_object_get(o, "steps");
	ck_assert_int_eq(json_array_size(steps), 2);
	json_t *st = json_array_get(steps, 0);
	ck_assert_str_eq(json_string_value(json_object_get(st, "binding")), "set linear:1");
	ck_assert_str_eq(json_string_value(json_object_get(st, "instance")), "set");
	ck_assert_str_eq(json_string_value(json_object_get(st, "strategy")), "linear");
	ck_assert_str_eq(json_string_value(json_object_get(st, "exec_binding_list")), "n7=1,0:1,1");
	ck_assert_str_eq(json_string_value(json_object_get(st, "mbind")), "cores:strict");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(st, "memory_mib"), "2")),
			 256);
	json_t *t1 = json_array_get(json_object_get(st, "tasks"), 1);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(t1, "cores"), 0)), "1,1");
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(t1, "cores_logical"), 0)), 5);
	ck_assert_str_eq(json_string_value(json_object_get(t1, "cpus")), "10-11");
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(t1, "numa"), 0)), 2);
	json_t *h = json_object_get(st, "history");
	ck_assert_int_eq(json_array_size(h), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(h, 1), "event")), "suspended");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(h, 1), "why")),
			 "slurm-suspend");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "history_total")), 3);
	json_t *bt = json_array_get(steps, 1);
	ck_assert_str_eq(json_string_value(json_object_get(bt, "status")), "unbound");
	ck_assert_str_eq(json_string_value(json_object_get(bt, "step_name")), "batch");
	ck_assert_int_eq(json_integer_value(json_object_get(bt, "since_ms")), 4000);
	json_decref(o);
	free(s);
	bnd_statefile_free(&f);
	bnd_topology_free(t);
}
END_TEST

/* A GPU-aware step names each task's GPUs by PCI bus id. */
START_TEST(gpus_by_bus_id)
{
	char *xml = tu_topology_xml("NVIDIA-DGX2H-2pa24co+16nvml+1nvswitch+10ib.xml");
	struct bnd_topology *t = tu_topo(xml);
	free(xml);
	ck_assert_int_ge(t->ngpus, 2);
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	struct bnd_state_record a = st_rec(3, 0, 1, 1, "0;1");
	const uint64_t gpus[2] = { 1, 2 };
	ck_assert_int_eq(bnd_state_record_gpus(&a, gpus, 2), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(&f, &a), BND_OK);
	bnd_state_record_free(&a);
	struct bnd_receipt_in in = { &f, t, "dgx", 3, 0 };
	char *s = text_of(&in, 0), want[128];
	snprintf(want, sizeof(want), "numa 0 gpus %s\n", t->gpus[1].busid);
	ck_assert_msg(strstr(s, want), "%s", s);
	free(s);
	s = text_of(&in, 1);
	snprintf(want, sizeof(want), "\"gpus\":[\"%s\"]", t->gpus[0].busid);
	ck_assert_msg(strstr(s, want), "%s", s);
	free(s);
	bnd_statefile_free(&f);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("receipt");
	TCase *tc = tcase_create("receipt");
	tcase_add_test(tc, text_receipt);
	tcase_add_test(tc, json_receipt);
	tcase_add_test(tc, gpus_by_bus_id);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
