/* state at its limits: a state file of 10000 records (a large node running
 * many small steps) and a 4096-PU topology (BND_MAX_CPUS) stay correct
 * through allocate, release, gc, list and the format round trip. Speed is
 * measured in bench/bench_state.c, never here. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/state/state.h"
#include "statetest.h"
#include "testutil.h"

#define NREC 10000
#define NACTIVE 4000 /* one cpu each: 0..3999; the others are suspended */
#define TOPO_4096 "pack:4 numa:2 core:256 pu:2"

static struct st_env env;

static void setup(void)
{
	st_setup(&env);
}

static void teardown(void)
{
	st_teardown(&env);
}

/* NREC records of live owners (this process): job i+1, step 0; the first
 * NACTIVE active on cpu i, the rest suspended on cpu i % 4096. Record
 * `dead_at` (if >= 0) is owned by a pid that has exited. */
static char *write_big_state(int dead_at, pid_t dead, size_t *len)
{
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	unsigned long long start = st_start_of(getpid());
	for (int i = 0; i < NREC; i++) {
		char cpu[16];
		snprintf(cpu, sizeof(cpu), "%d", i % 4096);
		struct bnd_state_record r = st_rec((uint32_t)i + 1, 0,
						   i == dead_at ? dead : getpid(), start, cpu);
		if (i >= NACTIVE)
			r.status = BND_ST_SUSPENDED;
		ck_assert_int_eq(bnd_statefile_add(&f, &r), BND_OK);
		bnd_state_record_free(&r);
	}
	char *text;
	*len = st_format(&f, NULL, &text);
	bnd_statefile_free(&f);
	st_write(st_path(&env, BND_STATE_FILE_NAME), text, *len);
	return text;
}

static pid_t dead_pid(void)
{
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(c, NULL, 0), c);
	return c;
}

START_TEST(ten_thousand_records_round_trip)
{
	st_make_dir(&env);
	size_t len;
	char *text = write_big_state(-1, 0, &len);

	struct bnd_state_file f;
	char why[256] = "";
	ck_assert_int_eq(bnd_statefile_parse(text, len, &f, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_int_eq(f.nrec, NREC);
	ck_assert_int_eq(f.rec[NREC - 1].job, NREC);
	ck_assert_int_eq(f.rec[NREC - 1].status, BND_ST_SUSPENDED);
	ck_assert(bnd_cpuset_isset(&f.rec[NREC - 1].cpus, (NREC - 1) % 4096));
	char *again;
	size_t alen;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_statefile_format(&f, &again, &alen, err, sizeof(err)) == BND_OK, "%s",
		      err);
	ck_assert_uint_eq(alen, len);
	ck_assert(!memcmp(again, text, len));
	free(again);
	bnd_statefile_free(&f);

	ck_assert_msg(bnd_state_list(&env.opts, &f, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(f.nrec, NREC);
	bnd_cpuset_t held;
	bnd_state_held(&f, 0, &held);
	ck_assert_int_eq(bnd_cpuset_count(&held), NACTIVE);
	bnd_statefile_free(&f);

	/* a gc with every owner alive rewrites nothing */
	int n = -1;
	ck_assert_msg(bnd_state_gc(&env.opts, &n, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(n, 0);
	size_t glen;
	char *after = st_read(st_path(&env, BND_STATE_FILE_NAME), &glen);
	ck_assert_uint_eq(glen, len);
	ck_assert(!memcmp(after, text, len));
	free(after);
	free(text);
	ck_assert_str_eq(env.log, "");
}
END_TEST

START_TEST(ten_thousand_records_allocate_release_gc)
{
	struct bnd_topology *t = tu_topo(TOPO_4096);
	ck_assert_int_eq(t->npus, 4096);
	st_make_dir(&env);
	pid_t dead = dead_pid();
	size_t len;
	char *text = write_big_state(NREC / 2, dead, &len);

	/* cpus 0-3999 are held: the first whole free core is 2000 (cpus
	 * 4000-4001). The dead owner's suspended record holds nothing this
	 * request needs: no transaction checks all 10000 owners, gc does. */
	struct bnd_alloc_args a = { .job = NREC + 1, .step = 0, .ntasks = 1, .uid = 1000 };
	struct bnd_placement p;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err,
					 sizeof(err)) == BND_OK, "%s", err);
	char cpus[64];
	ck_assert_int_eq(bnd_cpuset_format_list(&p.all_cpus, cpus, sizeof(cpus)), BND_OK);
	ck_assert_str_eq(cpus, "4000-4001");
	bnd_placement_free(&p);
	ck_assert_str_eq(env.log, "");
	struct bnd_state_file f;
	ck_assert_msg(bnd_state_list(&env.opts, &f, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(f.nrec, NREC + 1);
	ck_assert_int_eq(f.rec[NREC].job, NREC + 1);
	bnd_statefile_free(&f);
	int n = -1;
	ck_assert_int_eq(bnd_state_gc(&env.opts, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 1);
	char want[256];
	/* suspended: its record holds no cpus, whatever its line says */
	snprintf(want, sizeof(want), "state %s: reclaimed job %d step 0 (owner pid %d, cpus none): "
		 "owner is gone\n", env.dir, NREC / 2 + 1, (int)dead);
	ck_assert_str_eq(env.log, want);
	ck_assert_msg(bnd_state_list(&env.opts, &f, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(f.nrec, NREC);
	ck_assert_int_eq(f.rec[NREC - 1].job, NREC + 1);
	for (int i = 0; i < f.nrec - 1; i++)
		ck_assert_int_ne(f.rec[i].job, NREC / 2 + 1);
	bnd_statefile_free(&f);

	/* a step of an existing job: siblings never share, so the next core */
	a.job = 17;
	a.step = 1;
	ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err,
					 sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(bnd_cpuset_format_list(&p.all_cpus, cpus, sizeof(cpus)), BND_OK);
	ck_assert_str_eq(cpus, "4002-4003");
	bnd_placement_free(&p);

	ck_assert_int_eq(bnd_state_release(&env.opts, 17, 1, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(bnd_state_release(&env.opts, NREC + 1, 0, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(bnd_state_gc(&env.opts, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 0);

	/* what is left is the file written minus the dead owner's line */
	ck_assert_msg(bnd_state_list(&env.opts, &f, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(f.nrec, NREC - 1);
	for (int i = 0; i < f.nrec; i++) {
		uint32_t job = (uint32_t)(i < NREC / 2 ? i + 1 : i + 2);
		ck_assert_int_eq(f.rec[i].job, job);
		ck_assert(bnd_cpuset_isset(&f.rec[i].cpus, (int)(job - 1) % 4096));
		ck_assert_int_eq(bnd_cpuset_count(&f.rec[i].cpus), 1);
	}
	bnd_statefile_free(&f);
	free(text);
	bnd_topology_free(t);
}
END_TEST

/* One step takes every core of the 4096-PU node as 2048 one-core tasks:
 * the record of 2048 task lists round-trips, the next step finds no room,
 * and after the release the whole node is free again. */
START_TEST(whole_4096_pu_node)
{
	struct bnd_topology *t = tu_topo(TOPO_4096);
	ck_assert_int_eq(t->npus, 4096);
	ck_assert_int_eq(t->ncores, 2048);
	struct bnd_alloc_args a = { .job = 1, .step = 0, .ntasks = 2048, .uid = 1000 };
	struct bnd_placement p;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err,
					 sizeof(err)) == BND_OK, "%s", err);
	tu_assert_each_core_once(t, &p, "linear:1 x 2048 on " TOPO_4096);
	ck_assert_int_eq(bnd_cpuset_count(&p.all_cpus), 4096);

	struct bnd_state_file f;
	ck_assert_msg(bnd_state_list(&env.opts, &f, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(f.nrec, 1);
	ck_assert_int_eq(f.rec[0].ntasks, 2048);
	for (int i = 0; i < 2048; i++)
		ck_assert(bnd_cpuset_equal(&f.rec[0].tasks[i], &p.tasks[i].cpus));
	bnd_statefile_free(&f);
	bnd_placement_free(&p);

	a.job = 2;
	a.ntasks = 1;
	ck_assert_int_eq(bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err,
					    sizeof(err)), BND_ENOFIT);
	int n = -1;
	ck_assert_int_eq(bnd_state_release(&env.opts, 1, 0, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 1);
	ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req("linear:1"), &a, &p, err,
					 sizeof(err)) == BND_OK, "%s", err);
	char cpus[64];
	ck_assert_int_eq(bnd_cpuset_format_list(&p.all_cpus, cpus, sizeof(cpus)), BND_OK);
	ck_assert_str_eq(cpus, "0-1");
	bnd_placement_free(&p);
	ck_assert_str_eq(env.log, "");
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("state_limits");
	TCase *tc = tcase_create("state_limits");
	/* a hang guard only: ASan on a loaded 2-CPU machine is slow */
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ten_thousand_records_round_trip);
	tcase_add_test(tc, ten_thousand_records_allocate_release_gc);
	tcase_add_test(tc, whole_4096_pu_node);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
