/* Affinity and memory policy applied to this very process, read back from
 * the kernel (/proc/self/status, get_mempolicy). Check forks each test, so
 * changes stay inside it. */
#include <check.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/task/apply.h"
#include "binding/util/error.h"
#include "testutil.h"

static void status_field(const char *name, char *out, size_t outlen)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[4096];
	size_t n = strlen(name);
	out[0] = '\0';
	ck_assert(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			char *v = line + n + 1;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, outlen, "%s", v);
		}
	fclose(f);
}

static void allowed_now(bnd_cpuset_t *s)
{
	char list[4096], err[BND_ERRLEN];
	status_field("Cpus_allowed_list", list, sizeof(list));
	ck_assert_int_eq(bnd_cpuset_parse_list(s, list, err, sizeof(err)), BND_OK);
}

START_TEST(affinity_one_cpu_read_back)
{
	bnd_cpuset_t all, one;
	char err[BND_ERRLEN] = "", got[64];
	allowed_now(&all);
	/* every allowed cpu in turn, so a wrong bit position cannot pass */
	for (int c = bnd_cpuset_next(&all, -1); c >= 0; c = bnd_cpuset_next(&all, c)) {
		bnd_cpuset_zero(&one);
		bnd_cpuset_set(&one, c);
		ck_assert_msg(bnd_apply_affinity(0, &one, err, sizeof(err)) == BND_OK, "%s", err);
		status_field("Cpus_allowed_list", got, sizeof(got));
		char want[16];
		snprintf(want, sizeof(want), "%d", c);
		ck_assert_str_eq(got, want);
		ck_assert_int_eq(sched_getcpu(), c);
		bnd_cpuset_t now;
		ck_assert_msg(bnd_affinity_get(0, &now, err, sizeof(err)) == BND_OK, "%s", err);
		ck_assert(bnd_cpuset_equal(&now, &one));
	}
	ck_assert_int_eq(bnd_apply_affinity(0, &all, err, sizeof(err)), BND_OK);
	bnd_cpuset_t back;
	allowed_now(&back);
	ck_assert(bnd_cpuset_equal(&back, &all));
}
END_TEST

START_TEST(affinity_refusals)
{
	bnd_cpuset_t s, before, after;
	char err[BND_ERRLEN] = "";
	allowed_now(&before);
	bnd_cpuset_zero(&s);
	ck_assert_int_eq(bnd_apply_affinity(0, &s, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "empty"), "%s", err);
	/* a cpu that does not exist here: the kernel refuses, nothing changes */
	bnd_cpuset_set(&s, BND_MAX_CPUS - 1);
	ck_assert_int_eq(bnd_apply_affinity(0, &s, err, sizeof(err)), BND_ESYS);
	ck_assert_msg(strstr(err, "4095") && strstr(err, "Invalid argument"), "%s", err);
	allowed_now(&after);
	ck_assert(bnd_cpuset_equal(&before, &after));
}
END_TEST

/* The kernel's view of this thread's policy: mode and node mask. */
static int kernel_policy(unsigned long *mask0)
{
	unsigned long mask[BND_MAX_CPUS / (8 * sizeof(unsigned long))];
	int mode = -1;
	memset(mask, 0, sizeof(mask));
	ck_assert_int_eq(get_mempolicy(&mode, mask, BND_MAX_CPUS + 1, NULL, 0), 0);
	*mask0 = mask[0];
	return mode & 0xff;
}

static struct bnd_topology *topo;
static bnd_cpuset_t node0_cpus;

static void load_here(void)
{
	topo = tu_topo(NULL);
	ck_assert_int_ge(topo->nnuma, 1);
	ck_assert_int_eq(topo->numa_os[0], 0);
	/* the first cpu of node 0: a task bound there has its memory on node 0 */
	bnd_cpuset_zero(&node0_cpus);
	bnd_cpuset_set(&node0_cpus, bnd_cpuset_next(&topo->numa_cpus[0], -1));
}

static void unload_here(void)
{
	bnd_topology_free(topo);
	topo = NULL;
}

START_TEST(mempolicy_cores_strict_binds_node0)
{
	char desc[64] = "", err[BND_ERRLEN] = "", back[64] = "";
	unsigned long m;
	load_here();
	ck_assert_int_eq(kernel_policy(&m), MPOL_DEFAULT);
	ck_assert_msg(bnd_apply_mempolicy(topo, BND_M_CORES_STRICT, &node0_cpus, desc,
					  sizeof(desc), err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_str_eq(desc, "bind:0");
	ck_assert_int_eq(kernel_policy(&m), MPOL_BIND);
	ck_assert_uint_eq(m, 1);
	ck_assert_int_eq(bnd_mempolicy_describe(back, sizeof(back), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(back, "bind:0");
	/* memory touched now really comes from node 0 */
	char *p = malloc(1 << 20);
	ck_assert(p);
	memset(p, 1, 1 << 20);
	int node = -1;
	ck_assert_int_eq(get_mempolicy(&node, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR), 0);
	ck_assert_int_eq(node, 0);
	free(p);
	unload_here();
}
END_TEST

START_TEST(mempolicy_cores_prefers_node0)
{
	char desc[64] = "", err[BND_ERRLEN] = "", back[64] = "";
	unsigned long m;
	load_here();
	ck_assert_int_eq(bnd_apply_mempolicy(topo, BND_M_CORES, &node0_cpus, desc, sizeof(desc),
					     err, sizeof(err)), BND_OK);
	ck_assert_str_eq(desc, "preferred:0");
	ck_assert_int_eq(kernel_policy(&m), MPOL_PREFERRED);
	ck_assert_uint_eq(m, 1);
	ck_assert_int_eq(bnd_mempolicy_describe(back, sizeof(back), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(back, "preferred:0");
	unload_here();
}
END_TEST

START_TEST(mempolicy_round_robin_interleaves_allowed_nodes)
{
	char desc[64] = "", err[BND_ERRLEN] = "", back[64] = "", mems[64];
	unsigned long m;
	load_here();
	ck_assert_int_eq(bnd_apply_mempolicy(topo, BND_M_ROUND_ROBIN, &node0_cpus, desc,
					     sizeof(desc), err, sizeof(err)), BND_OK);
	status_field("Mems_allowed_list", mems, sizeof(mems));
	char want[80];
	snprintf(want, sizeof(want), "interleave:%s", mems);
	ck_assert_str_eq(desc, want);
	ck_assert_int_eq(kernel_policy(&m), MPOL_INTERLEAVE);
	ck_assert_uint_ne(m & 1, 0);
	ck_assert_int_eq(bnd_mempolicy_describe(back, sizeof(back), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(back, want);
	unload_here();
}
END_TEST

START_TEST(mempolicy_none_nlocal_and_unbound)
{
	char desc[64] = "x", err[BND_ERRLEN] = "";
	unsigned long m;
	bnd_cpuset_t empty;
	load_here();
	ck_assert_int_eq(bnd_apply_mempolicy(topo, BND_M_NONE, &node0_cpus, desc, sizeof(desc),
					     err, sizeof(err)), BND_OK);
	ck_assert_str_eq(desc, "default");
	ck_assert_int_eq(kernel_policy(&m), MPOL_DEFAULT);
	ck_assert_int_eq(bnd_apply_mempolicy(topo, BND_M_NLOCAL, &node0_cpus, desc, sizeof(desc),
					     err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "nlocal") && strstr(err, "not supported yet"), "%s", err);
	ck_assert_int_eq(kernel_policy(&m), MPOL_DEFAULT);
	bnd_cpuset_zero(&empty);
	ck_assert_int_eq(bnd_apply_mempolicy(topo, BND_M_CORES_STRICT, &empty, desc, sizeof(desc),
					     err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "not bound"), "%s", err);
	ck_assert_int_eq(kernel_policy(&m), MPOL_DEFAULT);
	char back[64];
	ck_assert_int_eq(bnd_mempolicy_describe(back, sizeof(back), err, sizeof(err)), BND_OK);
	ck_assert_str_eq(back, "default");
	unload_here();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("apply");
	TCase *tc = tcase_create("apply");
	tcase_add_test(tc, affinity_one_cpu_read_back);
	tcase_add_test(tc, affinity_refusals);
	tcase_add_test(tc, mempolicy_cores_strict_binds_node0);
	tcase_add_test(tc, mempolicy_cores_prefers_node0);
	tcase_add_test(tc, mempolicy_round_robin_interleaves_allowed_nodes);
	tcase_add_test(tc, mempolicy_none_nlocal_and_unbound);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
