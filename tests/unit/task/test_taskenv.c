/* The task environment: exact variable values for bound, unbound, env and
 * pe tasks, OMP variables the user owns, and the OpenMPI rankfile. */
#include <check.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/task/gpuenv.h"
#include "binding/task/taskenv.h"
#include "testutil.h"

static bnd_cpuset_t cpus_of(const char *list)
{
	bnd_cpuset_t s;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_cpuset_parse_list(&s, list, err, sizeof(err)), BND_OK);
	return s;
}

/* get() that fails the test when the name is absent from the list. */
static const char *must(const struct bnd_taskenv *e, const char *name)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name))
			return e->v[i].value ? e->v[i].value : "(unset)";
	ck_abort_msg("%s not in the task environment", name);
	return NULL;
}

static int has(const struct bnd_taskenv *e, const char *name)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name))
			return 1;
	return 0;
}

START_TEST(bound_set_task)
{
	/* 2 sockets x 2 cores x 2 threads: OS cpus 0-7, core k = cpus 2k,2k+1 */
	struct bnd_topology *t = tu_topo("pack:2 core:2 pu:2");
	bnd_cpuset_t c = cpus_of("2-5");
	struct bnd_taskenv_in in = { .topo = t, .request = "linear:2", .instance = BND_I_SET,
				     .mbind = BND_M_CORES_STRICT, .cpus = &c };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SLURM_BINDING"), "2 3 4 5");
	ck_assert_str_eq(must(&e, "SGE_BINDING"), "2 3 4 5");
	ck_assert_str_eq(must(&e, "SGE_MP_PROCBIND"), "2 3 4 5");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_INSTANCE"), "set");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_REQUEST"), "linear:2");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_STATUS"), "bound");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY"), "SCTTcttScttCTT");
	/* OCS form: the machine's NUMA node first; a socket with one core
	 * taken stays upper case, as in OCS */
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NSCTTcttScttCTT");
	ck_assert_str_eq(must(&e, "SLURM_MBIND"), "cores:strict");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_PE"), "");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_RANKFILE"), "");
	ck_assert_str_eq(must(&e, "OMP_PLACES"), "{2,3},{4,5}");
	ck_assert_str_eq(must(&e, "OMP_PROC_BIND"), "close");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_OMP_PLACES"), "{2,3},{4,5}");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_OMP_PROC_BIND"), "close");
	/* OCS/GCS and LSF names, their formats */
	ck_assert_str_eq(must(&e, "GCS_BINDING"), "2 3 4 5");
	ck_assert_str_eq(must(&e, "GCS_BINDING_INSTANCE"), "set");
	ck_assert_str_eq(must(&e, "LSB_BIND_CPU_LIST"), "2-5");
	ck_assert_str_eq(must(&e, "LSB_BIND_JOB"), "USER_CPU_LIST");
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

/* bnd_taskenv_var lists exactly the names a task can receive: a bound set
 * task whose GPUs the plugin split gets every one of them, and nothing
 * else. */
START_TEST(var_list_is_what_is_set)
{
	struct bnd_topology *t = tu_topo("pack:2 core:2 pu:2");
	bnd_cpuset_t c = cpus_of("0-1");
	const char *gpu_env[BND_GPU_ENV_VARS] = { "0,1", "0,1", "0,1", "0,1", "0,1" };
	struct bnd_taskenv_in in = { .topo = t, .request = "linear:1", .instance = BND_I_SET,
				     .cpus = &c, .gpu_narrow = 1, .gpu_nstep = 2,
				     .gpu_positions = 1, .gpu_env = gpu_env };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	size_t n = 0;
	for (const char *name; (name = bnd_taskenv_var(n)); n++)
		ck_assert_msg(has(&e, name), "%s listed, not set", name);
	ck_assert_int_eq(n, (size_t)e.n);
	for (int i = 0; i < e.n; i++) {
		size_t k = 0;
		while (bnd_taskenv_var(k) && strcmp(bnd_taskenv_var(k), e.v[i].name))
			k++;
		ck_assert_msg(bnd_taskenv_var(k), "%s set, not listed", e.v[i].name);
	}
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

/* LSF's own example list (0,5,7,9-11) and each policy's LSB_BIND_JOB. */
START_TEST(lsf_and_gcs_variables)
{
	struct bnd_topology *t = tu_topo("pack:2 core:8");
	bnd_cpuset_t c = cpus_of("0,5,7,9-11");
	static const struct {
		enum bnd_strategy s;
		enum bnd_instance i;
		const char *job, *inst;
	} v[] = {
		{ BND_S_LSF_BALANCE, BND_I_SET, "BALANCE", "set" },
		{ BND_S_LSF_PACK, BND_I_SET, "PACK", "set" },
		{ BND_S_LSF_ANY, BND_I_ENV, "ANY", "env" },
		{ BND_S_LSF_CPUS, BND_I_SET, "USER_CPU_LIST", "set" },
		{ BND_S_PACKED, BND_I_PE, "USER_CPU_LIST", "pe" },
		{ BND_S_EXPLICIT, BND_I_SET, "USER_CPU_LIST", "set" },
	};
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		struct bnd_taskenv_in in = { .topo = t, .request = "x", .instance = v[k].i,
					     .strategy = v[k].s, .cpus = &c };
		struct bnd_taskenv e;
		char err[BND_ERRLEN];
		ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
		ck_assert_str_eq(must(&e, "LSB_BIND_CPU_LIST"), "0,5,7,9-11");
		ck_assert_str_eq(must(&e, "LSB_BIND_JOB"), v[k].job);
		ck_assert_str_eq(must(&e, "GCS_BINDING"), "0 5 7 9 10 11");
		ck_assert_str_eq(must(&e, "GCS_BINDING_INSTANCE"), v[k].inst);
		bnd_taskenv_free(&e);
	}
	/* not bound: NONE, as OCS and LSF say it */
	struct bnd_taskenv_in in = { .topo = t, .request = "linear:9", .strategy = BND_S_LINEAR,
				     .reason = "no room" };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "LSB_BIND_JOB"), "NONE");
	ck_assert_str_eq(must(&e, "GCS_BINDING_INSTANCE"), "NONE");
	ck_assert_str_eq(must(&e, "LSB_BIND_CPU_LIST"), "");
	ck_assert_str_eq(must(&e, "GCS_BINDING"), "");
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

START_TEST(unbound_task_says_why_and_clears_inherited)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	/* an srun inside a bound batch script inherits the script's OMP values */
	struct bnd_taskenv_in in = { .topo = t, .request = "linear:2", .instance = BND_I_SET,
				     .reason = "the allocation on this node has 1 core, linear:2 needs 2",
				     .omp_places = "{0},{1}", .our_omp_places = "{0},{1}",
				     .omp_proc_bind = "close", .our_omp_proc_bind = "close" };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SLURM_BINDING"), "");
	ck_assert_str_eq(must(&e, "SGE_BINDING"), "");
	ck_assert_str_eq(must(&e, "SGE_MP_PROCBIND"), "");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_STATUS"),
			 "unbound: the allocation on this node has 1 core, linear:2 needs 2");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY"), "SCC");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NSCC");
	ck_assert_str_eq(must(&e, "SLURM_MBIND"), "none");
	ck_assert_str_eq(must(&e, "OMP_PLACES"), "(unset)");
	ck_assert_str_eq(must(&e, "OMP_PROC_BIND"), "(unset)");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_OMP_PLACES"), "(unset)");
	ck_assert_ptr_null(tu_taskenv_get(&e, "OMP_PLACES"));
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

START_TEST(user_omp_values_are_left_alone)
{
	struct bnd_topology *t = tu_topo("pack:1 core:4");
	bnd_cpuset_t c = cpus_of("1");
	struct bnd_taskenv_in in = { .topo = t, .request = "linear:1", .instance = BND_I_SET,
				     .cpus = &c, .omp_places = "cores", .omp_proc_bind = "spread",
				     .our_omp_places = "{0}", .our_omp_proc_bind = "close" };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert(!has(&e, "OMP_PLACES"));
	ck_assert(!has(&e, "OMP_PROC_BIND"));
	ck_assert_str_eq(must(&e, "SLURM_BINDING"), "1");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY"), "SCcCC");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NSCcCC");
	bnd_taskenv_free(&e);

	/* our own earlier value is replaced by this task's */
	in.omp_places = "{0}";
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "OMP_PLACES"), "{1}");
	ck_assert(!has(&e, "OMP_PROC_BIND"));
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

START_TEST(env_and_pe_instances)
{
	struct bnd_topology *t = tu_topo("pack:2 core:2");
	bnd_cpuset_t c = cpus_of("1-2");
	struct bnd_taskenv_in in = { .topo = t, .request = "env:linear:2", .instance = BND_I_ENV,
				     .mbind = BND_M_ROUND_ROBIN, .cpus = &c };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SLURM_BINDING"), "1 2");
	/* Grid Engine 6.2u5's env instance: SGE_BINDING and SGE_MP_PROCBIND */
	ck_assert_str_eq(must(&e, "SGE_BINDING"), "1 2");
	ck_assert_str_eq(must(&e, "SGE_MP_PROCBIND"), "1 2");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_INSTANCE"), "env");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_STATUS"), "bound");
	ck_assert_str_eq(must(&e, "SLURM_MBIND"), "round_robin");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_PE"), "");
	ck_assert_str_eq(must(&e, "OMP_PLACES"), "(unset)");
	bnd_taskenv_free(&e);

	in.instance = BND_I_PE;
	in.request = "pe:linear:2";
	in.rankfile = "/run/slurm-binding/rankfile.7.0";
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SLURM_BINDING_INSTANCE"), "pe");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_PE"), "0,1:1,0");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_RANKFILE"), "/run/slurm-binding/rankfile.7.0");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY"), "SCcScC");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NSCcScC");
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

/* OCS's own variables (sge_binding(5)): SGE_BINDING_INSTANCE,
 * SGE_BINDING_TOPOLOGY (NONE without binding) and SGE_BINDING_CPUSET, the
 * cpus as hwloc prints a cpuset: checked against hwloc_bitmap_snprintf. */
static void expect_cpuset(const char *list)
{
	struct bnd_topology *t = tu_topo("pack:2 core:64 pu:2");
	bnd_cpuset_t c = cpus_of(list);
	struct bnd_taskenv_in in = { .topo = t, .request = "linear:1", .instance = BND_I_ENV,
				     .cpus = &c };
	struct bnd_taskenv e;
	char err[BND_ERRLEN], want[512];
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	ck_assert_int_eq(hwloc_bitmap_list_sscanf(b, list), 0);
	hwloc_bitmap_snprintf(want, sizeof(want), b);
	hwloc_bitmap_free(b);
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_msg(!strcmp(must(&e, "SGE_BINDING_CPUSET"), want), "cpus %s: %s, hwloc %s", list,
		      must(&e, "SGE_BINDING_CPUSET"), want);
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}

START_TEST(ocs_variables)
{
	expect_cpuset("0-1");
	expect_cpuset("32");
	expect_cpuset("70");
	expect_cpuset("0-39");
	expect_cpuset("5,64-65,127");
	expect_cpuset("96-255");

	struct bnd_topology *t = tu_topo("pack:2 core:2");
	bnd_cpuset_t c = cpus_of("1-2");
	struct bnd_taskenv_in in = { .topo = t, .request = "pe:linear:1", .instance = BND_I_PE,
				     .cpus = &c };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SGE_BINDING_INSTANCE"), "pe");
	ck_assert_str_eq(must(&e, "SGE_BINDING_TOPOLOGY"), "NSCcScC");
	ck_assert_str_eq(must(&e, "SGE_BINDING_CPUSET"), "0x00000006");
	bnd_taskenv_free(&e);
	/* not bound: NONE, NONE, 0x0 */
	in.reason = "cores held by other jobs";
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SGE_BINDING_INSTANCE"), "NONE");
	ck_assert_str_eq(must(&e, "SGE_BINDING_TOPOLOGY"), "NONE");
	ck_assert_str_eq(must(&e, "SGE_BINDING_CPUSET"), "0x0");
	/* the node's string stays in SLURM_BINDING_TOPOLOGY_OCS */
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NSCCSCC");
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

START_TEST(no_request_no_topology)
{
	struct bnd_taskenv_in in = { .request = NULL, .reason = NULL };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SLURM_BINDING_REQUEST"), "none");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_STATUS"), "unbound: no binding requested");
	/* no topology: Grid Engine's NONE (m_topology=NONE) */
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY"), "NONE");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NONE");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_NUMA"), "NONE");
	ck_assert_str_eq(must(&e, "SLURM_BINDING"), "");
	bnd_taskenv_free(&e);
}
END_TEST

/* Every level of the OCS string, and upper-level letters that go lower
 * case only when everything below them is the task's. */
START_TEST(ocs_topology_marks_the_task)
{
	struct bnd_topology *t = tu_topo("pack:2 l3:1 core:4 pu:1");
	bnd_cpuset_t c = cpus_of("2-3");
	struct bnd_taskenv_in in = { .topo = t, .request = "packed:2", .instance = BND_I_SET,
				     .cpus = &c };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NSXCCccSXCCCC");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY"), "SCCccSCCCC");
	bnd_taskenv_free(&e);
	c = cpus_of("0-3");
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NsxccccSXCCCC");
	bnd_taskenv_free(&e);
	/* unbound: nothing lower case */
	in.reason = "cores held by other jobs";
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "SLURM_BINDING_TOPOLOGY_OCS"), "NSXCCCCSXCCCC");
	ck_assert_str_eq(must(&e, "SLURM_BINDING"), "");
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

/* The vectors: one core, several cores, across sockets, cores
 * that are not consecutive, and threads where a task holds part of a core. */
START_TEST(rankfile_slots_open_mpi_reads)
{
	static const struct {
		const char *topo, *cpus, *slot;
	} v[] = {
		{ "pack:1 core:4", "0", "0:0" },
		{ "pack:1 core:4", "0-1", "0:0-1" },
		{ "pack:1 core:4", "0,2", "0:0;0:2" },
		{ "pack:1 core:4", "0-1,3", "0:0-1;0:3" },
		{ "pack:2 core:2", "0,2", "0:0;1:0" },
		{ "pack:2 core:2", "0-3", "0:0-1;1:0-1" },
		/* whole cores with their threads: still socket:core */
		{ "pack:1 core:2 pu:2", "0-3", "0:0-1" },
		/* part of a core: logical thread ids */
		{ "pack:1 core:2 pu:2", "0,2", "0,2" },
		{ "pack:1 core:2 pu:2", "0-2", "0-2" },
		{ "pack:2 core:2 pu:2", "1,4-5", "1,4-5" },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct bnd_topology *t = tu_topo(v[i].topo);
		bnd_cpuset_t c = cpus_of(v[i].cpus);
		char buf[64];
		ck_assert_int_eq(bnd_rankfile_slot(t, &c, buf, sizeof(buf)), BND_OK);
		ck_assert_msg(!strcmp(buf, v[i].slot), "%s cpus %s: slot=%s, want %s", v[i].topo,
			      v[i].cpus, buf, v[i].slot);
		ck_assert_int_eq(bnd_rankfile_slot(t, &c, buf, 3), BND_EINVAL);
		bnd_topology_free(t);
	}
}
END_TEST

START_TEST(rankfile_text)
{
	struct bnd_topology *t = tu_topo("pack:2 core:4");
	bnd_cpuset_t tc[3] = { cpus_of("0-1"), cpus_of(""), cpus_of("3-5") };
	int ids[3] = { 4, 5, 6 };
	char *text = NULL, err[BND_ERRLEN];
	ck_assert_int_eq(bnd_rankfile_format(t, "n1", 3, ids, tc, &text, err, sizeof(err)), BND_OK);
	/* Open MPI 4.1 reads "0:0,1" as socket 0 core 0 plus socket 1: ranges
	 * and ';' only */
	ck_assert_str_eq(text, "rank 4=n1 slot=0:0-1\n"
			       "rank 6=n1 slot=0:3;1:0-1\n");
	free(text);
	char pe[64];
	ck_assert_int_eq(bnd_pe_pairs(t, &tc[2], pe, sizeof(pe)), BND_OK);
	ck_assert_str_eq(pe, "0,3:1,0:1,1");
	ck_assert_int_eq(bnd_pe_pairs(t, &tc[2], pe, 6), BND_EINVAL);
	char places[64];
	ck_assert_int_eq(bnd_omp_places(t, &tc[2], places, sizeof(places)), BND_OK);
	ck_assert_str_eq(places, "{3},{4},{5}");
	bnd_topology_free(t);
}
END_TEST

/* A binding to part of a core: OMP_PLACES names only the task's threads,
 * never a sibling thread outside the binding (it did: "{2,3}" for cpu 2). */
START_TEST(omp_places_only_the_tasks_threads)
{
	/* 1 socket x 2 cores x 2 threads: core 0 = cpus 0,1, core 1 = cpus 2,3 */
	struct bnd_topology *t = tu_topo("pack:1 core:2 pu:2");
	char places[64];
	const struct { const char *cpus, *want; } v[] = {
		{ "2", "{2}" },          /* packed unit=T, LSF level=thread */
		{ "0,2", "{0},{2}" },    /* one thread of each core (cpus:0,2) */
		{ "1-3", "{1},{2,3}" },  /* a whole core and a thread */
		{ "0-3", "{0,1},{2,3}" },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		bnd_cpuset_t c = cpus_of(v[i].cpus);
		ck_assert_int_eq(bnd_omp_places(t, &c, places, sizeof(places)), BND_OK);
		ck_assert_msg(!strcmp(places, v[i].want), "cpus %s: got %s, want %s", v[i].cpus,
			      places, v[i].want);
	}
	/* and the task's environment says the same */
	bnd_cpuset_t c = cpus_of("0,2");
	struct bnd_taskenv_in in = { .topo = t, .request = "cpus:0,2:level=thread",
				     .instance = BND_I_SET, .cpus = &c };
	struct bnd_taskenv e;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_taskenv_build(&e, &in, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(must(&e, "OMP_PLACES"), "{0},{2}");
	ck_assert_str_eq(must(&e, "SLURM_BINDING_OMP_PLACES"), "{0},{2}");
	bnd_taskenv_free(&e);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("taskenv");
	TCase *tc = tcase_create("taskenv");
	tcase_add_test(tc, bound_set_task);
	tcase_add_test(tc, var_list_is_what_is_set);
	tcase_add_test(tc, lsf_and_gcs_variables);
	tcase_add_test(tc, unbound_task_says_why_and_clears_inherited);
	tcase_add_test(tc, user_omp_values_are_left_alone);
	tcase_add_test(tc, env_and_pe_instances);
	tcase_add_test(tc, no_request_no_topology);
	tcase_add_test(tc, ocs_variables);
	tcase_add_test(tc, ocs_topology_marks_the_task);
	tcase_add_test(tc, rankfile_text);
	tcase_add_test(tc, rankfile_slots_open_mpi_reads);
	tcase_add_test(tc, omp_places_only_the_tasks_threads);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
