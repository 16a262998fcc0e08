/* Placement with the Grid Engine strategies: the spec's vectors, task
 * hand-out, domains, and every real machine XML. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topostring.h"
#include "testutil.h"

static struct bnd_request *req(const char *text)
{
	static struct bnd_request r;
	char err[BND_ERRLEN] = "";
	bnd_request_clear(&r); /* the last one's lists */
	ck_assert_msg(bnd_request_parse(&r, text, err, sizeof(err)) == BND_OK, "%s: %s", text, err);
	return &r;
}

/* Place `text` with `mask` taken and return the Grid Engine string of the
 * chosen cores, or "ENOFIT: <reason>". */
static const char *place_sge(const char *topo, const char *mask, const char *text, int ntasks)
{
	static char out[4096];
	char err[BND_ERRLEN] = "";
	struct bnd_topology *t = tu_topo(topo);
	bnd_cpuset_t taken;
	bnd_cpuset_zero(&taken);
	if (mask)
		ck_assert_msg(bnd_topostring_parse_mask(t, mask, &taken, err, sizeof(err)) == BND_OK,
			      "%s", err);
	struct bnd_domain dom = { NULL, &taken, NULL };
	struct bnd_placement p;
	int rc = bnd_place(t, &dom, req(text), ntasks, &p, err, sizeof(err));
	if (rc == BND_ENOFIT) {
		snprintf(out, sizeof(out), "ENOFIT: %s", err);
	} else {
		ck_assert_msg(rc == BND_OK, "%s: %s", text, err);
		ck_assert(!bnd_cpuset_intersects(&p.all_cpus, &taken));
		ck_assert_int_eq(bnd_topostring_format(t, BND_TOPO_SGE, &p.all_cpus, out, sizeof(out)), BND_OK);
		bnd_placement_free(&p);
	}
	bnd_topology_free(t);
	return out;
}

START_TEST(linear_fills_free_socket_first)
{
	ck_assert_str_eq(place_sge("pack:2 core:2", NULL, "linear:2", 1), "sccSCC");
	ck_assert_str_eq(place_sge("pack:2 core:2", "sccSCC", "linear:2", 1), "SCCscc");
	ck_assert_str_eq(place_sge("pack:2 core:4", "ScCCCSCCCC", "linear:2", 1), "SCCCCSccCC");
	/* no free socket left: the one with the most free cores */
	ck_assert_str_eq(place_sge("pack:2 core:4", "ScCCCSccCC", "linear:2", 1), "SCccCSCCCC");
	/* spills over: 3 cores with socket 0 free and socket 1 half taken */
	ck_assert_str_eq(place_sge("pack:2 core:2", "SCCScC", "linear:3", 1), "sccSCc");
	ck_assert_str_eq(place_sge("pack:2 core:2", "ScCScC", "linear:3", 1),
			 "ENOFIT: linear: 3 cores needed, only 2 free");
}
END_TEST

START_TEST(linear_with_start)
{
	ck_assert_str_eq(place_sge("pack:2 core:2", NULL, "linear:2:1,0", 1), "SCCscc");
	/* continues into the next socket */
	ck_assert_str_eq(place_sge("pack:2 core:2", NULL, "linear:2:0,1", 1), "SCcScC");
	ck_assert_str_eq(place_sge("pack:2 core:2", "SCCScC", "linear:2:0,1", 1),
			 "ENOFIT: linear: core 1,0 is not free");
	ck_assert_str_eq(place_sge("pack:2 core:2", NULL, "linear:2:1,1", 1),
			 "ENOFIT: linear: 2 successive cores from 1,1 run past the last core");
	ck_assert(strstr(place_sge("pack:2 core:2", NULL, "linear:1:2,0", 1), "does not exist"));
}
END_TEST

START_TEST(striding)
{
	ck_assert_str_eq(place_sge("pack:2 core:2", NULL, "striding:2:2", 1), "ScCScC");
	ck_assert_str_eq(place_sge("pack:2 core:2", NULL, "striding:2:2:0,0", 1), "ScCScC");
	/* 0,0 taken: the next start that works is 0,1 */
	ck_assert_str_eq(place_sge("pack:2 core:2", "ScCSCC", "striding:2:2", 1), "SCcSCc");
	ck_assert_str_eq(place_sge("pack:2 core:4", NULL, "striding:3:3:0,1", 1), "SCcCCScCCc");
	ck_assert_str_eq(place_sge("pack:2 core:2", "SCcSCC", "striding:2:2:0,1", 1),
			 "ENOFIT: striding: 2 cores with step 2 from 0,1 are not all present and free");
	ck_assert(strncmp(place_sge("pack:2 core:2", "ScCSCc", "striding:2:2", 1), "ENOFIT", 6) == 0);
}
END_TEST

START_TEST(explicit_cores)
{
	ck_assert_str_eq(place_sge("pack:2 core:4", NULL, "explicit:0,3:1,2", 1), "SCCCcSCCcC");
	ck_assert_str_eq(place_sge("pack:2 core:4", "ScCCCSCCCC", "explicit:0,0", 1),
			 "ENOFIT: explicit: core 0,0 is not free");
	ck_assert_str_eq(place_sge("pack:2 core:4", NULL, "explicit:2,0", 1),
			 "ENOFIT: explicit: core 2,0 does not exist");
	ck_assert_str_eq(place_sge("pack:2 core:4", NULL, "explicit:0,0:0,1:0,2", 2),
			 "ENOFIT: explicit lists 3 cores, which cannot be shared out evenly among 2 tasks");
}
END_TEST

/* The exact per-task cores and cpus. */
static void expect_tasks(const char *topo, const char *text, int ntasks, const char *const *want)
{
	char err[BND_ERRLEN] = "";
	struct bnd_topology *t = tu_topo(topo);
	struct bnd_placement p;
	ck_assert_msg(bnd_place(t, NULL, req(text), ntasks, &p, err, sizeof(err)) == BND_OK, "%s", err);
	for (int i = 0; i < ntasks; i++) {
		char got[512] = "", cpus[256];
		size_t n = 0;
		for (int k = 0; k < p.tasks[i].ncores; k++)
			n += (size_t)snprintf(got + n, sizeof(got) - n, "%d,%d ",
					      t->cores[p.tasks[i].cores[k]].socket,
					      t->cores[p.tasks[i].cores[k]].core);
		bnd_cpuset_format_list(&p.tasks[i].cpus, cpus, sizeof(cpus));
		snprintf(got + n, sizeof(got) - n, "(%s)", cpus);
		ck_assert_str_eq(got, want[i]);
	}
	bnd_placement_free(&p);
	bnd_topology_free(t);
}

START_TEST(smt_core_taken_whole)
{
	static const char *const want[] = { "0,0 (0-1)" };
	expect_tasks("pack:1 core:2 pu:2", "linear:1", 1, want);
}
END_TEST

START_TEST(tasks_get_compact_groups)
{
	static const char *const want[] = { "0,0 0,1 (0-1)", "0,2 0,3 (2-3)", "1,0 1,1 (4-5)",
					    "1,2 1,3 (6-7)" };
	expect_tasks("pack:2 core:4", "linear:2", 4, want);
	static const char *const want_s[] = { "0,0 0,2 (0,2)", "1,0 1,2 (4,6)" };
	expect_tasks("pack:2 core:4", "striding:2:2", 2, want_s);
	static const char *const want_e[] = { "1,1 (5)", "0,3 (3)" };
	expect_tasks("pack:2 core:4", "explicit:1,1:0,3", 2, want_e);
}
END_TEST

START_TEST(all_or_nothing_for_tasks)
{
	ck_assert_str_eq(place_sge("pack:2 core:2", "ScCSCC", "linear:1", 4),
			 "ENOFIT: linear: 4 cores needed, only 3 free");
}
END_TEST

START_TEST(huge_requests_are_no_fit)
{
	/* amount x tasks far beyond any node, and beyond int: a reason, no overflow */
	ck_assert_str_eq(place_sge("pack:2 core:2", NULL, "linear:1000000", 4096),
			 "ENOFIT: 4096000000 units needed (1000000 per task x 4096 tasks), the node has 4 cpus");
	ck_assert_str_eq(place_sge("pack:2 core:2", NULL, "striding:5:1", 1),
			 "ENOFIT: 5 units needed (5 per task x 1 tasks), the node has 4 cpus");
}
END_TEST

START_TEST(domain_limits_placement)
{
	char err[BND_ERRLEN] = "";
	struct bnd_topology *t = tu_topo("pack:2 core:4 pu:2");
	bnd_cpuset_t allowed;
	/* Slurm gave cpus 6-9: cores 0,3 and 1,0 whole, nothing else */
	ck_assert_int_eq(bnd_cpuset_parse_list(&allowed, "6-9,11", err, sizeof(err)), BND_OK);
	struct bnd_domain dom = { &allowed, NULL, NULL };
	struct bnd_placement p;
	ck_assert_int_eq(bnd_place(t, &dom, req("linear:2"), 1, &p, err, sizeof(err)), BND_OK);
	char cpus[64];
	bnd_cpuset_format_list(&p.all_cpus, cpus, sizeof(cpus));
	ck_assert_str_eq(cpus, "6-9");
	bnd_placement_free(&p);
	/* core 1,1 has only cpu 11 allowed: never taken half */
	ck_assert_int_eq(bnd_place(t, &dom, req("linear:3"), 1, &p, err, sizeof(err)), BND_ENOFIT);
	ck_assert_int_eq(bnd_place(t, &dom, req("explicit:0,0"), 1, &p, err, sizeof(err)), BND_ENOFIT);
	bnd_topology_free(t);
}
END_TEST

/* bnd_pu_available is the one domain test: allowed and not taken, by PU
 * index; the packed and LSF strategies see the same free threads. */
START_TEST(pu_available_is_the_domain)
{
	char err[BND_ERRLEN] = "", cpus[64];
	struct bnd_topology *t = tu_topo("pack:2 core:4 pu:2");
	bnd_cpuset_t allowed, taken;
	ck_assert_int_eq(bnd_cpuset_parse_list(&allowed, "6-9,11", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_cpuset_parse_list(&taken, "8", err, sizeof(err)), BND_OK);
	struct bnd_domain dom = { &allowed, &taken, NULL };
	for (int pu = 0; pu < t->npus; pu++) {
		int os = t->pu_os[pu];
		int want = (os >= 6 && os <= 9 && os != 8) || os == 11;
		ck_assert_msg(bnd_pu_available(t, &dom, pu) == want, "cpu %d", os);
	}
	struct bnd_domain all = { NULL, NULL, NULL };
	ck_assert_int_eq(bnd_pu_available(t, &all, 0), 1);
	ck_assert_int_eq(bnd_pu_available(t, NULL, 0), 1);
	const char *reqs[] = { "packed:4:unit=T", "any:4:level=thread" };
	for (int i = 0; i < 2; i++) {
		struct bnd_placement p;
		ck_assert_msg(bnd_place(t, &dom, req(reqs[i]), 1, &p, err, sizeof(err)) == BND_OK,
			      "%s: %s", reqs[i], err);
		bnd_cpuset_format_list(&p.all_cpus, cpus, sizeof(cpus));
		ck_assert_msg(!strcmp(cpus, "6-7,9,11"), "%s: %s", reqs[i], cpus);
		bnd_placement_free(&p);
	}
	bnd_topology_free(t);
}
END_TEST

START_TEST(none_binds_nothing)
{
	char err[BND_ERRLEN] = "";
	struct bnd_topology *t = tu_topo("pack:2 core:2");
	struct bnd_placement p;
	ck_assert_int_eq(bnd_place(t, NULL, req("none"), 2, &p, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(p.ntasks, 2);
	ck_assert(bnd_cpuset_empty(&p.tasks[0].cpus) && bnd_cpuset_empty(&p.all_cpus));
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* Every real machine: one core per task for as many tasks as cores uses each
 * core exactly once; explicit on the last core of the last socket works. */
START_TEST(real_machines)
{
	char **xmls = tu_topology_xmls();
	if (!xmls)
		return;
	int n = 0;
	for (char **x = xmls; *x; x++, n++) {
		char err[BND_ERRLEN] = "", text[64];
		struct bnd_topology *t = tu_topo(*x);
		struct bnd_placement p;
		ck_assert_msg(bnd_place(t, NULL, req("linear:1"), t->ncores, &p, err, sizeof(err)) == BND_OK,
			      "%s: %s", *x, err);
		tu_assert_each_core_once(t, &p, *x);
		bnd_placement_free(&p);
		int s = t->nsockets - 1;
		snprintf(text, sizeof(text), "explicit:%d,%d", s, t->socket_ncores[s] - 1);
		ck_assert_msg(bnd_place(t, NULL, req(text), 1, &p, err, sizeof(err)) == BND_OK, "%s: %s", *x, err);
		ck_assert_int_eq(p.tasks[0].cores[0], t->ncores - 1);
		bnd_placement_free(&p);
		bnd_topology_free(t);
	}
	ck_assert_int_ge(n, 1);
	printf("# real machines: %d topologies placed\n", n);
	tu_free_list(xmls);
}
END_TEST

/* More tasks than Slurm lets a step start on a node: refused before a
 * per-task array is allocated (INT_MAX of them would be a terabyte). */
START_TEST(more_tasks_than_slurm_allows_are_refused)
{
	struct bnd_topology *t = tu_topo("pack:1 core:4");
	char err[BND_ERRLEN] = "";
	const char *reqs[] = { "linear:1", "packed:1:type=node", "none" };
	for (int i = 0; i < 3; i++) {
		struct bnd_request r;
		struct bnd_placement p;
		ck_assert_int_eq(bnd_request_parse(&r, reqs[i], err, sizeof(err)), BND_OK);
		ck_assert_int_eq(bnd_place(t, NULL, &r, INT_MAX, &p, err, sizeof(err)), BND_EINVAL);
		ck_assert_str_eq(err, "2147483647 tasks on one node: more than Slurm allows (65533)");
		ck_assert_ptr_null(p.tasks);
		ck_assert_int_eq(bnd_place(t, NULL, &r, BND_MAX_TASKS + 1, &p, err, sizeof(err)),
				 BND_EINVAL);
	}
	/* the bound itself is placed (a shared request: every task the node) */
	struct bnd_request r;
	struct bnd_placement p;
	ck_assert_int_eq(bnd_request_parse(&r, "packed:1:type=node", err, sizeof(err)), BND_OK);
	ck_assert_msg(bnd_place(t, NULL, &r, BND_MAX_TASKS, &p, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(p.ntasks, BND_MAX_TASKS);
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* Every strategy of the table (strategies.def) places: each of its
 * examples (its word for none), for one task on an idle 2-socket node,
 * gets cores (none: none), never a refusal. */
START_TEST(every_strategy_has_a_placement)
{
	struct bnd_topology *t = tu_topo("pack:2 core:8 pu:2");
	for (int s = 0; s < BND_S_COUNT; s++) {
		const struct bnd_strategy_def *d = bnd_strategy_def((enum bnd_strategy)s);
		ck_assert_msg(d, "strategy %d has no row in the table", s);
		char text[128], err[BND_ERRLEN] = "";
		for (int k = 0; tu_strategy_example((enum bnd_strategy)s, k, text, sizeof(text)); k++) {
			struct bnd_placement p;
			int rc = bnd_place(t, NULL, req(text), 1, &p, err, sizeof(err));
			ck_assert_msg(rc == BND_OK, "%s: %d %s", text, rc, err);
			ck_assert_msg(bnd_cpuset_empty(&p.all_cpus) == (s == BND_S_NONE), "%s: cpus",
				      text);
			bnd_placement_free(&p);
		}
	}
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
Suite *s = suite_create("place");
	TCase *tc = tcase_create("ge");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, linear_fills_free_socket_first);
	tcase_add_test(tc, linear_with_start);
	tcase_add_test(tc, striding);
	tcase_add_test(tc, explicit_cores);
	tcase_add_test(tc, smt_core_taken_whole);
	tcase_add_test(tc, tasks_get_compact_groups);
	tcase_add_test(tc, all_or_nothing_for_tasks);
	tcase_add_test(tc, huge_requests_are_no_fit);
	tcase_add_test(tc, domain_limits_placement);
	tcase_add_test(tc, pu_available_is_the_domain);
	tcase_add_test(tc, none_binds_nothing);
	tcase_add_test(tc, real_machines);
	tcase_add_test(tc, more_tasks_than_slurm_allows_are_refused);
	tcase_add_test(tc, every_strategy_has_a_placement);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
