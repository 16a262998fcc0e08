/* OCS/GCS packed binding: issue 5's vectors, unit letters, sort, start/stop,
 * filter, type=node, power/efficiency, and the real hybrid and EPYC XMLs. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topostring.h"
#include "binding/topology/unitsort.h"
#include "testutil.h"
#include "testtopo.h"

#define T1 "pack:2 l3:1 core:4 pu:1" /* NSXCCCCSXCCCC */
#define M1 "NSXCCccSXCCCC"

static char last_err[BND_ERRLEN];

/* Places `text` with the mask's lower-case units taken: see tu_place. */
static const char *place(struct bnd_topology *t, const char *mask, const char *text,
			 int ntasks, bnd_cpuset_t *cpus)
{
	bnd_cpuset_t taken;
	char err[BND_ERRLEN] = "";

	bnd_cpuset_zero(&taken);
	if (mask)
		ck_assert_msg(bnd_topostring_parse_mask(t, mask, &taken, err, sizeof(err)) == BND_OK,
			      "%s", err);
	return tu_place(t, &taken, text, ntasks, cpus, last_err, sizeof(last_err));
}

static const char *place1(const char *topo, const char *mask, const char *text)
{
	struct bnd_topology *t = tu_topo(topo);
	const char *s = place(t, mask, text, 1, NULL);
	bnd_topology_free(t);
	return s;
}

static const char *cpulist(const bnd_cpuset_t *s)
{
	static char buf[1024];
	ck_assert_int_eq(bnd_cpuset_format_list(s, buf, sizeof(buf)), BND_OK);
	return buf;
}

START_TEST(ocs_string_of_the_vector_topology)
{
	struct bnd_topology *t = tu_topo(T1);
	char s[64];
	ck_assert_int_eq(bnd_topostring_format(t, BND_TOPO_OCS, NULL, s, sizeof(s)), BND_OK);
	ck_assert_str_eq(s, "NSXCCCCSXCCCC");
	bnd_topology_free(t);
}
END_TEST

START_TEST(issue_vectors)
{
	ck_assert_str_eq(place1(T1, M1, "packed:6"), "0,0 0,1 1,0 1,1 1,2 1,3");
	ck_assert_str_eq(place1(T1, M1, "packed:4:sort=S"), "1,0 1,1 1,2 1,3");
	ck_assert_str_eq(place1(T1, M1, "packed:4:sort=S:start=S:stop=s"), "1,0 1,1 1,2 1,3");
	ck_assert_str_eq(place1(T1, M1, "packed:6:sort=S:start=S:stop=s"), "ENOFIT");
	ck_assert_str_eq(place1(T1, M1, "packed:2:sort=S:start=s:stop=S"), "0,0 0,1");
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:3:filter=ScCCCScCCC"), "0,1 0,2 0,3");
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:6:filter=ScCCCScCCC"),
			 "0,1 0,2 0,3 1,1 1,2 1,3");
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:7:filter=ScCCCScCCC"), "ENOFIT");

	struct bnd_topology *t = tu_topo("pack:1 core:4 pu:2");
	bnd_cpuset_t cpus, core0;
	ck_assert_str_eq(place(t, NULL, "packed:2:unit=T", 1, &cpus), "0,0");
	bnd_topology_core_cpus(t, 0, &core0);
	ck_assert(bnd_cpuset_equal(&cpus, &core0));
	ck_assert_int_eq(bnd_cpuset_count(&cpus), 2);
	bnd_topology_free(t);
}
END_TEST

START_TEST(messages_for_no_binding)
{
	ck_assert_str_eq(place1(T1, M1, "packed:6:sort=S:start=S:stop=s"), "ENOFIT");
	ck_assert_str_eq(last_err, "packed: 6 free C units of power cores needed, 4 found between start and stop");
	/* every socket is partly used: no completely unused one to start at */
	ck_assert_str_eq(place1(T1, "NSXcCCCSXcCCC", "packed:1:start=S"), "ENOFIT");
	ck_assert_str_eq(last_err, "packed: start=S: no completely unused unit of that level");
	ck_assert_str_eq(place1(T1, NULL, "packed:1:sort=S:start=s"), "ENOFIT");
	ck_assert_str_eq(last_err, "packed: start=s: no partly or fully used unit of that level (sort=S)");
	ck_assert_str_eq(place1(T1, M1, "packed:8"), "ENOFIT");
	ck_assert_str_eq(last_err, "packed: 8 free C units of power cores needed, 6 found");
	/* more than the node has is refused before any strategy runs (place.c) */
	ck_assert_str_eq(place1(T1, NULL, "packed:9"), "ENOFIT");
	ck_assert_str_eq(last_err, "9 units needed (9 per task x 1 tasks), the node has 8 cpus");
}
END_TEST

/* What depends on the node is not a bad request: OCS leaves such a host
 * without a binding (a filter that does not match its layout, a start
 * that cannot be found), and a missing stop is the end of the string. */
START_TEST(topology_dependent_errors)
{
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:3:filter=ScCCC"), "ENOFIT");
	ck_assert_msg(strstr(last_err, "packed: filter does not match this node's topology") &&
		      strstr(last_err, "(expected filter=NSCCCCSCCCC"), "%s", last_err);
	/* the letters fit but not the layout */
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:3:filter=SSCCCCCCCC"), "ENOFIT");
	ck_assert_msg(strstr(last_err, "filter does not match"), "%s", last_err);
	/* the OCS form is accepted as well */
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:3:filter=NSCcCCSCCCC"), "0,0 0,2 0,3");

	/* start=E on a node without efficiency cores: no binding here */
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:1:start=E"), "ENOFIT");
	ck_assert_str_eq(last_err, "packed: start=E: this node has no such unit (its units: NSC)");
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:1:start=t"), "ENOFIT");
	/* no stop on the node: the walk goes to the end of the string */
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:1:stop=t"), "0,0");
	ck_assert_str_eq(place1("pack:2 core:4", NULL, "packed:8:stop=E"),
			 "0,0 0,1 0,2 0,3 1,0 1,1 1,2 1,3");
	ck_assert_str_eq(place1("pack:2 core:4", "NSCCCCScCCC", "packed:3:start=S:stop=e"),
			 "0,0 0,1 0,2");
	ck_assert_str_eq(place1("pack:2 core:2 pu:2", NULL, "packed:1:stop=t"), "0,0");
}
END_TEST

START_TEST(sort_orders)
{
	/* lower case: the most used socket first */
	ck_assert_str_eq(place1(T1, M1, "packed:2:sort=s"), "0,0 0,1");
	ck_assert_str_eq(place1(T1, "NSXCCCCSXCcCC", "packed:2:sort=s"), "1,0 1,2");
	/* cores within their parent: the used cores sort last, then the rest */
	ck_assert_str_eq(place1(T1, "NSXcCcCSXCCCC", "packed:3:sort=sC"), "0,1 0,3 1,0");
	/* socket 1 (1 of 4 used) before socket 0 (2 of 4) */
	ck_assert_str_eq(place1(T1, "NSXcCcCSXCCCc", "packed:2:sort=S"), "1,0 1,1");
	/* sorting is stable: equal utilisation keeps document order */
	ck_assert_str_eq(place1(T1, NULL, "packed:5:sort=Sc"), "0,0 0,1 0,2 0,3 1,0");
	/* a NUMA node around each socket moves with it */
	ck_assert_str_eq(place1("pack:2 numa:1 core:2", "NSCcNSCC", "packed:2:sort=S"), "1,0 1,1");
	ck_assert_str_eq(place1("pack:2 numa:1 core:2", "NSCcNSCC", "packed:2:sort=N"), "1,0 1,1");
	ck_assert_str_eq(place1("pack:2 numa:1 core:2", "NSCCNScC", "packed:1:sort=s"), "1,1");
}
END_TEST

START_TEST(unitorder_is_the_sorted_string)
{
	struct bnd_topology *t = tu_topo(T1);
	bool *used = calloc((size_t)t->npus, sizeof(bool));
	struct bnd_unitorder o;
	char err[BND_ERRLEN], s[64];
	used[2] = used[3] = true;
	ck_assert_int_eq(bnd_unitorder_build(&o, t, used, "Sc", err, sizeof(err)), BND_OK);
	/* letters in sorted order, lower case where anything below is used */
	int k;
	for (k = 0; k < o.n; k++) {
		const struct bnd_unit *u = &t->units[o.order[k]];
		static const char L[] = "?NSXYCT";
		char c = L[u->type];
		s[k] = bnd_unit_used(t, o.order[k], used) ? (char)(c | 0x20) : c;
		ck_assert_int_eq(o.pos[o.order[k]], k);
	}
	s[k] = 0;
	/* machine first (as '?'); every PU is a unit (T), printed or not */
	ck_assert_str_eq(s, "?nSXCTCTCTCTsxctctCTCT");
	ck_assert_int_eq(o.end[0], o.n);
	bnd_unitorder_free(&o);
	char e[BND_ERRLEN] = "";
	ck_assert_int_eq(bnd_unitorder_build(&o, t, used, "Q", e, sizeof(e)), BND_EINVAL);
	ck_assert_msg(strstr(e, "not a unit letter"), "%s", e);
	free(used);
	bnd_topology_free(t);
}
END_TEST

START_TEST(unit_levels)
{
	/* a whole socket, only when all its cores are free */
	ck_assert_str_eq(place1(T1, M1, "packed:1:unit=S"), "1,0 1,1 1,2 1,3");
	ck_assert_str_eq(place1(T1, M1, "packed:2:unit=S"), "ENOFIT");
	ck_assert_str_eq(place1(T1, NULL, "packed:1:unit=CX"), "0,0 0,1 0,2 0,3");
	/* no L3/L2 info: X maps to S, Y to C */
	ck_assert_str_eq(place1("pack:2 core:2", "NScCSCC", "packed:1:unit=X"), "1,0 1,1");
	ck_assert_str_eq(place1("pack:2 core:2", "NScCSCC", "packed:2:unit=Y"), "0,1 1,0");
	/* one NUMA node for the whole machine: all or nothing */
	ck_assert_str_eq(place1("pack:2 core:2", NULL, "packed:1:unit=N"), "0,0 0,1 1,0 1,1");
	ck_assert_str_eq(place1("pack:2 core:2", "NScCSCC", "packed:1:unit=N"), "ENOFIT");
	/* threads: a taken thread leaves its sibling usable */
	struct bnd_topology *t = tu_topo("pack:1 core:2 pu:2");
	bnd_cpuset_t cpus;
	ck_assert_str_eq(place(t, "NSCtTCTT", "packed:2:unit=T", 1, &cpus), "0,0 0,1");
	ck_assert_str_eq(cpulist(&cpus), "1-2");
	ck_assert_str_eq(place(t, "NSCtTCTT", "packed:2:unit=CT:sort=t", 1, &cpus), "0,0 0,1");
	ck_assert_str_eq(cpulist(&cpus), "1-2");
	/* a core unit needs all of its threads */
	ck_assert_str_eq(place(t, "NSCtTCTT", "packed:1", 1, &cpus), "0,1");
	ck_assert_str_eq(cpulist(&cpus), "2-3");
	/* no efficiency cores on this node: unit=E and ET find nothing */
	ck_assert_str_eq(place(t, NULL, "packed:1:unit=E", 1, NULL), "ENOFIT");
	ck_assert_msg(strstr(last_err, "efficiency cores"), "%s", last_err);
	ck_assert_str_eq(place(t, NULL, "packed:1:unit=ET", 1, NULL), "ENOFIT");
	bnd_topology_free(t);
}
END_TEST

START_TEST(start_and_stop_bound_the_walk)
{
	/* from the first used core to the end */
	ck_assert_str_eq(place1(T1, M1, "packed:4:start=c"), "1,0 1,1 1,2 1,3");
	/* up to the first used core: only two */
	ck_assert_str_eq(place1(T1, M1, "packed:2:stop=c"), "0,0 0,1");
	ck_assert_str_eq(place1(T1, M1, "packed:3:stop=c"), "ENOFIT");
	/* a unit must lie wholly inside start..stop: socket 1 starts after
	 * the stop at the second socket */
	ck_assert_str_eq(place1(T1, NULL, "packed:1:unit=S:start=S:stop=S"), "0,0 0,1 0,2 0,3");
	ck_assert_str_eq(place1(T1, NULL, "packed:2:unit=S:start=S:stop=S"), "ENOFIT");
	/* stop inside the start socket cuts the socket: not wholly inside */
	ck_assert_str_eq(place1(T1, M1, "packed:1:unit=S:stop=c"), "ENOFIT");
}
END_TEST

START_TEST(tasks_and_type_node)
{
	struct bnd_topology *t = tu_topo("pack:2 core:4");
	/* type=task: amount per task, consecutive groups */
	ck_assert_str_eq(place(t, NULL, "packed:2", 3, NULL), "0,0 0,1 | 0,2 0,3 | 1,0 1,1");
	/* type=node: amount for all tasks together, shared by each */
	ck_assert_str_eq(place(t, NULL, "packed:3:type=node", 2, NULL), "0,0 0,1 0,2 | 0,0 0,1 0,2");
	ck_assert_str_eq(place(t, NULL, "packed:3", 3, NULL), "ENOFIT");
	bnd_topology_free(t);
}
END_TEST

START_TEST(allowed_domain)
{
	struct bnd_topology *t = tu_topo(T1);
	struct bnd_request r;
	struct bnd_placement p;
	bnd_cpuset_t allowed;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_cpuset_parse_list(&allowed, "2-5", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_request_parse(&r, "packed:2:sort=S", err, sizeof(err)), BND_OK);
	struct bnd_domain dom = { &allowed, NULL, NULL };
	/* socket 1 has only 2 of 4 threads in the step, socket 0 2 of 4 too:
	 * equal utilisation keeps socket 0 first */
	ck_assert_int_eq(bnd_place(t, &dom, &r, 1, &p, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpulist(&p.all_cpus), "2-3");
	bnd_placement_free(&p);
	ck_assert_int_eq(bnd_request_parse(&r, "packed:3:sort=S", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_place(t, &dom, &r, 1, &p, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpulist(&p.all_cpus), "2-4");
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

START_TEST(raptorlake_power_and_efficiency)
{
	char *path = tu_topology_xml("Intel-Core-RaptorLake-1pa6co2t+2ca4co1t-hybrid.xml");
	if (!path)
		return;
	struct bnd_topology *t = tu_topo(path);
	int npower = 0, neff = 0;
	for (int c = 0; c < t->ncores; c++) {
		neff += t->cores[c].kind == BND_KIND_EFFICIENCY;
		npower += t->cores[c].kind == BND_KIND_POWER;
	}
	ck_assert_int_eq(npower, 6);
	ck_assert_int_eq(neff, 8);

	/* the OCS string shows the efficiency cores as E */
	char s[512];
	ck_assert_int_eq(bnd_topostring_format(t, BND_TOPO_OCS, NULL, s, sizeof(s)), BND_OK);
	int e = 0, c = 0;
	for (char *p = s; *p; p++) {
		e += *p == 'E';
		c += *p == 'C';
	}
	ck_assert_int_eq(e, 8);
	ck_assert_int_eq(c, 6);

	/* unit=E: only efficiency cores, all of them, and not one more */
	struct bnd_request r;
	struct bnd_placement p;
	char err[BND_ERRLEN], text[64];
	for (int amount = 1; amount <= 8; amount++) {
		snprintf(text, sizeof(text), "packed:%d:unit=E", amount);
		ck_assert_int_eq(bnd_request_parse(&r, text, err, sizeof(err)), BND_OK);
		ck_assert_int_eq(bnd_place(t, NULL, &r, 1, &p, err, sizeof(err)), BND_OK);
		ck_assert_int_eq(p.tasks[0].ncores, amount);
		for (int k = 0; k < p.tasks[0].ncores; k++)
			ck_assert_int_eq(t->cores[p.tasks[0].cores[k]].kind, BND_KIND_EFFICIENCY);
		bnd_placement_free(&p);
	}
	ck_assert_str_eq(place(t, NULL, "packed:9:unit=E", 1, NULL), "ENOFIT");
	/* unit=C: only power cores (6), never an efficiency core */
	for (int amount = 1; amount <= 6; amount++) {
		snprintf(text, sizeof(text), "packed:%d:unit=C", amount);
		ck_assert_int_eq(bnd_request_parse(&r, text, err, sizeof(err)), BND_OK);
		ck_assert_int_eq(bnd_place(t, NULL, &r, 1, &p, err, sizeof(err)), BND_OK);
		ck_assert_int_eq(p.tasks[0].ncores, amount);
		for (int k = 0; k < p.tasks[0].ncores; k++)
			ck_assert_int_eq(t->cores[p.tasks[0].cores[k]].kind, BND_KIND_POWER);
		bnd_placement_free(&p);
	}
	ck_assert_str_eq(place(t, NULL, "packed:7:unit=C", 1, NULL), "ENOFIT");
	/* E threads: one PU each of an efficiency core; the socket as ES */
	bnd_cpuset_t cpus, ecpus;
	bnd_cpuset_zero(&ecpus);
	for (int k = 0; k < t->ncores; k++)
		if (t->cores[k].kind == BND_KIND_EFFICIENCY) {
			bnd_cpuset_t one;
			bnd_topology_core_cpus(t, k, &one);
			bnd_cpuset_or(&ecpus, &one);
		}
	ck_assert_str_ne(place(t, NULL, "packed:8:unit=ET", 1, &cpus), "ENOFIT");
	ck_assert(bnd_cpuset_equal(&cpus, &ecpus));
	ck_assert_str_ne(place(t, NULL, "packed:1:unit=ES", 1, &cpus), "ENOFIT");
	ck_assert(bnd_cpuset_equal(&cpus, &ecpus));
	/* start at an unused E core: still never a power core */
	ck_assert_str_ne(place(t, NULL, "packed:2:unit=E:start=E", 1, &cpus), "ENOFIT");
	ck_assert(bnd_cpuset_subset(&cpus, &ecpus));
	bnd_topology_free(t);
	free(path);
}
END_TEST

START_TEST(epyc_one_l3)
{
	char *path = tu_topology_xml("AMD-Epyc-Zen2-2pa8ca4co+ib.xml");
	if (!path)
		return;
	struct bnd_topology *t = tu_topo(path);
	ck_assert_int_gt(t->nl3, t->nsockets); /* several L3 per socket */
	bnd_cpuset_t cpus, l3;
	const char *got = place(t, NULL, "packed:1:unit=X", 1, &cpus);
	ck_assert_str_ne(got, "ENOFIT");
	/* exactly the cores of the first L3 unit */
	int x = -1;
	for (int u = 0; u < t->nunits && x < 0; u++)
		if (t->units[u].type == BND_U_L3)
			x = u;
	tu_unit_cpus(t, x, &l3);
	ck_assert(bnd_cpuset_equal(&cpus, &l3));
	ck_assert_int_eq(bnd_cpuset_count(&cpus), t->units[x].pu_count);
	for (int c = 0; c < t->ncores; c++) {
		bnd_cpuset_t one;
		bnd_topology_core_cpus(t, c, &one);
		ck_assert(bnd_cpuset_subset(&one, &cpus) == (t->cores[c].l3 == t->cores[t->units[x].core_first].l3));
	}
	/* with one core of that L3 taken, the next whole L3 */
	char mask[4096];
	bnd_cpuset_t one;
	bnd_topology_core_cpus(t, t->units[x].core_first, &one);
	ck_assert_int_eq(bnd_topostring_format(t, BND_TOPO_OCS, &one, mask, sizeof(mask)), BND_OK);
	place(t, mask, "packed:1:unit=X", 1, &cpus);
	ck_assert(!bnd_cpuset_intersects(&cpus, &l3));
	ck_assert_int_eq(bnd_cpuset_count(&cpus), t->units[x].pu_count);
	bnd_topology_free(t);
	free(path);
}
END_TEST

/* Every real machine: a packed walk over all power cores one by one uses
 * each power core once; unit=X groups never straddle an L3. */
START_TEST(real_machines)
{
	char **xmls = tu_topology_xmls();
	if (!xmls)
		return;
	for (char **x = xmls; *x; x++) {
		struct bnd_topology *t = tu_topo(*x);
		int npower = 0;
		for (int c = 0; c < t->ncores; c++)
			npower += t->cores[c].kind == BND_KIND_POWER;
		char text[64];
		struct bnd_request r;
		struct bnd_placement p;
		char err[BND_ERRLEN];
		snprintf(text, sizeof(text), "packed:1:sort=Sc");
		ck_assert_int_eq(bnd_request_parse(&r, text, err, sizeof(err)), BND_OK);
		int rc = bnd_place(t, NULL, &r, npower, &p, err, sizeof(err));
		ck_assert_msg(rc == BND_OK, "%s: %s", *x, err);
		bnd_cpuset_t seen;
		bnd_cpuset_zero(&seen);
		for (int i = 0; i < p.ntasks; i++) {
			ck_assert_int_eq(p.tasks[i].ncores, 1);
			ck_assert_int_eq(t->cores[p.tasks[i].cores[0]].kind, BND_KIND_POWER);
			ck_assert(!bnd_cpuset_intersects(&seen, &p.tasks[i].cpus));
			bnd_cpuset_or(&seen, &p.tasks[i].cpus);
		}
		bnd_placement_free(&p);

		/* every unit letter, sorted both ways: the kind always holds */
		static const char *const units[] = { "T", "CT", "ET", "C", "E", "S", "CS", "ES",
						     "X", "CX", "EX", "Y", "CY", "EY", "N", "CN", "EN" };
		static const char *const sorts[] = { "NSXYCT", "nsxyct" };
		for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			for (int k = 0; k < 2; k++) {
				snprintf(text, sizeof(text), "packed:2:unit=%s:sort=%s", units[u], sorts[k]);
				ck_assert_int_eq(bnd_request_parse(&r, text, err, sizeof(err)), BND_OK);
				rc = bnd_place(t, NULL, &r, 1, &p, err, sizeof(err));
				ck_assert_msg(rc == BND_OK || rc == BND_ENOFIT, "%s %s: %s", *x, text, err);
				if (rc != BND_OK)
					continue;
				int want = units[u][0] == 'E' ? BND_KIND_EFFICIENCY : BND_KIND_POWER;
				for (int c = 0; c < p.tasks[0].ncores; c++)
					ck_assert_msg(t->cores[p.tasks[0].cores[c]].kind == want, "%s %s",
						      *x, text);
				bnd_placement_free(&p);
			}
		bnd_topology_free(t);
	}
	tu_free_list(xmls);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("strategy_packed");
	TCase *tc = tcase_create("packed");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ocs_string_of_the_vector_topology);
	tcase_add_test(tc, issue_vectors);
	tcase_add_test(tc, messages_for_no_binding);
	tcase_add_test(tc, topology_dependent_errors);
	tcase_add_test(tc, sort_orders);
	tcase_add_test(tc, unitorder_is_the_sorted_string);
	tcase_add_test(tc, unit_levels);
	tcase_add_test(tc, start_and_stop_bound_the_walk);
	tcase_add_test(tc, tasks_and_type_node);
	tcase_add_test(tc, allowed_domain);
	tcase_add_test(tc, raptorlake_power_and_efficiency);
	tcase_add_test(tc, epyc_one_l3);
	tcase_add_test(tc, real_machines);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
