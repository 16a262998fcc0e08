/* SMT: tasks Slurm put on one core's threads share that core's binding;
 * a request with a start core names the cores the step lacks. Topology
 * of the guest node: 2 sockets x 2 NUMA x 2 cores x 2 threads, core k =
 * cpus 2k,2k+1, socket 1 starts at core 4. */
#include <check.h>
#include <limits.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/step/stepfit.h"
#include "testutil.h"

#define SMT "pack:2 numa:2 core:2 pu:2"

static bnd_cpuset_t cpus(const char *list)
{
	bnd_cpuset_t c;
	char err[BND_ERRLEN];
	ck_assert_msg(bnd_cpuset_parse_list(&c, list, err, sizeof(err)) == BND_OK, "%s", err);
	return c;
}

static int share(struct bnd_topology *t, const char *domain, const char *usable,
		 const char *text, int ntasks)
{
	struct bnd_request r;
	char err[BND_ERRLEN];
	bnd_cpuset_t d = cpus(domain), u = cpus(usable);
	ck_assert_msg(bnd_request_parse(&r, text, err, sizeof(err)) == BND_OK, "%s", err);
	int n = bnd_step_share(t, &d, &u, &r, ntasks);
	bnd_request_clear(&r);
	return n;
}

START_TEST(tasks_on_one_cores_threads_share_it)
{
	struct bnd_topology *t = tu_topo(SMT);
	/* srun -n2 with CR_Core: one core, a task per thread */
	ck_assert_int_eq(share(t, "0-1", "0-1", "linear:1", 2), 2);
	ck_assert_int_eq(share(t, "0-3", "0-3", "linear:1", 4), 2);
	ck_assert_int_eq(share(t, "0-3", "0-3", "linear:1", 3), 2);
	ck_assert_int_eq(share(t, "0-1", "0-1", "explicit:0,0", 2), 2);
	ck_assert_int_eq(share(t, "0-1", "0-1", "striding:1:1", 2), 2);
	ck_assert_int_eq(share(t, "0-1", "0-1", "balance:1", 2), 2);
	ck_assert_int_eq(bnd_share_groups(3, 2), 2);
	ck_assert_int_eq(bnd_share_group_of(0, 2), 0);
	ck_assert_int_eq(bnd_share_group_of(1, 2), 0);
	ck_assert_int_eq(bnd_share_group_of(2, 2), 1);
	bnd_topology_free(t);
}
END_TEST

START_TEST(no_sharing_when_slurm_gave_a_core_per_task)
{
	struct bnd_topology *t = tu_topo(SMT);
	/* -n2 -c2: two cores, one each */
	ck_assert_int_eq(share(t, "0-3", "0-3", "linear:1", 2), 1);
	/* thread units fit the threads as they are */
	ck_assert_int_eq(share(t, "0-1", "0-1", "packed:1:unit=T", 2), 1);
	/* two cores per task do not fit one core even shared */
	ck_assert_int_eq(share(t, "0-1", "0-1", "linear:2", 2), 1);
	/* the site's first core is no reason to share: Slurm gave 4 cores
	 * for 4 tasks */
	ck_assert_int_eq(share(t, "0-7", "2-7", "linear:1", 4), 1);
	ck_assert_int_eq(share(t, "0-1", "0-1", "linear:1", 1), 1);
	bnd_topology_free(t);
}
END_TEST

static int missing(struct bnd_topology *t, const char *usable, const char *text, int ntasks,
		   char *out, size_t outlen, char *err)
{
	struct bnd_request r;
	bnd_cpuset_t u = cpus(usable);
	ck_assert_msg(bnd_request_parse(&r, text, err, BND_ERRLEN) == BND_OK, "%s", err);
	int rc = bnd_start_cores_missing(t, &u, &r, ntasks, out, outlen, err, BND_ERRLEN);
	bnd_request_clear(&r);
	return rc;
}

START_TEST(start_cores_outside_the_step_are_named)
{
	struct bnd_topology *t = tu_topo(SMT);
	char m[64], err[BND_ERRLEN];
	ck_assert_int_eq(missing(t, "0-7", "linear:1:1,0", 1, m, sizeof(m), err), BND_OK);
	ck_assert_str_eq(m, "1,0");
	ck_assert_int_eq(missing(t, "0-9", "linear:2:1,0", 1, m, sizeof(m), err), BND_OK);
	ck_assert_str_eq(m, "1,1");
	ck_assert_int_eq(missing(t, "0-3", "striding:2:2:0,0", 1, m, sizeof(m), err), BND_OK);
	ck_assert_str_eq(m, "0,2");
	ck_assert_int_eq(missing(t, "0-3", "linear:1:0,0", 2, m, sizeof(m), err), BND_OK);
	ck_assert_str_eq(m, "");
	ck_assert_int_eq(missing(t, "0-15", "linear:1:5,0", 1, m, sizeof(m), err), BND_ENOFIT);
	ck_assert_msg(strstr(err, "5,0 does not exist"), "%s", err);
	ck_assert_int_eq(missing(t, "0-15", "linear:2:1,3", 1, m, sizeof(m), err), BND_ENOFIT);
	ck_assert_msg(strstr(err, "past the last core"), "%s", err);
	ck_assert_int_eq(missing(t, "0-15", "linear:1", 1, m, sizeof(m), err), BND_EINVAL);
	bnd_topology_free(t);
}
END_TEST

/* A task count near INT_MAX (a batch step's comes from its environment):
 * groups and group sizes round up without overflowing, and no placement
 * of that many tasks is attempted. */
START_TEST(task_counts_near_int_max)
{
	struct bnd_topology *t = tu_topo(SMT);
	ck_assert_int_eq(bnd_share_groups(INT_MAX, 2), INT_MAX / 2 + 1);
	ck_assert_int_eq(bnd_share_groups(INT_MAX, 1), INT_MAX);
	ck_assert_int_eq(bnd_share_groups(INT_MAX, INT_MAX), 1);
	ck_assert_int_eq(bnd_share_group_of(INT_MAX - 1, 2), INT_MAX / 2);
	/* two cores: groups of INT_MAX/2 + 1 tasks, two groups */
	ck_assert_int_eq(share(t, "0-3", "0-3", "linear:1", INT_MAX), INT_MAX / 2 + 1);
	ck_assert_int_eq(share(t, "0-15", "0-15", "linear:1", INT_MAX), INT_MAX / 8 + 1);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stepfit");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, tasks_on_one_cores_threads_share_it);
	tcase_add_test(tc, no_sharing_when_slurm_gave_a_core_per_task);
	tcase_add_test(tc, start_cores_outside_the_step_are_named);
	tcase_add_test(tc, task_counts_near_int_max);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
