/* Each task's GPUs from the step's environment: gres.conf read as slurmd
 * reads it, Slurm's per-task rules (per_task, map_gpu, mask_gpu, under
 * ConstrainDevices too), the plugin's own split, and each GPU found in the
 * topology through its device file's bus id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/step/slurmconf.h"
#include "binding/placement/near.h"
#include "binding/step/stepgpu.h"
#include "binding/topology/topogpu.h"
#include "binding/util/error.h"
#include "binding/util/fault.h"
#include "testutil.h"

static void files(const struct bnd_gres_gpus *g, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < g->n; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", g->file[i]);
}

START_TEST(gresconf_as_slurmd_reads_it)
{
	struct bnd_gres_gpus g;
	char err[BND_ERRLEN], buf[2048];
	const char *conf =
		"# a comment\n"
		"AutoDetect=off\n"
		"NodeName=n[01-04] Name=gpu Type=v100 File=/dev/nvidia[0-1] Cores=0-3\n"
		"NodeName=n[01-04] name=GPU File=/dev/nvidia10,/dev/nvidia2   # trailing\n"
		"NodeName=other Name=gpu File=/dev/nvidia[4-7]\n"
		"Name=mps Count=100\n"
		"Name=nic File=/dev/infiniband/uverbs0\n";
	ck_assert_int_eq(bnd_gresconf_parse(conf, "n03", &g, err, sizeof(err)), BND_OK);
	files(&g, buf, sizeof(buf));
	/* Natural order, as slurmd sorts them: nvidia2 before nvidia10. */
	ck_assert_str_eq(buf, "/dev/nvidia0 /dev/nvidia1 /dev/nvidia2 /dev/nvidia10");
	ck_assert_str_eq(g.autodetect, "");
	ck_assert_int_eq(bnd_gresconf_parse(conf, "other", &g, err, sizeof(err)), BND_OK);
	files(&g, buf, sizeof(buf));
	ck_assert_str_eq(buf, "/dev/nvidia4 /dev/nvidia5 /dev/nvidia6 /dev/nvidia7");
	/* Links: NVML's enumeration order, where -1 stands. */
	const char *links =
		"Name=gpu File=/dev/nvidia0 Links=0,0,-1\n"
		"Name=gpu File=/dev/nvidia1 Links=-1,0,0\n"
		"Name=gpu File=/dev/nvidia2 Links=0,-1,0\n";
	ck_assert_int_eq(bnd_gresconf_parse(links, "x", &g, err, sizeof(err)), BND_OK);
	files(&g, buf, sizeof(buf));
	ck_assert_str_eq(buf, "/dev/nvidia1 /dev/nvidia2 /dev/nvidia0");
	ck_assert_int_eq(bnd_gresconf_parse("AutoDetect=nvml\n", "x", &g, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(g.n, 0);
	ck_assert_str_eq(g.autodetect, "nvml");
	ck_assert_int_eq(bnd_gresconf_parse("Name=gpu File=/dev/x[0-99]\n", "x", &g, err,
					    sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "more than 64 GPUs"), "%s", err);
	ck_assert_int_eq(bnd_gresconf_parse("Name=gpu File=/dev/x[3-1]\n", "x", &g, err,
					    sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "does not expand"), "%s", err);
	/* A missing file: no GPUs, no error. */
	ck_assert_int_eq(bnd_gresconf_read("/nonexistent/gres.conf", "x", &g, err, sizeof(err)),
			 BND_OK);
	ck_assert_int_eq(g.n, 0);
	char dir[1024];
	bnd_slurmconf_dir("/tmp/binding-e2e.x/slurm.conf", dir, sizeof(dir));
	ck_assert_str_eq(dir, "/tmp/binding-e2e.x");
	bnd_slurmconf_dir(NULL, dir, sizeof(dir));
	ck_assert_str_eq(dir, "/etc/slurm");
	bnd_slurmconf_dir("slurm.conf", dir, sizeof(dir));
	ck_assert_str_eq(dir, "/etc/slurm");
}
END_TEST

/* A gres.conf NodeName range is expanded once per line (issue 32 item 6:
 * each index was expanded from the list's start, 6.5 s in root's
 * slurmstepd for 16,000 names, 110 s reachable at the cap). The names a
 * walk makes are counted at their probe, never timed. */
START_TEST(gresconf_host_ranges_expand_once)
{
	struct bnd_gres_gpus g;
	char err[BND_ERRLEN];
	const char *conf = "NodeName=n[00001-16000] Name=gpu File=/dev/nvidia0\n";
	long before = bnd_fault_passes("hostlist.entry");
	ck_assert_int_eq(bnd_gresconf_parse(conf, "zz", &g, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(g.n, 0);
	ck_assert_int_eq(bnd_fault_passes("hostlist.entry") - before, 16000);
	before = bnd_fault_passes("hostlist.entry");
	ck_assert_int_eq(bnd_gresconf_parse(conf, "n16000", &g, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(g.n, 1);
	ck_assert_int_eq(bnd_fault_passes("hostlist.entry") - before, 16000 + 1);
	/* past the cap (65536 names) a list is not a node's: the walk stops there */
	before = bnd_fault_passes("hostlist.entry");
	ck_assert_int_eq(bnd_gresconf_parse("NodeName=n[1-2000000] Name=gpu File=/dev/nvidia0\n",
					    "n1999999", &g, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(g.n, 0);
	ck_assert_int_le(bnd_fault_passes("hostlist.entry") - before, 65536 + 1);
}
END_TEST

START_TEST(cgroupconf_constrain_devices)
{
	char path[] = "/tmp/bnd-cgconf-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	const char *t = "CgroupPlugin=cgroup/v2\n# ConstrainDevices=yes\n  ConstrainDevices=Yes\n";
	ck_assert_int_eq(write(fd, t, strlen(t)), (ssize_t)strlen(t));
	close(fd);
	ck_assert_int_eq(bnd_cgroupconf_constrain_devices(path), 1);
	FILE *fp = fopen(path, "w");
	fputs("ConstrainDevices=no\n", fp);
	fclose(fp);
	ck_assert_int_eq(bnd_cgroupconf_constrain_devices(path), 0);
	unlink(path);
	ck_assert_int_eq(bnd_cgroupconf_constrain_devices(path), 0);
}
END_TEST

/* The MI300A shape: 4 GPUs, bus ids 000N:02:00.0; fake device files
 * mapped by the site (no file need exist for a map by name). */
static struct bnd_topology *topo;
static struct bnd_gres_gpus gres;
static struct bnd_gpu_devmap map;

static void setup(void)
{
	char err[BND_ERRLEN];
	topo = tu_topo("tests/unit/topology/xml/mi300a-apu.xml");
	ck_assert_int_eq(bnd_gresconf_parse("Name=gpu File=/x/fakegpu[0-3]\n", "n1", &gres, err,
					    sizeof(err)), BND_OK);
	memset(&map, 0, sizeof(map));
	ck_assert_int_eq(bnd_gpu_devmap_add(&map, "/x/fakegpu0=0000:02:00.0,/x/fakegpu1=0001:02:00.0,"
					    "/x/fakegpu2=0002:02:00.0,/x/fakegpu3=0003:02:00.0",
					    err, sizeof(err)), BND_OK);
}

static void teardown(void)
{
	bnd_topology_free(topo);
}

/* "task 0: a,b | task 1: ..." as topology labels. */
static const char *learn(const char *step_gpus, const char *bind, const char *gpt,
			 const char *tpg, int constrain, int may_split, int ntasks,
			 struct bnd_step_gpus *g)
{
	static char out[1024];
	struct bnd_step_gpu_in in = { step_gpus, bind, gpt, tpg };
	struct bnd_step_gpu_ctx ctx = { topo, &gres, &map, NULL, constrain, may_split, NULL, 0 };
	ck_assert_int_eq(bnd_step_gpus_learn(&in, &ctx, ntasks, g), BND_OK);
	size_t used = 0;
	out[0] = '\0';
	for (int p = 0; p < g->ntasks; p++) {
		uint64_t m = bnd_step_gpus_mask(g, bnd_step_gpus_of_task(g, p, 0));
		used += (size_t)snprintf(out + used, sizeof(out) - used, "%s", p ? " | " : "");
		char l[256];
		bnd_near_labels(topo, m, l, sizeof(l));
		used += (size_t)snprintf(out + used, sizeof(out) - used, "%s", l[0] ? l : "-");
	}
	return out;
}

START_TEST(slurms_rules)
{
	struct bnd_step_gpus g;
	/* --gpus-per-task=1 (per_task:1): task p the step's p-th. */
	ck_assert_str_eq(learn("1,2", NULL, "1", NULL, 0, 1, 2, &g), "rsmi1 | rsmi2");
	ck_assert_int_eq(g.split, BND_SPLIT_SLURM);
	ck_assert_str_eq(g.how, "Slurm's --gpu-bind=per_task:1");
	ck_assert_str_eq(g.problem, "");
	ck_assert_str_eq(g.file[1], "/x/fakegpu2");
	bnd_step_gpus_free(&g);
	ck_assert_str_eq(learn("0-3", NULL, "a100:2", NULL, 0, 1, 2, &g), "rsmi0,rsmi1 | rsmi2,rsmi3");
	bnd_step_gpus_free(&g);
	/* More tasks than GPUs per task: the last ones get none (Slurm says
	 * "Not enough gpus"). */
	ck_assert_str_eq(learn("0-2", "verbose,per_task:2", NULL, NULL, 0, 1, 2, &g),
			 "rsmi0,rsmi1 | rsmi2");
	bnd_step_gpus_free(&g);
	/* map_gpu: GRES indices, repeats; under ConstrainDevices positions. */
	ck_assert_str_eq(learn("1,3", "map_gpu:3,1", NULL, NULL, 0, 1, 2, &g), "rsmi3 | rsmi1");
	bnd_step_gpus_free(&g);
	ck_assert_str_eq(learn("1,3", "map_gpu:1*2,0", NULL, NULL, 1, 1, 4, &g),
			 "rsmi3 | rsmi3 | rsmi1 | rsmi3");
	bnd_step_gpus_free(&g);
	ck_assert_str_eq(learn("0-3", "mask_gpu:0x3,0xc", NULL, NULL, 0, 1, 2, &g),
			 "rsmi0,rsmi1 | rsmi2,rsmi3");
	bnd_step_gpus_free(&g);
	/* closest: Slurm picks from cpus it does not know yet: all of them. */
	ck_assert_str_eq(learn("0,1", "closest", NULL, NULL, 0, 1, 2, &g),
			 "rsmi0,rsmi1 | rsmi0,rsmi1");
	ck_assert_int_eq(g.split, BND_SPLIT_NONE);
	ck_assert_msg(strstr(g.how, "not known before the task starts"), "%s", g.how);
	bnd_step_gpus_free(&g);
	ck_assert_str_eq(learn("0,1", NULL, NULL, "2", 0, 1, 4, &g),
			 "rsmi0,rsmi1 | rsmi0,rsmi1 | rsmi0,rsmi1 | rsmi0,rsmi1");
	bnd_step_gpus_free(&g);
}
END_TEST

START_TEST(plugin_split)
{
	struct bnd_step_gpus g;
	ck_assert_str_eq(learn("0-3", NULL, NULL, NULL, 0, 1, 2, &g), "rsmi0,rsmi1 | rsmi2,rsmi3");
	ck_assert_int_eq(g.split, BND_SPLIT_PLUGIN);
	ck_assert_str_eq(g.how, "split by the plugin as --gpus-per-task=2");
	bnd_step_gpus_free(&g);
	ck_assert_str_eq(learn("2,3", NULL, NULL, NULL, 0, 1, 4, &g), "rsmi2 | rsmi2 | rsmi3 | rsmi3");
	ck_assert_str_eq(g.how, "split by the plugin as --ntasks-per-gpu=2");
	bnd_step_gpus_free(&g);
	ck_assert_str_eq(learn("0-2", NULL, NULL, NULL, 0, 1, 2, &g),
			 "rsmi0,rsmi1,rsmi2 | rsmi0,rsmi1,rsmi2");
	ck_assert_int_eq(g.split, BND_SPLIT_NONE);
	ck_assert_str_eq(g.how, "3 GPUs for 2 tasks: not split, every task has all");
	bnd_step_gpus_free(&g);
	/* Not a GPU-aware request: never split by the plugin. */
	ck_assert_str_eq(learn("0-3", NULL, NULL, NULL, 0, 0, 2, &g),
			 "rsmi0,rsmi1,rsmi2,rsmi3 | rsmi0,rsmi1,rsmi2,rsmi3");
	bnd_step_gpus_free(&g);
	/* No GPUs at all. */
	ck_assert_str_eq(learn(NULL, NULL, "1", NULL, 0, 1, 2, &g), "- | -");
	ck_assert_int_eq(g.n, 0);
	bnd_step_gpus_free(&g);
}
END_TEST

START_TEST(where_the_gpus_are)
{
	struct bnd_step_gpus g;
	char err[BND_ERRLEN];
	/* A device without a bus id: that GPU has no place, and it is said. */
	memset(&map, 0, sizeof(map));
	ck_assert_int_eq(bnd_gpu_devmap_add(&map, "/x/fakegpu0=0000:02:00.0,/x/fakegpu1=0009:00:00.0",
					    err, sizeof(err)), BND_OK);
	ck_assert_str_eq(learn("0-2", NULL, "1", NULL, 0, 1, 3, &g), "rsmi0 | - | -");
	ck_assert_msg(strstr(g.problem, "GPU 1: bus id 0009:00:00.0 is not a device of this "
			     "node's topology"), "%s", g.problem);
	bnd_step_gpus_free(&g);
	/* A GRES index beyond gres.conf: no file. */
	ck_assert_str_eq(learn("7", NULL, NULL, NULL, 0, 1, 1, &g), "-");
	ck_assert_msg(strstr(g.problem, "GPU 7: no gres.conf File= names its device"), "%s",
		      g.problem);
	bnd_step_gpus_free(&g);
	/* AutoDetect=rsmi without File=: the AMD GPUs in bus order. */
	ck_assert_int_eq(bnd_gresconf_parse("AutoDetect=rsmi\n", "n1", &gres, err, sizeof(err)),
			 BND_OK);
	ck_assert_str_eq(learn("1,3", NULL, "1", NULL, 0, 1, 2, &g), "rsmi1 | rsmi3");
	ck_assert_str_eq(g.file[0], "");
	bnd_step_gpus_free(&g);
	ck_assert_int_eq(bnd_gresconf_parse("AutoDetect=nvml\n", "n1", &gres, err, sizeof(err)),
			 BND_OK);
	ck_assert_str_eq(learn("0", NULL, NULL, NULL, 0, 1, 1, &g), "-");
	ck_assert_msg(strstr(g.problem, "beyond the GPUs AutoDetect finds"), "%s", g.problem);
	bnd_step_gpus_free(&g);
	/* Bus ids for the task's environment. */
	ck_assert_int_eq(bnd_gresconf_parse("Name=gpu File=/x/fakegpu[0-3]\n", "n1", &gres, err,
					    sizeof(err)), BND_OK);
	learn("0,1", NULL, NULL, NULL, 0, 1, 1, &g);
	char list[256];
	bnd_step_gpus_list(&g, topo, 3, list, sizeof(list));
	ck_assert_str_eq(list, "0000:02:00.0,/x/fakegpu1");
	bnd_step_gpus_free(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stepgpu");
	TCase *tc = tcase_create("stepgpu");
	tcase_add_test(tc, gresconf_as_slurmd_reads_it);
	tcase_add_test(tc, cgroupconf_constrain_devices);
	tcase_add_test(tc, gresconf_host_ranges_expand_once);
	suite_add_tcase(s, tc);
	TCase *rules = tcase_create("rules");
	tcase_add_checked_fixture(rules, setup, teardown);
	tcase_add_test(rules, slurms_rules);
	tcase_add_test(rules, plugin_split);
	tcase_add_test(rules, where_the_gpus_are);
	suite_add_tcase(s, rules);
	return tu_run(s);
}
