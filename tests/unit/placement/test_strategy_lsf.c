/* LSF binding policies: issue 5's vectors (a job sequence emulated by
 * accumulating taken cpus), levels, loads, OS order, cpu lists. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topostring.h"
#include "testutil.h"

#define P2C4 "pack:2 core:4"

static char last_err[BND_ERRLEN];

/* Places `text` with `taken` (OS cpus, may be NULL) held by other jobs:
 * see tu_place. */
static const char *place(struct bnd_topology *t, const bnd_cpuset_t *taken, const char *text,
			 int ntasks, bnd_cpuset_t *cpus)
{
	return tu_place(t, taken, text, ntasks, cpus, last_err, sizeof(last_err));
}

static const char *cpulist(const bnd_cpuset_t *s)
{
	static char buf[1024];
	ck_assert_int_eq(bnd_cpuset_format_list(s, buf, sizeof(buf)), BND_OK);
	return buf;
}

static bnd_cpuset_t cpus_of(const char *list)
{
	bnd_cpuset_t s;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_cpuset_parse_list(&s, list, err, sizeof(err)), BND_OK);
	return s;
}

START_TEST(issue_vectors)
{
	struct bnd_topology *t = tu_topo(P2C4);
	bnd_cpuset_t held, job[3];
	bnd_cpuset_zero(&held);

	ck_assert_str_eq(place(t, &held, "balance:2", 1, NULL), "0,0 1,0");

	/* three pack:2 jobs in turn, each committed before the next */
	ck_assert_str_eq(place(t, &held, "pack:2", 1, &job[0]), "0,0 0,1");
	bnd_cpuset_or(&held, &job[0]);
	ck_assert_str_eq(place(t, &held, "pack:2", 1, &job[1]), "0,2 0,3");
	bnd_cpuset_or(&held, &job[1]);
	ck_assert_str_eq(place(t, &held, "pack:2", 1, &job[2]), "1,0 1,1");
	bnd_cpuset_or(&held, &job[2]);
	/* the first two end: socket 1 is the most loaded one that still fits */
	bnd_cpuset_andnot(&held, &job[0]);
	bnd_cpuset_andnot(&held, &job[1]);
	ck_assert_str_eq(cpulist(&held), "4-5");
	ck_assert_str_eq(place(t, &held, "pack:2", 1, NULL), "1,2 1,3");

	bnd_cpuset_t cpus;
	ck_assert_str_eq(place(t, NULL, "cpus:1,2,9", 1, &cpus), "0,1 0,2");
	ck_assert_str_eq(cpulist(&cpus), "1-2");
	ck_assert_str_eq(place(t, NULL, "cpus:9,10", 1, NULL), "ENOFIT");
	ck_assert_str_eq(last_err, "cpus: none of the listed cpus exists on this node (it has cpus 0-7)");
	bnd_topology_free(t);
}
END_TEST

START_TEST(balance_follows_load)
{
	struct bnd_topology *t = tu_topo(P2C4);
	bnd_cpuset_t held = cpus_of("0");
	/* socket 1 is less loaded */
	ck_assert_str_eq(place(t, &held, "balance:1", 1, NULL), "1,0");
	/* then 1 of 4 each: the lower socket; then socket 1 again */
	ck_assert_str_eq(place(t, &held, "balance:3", 1, NULL), "1,0 0,1 1,1");
	/* a whole step of tasks: balanced across sockets, in groups */
	ck_assert_str_eq(place(t, NULL, "balance:2", 2, NULL), "0,0 1,0 | 0,1 1,1");
	ck_assert_str_eq(place(t, &held, "balance:8", 1, NULL), "ENOFIT");
	ck_assert_str_eq(last_err, "balance: 8 free cores needed, 7 free");
	/* more than the node has is refused before any strategy runs (place.c) */
	ck_assert_str_eq(place(t, NULL, "balance:9", 1, NULL), "ENOFIT");
	ck_assert_str_eq(last_err, "9 units needed (9 per task x 1 tasks), the node has 8 cpus");
	bnd_topology_free(t);
}
END_TEST

START_TEST(pack_uses_few_sockets)
{
	struct bnd_topology *t = tu_topo(P2C4);
	bnd_cpuset_t held = cpus_of("0");
	/* nothing holds 5: empty the socket with most free first, then the
	 * rest in the most loaded socket that fits */
	ck_assert_str_eq(place(t, &held, "pack:5", 1, NULL), "1,0 1,1 1,2 1,3 0,1");
	ck_assert_str_eq(place(t, NULL, "pack:6", 1, NULL), "0,0 0,1 0,2 0,3 1,0 1,1");
	/* 3 fits in both; socket 0 is the more loaded */
	ck_assert_str_eq(place(t, &held, "pack:3", 1, NULL), "0,1 0,2 0,3");
	held = cpus_of("0-1,4");
	/* socket 0 (2 free, 2 of 4 used) fits 2 better than socket 1 */
	ck_assert_str_eq(place(t, &held, "pack:2", 1, NULL), "0,2 0,3");
	ck_assert_str_eq(place(t, &held, "pack:3", 1, NULL), "1,1 1,2 1,3");
	ck_assert_str_eq(place(t, &held, "pack:6", 1, NULL), "ENOFIT");
	ck_assert_str_eq(last_err, "pack: 6 free cores needed, 5 free");
	bnd_topology_free(t);
}
END_TEST

START_TEST(thread_level)
{
	struct bnd_topology *t = tu_topo("pack:2 core:2 pu:2");
	bnd_cpuset_t cpus;
	/* balance: least-loaded socket, then least-loaded core */
	ck_assert_str_eq(place(t, NULL, "balance:4:level=thread", 1, &cpus), "0,0 1,0 0,1 1,1");
	ck_assert_str_eq(cpulist(&cpus), "0,2,4,6");
	/* pack: fill one socket, a core at a time */
	ck_assert_str_eq(place(t, NULL, "pack:3:level=thread", 1, &cpus), "0,0 0,1");
	ck_assert_str_eq(cpulist(&cpus), "0-2");
	/* a thread held elsewhere leaves its sibling usable; pack prefers the
	 * most loaded core that fits */
	bnd_cpuset_t held = cpus_of("0");
	ck_assert_str_eq(place(t, &held, "pack:1:level=thread", 1, &cpus), "0,0");
	ck_assert_str_eq(cpulist(&cpus), "1");
	ck_assert_str_eq(place(t, &held, "balance:1:level=thread", 1, &cpus), "1,0");
	ck_assert_str_eq(cpulist(&cpus), "4");
	ck_assert_str_eq(place(t, &held, "any:2:level=thread", 1, &cpus), "0,0 0,1");
	ck_assert_str_eq(cpulist(&cpus), "1-2");
	/* at core level that core is not free */
	ck_assert_str_eq(place(t, &held, "any:1", 1, &cpus), "0,1");
	ck_assert_str_eq(cpulist(&cpus), "2-3");
	bnd_topology_free(t);
}
END_TEST

START_TEST(socket_level)
{
	struct bnd_topology *t = tu_topo(P2C4);
	bnd_cpuset_t held = cpus_of("2"), cpus;
	ck_assert_str_eq(place(t, NULL, "balance:1:level=socket", 1, &cpus), "0,0 0,1 0,2 0,3");
	ck_assert_str_eq(place(t, &held, "pack:1:level=socket", 1, &cpus), "1,0 1,1 1,2 1,3");
	ck_assert_str_eq(cpulist(&cpus), "4-7");
	ck_assert_str_eq(place(t, &held, "any:2:level=socket", 1, NULL), "ENOFIT");
	ck_assert_str_eq(last_err, "any: 2 free sockets needed, 1 free");
	bnd_topology_free(t);
}
END_TEST

/* ANY goes by OS cpu number, which is not the topology order on machines
 * that number the second threads after all first threads. */
START_TEST(any_in_os_order)
{
	const char *d = tu_topologies_dir();
	if (!d)
		return;
	char path[1024];
	snprintf(path, sizeof(path), "%s/Intel-Xeon-SandyBridge-2pa8co2t.xml", d);
	struct bnd_topology *t = tu_topo(path);
	ck_assert_int_eq(t->npus, 32);
	ck_assert_int_eq(t->pu_os[1], 16); /* core 0,0 has cpus 0 and 16 */
	bnd_cpuset_t cpus;
	ck_assert_str_eq(place(t, NULL, "any:3:level=thread", 1, &cpus), "0,0 0,1 0,2");
	ck_assert_str_eq(cpulist(&cpus), "0-2");
	ck_assert_str_eq(place(t, NULL, "any:2", 1, &cpus), "0,0 0,1");
	ck_assert_str_eq(cpulist(&cpus), "0-1,16-17");
	/* cpus: the listed threads only, not their cores */
	ck_assert_str_eq(place(t, NULL, "cpus:16,1", 1, &cpus), "0,1 0,0");
	ck_assert_str_eq(cpulist(&cpus), "1,16");
	bnd_topology_free(t);
}
END_TEST

START_TEST(cpu_lists)
{
	struct bnd_topology *t = tu_topo(P2C4);
	bnd_cpuset_t cpus, held = cpus_of("5");
	/* every task of the step shares the list */
	ck_assert_str_eq(place(t, NULL, "cpus:0,5,7", 2, &cpus), "0,0 1,1 1,3 | 0,0 1,1 1,3");
	ck_assert_str_eq(cpulist(&cpus), "0,5,7");
	/* a listed cpu another job holds: no binding */
	ck_assert_str_eq(place(t, &held, "cpus:4-6", 1, NULL), "ENOFIT");
	ck_assert_str_eq(last_err, "cpus: cpu 5 is held by another job or outside the step's cpus");
	ck_assert_str_eq(place(t, &held, "cpus:4,6-4000", 1, &cpus), "1,0 1,2 1,3");
	ck_assert_str_eq(cpulist(&cpus), "4,6-7");
	bnd_topology_free(t);
}
END_TEST

START_TEST(allowed_domain)
{
	struct bnd_topology *t = tu_topo(P2C4);
	struct bnd_request r;
	struct bnd_placement p;
	char err[BND_ERRLEN];
	bnd_cpuset_t allowed = cpus_of("3-5");
	struct bnd_domain dom = { &allowed, NULL, NULL };
	/* outside the step counts as load: socket 0 has 1 usable of 4,
	 * socket 1 2 of 4, so balance starts on socket 1 */
	ck_assert_int_eq(bnd_request_parse(&r, "balance:3", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_place(t, &dom, &r, 1, &p, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpulist(&p.all_cpus), "3-5");
	ck_assert_int_eq(p.tasks[0].cores[0], 4);
	bnd_placement_free(&p);
	ck_assert_int_eq(bnd_request_parse(&r, "any:4", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_place(t, &dom, &r, 1, &p, err, sizeof(err)), BND_ENOFIT);
	bnd_topology_free(t);
}
END_TEST

/* Every real machine: any:1 for each core, one task each, uses every core
 * once; balance over all cores likewise. */
START_TEST(real_machines)
{
	char **xmls = tu_topology_xmls();
	if (!xmls)
		return;
	static const char *const pol[] = { "any:1", "balance:1", "pack:1" };
	for (char **x = xmls; *x; x++) {
		struct bnd_topology *t = tu_topo(*x);
		for (size_t k = 0; k < sizeof(pol) / sizeof(pol[0]); k++) {
			struct bnd_request r;
			struct bnd_placement p;
			char err[BND_ERRLEN];
			ck_assert_int_eq(bnd_request_parse(&r, pol[k], err, sizeof(err)), BND_OK);
			int rc = bnd_place(t, NULL, &r, t->ncores, &p, err, sizeof(err));
			ck_assert_msg(rc == BND_OK, "%s %s: %s", *x, pol[k], err);
			tu_assert_each_core_once(t, &p, pol[k]);
			bnd_placement_free(&p);
		}
		bnd_topology_free(t);
	}
	tu_free_list(xmls);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("strategy_lsf");
	TCase *tc = tcase_create("lsf");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, issue_vectors);
	tcase_add_test(tc, balance_follows_load);
	tcase_add_test(tc, pack_uses_few_sockets);
	tcase_add_test(tc, thread_level);
	tcase_add_test(tc, socket_level);
	tcase_add_test(tc, any_in_os_order);
	tcase_add_test(tc, cpu_lists);
	tcase_add_test(tc, allowed_domain);
	tcase_add_test(tc, real_machines);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
