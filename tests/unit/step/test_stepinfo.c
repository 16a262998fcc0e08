/* Slurm's strings in our terms: abstract core lists, tasks per node, host
 * lists, and the cgroup cpuset of a process (on a fake cgroup tree). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/step/stepinfo.h"
#include "testutil.h"

static const char *cpus_text(const bnd_cpuset_t *s)
{
	static char buf[256];
	ck_assert_int_eq(bnd_cpuset_format_list(s, buf, sizeof(buf)), BND_OK);
	return buf;
}

START_TEST(core_lists_map_to_all_threads)
{
	/* 2 sockets x 2 cores x 2 threads: synthetic numbering puts a core's
	 * threads next to each other, so Slurm core k = cpus 2k, 2k+1 */
	struct bnd_topology *t = tu_topo("pack:2 core:2 pu:2");
	bnd_cpuset_t c;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_slurm_cores_to_cpus(t, "0", &c, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus_text(&c), "0-1");
	ck_assert_int_eq(bnd_slurm_cores_to_cpus(t, "1,3", &c, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus_text(&c), "2-3,6-7");
	ck_assert_int_eq(bnd_slurm_cores_to_cpus(t, "0-3", &c, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus_text(&c), "0-7");
	ck_assert_int_eq(bnd_whole_cores_in(t, &c), 4);
	ck_assert_int_eq(bnd_slurm_cores_to_cpus(t, "4", &c, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "core 4") && strstr(err, "4 cores"), "%s", err);
	ck_assert_int_eq(bnd_slurm_cores_to_cpus(t, "0-x", &c, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "0-x"), "%s", err);
	ck_assert_int_eq(bnd_slurm_cores_to_cpus(t, "", &c, err, sizeof(err)), BND_EINVAL);
	ck_assert_int_eq(bnd_slurm_cores_to_cpus(t, NULL, &c, err, sizeof(err)), BND_EINVAL);
	/* half a core is not a whole core */
	bnd_cpuset_t half = c;
	ck_assert_int_eq(bnd_cpuset_parse_list(&half, "0-2", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_whole_cores_in(t, &half), 1);
	bnd_topology_free(t);
}
END_TEST

START_TEST(core_lists_follow_socket_major_order)
{
	/* A real machine whose OS numbering interleaves sockets would show
	 * that Slurm's core 1 is not cpu 1; a synthetic one numbers in order,
	 * so check the mapping against the topology's own core table. */
	struct bnd_topology *t = tu_topo("pack:2 core:3");
	char err[BND_ERRLEN];
	for (int k = 0; k < t->ncores; k++) {
		char list[16];
		bnd_cpuset_t c, want;
		snprintf(list, sizeof(list), "%d", k);
		ck_assert_int_eq(bnd_slurm_cores_to_cpus(t, list, &c, err, sizeof(err)), BND_OK);
		bnd_topology_core_cpus(t, k, &want);
		ck_assert(bnd_cpuset_equal(&c, &want));
		ck_assert_int_eq(t->cores[k].socket, k / 3);
		ck_assert_int_eq(t->cores[k].core, k % 3);
	}
	bnd_topology_free(t);
}
END_TEST

START_TEST(tasks_per_node)
{
	int n = -1;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_tasks_per_node_at("2", 0, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(bnd_tasks_per_node_at("2(x3),1", 2, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(bnd_tasks_per_node_at("2(x3),1", 3, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(bnd_tasks_per_node_at("4,1(x2),3", 3, &n, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(bnd_tasks_per_node_at("2(x3),1", 4, &n, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "no node 4"), "%s", err);
	ck_assert_int_eq(bnd_tasks_per_node_at("2(3)", 0, &n, err, sizeof(err)), BND_EINVAL);
	ck_assert_int_eq(bnd_tasks_per_node_at("x", 0, &n, err, sizeof(err)), BND_EINVAL);
	ck_assert_int_eq(bnd_tasks_per_node_at("2;1", 1, &n, err, sizeof(err)), BND_EINVAL);
	/* Found by fuzz_stepinfo: a repeat near INT_MAX after the first group
	 * overflowed the running node count (UB; read as "no node 5"). */
	ck_assert_int_eq(bnd_tasks_per_node_at("1(x5),2(x2147483647)", 5, &n, err, sizeof(err)),
			 BND_OK);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(bnd_tasks_per_node_at("1(x2147483647),3(x2147483647)", 2147483647, &n,
					       err, sizeof(err)), BND_OK);
	ck_assert_int_eq(n, 3);

	ck_assert_int_eq(bnd_batch_tasks("2", "2"), 2);
	ck_assert_int_eq(bnd_batch_tasks("3(x2)", "6"), 3);
	ck_assert_int_eq(bnd_batch_tasks("", "5"), 5);
	ck_assert_int_eq(bnd_batch_tasks(NULL, NULL), 1);
	ck_assert_int_eq(bnd_batch_tasks("junk", "junk"), 1);
	ck_assert_int_eq(bnd_batch_tasks("0", "0"), 1);

	/* the job's -c for a batch script; anything but a number >= 1 is 1 */
	ck_assert_int_eq(bnd_batch_cpus_per_task("4"), 4);
	ck_assert_int_eq(bnd_batch_cpus_per_task(NULL), 1);
	ck_assert_int_eq(bnd_batch_cpus_per_task(""), 1);
	ck_assert_int_eq(bnd_batch_cpus_per_task("0"), 1);
	ck_assert_int_eq(bnd_batch_cpus_per_task("2x"), 1);
	ck_assert_int_eq(bnd_batch_cpus_per_task("-3"), 1);
	ck_assert_int_eq(bnd_batch_cpus_per_task("99999999999"), 1);
}
END_TEST

START_TEST(host_names)
{
	ck_assert_int_eq(bnd_hostname_valid("n1"), 1);
	ck_assert_int_eq(bnd_hostname_valid("e2e-x7Q.example_org"), 1);
	ck_assert_int_eq(bnd_hostname_valid(""), 0);
	ck_assert_int_eq(bnd_hostname_valid(NULL), 0);
	ck_assert_int_eq(bnd_hostname_valid("n1\nrank 9=evil"), 0);
	ck_assert_int_eq(bnd_hostname_valid("n1 x"), 0);
	ck_assert_int_eq(bnd_hostname_valid("n1=2"), 0);
	ck_assert_int_eq(bnd_hostname_valid("n1\t"), 0);
	ck_assert_int_eq(bnd_hostname_valid("-n1"), 0);
	ck_assert_int_eq(bnd_hostname_valid(".n1"), 0);
	ck_assert_int_eq(bnd_hostname_valid("n/1"), 0);
	char big[300];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(bnd_hostname_valid(big), 0);
	big[255] = '\0';
	ck_assert_int_eq(bnd_hostname_valid(big), 1);
}
END_TEST

static const char *nth(const char *list, int n)
{
	static char out[BND_ERRLEN + 8];
	char err[BND_ERRLEN];
	if (bnd_hostlist_nth(list, n, out, sizeof(out), err, sizeof(err)) != BND_OK)
		snprintf(out, sizeof(out), "ERR %s", err);
	return out;
}

START_TEST(host_lists)
{
	ck_assert_str_eq(nth("e2e-x1", 0), "e2e-x1");
	ck_assert_str_eq(nth("a,b,c", 2), "c");
	ck_assert_str_eq(nth("n[1-3,7]", 3), "n7");
	ck_assert_str_eq(nth("n[1-3,7]", 1), "n2");
	ck_assert_str_eq(nth("n[08-11]", 1), "n09");
	ck_assert_str_eq(nth("n[08-11]", 3), "n11");
	ck_assert_str_eq(nth("x,n[1-2]-ib,y", 2), "n2-ib");
	ck_assert_str_eq(nth("x,n[1-2]-ib,y", 3), "y");
	ck_assert_str_eq(nth("r[1-2]n[1-3]", 0), "r1n1");
	ck_assert_str_eq(nth("r[1-2]n[1-3]", 2), "r1n3");
	ck_assert_str_eq(nth("r[1-2]n[1-3]", 3), "r2n1");
	ck_assert_str_eq(nth("r[1-2]n[1-3]", 5), "r2n3");
	/* Found by fuzz_stepinfo: the walk stepped past INT_MAX (UB), and
	 * went on with n-2147483648 instead of the next item. */
	ck_assert_str_eq(nth("n[2147483647],m", 1), "m");
	ck_assert_str_eq(nth("n[2147483646-2147483647]x,m", 2), "m");
	ck_assert_str_eq(nth("n[2147483646-2147483647]x,m", 1), "n2147483647x");
	ck_assert(!strncmp(nth("r[1-2]n[1-3]", 6), "ERR", 3));
	ck_assert_msg(strstr(nth("n[1-2]", 5), "no entry 5"), "%s", nth("n[1-2]", 5));
	ck_assert_msg(strstr(nth("n[1-", 0), "malformed"), "%s", nth("n[1-", 0));
	ck_assert_msg(strstr(nth("n[3-1]", 0), "malformed"), "%s", nth("n[3-1]", 0));
	ck_assert_msg(strstr(nth("n[]", 0), "malformed"), "%s", nth("n[]", 0));
	ck_assert_msg(strstr(nth("a,,b", 1), "malformed"), "%s", nth("a,,b", 1));
	ck_assert(!strncmp(nth("", 0), "ERR", 3));
}
END_TEST

/* A fake cgroup tree: <root>/cpuset/<path>/cpuset.effective_cpus etc. */
static char tree[64];

static void put(const char *rel, const char *text)
{
	char path[256], cmd[512];
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	FILE *f = fopen(path, "w");
	ck_assert(f);
	fputs(text, f);
	fclose(f);
}

static void make_tree(void)
{
	snprintf(tree, sizeof(tree), "/tmp/test_stepinfo.XXXXXX");
	ck_assert(mkdtemp(tree));
}

static void drop_tree(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(cgroup_cpuset_v1_v2_and_missing)
{
	bnd_cpuset_t c;
	char err[BND_ERRLEN], self[128];
	make_tree();
	snprintf(self, sizeof(self), "%s/self.cpuset", tree);

	put("self.cpuset", "/slurm_n1/uid_1001/job_7/step_0\n");
	put("cpuset/slurm_n1/uid_1001/job_7/step_0/cpuset.cpus", "2-3\n");
	ck_assert_int_eq(bnd_cgroup_cpuset(tree, self, &c, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus_text(&c), "2-3");
	/* effective_cpus wins over cpus when both are there */
	put("cpuset/slurm_n1/uid_1001/job_7/step_0/cpuset.effective_cpus", "3\n");
	ck_assert_int_eq(bnd_cgroup_cpuset(tree, self, &c, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus_text(&c), "3");

	/* cgroup v2: the cpuset files sit in the unified tree itself */
	put("self.cpuset", "/system.slice/job.scope\n");
	put("system.slice/job.scope/cpuset.cpus.effective", "0,4-5\n");
	ck_assert_int_eq(bnd_cgroup_cpuset(tree, self, &c, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus_text(&c), "0,4-5");

	/* the root cgroup */
	put("self.cpuset", "/\n");
	put("cpuset/cpuset.effective_cpus", "0-7\n");
	ck_assert_int_eq(bnd_cgroup_cpuset(tree, self, &c, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus_text(&c), "0-7");

	put("self.cpuset", "/nowhere\n");
	ck_assert_int_eq(bnd_cgroup_cpuset(tree, self, &c, err, sizeof(err)), BND_ESYS);
	ck_assert_msg(strstr(err, "/nowhere"), "%s", err);
	char missing[160];
	snprintf(missing, sizeof(missing), "%s/absent", tree);
	ck_assert_int_eq(bnd_cgroup_cpuset(tree, missing, &c, err, sizeof(err)), BND_ESYS);
	drop_tree();
}
END_TEST

START_TEST(cgroup_cpuset_of_this_process)
{
	/* On the real /sys/fs/cgroup, this process's cpuset holds the cpus it
	 * may run on (our affinity is a subset of it). */
	bnd_cpuset_t c, mine;
	char err[BND_ERRLEN], list[4096] = "";
	if (bnd_cgroup_cpuset("/sys/fs/cgroup", "/proc/self/cpuset", &c, err, sizeof(err)) != BND_OK) {
		printf("# SKIP no cpuset controller here: %s\n", err);
		return;
	}
	FILE *f = fopen("/proc/self/status", "r");
	char line[4096];
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18))
			snprintf(list, sizeof(list), "%s", line + 19);
	if (f)
		fclose(f);
	ck_assert_int_eq(bnd_cpuset_parse_list(&mine, list, err, sizeof(err)), BND_OK);
	ck_assert(!bnd_cpuset_empty(&mine));
	ck_assert(bnd_cpuset_subset(&mine, &c));
}
END_TEST

struct seen {
	char names[8][32];
	int n, stop_at;
};

static int note_name(void *ctx, const char *name)
{
	struct seen *v = ctx;
	if (v->n < 8)
		snprintf(v->names[v->n], sizeof(v->names[v->n]), "%s", name);
	return ++v->n == v->stop_at;
}

/* One walk hands every name in order; the visitor or max stops it. */
START_TEST(hostlist_each_walks_once_in_order)
{
	struct seen v = { .stop_at = 0 };
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_hostlist_each("a,r[1-2]n[08-09],b", 100, note_name, &v, err,
					   sizeof(err)), BND_OK);
	ck_assert_int_eq(v.n, 6);
	ck_assert_str_eq(v.names[1], "r1n08");
	ck_assert_str_eq(v.names[4], "r2n09");
	ck_assert_str_eq(v.names[5], "b");
	v = (struct seen){ .stop_at = 2 };
	ck_assert_int_eq(bnd_hostlist_each("a,r[1-2]n[08-09],b", 100, note_name, &v, err,
					   sizeof(err)), BND_OK);
	ck_assert_int_eq(v.n, 2);
	v = (struct seen){ .stop_at = 0 };
	ck_assert_int_eq(bnd_hostlist_each("n[1-1000]", 3, note_name, &v, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(v.n, 3);
	v = (struct seen){ .stop_at = 0 };
	ck_assert_int_eq(bnd_hostlist_each("a,n[1-", 100, note_name, &v, err, sizeof(err)),
			 BND_EINVAL);
	ck_assert_int_eq(v.n, 1);
	ck_assert_int_eq(bnd_hostlist_each("", 100, note_name, &v, err, sizeof(err)), BND_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stepinfo");
	TCase *tc = tcase_create("stepinfo");
	tcase_add_test(tc, core_lists_map_to_all_threads);
	tcase_add_test(tc, core_lists_follow_socket_major_order);
	tcase_add_test(tc, tasks_per_node);
	tcase_add_test(tc, host_lists);
	tcase_add_test(tc, host_names);
	tcase_add_test(tc, cgroup_cpuset_v1_v2_and_missing);
	tcase_add_test(tc, cgroup_cpuset_of_this_process);
	tcase_add_test(tc, hostlist_each_walks_once_in_order);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
