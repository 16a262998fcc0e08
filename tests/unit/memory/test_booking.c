/* numamem: each task's part of what Slurm booked (booking.h), on the QEMU
 * guest's shape (2 sockets x 2 NUMA nodes x 2 cores x 2 threads), with
 * the bookings Slurm 22.05 made there for 400 MiB jobs: whole (n0:400),
 * split (n0:50 + n1:350), and typed per task (n0:400, n1:400). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/memory/booking.h"
#include "binding/util/error.h"
#include "testutil.h"

#define GUEST "pack:2 numa:2 core:2 pu:2"

/* Places req for ntasks tasks (taken: OS cpus held), as the allocator
 * does not: plain placement; the parts follow from it. */
static struct bnd_placement place(const struct bnd_topology *t, const char *req, int ntasks,
				  const char *taken)
{
	struct bnd_placement p;
	struct bnd_request r;
	bnd_cpuset_t held;
	char err[BND_ERRLEN] = "";
	bnd_cpuset_zero(&held);
	if (taken)
		ck_assert_int_eq(bnd_cpuset_parse_list(&held, taken, NULL, 0), BND_OK);
	ck_assert_msg(bnd_request_parse(&r, req, err, sizeof(err)) == BND_OK, "%s", err);
	struct bnd_domain d = { NULL, &held, NULL };
	ck_assert_msg(bnd_place(t, &d, &r, ntasks, &p, err, sizeof(err)) == BND_OK, "%s", err);
	return p;
}

/* "0:400 | 1:50,2:350" for every task, with (s) for split, (r) remote. */
static const char *parts(const struct bnd_topology *t, const struct bnd_placement *p,
			 enum bnd_mbind m, const uint64_t *avail, uint64_t mib)
{
	static char out[512];
	size_t k = 0;
	out[0] = '\0';
	for (int i = 0; i < p->ntasks; i++) {
		struct bnd_booking_task bt;
		char txt[128];
		ck_assert_int_eq(bnd_booking_task_part(t, p, m, avail, mib, i, &bt), BND_OK);
		bnd_booking_task_text(&bt, txt, sizeof(txt));
		k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%s%s%s", i ? " | " : "", txt,
				      bt.split ? " (s)" : "", bt.remote ? " (r)" : "");
		if (bt.short_mib)
			k += (size_t)snprintf(out + k, sizeof(out) - k, " short %llu",
					      (unsigned long long)bt.short_mib);
	}
	return out;
}

START_TEST(booking_add_keeps_node_order)
{
	struct bnd_booking b = { 0 };
	char txt[128];
	ck_assert_int_eq(bnd_booking_add(&b, 3, 100), BND_OK);
	ck_assert_int_eq(bnd_booking_add(&b, 1, 50), BND_OK);
	ck_assert_int_eq(bnd_booking_add(&b, 3, 20), BND_OK);
	ck_assert_int_eq(bnd_booking_add(&b, 2, 0), BND_OK);
	ck_assert_int_eq(bnd_booking_add(&b, -1, 5), BND_EINVAL);
	bnd_booking_text(&b, txt, sizeof(txt));
	ck_assert_str_eq(txt, "1:50,3:120");
	for (int i = 0; i < BND_BOOKING_MAX; i++)
		bnd_booking_add(&b, 10 + i, 1);
	ck_assert_int_eq(b.n, BND_BOOKING_MAX);
	ck_assert_int_eq(bnd_booking_add(&b, 1000, 1), BND_EINVAL);
}
END_TEST

START_TEST(per_index_leaves_out_nodes_the_topology_lacks)
{
	struct bnd_topology *t = tu_topo(GUEST);
	struct bnd_booking b = { 0 };
	uint64_t left[4];
	bnd_booking_add(&b, 1, 350);
	bnd_booking_add(&b, 7, 10);
	ck_assert_uint_eq(bnd_booking_per_index(t, &b, left), 10);
	ck_assert_uint_eq(left[0], 0);
	ck_assert_uint_eq(left[1], 350);
	bnd_topology_free(t);
}
END_TEST

/* One task booked whole on n0, its core there: local, nothing split. */
START_TEST(a_whole_booking_is_local)
{
	struct bnd_topology *t = tu_topo(GUEST);
	uint64_t avail[4] = { 400, 0, 0, 0 };
	struct bnd_placement p = place(t, "linear:1", 1, NULL);
	ck_assert_str_eq(parts(t, &p, BND_M_CORES_STRICT, avail, 400), "0:400");
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* Slurm split 400 MiB as n0:50 + n1:350 and Slurm's core is on node 1:
 * its own node first, then the nearest other; the task gets both. */
START_TEST(a_split_booking_gives_both_nodes)
{
	struct bnd_topology *t = tu_topo(GUEST);
	uint64_t avail[4] = { 50, 350, 0, 0 };
	struct bnd_placement p = place(t, "linear:1", 1, "0-3");
	ck_assert_str_eq(parts(t, &p, BND_M_CORES_STRICT, avail, 400), "1:350,0:50 (s) (r)");
	int ns, nr;
	uint64_t demand[4];
	ck_assert_int_eq(bnd_booking_plan(t, &p, BND_M_CORES_STRICT, avail, 400, demand, &ns, &nr),
			 BND_OK);
	ck_assert_int_eq(ns, 1);
	ck_assert_int_eq(nr, 1);
	ck_assert_uint_eq(demand[0], 50);
	ck_assert_uint_eq(demand[1], 350);
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* Typed per task (n0:400, n1:400), cores on nodes 0 and 1: each task its
 * own node. With both cores on node 0 (Slurm's choice), the second task's
 * memory is where it was booked, not by its core. */
START_TEST(typed_per_task_parts_follow_the_cores)
{
	struct bnd_topology *t = tu_topo(GUEST);
	uint64_t avail[4] = { 400, 400, 0, 0 };
	struct bnd_placement p = place(t, "striding:1:2", 2, NULL);
	ck_assert_str_eq(parts(t, &p, BND_M_CORES_STRICT, avail, 800), "0:400 | 1:400");
	bnd_placement_free(&p);
	p = place(t, "linear:1", 2, NULL);
	ck_assert_str_eq(parts(t, &p, BND_M_CORES_STRICT, avail, 800), "0:400 | 1:400 (r)");
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* Less booked than the step asks: what is missing is reported. */
START_TEST(a_short_booking_is_reported)
{
	struct bnd_topology *t = tu_topo(GUEST);
	uint64_t avail[4] = { 300, 0, 0, 0 };
	struct bnd_placement p = place(t, "linear:1", 1, NULL);
	ck_assert_str_eq(parts(t, &p, BND_M_CORES, avail, 400), "0:300 short 100");
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* round_robin: every task interleaves over every booked node, evenly. */
START_TEST(round_robin_spreads_over_the_booking)
{
	struct bnd_topology *t = tu_topo(GUEST);
	uint64_t avail[4] = { 250, 250, 250, 250 };
	struct bnd_placement p = place(t, "linear:1", 2, NULL);
	ck_assert_str_eq(parts(t, &p, BND_M_ROUND_ROBIN, avail, 1000),
			 "0:125,1:125,2:125,3:125 | 0:125,1:125,2:125,3:125");
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* A node beyond the nearest ones is taken last: distances decide. */
START_TEST(the_nearest_booked_node_comes_next)
{
	struct bnd_topology *t = tu_topo(GUEST);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 0, 1) <= bnd_topology_numa_distance(t, 0, 2),
			 1);
	uint64_t avail[4] = { 100, 0, 200, 200 };
	struct bnd_placement p = place(t, "linear:1", 1, NULL);
	const char *s = parts(t, &p, BND_M_CORES_STRICT, avail, 400);
	ck_assert_msg(!strncmp(s, "0:100,", 6) && strstr(s, "(s)"), "%s", s);
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

START_TEST(too_many_numa_nodes_is_einval)
{
	struct bnd_topology *t = tu_topo("numa:65 core:1 pu:1");
	uint64_t avail[65] = { 0 };
	struct bnd_placement p = place(t, "linear:1", 1, NULL);
	struct bnd_booking_task bt;
	ck_assert_int_eq(bnd_booking_task_part(t, &p, BND_M_CORES, avail, 10, 0, &bt), BND_EINVAL);
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("booking");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, booking_add_keeps_node_order);
	tcase_add_test(tc, per_index_leaves_out_nodes_the_topology_lacks);
	tcase_add_test(tc, a_whole_booking_is_local);
	tcase_add_test(tc, a_split_booking_gives_both_nodes);
	tcase_add_test(tc, typed_per_task_parts_follow_the_cores);
	tcase_add_test(tc, a_short_booking_is_reported);
	tcase_add_test(tc, round_robin_spreads_over_the_booking);
	tcase_add_test(tc, the_nearest_booked_node_comes_next);
	tcase_add_test(tc, too_many_numa_nodes_is_einval);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
