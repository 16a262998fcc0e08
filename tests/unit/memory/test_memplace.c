/* Memory-aware placement: Univa Grid Engine 8.1's worked example (2 tasks,
 * 2 GiB each, cores:strict: 4 GiB on one node when both cores sit there,
 * 2 GiB on each of two nodes when they are split), strict vs prefer for
 * every strategy, and nlocal on one and on several nodes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/memory/memplace.h"
#include "testutil.h"

/* Runs the request; returns "cpus | shares" such as "0-1 | 0:4096", or
 * "ENOFIT: <reason>". */
static const char *run(const struct bnd_topology *t, const char *req, int ntasks,
		       enum bnd_mbind m, uint64_t mib, const uint64_t *avail,
		       const bnd_cpuset_t *taken, struct bnd_mem_result *res)
{
	static char out[1024];
	struct bnd_request r;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_request_parse(&r, req, err, sizeof(err)) == BND_OK, "%s", err);
	struct bnd_domain d = { NULL, taken, NULL };
	struct bnd_mem_request mr = { m, mib, avail };
	struct bnd_placement p;
	struct bnd_mem_result local;
	if (!res)
		res = &local;
	int rc = bnd_place_mem(t, &d, &r, ntasks, &mr, &p, res, err, sizeof(err));
	bnd_request_clear(&r);
	if (rc != BND_OK) {
		ck_assert_int_eq(rc, BND_ENOFIT);
		snprintf(out, sizeof(out), "ENOFIT: %s", err);
		return out;
	}
	char cpus[256];
	bnd_cpuset_format_list(&p.all_cpus, cpus, sizeof(cpus));
	size_t k = (size_t)snprintf(out, sizeof(out), "%s |", cpus);
	for (int i = 0; i < res->nshares; i++)
		k += (size_t)snprintf(out + k, sizeof(out) - k, " %d:%llu", res->shares[i].node,
				      (unsigned long long)res->shares[i].mib);
	bnd_placement_free(&p);
	return out;
}

/* 2 sockets, one NUMA node each, 2 cores per node: node n = cpus 2n, 2n+1. */
#define TWO "pack:2 numa:1 core:2 pu:1"

START_TEST(uge_example_one_node)
{
	struct bnd_topology *t = tu_topo(TWO);
	uint64_t avail[2] = { 8192, 8192 };
	/* GE's linear:2 for a 2-slot job = one core per task here. */
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES_STRICT, 4096, avail, NULL, NULL),
			 "0-1 | 0:4096");
	/* Exactly enough: 4 GiB on node 0. */
	avail[0] = 4096;
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES_STRICT, 4096, avail, NULL, NULL),
			 "0-1 | 0:4096");
	bnd_topology_free(t);
}
END_TEST

/* Cores too few whatever the memory: the reason is the strategy's, not
 * "no placement whose NUMA nodes have the memory" (which it once said with
 * every core held and 8 GiB free, sending users after the wrong cause). */
START_TEST(strict_without_free_cores_blames_the_cores)
{
	struct bnd_topology *t = tu_topo(TWO);
	uint64_t avail[2] = { 8192, 8192 };
	bnd_cpuset_t taken;
	ck_assert_int_eq(bnd_cpuset_parse_list(&taken, "0-2", NULL, 0), BND_OK);
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES_STRICT, 200, avail, &taken, NULL),
			 "ENOFIT: linear: 2 cores needed, only 1 free");
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES, 200, avail, &taken, NULL),
			 "ENOFIT: linear: 2 cores needed, only 1 free");
	/* one core free and its node short: then memory is the reason */
	avail[1] = 50;
	const char *s = run(t, "linear:1", 1, BND_M_CORES_STRICT, 200, avail, &taken, NULL);
	ck_assert_msg(strstr(s, "ENOFIT: --mbind=cores:strict: linear:1 for 1 task(s) of 200 MiB"),
		      "%s", s);
	bnd_topology_free(t);
}
END_TEST

START_TEST(uge_example_split)
{
	struct bnd_topology *t = tu_topo(TWO);
	/* Each node backs one task only: the second goes to node 1 although
	 * core 0,1 is free: 2 GiB on each of two nodes. */
	uint64_t avail[2] = { 3072, 3072 };
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES_STRICT, 4096, avail, NULL, NULL),
			 "0,2 | 0:2048 1:2048");
	/* Node 1 backs both: linear takes the free socket, 4 GiB there. */
	avail[1] = 8192;
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES_STRICT, 4096, avail, NULL, NULL),
			 "2-3 | 1:4096");
	/* Node 0 backs nothing: both on node 1. */
	avail[0] = 1000;
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES_STRICT, 4096, avail, NULL, NULL),
			 "2-3 | 1:4096");
	/* Neither backs two tasks and node 0 none: no binding possible. */
	avail[1] = 3000;
	const char *s = run(t, "linear:1", 2, BND_M_CORES_STRICT, 4096, avail, NULL, NULL);
	ck_assert_msg(strstr(s, "ENOFIT: --mbind=cores:strict: linear:1 for 2 task(s) of 2048 MiB"),
		      "%s", s);
	ck_assert_msg(strstr(s, "0:1000,1:3000"), "%s", s);
	/* Prefer (cores): the same situation does not block. */
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES, 4096, avail, NULL, NULL),
			 "0-1 | 0:4096");
	/* ...but steers when it can. */
	avail[0] = 3072;
	avail[1] = 3072;
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES, 4096, avail, NULL, NULL),
			 "0,2 | 0:2048 1:2048");
	/* One task with both cores split (GE's linear:2 as one task): 2 GiB
	 * of its 4 on each node. */
	ck_assert_str_eq(run(t, "explicit:0,0:1,0", 1, BND_M_CORES_STRICT, 4096, avail, NULL,
			     NULL), "0,2 | 0:2048 1:2048");
	avail[0] = 2000;
	s = run(t, "explicit:0,0:1,0", 1, BND_M_CORES_STRICT, 4096, avail, NULL, NULL);
	ck_assert_msg(!strncmp(s, "ENOFIT", 6), "%s", s);
	bnd_topology_free(t);
}
END_TEST

/* Every strategy: strict never overdraws a node, and refuses when no node
 * set can back the tasks; without memory it is plain placement. */
START_TEST(strict_every_strategy)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:2 pu:1");
	const char *reqs[] = { "linear:1", "striding:1:1", "packed:1", "balance:1", "pack:1",
			       "any:1", NULL };
	for (int i = 0; reqs[i]; i++) {
		uint64_t avail[4] = { 1000, 2048, 8192, 2048 };
		struct bnd_mem_result res;
		const char *s = run(t, reqs[i], 3, BND_M_CORES_STRICT, 3 * 2048, avail, NULL, &res);
		ck_assert_msg(strncmp(s, "ENOFIT", 6), "%s: %s", reqs[i], s);
		uint64_t sum = 0;
		for (int k = 0; k < res.nshares; k++) {
			int n = bnd_topology_numa_index(t, res.shares[k].node);
			ck_assert_msg(res.shares[k].mib <= avail[n], "%s: %s", reqs[i], s);
			ck_assert_msg(res.shares[k].node != 0, "%s: %s", reqs[i], s);
			sum += res.shares[k].mib;
		}
		ck_assert_msg(sum == 3 * 2048, "%s: %s", reqs[i], s);
		/* 4 tasks of 2 GiB: nodes 1 and 3 back one each, node 2 two
		 * (it has only 2 cores): 4 fit exactly (striding needs evenly
		 * spaced cores, which these are not). */
		if (!strncmp(reqs[i], "striding", 8))
			continue;
		s = run(t, reqs[i], 4, BND_M_CORES_STRICT, 4 * 2048, avail, NULL, NULL);
		ck_assert_msg(strncmp(s, "ENOFIT", 6), "%s: %s", reqs[i], s);
		ck_assert_msg(strstr(s, "1:2048 2:4096 3:2048"), "%s: %s", reqs[i], s);
		/* 5 cannot. */
		s = run(t, reqs[i], 5, BND_M_CORES_STRICT, 5 * 2048, avail, NULL, NULL);
		ck_assert_msg(!strncmp(s, "ENOFIT", 6), "%s: %s", reqs[i], s);
		s = run(t, reqs[i], 5, BND_M_CORES, 5 * 2048, avail, NULL, NULL);
		ck_assert_msg(strncmp(s, "ENOFIT", 6), "%s: %s", reqs[i], s);
	}
	/* No memory asked: plain placement, nothing reserved. */
	uint64_t none[4] = { 0, 0, 0, 0 };
	ck_assert_str_eq(run(t, "linear:1", 2, BND_M_CORES_STRICT, 0, none, NULL, NULL), "0-1 |");
	/* round_robin: accounted over the step's nodes, never blocks. */
	ck_assert_str_eq(run(t, "explicit:0,0:1,0", 1, BND_M_ROUND_ROBIN, 4096, none, NULL, NULL),
			 "0,4 | 0:2048 2:2048");
	bnd_topology_free(t);
}
END_TEST

START_TEST(nlocal_one_node)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:2 pu:1");
	uint64_t avail[4] = { 4096, 4096, 6000, 4096 };
	struct bnd_mem_result res;
	/* Implicit binding: one core per task, on the node with most free memory. */
	ck_assert_str_eq(run(t, "none", 2, BND_M_NLOCAL, 4096, avail, NULL, &res), "4-5 | 2:4096");
	ck_assert_int_eq(res.bind, 1);
	char nodes[64];
	bnd_mem_nodes_text(t, &res, nodes, sizeof(nodes));
	ck_assert_str_eq(nodes, "2");
	/* Node 2's cores taken: the next node that holds it all. */
	bnd_cpuset_t taken;
	bnd_cpuset_zero(&taken);
	bnd_cpuset_set(&taken, 4);
	ck_assert_str_eq(run(t, "none", 2, BND_M_NLOCAL, 4096, avail, &taken, &res), "0-1 | 0:4096");
	/* With a binding: used inside the chosen node. */
	ck_assert_str_eq(run(t, "linear:2", 1, BND_M_NLOCAL, 1000, avail, NULL, &res), "4-5 | 2:1000");
	bnd_topology_free(t);
}
END_TEST

START_TEST(nlocal_several_nodes)
{
	/* 3 tasks: no node has 3 cores; two nodes, nearest by distance. The
	 * 1.x XML's matrix: 0-1 at 20, the CPU-less node 2 at 40 (never chosen). */
	struct bnd_topology *t = tu_topo("tests/unit/topology/xml/hwloc1-cpuless-node.xml");
	uint64_t avail[3] = { 1000, 1000, 16000 };
	struct bnd_mem_result res;
	ck_assert_str_eq(run(t, "none", 3, BND_M_NLOCAL, 1500, avail, NULL, &res),
			 "0-2 | 0:750 1:750");
	ck_assert_int_eq(res.bind, 1);
	/* Memory short on every set: preferred, not bound. */
	ck_assert_str_eq(run(t, "none", 3, BND_M_NLOCAL, 3000, avail, NULL, &res),
			 "0-2 | 0:1500 1:1500");
	ck_assert_int_eq(res.bind, 0);
	char nodes[64];
	bnd_mem_nodes_text(t, &res, nodes, sizeof(nodes));
	ck_assert_str_eq(nodes, "0-1");
	/* More tasks than cores: no fit. */
	const char *s = run(t, "none", 5, BND_M_NLOCAL, 100, avail, NULL, &res);
	ck_assert_msg(!strncmp(s, "ENOFIT: --mbind=nlocal", 22), "%s", s);
	bnd_topology_free(t);

	/* 4 nodes, distances 10/12/20 like the QEMU guest: the nearest pair. */
	t = tu_topo("pack:2 numa:2 core:2 pu:1");
	t->has_dist = 1;
	int dist[16] = { 10, 12, 20, 20, 12, 10, 20, 20, 20, 20, 10, 12, 20, 20, 12, 10 };
	memcpy(t->numa_dist, dist, sizeof(dist));
	uint64_t four[4] = { 100, 100, 9000, 9000 };
	ck_assert_str_eq(run(t, "none", 3, BND_M_NLOCAL, 3000, four, NULL, &res),
			 "4-6 | 2:1500 3:1500");
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memplace");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, uge_example_one_node);
	tcase_add_test(tc, uge_example_split);
	tcase_add_test(tc, strict_without_free_cores_blames_the_cores);
	tcase_add_test(tc, strict_every_strategy);
	tcase_add_test(tc, nlocal_one_node);
	tcase_add_test(tc, nlocal_several_nodes);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
