/* Memory accounting: sizes, the reserve, capacities, what placements
 * reserve per NUMA node under each policy. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/memory/memacct.h"
#include "binding/topology/topogpu.h"
#include "testutil.h"

static uint64_t size(const char *s)
{
	uint64_t v = 0;
	char err[BND_ERRLEN];
	ck_assert_msg(bnd_mem_parse_size(s, &v, err, sizeof(err)) == BND_OK, "%s: %s", s, err);
	return v;
}

START_TEST(sizes)
{
	ck_assert(size("900M") == 900);
	ck_assert(size("900") == 900);
	ck_assert(size("2G") == 2048);
	ck_assert(size("2g") == 2048);
	ck_assert(size("2GB") == 2048);
	ck_assert(size("2GiB") == 2048);
	ck_assert(size("1T") == 1048576);
	ck_assert(size("1024K") == 1);
	ck_assert(size("1K") == 1); /* rounds up: never reserves too little */
	ck_assert(size("0") == 0);
	const char *bad[] = { "", "G", "-1", "1.5G", "2X", "2GG", "2 G", "99999999999999T", NULL };
	for (int i = 0; bad[i]; i++) {
		uint64_t v;
		char err[BND_ERRLEN] = "";
		ck_assert_int_eq(bnd_mem_parse_size(bad[i], &v, err, sizeof(err)), BND_EINVAL);
		ck_assert_msg(strstr(err, "900M or 2G"), "%s: %s", bad[i], err);
	}
}
END_TEST

START_TEST(reserve_and_capacity)
{
	struct bnd_mem_reserve r;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_mem_parse_reserve("5%", &r, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(r.percent, 5);
	ck_assert_int_eq(bnd_mem_parse_reserve("2G", &r, err, sizeof(err)), BND_OK);
	ck_assert(r.mib == 2048 && r.percent == 0);
	ck_assert_int_eq(bnd_mem_parse_reserve("100%", &r, err, sizeof(err)), BND_EINVAL);
	ck_assert(strstr(err, "mem_reserve=100%"));
	ck_assert_int_eq(bnd_mem_parse_reserve("x%", &r, err, sizeof(err)), BND_EINVAL);
	ck_assert_int_eq(bnd_mem_parse_reserve("lots", &r, err, sizeof(err)), BND_EINVAL);
	ck_assert(strstr(err, "mem_reserve=lots"));

	/* hwloc's synthetic nodes: 1024 MiB each unless told otherwise. */
	struct bnd_topology *t = tu_topo("pack:2 numa:1 core:2 pu:1");
	uint64_t cap[2];
	bnd_mem_capacity(t, NULL, cap);
	ck_assert(cap[0] == 1024 && cap[1] == 1024);
	struct bnd_mem_reserve two = { .mib = 200 }, pct = { .percent = 25 }, huge = { .mib = 5000 };
	bnd_mem_capacity(t, &two, cap);
	ck_assert(cap[0] == 824 && cap[1] == 824);
	bnd_mem_capacity(t, &pct, cap);
	ck_assert(cap[0] == 768);
	bnd_mem_capacity(t, &huge, cap);
	ck_assert(cap[0] == 0);

	/* used and free, shares on unknown nodes ignored */
	uint64_t used[2] = { 0, 0 }, avail[2];
	struct bnd_mem_share s[] = { { 1, 300 }, { 0, 100 }, { 7, 999 }, { 1, 24 } };
	bnd_mem_add(t, s, 4, used);
	ck_assert(used[0] == 100 && used[1] == 324);
	bnd_mem_capacity(t, &two, cap);
	bnd_mem_free(t, cap, used, avail);
	ck_assert(avail[0] == 724 && avail[1] == 500);
	used[1] = 2000;
	bnd_mem_free(t, cap, used, avail);
	ck_assert(avail[1] == 0);
	bnd_topology_free(t);
}
END_TEST

static struct bnd_placement placed(const struct bnd_topology *t, const char *req, int ntasks,
				   const bnd_cpuset_t *taken)
{
	struct bnd_request r;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_request_parse(&r, req, err, sizeof(err)), BND_OK);
	struct bnd_domain d = { NULL, taken, NULL };
	struct bnd_placement p;
	int rc = bnd_place(t, &d, &r, ntasks, &p, err, sizeof(err));
	bnd_request_clear(&r);
	ck_assert_msg(rc == BND_OK, "%s", err);
	return p;
}

START_TEST(demand_per_policy)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:2 pu:1");
	uint64_t d[4];
	/* linear:1 x 2 tasks: both on node 0 (cpus 0-1). */
	struct bnd_placement p = placed(t, "linear:1", 2, NULL);
	bnd_mem_demand(t, &p, BND_M_CORES_STRICT, NULL, 4096, d);
	ck_assert(d[0] == 4096 && d[1] == 0 && d[2] == 0 && d[3] == 0);
	bnd_mem_demand(t, &p, BND_M_CORES, NULL, 4096, d);
	ck_assert(d[0] == 4096);
	/* round_robin: the step's share spread over its nodes (one here). */
	bnd_mem_demand(t, &p, BND_M_ROUND_ROBIN, NULL, 4096, d);
	ck_assert(d[0] == 4096 && d[1] == 0);
	bnd_mem_demand(t, &p, BND_M_CORES, NULL, 0, d);
	ck_assert(d[0] == 0);
	bnd_placement_free(&p);

	/* One task across two nodes: its share split evenly. */
	p = placed(t, "explicit:0,1:0,2", 1, NULL);
	bnd_mem_demand(t, &p, BND_M_CORES_STRICT, NULL, 4097, d);
	ck_assert(d[0] == 2049 && d[1] == 2048);
	bnd_mem_demand(t, &p, BND_M_ROUND_ROBIN, NULL, 4000, d);
	ck_assert(d[0] == 2000 && d[1] == 2000);
	struct bnd_mem_share s[4];
	int n = bnd_mem_shares(t, d, s, 4);
	ck_assert_int_eq(n, 2);
	ck_assert(s[0].node == 0 && s[0].mib == 2000 && s[1].node == 1 && s[1].mib == 2000);
	/* nlocal: the chosen nodes, whatever the cores. */
	bnd_nodeset_t nodes;
	bnd_nodeset_zero(&nodes);
	bnd_nodeset_set(&nodes, 3);
	bnd_mem_demand(t, &p, BND_M_NLOCAL, &nodes, 4000, d);
	ck_assert(d[3] == 4000 && d[0] == 0);
	bnd_placement_free(&p);

	/* Shares round up: 3 tasks x ceil(1000/3). */
	ck_assert(bnd_mem_task_share(1000, 3) == 334);
	ck_assert(bnd_mem_task_share(1000, 0) == 1000);
	bnd_topology_free(t);
}
END_TEST

/* CPU-less nodes (HBM) never receive a core-local share. */
START_TEST(cpuless_nodes_get_no_core_share)
{
	char *x = tu_topology_xml("Intel-Xeon-SapphireRapids-2pa4no10co2t+8hbm.xml");
	if (!x)
		return;
	struct bnd_topology *t = tu_topo(x);
	uint64_t *d = calloc((size_t)t->nnuma, sizeof(*d));
	struct bnd_placement p = placed(t, "linear:10", 8, NULL);
	bnd_mem_demand(t, &p, BND_M_CORES_STRICT, NULL, 8 * 1024, d);
	uint64_t sum = 0;
	for (int k = 0; k < t->nnuma; k++) {
		if (bnd_cpuset_empty(&t->numa_cpus[k]))
			ck_assert(d[k] == 0);
		sum += d[k];
	}
	ck_assert(sum == 8 * 1024);
	bnd_mem_demand(t, &p, BND_M_ROUND_ROBIN, NULL, 8 * 1024, d);
	for (int k = 0; k < t->nnuma; k++)
		if (bnd_cpuset_empty(&t->numa_cpus[k]))
			ck_assert(d[k] == 0);
	bnd_placement_free(&p);
	free(d);
	bnd_topology_free(t);
	free(x);
}
END_TEST

/* --mbind=gpu reserves on the host node next to each task's GPU, wherever
 * its cores are; a task without GPUs like cores. */
START_TEST(demand_gpu)
{
	struct bnd_topology *t = tu_topo("tests/unit/topology/xml/mi300a-apu.xml");
	uint64_t d[4];
	struct bnd_placement p = placed(t, "linear:1", 2, NULL);
	p.tasks[0].gpus = 1ull << bnd_gpu_find(t, "rsmi3");
	p.tasks[1].gpus = 0;
	bnd_mem_demand(t, &p, BND_M_GPU, NULL, 1000, d);
	ck_assert(d[0] == 500 && d[1] == 0 && d[2] == 0 && d[3] == 500);
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memacct");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, sizes);
	tcase_add_test(tc, reserve_and_capacity);
	tcase_add_test(tc, demand_per_policy);
	tcase_add_test(tc, demand_gpu);
	tcase_add_test(tc, cpuless_nodes_get_no_core_share);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
