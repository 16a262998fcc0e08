/* The admin's implicit binding: how many packed units hold a step's CPUs
 * per task, for every unit level and kind, and that the request made from
 * it places exactly those CPUs. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/request/implicit.h"
#include "binding/request/request.h"
#include "binding/topology/unitsort.h"
#include "testutil.h"

static int amount(const struct bnd_topology *t, const char *unit, int cpt)
{
	char err[BND_ERRLEN] = "";
	int n = -1;
	int rc = bnd_implicit_amount(t, unit, cpt, &n, err, sizeof(err));
	ck_assert_msg(rc == BND_OK, "unit=%s cpt=%d: %s", unit, cpt, err);
	return n;
}

/* The implicit request built as data must equal the parse of its own
 * text, field by field: the constructor and the grammar agree. Returns the
 * text. */
static int implicit_text(const struct bnd_topology *t, const char *unit, int cpt, char *text,
			 size_t len, char *err, size_t errlen)
{
	struct bnd_request *built = calloc(1, sizeof(*built));
	struct bnd_request *parsed = calloc(1, sizeof(*parsed));
	int rc = bnd_implicit_request(t, unit, cpt, built, err, errlen);
	if (rc == BND_OK) {
		ck_assert_uint_lt(strlen(built->text), len);
		memcpy(text, built->text, strlen(built->text) + 1);
		ck_assert_int_eq(bnd_request_parse(parsed, built->text, err, errlen), BND_OK);
		ck_assert_int_eq(built->strategy, parsed->strategy);
		ck_assert_int_eq(built->instance, parsed->instance);
		ck_assert_int_eq(built->amount, parsed->amount);
		ck_assert_str_eq(built->unit, parsed->unit);
		ck_assert_int_eq(built->ptype, parsed->ptype);
		ck_assert_str_eq(built->sort, parsed->sort);
		ck_assert_int_eq(built->start_letter, parsed->start_letter);
		ck_assert_int_eq(built->stop_letter, parsed->stop_letter);
		ck_assert(!built->filter && !parsed->filter); /* implicit has no filter= */
		ck_assert_str_eq(built->text, parsed->text);
	}
	bnd_request_clear(built);
	bnd_request_clear(parsed);
	free(built);
	free(parsed);
	return rc;
}

START_TEST(cores_and_threads)
{
	/* 1 socket x 4 cores x 2 threads */
	struct bnd_topology *t = tu_topo("pack:1 core:4 pu:2");
	ck_assert_int_eq(amount(t, "C", 4), 2);
	ck_assert_int_eq(amount(t, "T", 4), 4);
	ck_assert_int_eq(amount(t, "CT", 4), 4);
	ck_assert_int_eq(amount(t, "C", 3), 2);   /* rounded up */
	ck_assert_int_eq(amount(t, "C", 1), 1);
	ck_assert_int_eq(amount(t, "C", 0), 1);   /* unknown counts as 1 */
	ck_assert_int_eq(amount(t, "C", -5), 1);
	ck_assert_int_eq(amount(t, "C", 9), 5);   /* more than the node: placement says so */
	ck_assert_int_eq(amount(t, "S", 8), 1);
	ck_assert_int_eq(amount(t, "S", 9), 2);
	ck_assert_int_eq(amount(t, "CS", 3), 1);
	/* no L3, L2 or NUMA in this description: X and N are sockets, Y cores */
	ck_assert_int_eq(amount(t, "X", 8), 1);
	ck_assert_int_eq(amount(t, "N", 9), 2);
	ck_assert_int_eq(amount(t, "Y", 3), 2);
	bnd_topology_free(t);
}
END_TEST

START_TEST(caches_and_numa)
{
	/* 2 sockets x 2 L3 x 2 cores x 2 threads: an L3 holds 4 threads */
	struct bnd_topology *t = tu_topo("pack:2 l3:2 core:2 pu:2");
	ck_assert_int_eq(amount(t, "X", 4), 1);
	ck_assert_int_eq(amount(t, "X", 5), 2);
	ck_assert_int_eq(amount(t, "CX", 8), 2);
	ck_assert_int_eq(amount(t, "S", 8), 1);
	bnd_topology_free(t);
	/* two NUMA nodes of 2 single-thread cores */
	t = tu_topo("numa:2 pack:1 core:2 pu:1");
	ck_assert_int_eq(amount(t, "N", 2), 1);
	ck_assert_int_eq(amount(t, "N", 3), 2);
	ck_assert_int_eq(amount(t, "C", 3), 3);
	ck_assert_int_eq(amount(t, "T", 3), 3);
	bnd_topology_free(t);
}
END_TEST

START_TEST(bad_units_and_missing_kinds)
{
	struct bnd_topology *t = tu_topo("pack:1 core:4 pu:2");
	char err[BND_ERRLEN];
	int n = 42;
	const char *bad[] = { "Q", "CC", "EE", "c", "", "CTX", "XC", "TS" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(bnd_implicit_amount(t, bad[i], 2, &n, err, sizeof(err)) == BND_EINVAL,
			      "unit \"%s\" accepted", bad[i]);
		ck_assert_msg(strstr(err, "not a packed unit"), "%s", err);
	}
	ck_assert_int_eq(bnd_implicit_amount(t, NULL, 2, &n, err, sizeof(err)), BND_EINVAL);
	/* no efficiency cores here */
	ck_assert_int_eq(bnd_implicit_amount(t, "E", 2, &n, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "default_unit=E") && strstr(err, "no efficiency units"), "%s", err);
	ck_assert_int_eq(bnd_implicit_amount(t, "ES", 2, &n, err, sizeof(err)), BND_EINVAL);
	ck_assert_int_eq(n, 42);
	bnd_topology_free(t);
}
END_TEST

/* bnd_packed_unit is the one reading of unit= (the packed strategy's and
 * implicit's): level and kind for every value, nothing for the rest. */
START_TEST(packed_unit_values)
{
	/* no L3 nor L2 level: X maps to S, Y to the core; one NUMA node */
	struct bnd_topology *t = tu_topo("pack:1 core:4 pu:2");
	const struct { const char *unit; int type, kind; } v[] = {
		{ "T", BND_U_PU, BND_KIND_POWER }, { "CT", BND_U_PU, BND_KIND_POWER },
		{ "ET", BND_U_PU, BND_KIND_EFFICIENCY }, { "C", BND_U_CORE, BND_KIND_POWER },
		{ "E", BND_U_CORE, BND_KIND_EFFICIENCY }, { "S", BND_U_SOCKET, BND_KIND_POWER },
		{ "CS", BND_U_SOCKET, BND_KIND_POWER }, { "ES", BND_U_SOCKET, BND_KIND_EFFICIENCY },
		{ "X", BND_U_SOCKET, BND_KIND_POWER }, { "EN", BND_U_NUMA, BND_KIND_EFFICIENCY },
		{ "Y", BND_U_CORE, BND_KIND_POWER }, { "EY", BND_U_CORE, BND_KIND_EFFICIENCY },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int type = -1, kind = -1;
		ck_assert_msg(bnd_packed_unit(t, v[i].unit, &type, &kind) == BND_OK, "%s", v[i].unit);
		ck_assert_msg(type == v[i].type && kind == v[i].kind, "%s: type %d kind %d",
			      v[i].unit, type, kind);
	}
	const char *bad[] = { "Q", "CC", "EE", "c", "", "CTX", "XC", "TS", "Ct", NULL };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int type = -1, kind = -1;
		ck_assert_msg(bnd_packed_unit(t, bad[i], &type, &kind) == BND_EINVAL, "%s accepted",
			      bad[i] ? bad[i] : "NULL");
	}
	bnd_topology_free(t);
}
END_TEST

/* The request text, and what it gets: the CPUs asked for, whole cores. */
START_TEST(request_places_the_cpus)
{
	struct bnd_topology *t = tu_topo("pack:2 core:4 pu:2");
	char text[64], err[BND_ERRLEN];
	bnd_cpuset_t cpus;
	char list[64];

	ck_assert_int_eq(implicit_text(t, "C", 4, text, sizeof(text), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(text, "packed:2:unit=C");
	ck_assert_str_eq(tu_place(t, NULL, text, 1, &cpus, err, sizeof(err)), "0,0 0,1");
	bnd_cpuset_format_list(&cpus, list, sizeof(list));
	ck_assert_str_eq(list, "0-3");

	ck_assert_int_eq(implicit_text(t, "T", 3, text, sizeof(text), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(text, "packed:3:unit=T");
	tu_place(t, NULL, text, 1, &cpus, err, sizeof(err));
	bnd_cpuset_format_list(&cpus, list, sizeof(list));
	ck_assert_str_eq(list, "0-2");

	/* two tasks of -c2, unit C: one core each */
	ck_assert_int_eq(implicit_text(t, "C", 2, text, sizeof(text), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(text, "packed:1:unit=C");
	ck_assert_str_eq(tu_place(t, NULL, text, 2, NULL, err, sizeof(err)), "0,0 | 0,1");

	/* a unit that is no packed unit is refused, naming it */
	struct bnd_request *r = calloc(1, sizeof(*r));
	ck_assert_int_eq(bnd_implicit_request(t, "CC", 4, r, err, sizeof(err)), BND_EINVAL);
	free(r);
	bnd_topology_free(t);
}
END_TEST

/* A hybrid machine: power cores have 2 threads, efficiency cores 1. */
START_TEST(raptorlake_hybrid)
{
	char *path = tu_topology_xml("Intel-Core-RaptorLake-1pa6co2t+2ca4co1t-hybrid.xml");
	if (!path)
		return;
	char text[64], err[BND_ERRLEN];
	struct bnd_topology *t = tu_topo(path);
	free(path);
	ck_assert_int_eq(amount(t, "C", 4), 2);
	ck_assert_int_eq(amount(t, "E", 4), 4);
	ck_assert_int_eq(amount(t, "ET", 4), 4);
	ck_assert_int_eq(amount(t, "CT", 4), 4);
	/* an E cluster (L2) holds 4 efficiency threads, a C one 2 */
	ck_assert_int_eq(amount(t, "EY", 5), 2);
	ck_assert_int_eq(amount(t, "Y", 5), 3);
	/* the socket's share of each kind: 12 power threads, 8 efficiency */
	ck_assert_int_eq(amount(t, "S", 12), 1);
	ck_assert_int_eq(amount(t, "ES", 9), 2);

	ck_assert_int_eq(implicit_text(t, "E", 2, text, sizeof(text), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(text, "packed:2:unit=E");
	/* the first two efficiency cores, never a power core */
	ck_assert_str_eq(tu_place(t, NULL, text, 1, NULL, err, sizeof(err)), "0,6 0,7");
	bnd_topology_free(t);
}
END_TEST

/* SLURM_CPUS_PER_TASK=2147483647 in a batch job's environment: the
 * division rounds up without overflowing, and the request is refused by
 * the grammar's bound, not built from a wrapped number. */
START_TEST(cpus_per_task_near_int_max)
{
	struct bnd_topology *t = tu_topo("pack:1 core:4 pu:2");
	ck_assert_int_eq(amount(t, "C", INT_MAX), INT_MAX / 2 + 1);
	ck_assert_int_eq(amount(t, "T", INT_MAX), INT_MAX);
	ck_assert_int_eq(amount(t, "S", INT_MAX), INT_MAX / 8 + 1);
	ck_assert_int_eq(amount(t, "C", INT_MAX - 1), (INT_MAX - 1) / 2);
	char text[64], err[BND_ERRLEN] = "";
	ck_assert_int_eq(implicit_text(t, "C", INT_MAX, text, sizeof(text), err, sizeof(err)),
			 BND_EINVAL);
	ck_assert_str_eq(err, "packed amount 1073741824 is not 1..1000000");
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("implicit");
	TCase *tc = tcase_create("implicit");
	tcase_add_test(tc, cores_and_threads);
	tcase_add_test(tc, caches_and_numa);
	tcase_add_test(tc, bad_units_and_missing_kinds);
	tcase_add_test(tc, packed_unit_values);
	tcase_add_test(tc, request_places_the_cpus);
	tcase_add_test(tc, raptorlake_hybrid);
	tcase_add_test(tc, cpus_per_task_near_int_max);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
