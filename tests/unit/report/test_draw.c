/* The node's picture: hwloc's XML with each job's cores in its colour,
 * waiting and suspended steps marked, memory per NUMA node and a legend;
 * read back by hwloc as lstopo will. */
#include <check.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/report/draw.h"
#include "binding/state/history.h"
#include "binding/util/error.h"
#include "statetest.h"
#include "testutil.h"

static const char *T = "pack:2 numa:2(memory=1GiB) core:2 pu:2";

/* Job 30 holds core 0 (cpus 0-1) and 512 MiB on NUMA 0; job 20 holds one
 * thread of core 1 (cpu 2); job 40 waits for cores 2-3 (cpus 4-7); job 50
 * gave back core 5 (cpus 10-11) when suspended; job 60 was refused. */
static void sample(struct bnd_state_file *f)
{
	bnd_statefile_init(f);
	struct bnd_state_record r[5] = {
		st_rec(30, 0, 1, 1, "0-1"), st_rec(20, 0, 1, 1, "2"), st_rec(40, 0, 1, 1, ""),
		st_rec(50, 0, 1, 1, ""), st_rec(60, 0, 1, 1, ""),
	};
	ck_assert_int_eq(bnd_state_record_mem(&r[0], 1), BND_OK);
	r[0].mem[0].node = 0;
	r[0].mem[0].mib = 512;
	bnd_cpuset_t want, gave;
	bnd_cpuset_parse_list(&want, "4-7", NULL, 0);
	bnd_cpuset_parse_list(&gave, "10-11", NULL, 0);
	r[2].status = BND_ST_DEFERRED;
	ck_assert_int_eq(bnd_state_record_want(&r[2], &want, 1, 2), BND_OK);
	r[3].status = BND_ST_SUSPENDED;
	ck_assert_int_eq(bnd_hist_append(&r[3].hist, BND_H_BOUND, 1, &gave, NULL), BND_OK);
	ck_assert_int_eq(bnd_hist_append(&r[3].hist, BND_H_SUSPENDED, 2, &gave, "slurm-suspend"), 0);
	r[4].status = BND_ST_UNBOUND;
	snprintf(r[4].why, sizeof(r[4].why), "held_by_other_jobs");
	for (int i = 0; i < 5; i++) {
		if (i >= 2)
			r[i].ntasks = 0;
		ck_assert_int_eq(bnd_statefile_add(f, &r[i]), BND_OK);
		bnd_state_record_free(&r[i]);
	}
}

/* The lstopoStyle of an object, "" without one. */
static const char *style_of(hwloc_obj_t o)
{
	const char *s = hwloc_obj_get_info_by_name(o, "lstopoStyle");
	return s ? s : "";
}

/* The names of o's Misc children, space separated. */
static const char *miscs_of(hwloc_obj_t o, char *buf, size_t len)
{
	buf[0] = '\0';
	for (hwloc_obj_t m = o->misc_first_child; m; m = m->next_sibling)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s[%s]", m->name, style_of(m));
	return buf;
}

START_TEST(cores_take_their_jobs_colours)
{
	struct bnd_state_file f;
	sample(&f);
	struct bnd_draw_in in = { T, &f, NULL };
	char *xml, err[BND_ERRLEN] = "", buf[512];
	size_t len;
	ck_assert_msg(bnd_draw_xml(&in, &xml, &len, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_uint_eq(strlen(xml), len);
	hwloc_topology_t topo;
	ck_assert_int_eq(hwloc_topology_init(&topo), 0);
	ck_assert_int_eq(hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1), 0);
	/* as lstopo reads it: Misc objects kept */
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_ALL);
	ck_assert_int_eq(hwloc_topology_load(topo), 0);
	/* jobs by id: 20 blue, 30 orange, 40 green, 50 vermillion, 60 purple */
	const char *name;
	ck_assert_str_eq(bnd_draw_colour(1, &name), "#e69f00");
	ck_assert_str_eq(name, "orange");
	hwloc_obj_t c0 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, 0);
	ck_assert_str_eq(style_of(c0), "Background=#e69f00;Text=#000000");
	ck_assert_str_eq(miscs_of(c0, buf, sizeof(buf)), "job 30[Background=#e69f00;Text=#000000]");
	/* one thread of core 1: the thread filled, not the core */
	hwloc_obj_t c1 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, 1);
	ck_assert_str_eq(style_of(c1), "");
	hwloc_obj_t pu2 = hwloc_get_pu_obj_by_os_index(topo, 2);
	ck_assert_str_eq(style_of(pu2), "Background=#0072b2;Text=#ffffff");
	ck_assert_str_eq(miscs_of(pu2, buf, sizeof(buf)), "job 20[Background=#0072b2;Text=#ffffff]");
	/* waiting: white box, its colour as text, nothing filled */
	for (int c = 2; c <= 3; c++) {
		hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
		ck_assert_str_eq(style_of(core), "");
		ck_assert_str_eq(miscs_of(core, buf, sizeof(buf)),
				 "job 40 waits[Background=#ffffff;Text=#009e73]");
	}
	/* suspended: grey box on the core it gave back */
	hwloc_obj_t c5 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, 5);
	ck_assert_str_eq(miscs_of(c5, buf, sizeof(buf)),
			 "job 50 suspended[Background=#d9d9d9;Text=#d55e00]");
	/* memory on NUMA node 0 */
	hwloc_obj_t n0 = hwloc_get_numanode_obj_by_os_index(topo, 0);
	ck_assert_str_eq(miscs_of(n0, buf, sizeof(buf)), "job 30: 512 MiB[Background=#e69f00;Text=#000000]");
	/* the legend names every job, the refused one too */
	hwloc_obj_t root = hwloc_get_root_obj(topo);
	int lines = 0, refused = 0;
	for (unsigned i = 0; i < root->infos_count; i++)
		if (!strcmp(root->infos[i].name, "lstopoLegend")) {
			lines++;
			refused += !strcmp(root->infos[i].value, "job 60 (purple, uid 1000): step 0 unbound "
						     "held_by_other_jobs linear:1");
		}
	ck_assert_int_eq(lines, 5);
	ck_assert_int_eq(refused, 1);
	hwloc_topology_destroy(topo);
	free(xml);
	bnd_statefile_free(&f);
}
END_TEST

/* A GPU-aware step's GPUs take its colour; a job's script and step on
 * the same core make one box. */
START_TEST(gpus_and_one_box_per_job)
{
	char *xml_path = tu_topology_xml("NVIDIA-DGX2H-2pa24co+16nvml+1nvswitch+10ib.xml");
	struct bnd_topology *t = tu_topo(xml_path);
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	struct bnd_state_record a = st_rec(9, BND_STEP_BATCH, 1, 1, "0");
	struct bnd_state_record b = st_rec(9, 0, 1, 1, "0");
	const uint64_t gpus[1] = { 1u << 3 };
	ck_assert_int_eq(bnd_state_record_gpus(&b, gpus, 1), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(&f, &a), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(&f, &b), BND_OK);
	bnd_state_record_free(&a);
	bnd_state_record_free(&b);
	struct bnd_draw_in in = { xml_path, &f, t };
	char *xml, err[BND_ERRLEN] = "", buf[512];
	size_t len;
	ck_assert_msg(bnd_draw_xml(&in, &xml, &len, err, sizeof(err)) == BND_OK, "%s", err);
	hwloc_topology_t topo;
	ck_assert_int_eq(hwloc_topology_init(&topo), 0);
	ck_assert_int_eq(hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1), 0);
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_ALL);
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	ck_assert_int_eq(hwloc_topology_load(topo), 0);
	hwloc_obj_t pu0 = hwloc_get_pu_obj_by_os_index(topo, 0);
	hwloc_obj_t core = pu0->parent->type == HWLOC_OBJ_CORE ? pu0->parent : pu0;
	/* cpu 0 alone of a 2-thread core: the thread, one box for the job */
	ck_assert_str_eq(miscs_of(pu0, buf, sizeof(buf)), "job 9[Background=#0072b2;Text=#ffffff]");
	ck_assert_str_eq(miscs_of(core, buf, sizeof(buf)), "");
	hwloc_obj_t dev = hwloc_get_pcidev_by_busidstring(topo, t->gpus[3].busid);
	ck_assert_ptr_nonnull(dev);
	ck_assert_str_eq(style_of(dev), "Background=#0072b2;Text=#ffffff");
	ck_assert_str_eq(miscs_of(dev, buf, sizeof(buf)), "job 9[Background=#0072b2;Text=#ffffff]");
	hwloc_obj_t other = hwloc_get_pcidev_by_busidstring(topo, t->gpus[4].busid);
	ck_assert_str_eq(style_of(other), "");
	hwloc_topology_destroy(topo);
	free(xml);
	free(xml_path);
	bnd_statefile_free(&f);
	bnd_topology_free(t);
}
END_TEST

START_TEST(a_bad_source_is_named)
{
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	struct bnd_draw_in in = { "/nonexistent/topology", &f, NULL };
	char *xml, err[BND_ERRLEN] = "";
	size_t len;
	ck_assert_int_eq(bnd_draw_xml(&in, &xml, &len, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "/nonexistent/topology"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("draw");
	TCase *tc = tcase_create("draw");
	tcase_add_test(tc, cores_take_their_jobs_colours);
	tcase_add_test(tc, gpus_and_one_box_per_job);
	tcase_add_test(tc, a_bad_source_is_named);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
