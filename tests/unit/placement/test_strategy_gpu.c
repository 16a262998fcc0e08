/* Placement next to each task's GPUs (gpu:<n>, packed near=gpu) on the
 * real machines with GPUs: each task's cpus local to its own GPU whenever
 * free local cores exist, the nearest by NUMA distance otherwise (checked
 * against every core left free), two jobs on one node next to their own
 * GPUs, the note naming the GPU whose cores were taken. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/placement/near.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topogpu.h"
#include "binding/util/error.h"
#include "testutil.h"

static struct bnd_topology *xml(const char *name)
{
	char *p = tu_topology_xml(name);
	if (!p)
		return NULL;
	struct bnd_topology *t = tu_topo(p);
	free(p);
	return t;
}

/* "nvml0,nvml1+nvml2,-": task 0 has nvml0, task 1 nvml1 and nvml2, task 2
 * none. Returns the number of tasks. */
static int masks(const struct bnd_topology *t, const char *spec, uint64_t *m)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", spec);
	int n = 0;
	for (char *task = strtok(buf, ","); task; task = strtok(NULL, ",")) {
		m[n] = 0;
		for (char *g = task; *g && strcmp(g, "-");) {
			char *plus = strchr(g, '+');
			if (plus)
				*plus = '\0';
			int i = bnd_gpu_find(t, g);
			ck_assert_msg(i >= 0, "no GPU %s", g);
			m[n] |= 1ull << i;
			if (!plus)
				break;
			g = plus + 1;
		}
		n++;
	}
	return n;
}

/* Places text for the tasks of spec against taken (may be NULL) inside
 * allowed (may be NULL). */
static int place(const struct bnd_topology *t, const bnd_cpuset_t *allowed,
		 const bnd_cpuset_t *taken, const char *text, const char *spec,
		 struct bnd_placement *p, char *err, size_t errlen)
{
	uint64_t m[BND_MAX_CPUS];
	int n = masks(t, spec, m);
	struct bnd_request r;
	ck_assert_msg(bnd_request_parse(&r, text, err, errlen) == BND_OK, "%s", err);
	struct bnd_near near = { n, m };
	struct bnd_domain d = { allowed, taken, &near };
	return bnd_place(t, &d, &r, n, p, err, errlen);
}

static const char *cpus(const bnd_cpuset_t *s)
{
	static char buf[4][BND_CPULIST_TEXT];
	static int k;
	k = (k + 1) % 4;
	bnd_cpuset_format_list(s, buf[k], sizeof(buf[k]));
	return buf[k];
}

START_TEST(dgx2h_every_gpu)
{
	struct bnd_topology *t = xml("NVIDIA-DGX2H-2pa24co+16nvml+1nvswitch+10ib.xml");
	if (!t)
		return;
	char err[BND_ERRLEN], spec[512] = "";
	for (int i = 0; i < 16; i++)
		snprintf(spec + strlen(spec), sizeof(spec) - strlen(spec), "%snvml%d", i ? "," : "", i);
	struct bnd_placement p;
	/* 3 cores each: every core of the node, each task on its GPU's socket. */
	ck_assert_int_eq(place(t, NULL, NULL, "gpu:3", spec, &p, err, sizeof(err)), BND_OK);
	for (int i = 0; i < 16; i++) {
		int g = bnd_gpu_find(t, "nvml0") + i;
		ck_assert_msg(bnd_cpuset_subset(&p.tasks[i].cpus, &t->gpu_cpus[g]), "task %d: %s", i,
			      cpus(&p.tasks[i].cpus));
		ck_assert_int_eq(p.tasks[i].nlocal, 3);
		ck_assert(p.tasks[i].gpus == 1ull << g);
	}
	ck_assert_str_eq(p.near_note, "");
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "0-2,48-50");
	ck_assert_str_eq(cpus(&p.tasks[8].cpus), "24-26,72-74");
	bnd_placement_free(&p);
	/* Task order does not decide the socket, the GPU does. */
	ck_assert_int_eq(place(t, NULL, NULL, "gpu:2", "nvml15,nvml0", &p, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "24-25,72-73");
	ck_assert_str_eq(cpus(&p.tasks[1].cpus), "0-1,48-49");
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* Two jobs on one node: each gets the cores next to its own GPUs, the
 * second placed against what the first holds (as the state file does). */
START_TEST(two_jobs_own_gpus)
{
	struct bnd_topology *t = xml("AMD-Epyc-Zen3Trento-1pa4no2ca4co2t+8rocm+4hsn.xml");
	if (!t)
		return;
	char err[BND_ERRLEN];
	struct bnd_placement a, b;
	ck_assert_int_eq(place(t, NULL, NULL, "gpu:4", "rsmi6", &a, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&a.tasks[0].cpus), "32-35,96-99");
	ck_assert_int_eq(place(t, NULL, &a.all_cpus, "gpu:4", "rsmi6,rsmi0", &b, err, sizeof(err)),
			 BND_OK);
	ck_assert_str_eq(cpus(&b.tasks[0].cpus), "36-39,100-103");
	ck_assert_str_eq(cpus(&b.tasks[1].cpus), "48-51,112-115");
	bnd_placement_free(&b);
	/* rsmi6's L3 is full: its node's other L3 (distance 10) comes next,
	 * and the note names the GPU and who holds its cores. */
	ck_assert_int_eq(place(t, NULL, &a.all_cpus, "gpu:6", "rsmi6", &b, err, sizeof(err)),
			 BND_OK);
	ck_assert_str_eq(cpus(&b.tasks[0].cpus), "36-41,100-105");
	bnd_placement_free(&b);
	ck_assert_int_eq(place(t, NULL, &a.all_cpus, "gpu:6", "rsmi6,rsmi6", &b, err, sizeof(err)),
			 BND_OK);
	ck_assert_int_eq(b.tasks[0].nlocal, 4);
	ck_assert_int_eq(b.tasks[1].nlocal, 0);
	ck_assert_msg(!strcmp(b.near_note, "task 0: rsmi6 has 8 local cores (cpus 32-39,96-103): "
			      "4 held by other jobs, 0 outside this step's cpus, 0 taken by its "
			      "earlier tasks; 2 of its 6 cores are elsewhere, the farthest at NUMA "
			      "distance 10"), "%s", b.near_note);
	bnd_placement_free(&b);
	bnd_placement_free(&a);
	bnd_topology_free(t);
}
END_TEST

/* Property over every real XML with GPUs: for several occupancies, GPU
 * assignments and amounts, each task is wholly local to its GPUs unless no
 * free local core was left when it was placed, and a task's cores that
 * are not local are no farther than any core it left free. */
static unsigned long long seed = 12345;

static unsigned rnd(void)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(seed >> 33);
}

static void check_task(const struct bnd_topology *t, const bnd_cpuset_t *taken,
		       const struct bnd_placement *p, int i, const char *what)
{
	const struct bnd_task_place *tp = &p->tasks[i];
	bnd_cpuset_t upto;
	bnd_cpuset_zero(&upto);
	for (int k = 0; k <= i; k++)
		bnd_cpuset_or(&upto, &p->tasks[k].cpus);
	int worst = 0;
	for (int k = 0; k < tp->ncores; k++) {
		int r = bnd_near_rank(t, tp->gpus, tp->cores[k]);
		worst = r > worst ? r : worst;
	}
	for (int c = 0; c < t->ncores; c++) {
		bnd_cpuset_t one;
		bnd_topology_core_cpus(t, c, &one);
		if (bnd_cpuset_intersects(&one, taken) || bnd_cpuset_intersects(&one, &upto))
			continue;
		/* A free core the task did not take: never nearer than its worst. */
		ck_assert_msg(bnd_near_rank(t, tp->gpus, c) >= worst,
			      "%s task %d: left core %d (rank %d) free, took rank %d", what, i, c,
			      bnd_near_rank(t, tp->gpus, c), worst);
	}
}

static void property(const char *name)
{
	struct bnd_topology *t = xml(name);
	if (!t)
		return;
	int compute[BND_MAX_GPUS] = { 0 }, nc = 0;
	for (int g = 0; g < t->ngpus; g++)
		if (t->gpus[g].compute)
			compute[nc++] = g;
	ck_assert_msg(nc > 0, "%s: no GPU", name);
	int placed = 0, fell_back = 0;
	for (int round = 0; round < 60; round++) {
		bnd_cpuset_t taken;
		bnd_cpuset_zero(&taken);
		for (int c = 0; c < t->ncores; c++)
			if (rnd() % 3 == 0) {
				bnd_cpuset_t one;
				bnd_topology_core_cpus(t, c, &one);
				bnd_cpuset_or(&taken, &one);
			}
		int ntasks = 1 + (int)(rnd() % 8), amount = 1 + (int)(rnd() % 4);
		uint64_t m[8];
		for (int i = 0; i < ntasks; i++)
			m[i] = 1ull << compute[rnd() % (unsigned)nc];
		char text[32], err[BND_ERRLEN], what[256];
		snprintf(text, sizeof(text), round % 2 ? "gpu:%d" : "packed:%d:near=gpu", amount);
		struct bnd_request r;
		ck_assert_int_eq(bnd_request_parse(&r, text, err, sizeof(err)), BND_OK);
		struct bnd_near near = { ntasks, m };
		struct bnd_domain d = { NULL, &taken, &near };
		struct bnd_placement p;
		int rc = bnd_place(t, &d, &r, ntasks, &p, err, sizeof(err));
		snprintf(what, sizeof(what), "%s round %d %s x%d", name, round, text, ntasks);
		if (rc == BND_ENOFIT)
			continue;
		ck_assert_msg(rc == BND_OK, "%s: %s", what, err);
		ck_assert(!bnd_cpuset_intersects(&p.all_cpus, &taken));
		for (int i = 0; i < ntasks; i++)
			check_task(t, &taken, &p, i, what);
		placed++;
		fell_back += p.near_note[0] != '\0';
		bnd_placement_free(&p);
	}
	/* Most rounds fit, and some had to leave their GPU's cores. */
	ck_assert_msg(placed >= 30 && fell_back >= 1, "%s: %d placed, %d fell back", name, placed,
		      fell_back);
	bnd_topology_free(t);
}

START_TEST(local_whenever_free_every_gpu_xml)
{
	const char *names[] = {
		"NVIDIA-DGX2H-2pa24co+16nvml+1nvswitch+10ib.xml",
		"IBM-POWER8-2pa10co8t+4cuda+2ib.xml",
		"IBM-POWER8NVL-2pa10co8t+4cuda+2ib.xml",
		"AMD-Epyc-Zen3Trento-1pa4no2ca4co2t+8rocm+4hsn.xml",
		"Intel-Xeon-Haswell-2pa2no6co+4cuda+ib.xml",
		"Intel-Xeon-Broadwell-2pa2no8co+2cuda+ib.xml",
		"Intel-Xeon-Skylake-2pa16co+2cuda+ib.xml",
		"Intel-Xeon-SandyBridge-2pa8co2t+3cuda.xml",
		"Intel-Xeon-SandyBridge-2pa8co2t+ib+cuda.xml",
		"Intel-Xeon-SandyBridge-2pa8co2t+2amdopencl.xml",
		"Intel-Xeon-Skylake-2pa8co2t+4nvopencl.xml",
		NULL,
	};
	for (int i = 0; names[i]; i++)
		property(names[i]);
}
END_TEST

START_TEST(haswell_cluster_on_die)
{
	/* The GPUs hang off one of the two NUMA nodes of each package: the
	 * node's cores first, then the other node of the same package. */
	struct bnd_topology *t = xml("Intel-Xeon-Haswell-2pa2no6co+4cuda+ib.xml");
	if (!t)
		return;
	char err[BND_ERRLEN];
	struct bnd_placement p;
	ck_assert_int_eq(place(t, NULL, NULL, "gpu:4", "cuda2,cuda3", &p, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "1,3,5,7");
	ck_assert_int_eq(p.tasks[1].nlocal, 2);
	ck_assert_str_eq(cpus(&p.tasks[1].cpus), "9,11,13,15");
	ck_assert_msg(strstr(p.near_note, "task 1: cuda3 has 6 local cores (cpus 1,3,5,7,9,11): "
			     "0 held by other jobs, 0 outside this step's cpus, 4 taken by its "
			     "earlier tasks; 2 of its 4 cores are elsewhere"), "%s", p.near_note);
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

/* POWER9 + V100 with GPU memory nodes, MI300A: the GPU's package. */
START_TEST(own_memory_and_apu)
{
	struct bnd_topology *t = tu_topo("tests/unit/topology/xml/power9-v100-gpumemory.xml");
	char err[BND_ERRLEN];
	struct bnd_placement p;
	ck_assert_int_eq(place(t, NULL, NULL, "gpu:2", "cuda2,cuda0", &p, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "16-23");
	ck_assert_str_eq(cpus(&p.tasks[1].cpus), "0-7");
	bnd_nodeset_t n;
	bnd_near_numa(t, p.tasks[0].gpus, &n);
	ck_assert(bnd_nodeset_isset(&n, bnd_topology_numa_index(t, 8)) &&
		  bnd_nodeset_isset(&n, bnd_topology_numa_index(t, 254)) && bnd_nodeset_count(&n) == 2);
	bnd_placement_free(&p);
	bnd_topology_free(t);
	t = tu_topo("tests/unit/topology/xml/mi300a-apu.xml");
	ck_assert_int_eq(place(t, NULL, NULL, "packed:2:near=gpu", "rsmi3,rsmi1", &p, err,
			       sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "24-27");
	ck_assert_str_eq(cpus(&p.tasks[1].cpus), "8-11");
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

START_TEST(packed_near_rings)
{
	struct bnd_topology *t = xml("AMD-Epyc-Zen3Trento-1pa4no2ca4co2t+8rocm+4hsn.xml");
	if (!t)
		return;
	char err[BND_ERRLEN];
	struct bnd_placement p;
	/* Units of the packed model: the L3 of the GPU, whole. */
	ck_assert_int_eq(place(t, NULL, NULL, "packed:1:unit=X:near=gpu", "rsmi2,rsmi5", &p, err,
			       sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "16-23,80-87");
	ck_assert_str_eq(cpus(&p.tasks[1].cpus), "8-15,72-79");
	bnd_placement_free(&p);
	/* Threads, two per task; the second task shares the first's GPU. */
	ck_assert_int_eq(place(t, NULL, NULL, "packed:2:unit=T:near=gpu", "rsmi2,rsmi2", &p, err,
			       sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "16,80");
	ck_assert_str_eq(cpus(&p.tasks[1].cpus), "17,81");
	bnd_placement_free(&p);
	/* 6 cores when only 2 of the L3 are free: those 2, then 4 in the
	 * nearest ring (the node's other L3), not a walk from core 0. */
	bnd_cpuset_t taken;
	bnd_cpuset_parse_list(&taken, "16-21,80-85", err, sizeof(err));
	ck_assert_int_eq(place(t, NULL, &taken, "packed:6:near=gpu", "rsmi2", &p, err, sizeof(err)),
			 BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "22-27,86-91");
	ck_assert_int_eq(p.tasks[0].nlocal, 2);
	ck_assert_msg(strstr(p.near_note, "task 0: rsmi2 has 8 local cores (cpus 16-23,80-87): 6 "
			     "held by other jobs"), "%s", p.near_note);
	bnd_placement_free(&p);
	/* type=node: every task bound to the units near the union. */
	ck_assert_int_eq(place(t, NULL, NULL, "packed:2:type=node:near=gpu", "rsmi7,rsmi7", &p, err,
			       sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "40-41,104-105");
	ck_assert_str_eq(cpus(&p.tasks[1].cpus), "40-41,104-105");
	bnd_placement_free(&p);
	bnd_topology_free(t);
}
END_TEST

START_TEST(without_gpus_and_refusals)
{
	struct bnd_topology *t = tu_topo("pack:2 core:4");
	char err[BND_ERRLEN];
	struct bnd_placement p;
	/* No GPU known: the first free cores, in order, no note. */
	bnd_cpuset_t taken, allowed;
	bnd_cpuset_parse_list(&taken, "1", err, sizeof(err));
	ck_assert_int_eq(place(t, NULL, &taken, "gpu:2", "-,-", &p, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(cpus(&p.tasks[0].cpus), "0,2");
	ck_assert_str_eq(cpus(&p.tasks[1].cpus), "3-4");
	ck_assert_int_eq(p.tasks[0].nlocal, -1);
	ck_assert_str_eq(p.near_note, "");
	bnd_placement_free(&p);
	bnd_cpuset_parse_list(&allowed, "0-2", err, sizeof(err));
	ck_assert_int_eq(place(t, &allowed, &taken, "gpu:3", "-", &p, err, sizeof(err)), BND_ENOFIT);
	ck_assert_str_eq(err, "gpu: 3 cores needed (3 per task x 1 tasks), only 2 free");
	ck_assert_int_eq(place(t, &allowed, &taken, "packed:3:near=gpu", "-", &p, err, sizeof(err)),
			 BND_ENOFIT);
	ck_assert_msg(strstr(err, "packed: 3 free C units") != NULL, "%s", err);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("strategy_gpu");
	TCase *tc = tcase_create("strategy_gpu");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, dgx2h_every_gpu);
	tcase_add_test(tc, two_jobs_own_gpus);
	tcase_add_test(tc, local_whenever_free_every_gpu_xml);
	tcase_add_test(tc, haswell_cluster_on_die);
	tcase_add_test(tc, own_memory_and_apu);
	tcase_add_test(tc, packed_near_rings);
	tcase_add_test(tc, without_gpus_and_refusals);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
