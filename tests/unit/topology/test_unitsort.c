/* The unit order of OCS's sort=: the latency order of NUMA nodes after the
 * first one (sge_binding(5), "After the first NUMA node latency order will
 * be preferred"), and letters a node lacks are ignored.
 *
 * xml/quadrant-4numa.xml is `lstopo --input "pack:4 numa:1(memory=1GiB)
 * l3:2 core:2 pu:1" --of xml` with a 2x2-mesh latency matrix added by
 * `hwloc-annotate ... -- root -- distances FILE` (kind 5, OS latency):
 * node 0 is 20 from nodes 1 and 2 and 30 from node 3; node 1 is 20 from 0
 * and 3, 30 from 2. The document's N1..N4 are nodes 0..3 here. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/topology/topostring.h"
#include "binding/topology/unitsort.h"
#include "binding/util/error.h"
#include "testutil.h"

#define QUAD "tests/unit/topology/xml/quadrant-4numa.xml"
#define QUAD_SYNTH "pack:4 numa:1 l3:2 core:2 pu:1" /* the same, no matrix */
/* The document's load: N1 "NSxccXCC" (2 of 4 cores used), N2 and N4
 * idle, N3 "NSXcCXCC" (1 used). */
#define QUAD_MASK "NSxccXCCNSXCCXCCNSXcCXCCNSXCCXCC"

static bool *used_of(const struct bnd_topology *t, const char *mask)
{
	bnd_cpuset_t taken;
	char err[BND_ERRLEN] = "";
	bool *used = calloc((size_t)t->npus + 1, sizeof(bool));
	ck_assert_ptr_nonnull(used);
	ck_assert_msg(bnd_topostring_parse_mask(t, mask, &taken, err, sizeof(err)) == BND_OK, "%s",
		      err);
	for (int p = 0; p < t->npus; p++)
		used[p] = bnd_cpuset_isset(&taken, t->pu_os[p]);
	return used;
}

/* The OS ids of the NUMA nodes in sorted order, "1 0 3 2"; with `string`,
 * the whole sorted OCS string instead (a container lower case once every
 * thread below it is used, as topostring.h prints). */
static const char *sorted(const char *topo, const char *mask, const char *sort, bool string)
{
	static char out[256];
	struct bnd_topology *t = tu_topo(topo);
	bool *used = used_of(t, mask);
	struct bnd_unitorder o;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_unitorder_build(&o, t, used, sort, err, sizeof(err)) == BND_OK, "%s", err);
	size_t k = 0;
	for (int i = 0; i < o.n && k + 4 < sizeof(out); i++) {
		const struct bnd_unit *u = &t->units[o.order[i]];
		if (!string) {
			if (u->type == BND_U_NUMA)
				k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%d", k ? " " : "",
						      u->os_index);
			continue;
		}
		if (u->type == BND_U_MACHINE ||
		    (u->type == BND_U_PU && t->cores[t->pu_core[u->index]].npus < 2))
			continue;
		char c = bnd_unit_type_letter(u->type, u->kind);
		int nu = bnd_unit_used(t, o.order[i], used);
		bool low = u->type == BND_U_CORE ? nu > 0 : nu == u->pu_count && nu > 0;
		out[k++] = low ? (char)(c | 0x20) : c;
	}
	out[k] = '\0';
	bnd_unitorder_free(&o);
	free(used);
	bnd_topology_free(t);
	return out;
}

START_TEST(matrix_from_the_xml)
{
	struct bnd_topology *t = tu_topo(QUAD);
	ck_assert_int_eq(t->nnuma, 4);
	ck_assert(t->has_dist);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 0, 1), 20);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 0, 2), 20);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 0, 3), 30);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 1, 2), 30);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 1, 3), 20);
	char s[64];
	ck_assert_int_eq(bnd_topostring_format(t, BND_TOPO_OCS, NULL, s, sizeof(s)), BND_OK);
	ck_assert_str_eq(s, "NSXCCXCCNSXCCXCCNSXCCXCCNSXCCXCC");
	bnd_topology_free(t);
}
END_TEST

/* sge_binding(5), Example 11: "-" keeps N1 N2 N3 N4; "NXC" and "Nxc" give
 * N2 => N1/N4 => N3: N2 is idle (the least used, before the idle N4 by
 * document order), then N1 and N4 at the same distance from N2 in
 * document order (the loaded N1 first), then N3, the far one. */
START_TEST(document_quadrant_example)
{
	ck_assert_str_eq(sorted(QUAD, QUAD_MASK, "", false), "0 1 2 3");
	ck_assert_str_eq(sorted(QUAD, QUAD_MASK, "NXC", false), "1 0 3 2");
	ck_assert_str_eq(sorted(QUAD, QUAD_MASK, "Nxc", false), "1 0 3 2");
	/* The whole strings: within each node X and C sort by load, idle
	 * first (NXC) or used first (Nxc); the document writes the same
	 * orders, with its own upper/lower case. */
	ck_assert_str_eq(sorted(QUAD, QUAD_MASK, "NXC", true),
			 "NSXCCXCCNSXCCxccNSXCCXCCNSXCCXCc");
	ck_assert_str_eq(sorted(QUAD, QUAD_MASK, "Nxc", true),
			 "NSXCCXCCNSxccXCCNSXCCXCCNSXcCXCC");
}
END_TEST

START_TEST(latency_after_the_first_node_only)
{
	/* lower case: the most used node first (N1), then its neighbours
	 * N2/N3, then N4 */
	ck_assert_str_eq(sorted(QUAD, QUAD_MASK, "n", false), "0 1 2 3");
	/* N4 the most used: then its neighbours N2/N3 at 20, N1 at 30 */
	ck_assert_str_eq(sorted(QUAD, "NSXCCXCCNSXCCXCCNSXCCXCCNSxccXCC", "n", false),
			 "3 1 2 0");
	/* sort=S moves the N around each socket: the same NUMA order */
	ck_assert_str_eq(sorted(QUAD, QUAD_MASK, "S", false), "1 0 3 2");
	/* without a matrix load alone decides: N2, N4 idle, N3, N1 */
	ck_assert_str_eq(sorted(QUAD_SYNTH, QUAD_MASK, "N", false), "1 3 2 0");
	ck_assert_str_eq(sorted(QUAD_SYNTH, QUAD_MASK, "n", false), "0 2 1 3");
}
END_TEST

/* A matrix that gives every other node the same distance from the first
 * says nothing about latency: load decides, as without a matrix. */
START_TEST(uniform_matrix_keeps_the_load_order)
{
	struct bnd_topology *t = tu_topo(QUAD);
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			t->numa_dist[a * 4 + b] = a == b ? 10 : 21;
	bool *used = used_of(t, QUAD_MASK);
	struct bnd_unitorder o;
	char err[BND_ERRLEN] = "", s[16] = "";
	ck_assert_int_eq(bnd_unitorder_build(&o, t, used, "N", err, sizeof(err)), BND_OK);
	size_t k = 0;
	for (int i = 0; i < o.n; i++)
		if (t->units[o.order[i]].type == BND_U_NUMA)
			s[k++] = (char)('0' + t->units[o.order[i]].os_index);
	s[k] = '\0';
	ck_assert_str_eq(s, "1320");
	bnd_unitorder_free(&o);
	free(used);
	bnd_topology_free(t);
}
END_TEST

/* Through the packed walk: 8 cores, sort=N, on the document's load. By
 * load alone the idle N2 and N4 would give all 8; latency puts the loaded
 * N1 second, so its 2 free cores come before N4's. */
START_TEST(packed_walk_follows_the_latency_order)
{
	struct bnd_topology *t = tu_topo(QUAD);
	bnd_cpuset_t taken;
	char err[BND_ERRLEN] = "";
	ck_assert_int_eq(bnd_topostring_parse_mask(t, QUAD_MASK, &taken, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(tu_place(t, &taken, "packed:8:sort=N", 1, NULL, err, sizeof(err)),
			 "1,0 1,1 1,2 1,3 0,2 0,3 3,0 3,1");
	bnd_topology_free(t);
	t = tu_topo(QUAD_SYNTH);
	ck_assert_str_eq(tu_place(t, &taken, "packed:8:sort=N", 1, NULL, err, sizeof(err)),
			 "1,0 1,1 1,2 1,3 3,0 3,1 3,2 3,3");
	bnd_topology_free(t);
}
END_TEST

/* OCS: "Letters corresponding to unit types not present on a host are
 * ignored." Before, X without an L3 sorted the sockets and E sorted the
 * power cores. */
START_TEST(letters_the_node_lacks_are_ignored)
{
	const char *mask = "NScCCCSCCCC";
	ck_assert_str_eq(sorted("pack:2 core:4", mask, "X", true), "NScCCCSCCCC");
	ck_assert_str_eq(sorted("pack:2 core:4", mask, "S", true), "NSCCCCScCCC");
	ck_assert_str_eq(sorted("pack:2 core:4", mask, "E", true), "NScCCCSCCCC");
	ck_assert_str_eq(sorted("pack:2 core:4", mask, "C", true), "NSCCCcSCCCC");
	/* T without SMT, nothing to sort either */
	ck_assert_str_eq(sorted("pack:2 core:4", mask, "T", true), "NScCCCSCCCC");
	/* a letter that is no unit letter is still an error */
	struct bnd_topology *t = tu_topo("pack:2 core:4");
	bool *used = used_of(t, mask);
	struct bnd_unitorder o;
	char err[BND_ERRLEN] = "";
	ck_assert_int_eq(bnd_unitorder_build(&o, t, used, "Q", err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "not a unit letter"), "%s", err);
	free(used);
	bnd_topology_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("unitsort");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, matrix_from_the_xml);
	tcase_add_test(tc, document_quadrant_example);
	tcase_add_test(tc, latency_after_the_first_node_only);
	tcase_add_test(tc, uniform_matrix_keeps_the_load_order);
	tcase_add_test(tc, packed_walk_follows_the_latency_order);
	tcase_add_test(tc, letters_the_node_lacks_are_ignored);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
