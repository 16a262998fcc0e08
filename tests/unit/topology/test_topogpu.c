/* GPUs of a topology: which devices count, their bus ids, OS device names,
 * the cpus and NUMA nodes local to each (hwloc's own locality, computed
 * here again from hwloc for every real XML), GPU memory nodes, names and
 * bus ids found both ways. */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/topology/topogpu.h"
#include "binding/topology/topology.h"
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

static const char *cpus_of(const struct bnd_topology *t, int g)
{
	static char buf[BND_CPULIST_TEXT];
	bnd_cpuset_format_list(&t->gpu_cpus[g], buf, sizeof(buf));
	return buf;
}

/* The OS ids of the GPU's NUMA nodes ("0,252"). */
static const char *nodes_of(const struct bnd_topology *t, int g)
{
	static char buf[256];
	bnd_nodeset_t os;
	bnd_nodeset_zero(&os);
	for (int n = bnd_nodeset_next(&t->gpu_numa[g], -1); n >= 0;
	     n = bnd_nodeset_next(&t->gpu_numa[g], n))
		bnd_nodeset_set(&os, t->numa_os[n]);
	bnd_nodeset_format_list(&os, buf, sizeof(buf));
	return buf;
}

START_TEST(dgx2h_sixteen_gpus)
{
	struct bnd_topology *t = xml("NVIDIA-DGX2H-2pa24co+16nvml+1nvswitch+10ib.xml");
	if (!t)
		return;
	/* 16 V100s and the BMC's ASPEED VGA (display only); the NVSwitches
	 * (class 0x0680) are bridges, not GPUs. */
	ck_assert_int_eq(t->ngpus, 17);
	int compute = 0;
	for (int g = 0; g < t->ngpus; g++)
		compute += t->gpus[g].compute;
	ck_assert_int_eq(compute, 16);
	int vga = bnd_gpu_find(t, "0000:04:00.0");
	ck_assert_int_ge(vga, 0);
	ck_assert_int_eq(t->gpus[vga].compute, 0);
	ck_assert_str_eq(t->gpus[vga].names, "");
	ck_assert_int_eq(t->gpus[vga].vendor, 0x1a03);

	int g3 = bnd_gpu_find(t, "nvml3");
	ck_assert_int_ge(g3, 0);
	ck_assert_str_eq(t->gpus[g3].busid, "0000:3b:00.0");
	ck_assert_str_eq(t->gpus[g3].names, "card3 renderD131 nvml3");
	ck_assert_int_eq(bnd_gpu_find(t, "renderD131"), g3);
	ck_assert_int_eq(bnd_gpu_find(t, "3B:00.0"), g3);
	ck_assert_int_eq(bnd_gpu_find(t, "00000000:3b:00.0"), g3);
	ck_assert_int_eq(t->gpus[g3].pci_class, 0x0302);
	ck_assert_int_eq(t->gpus[g3].vendor, 0x10de);
	ck_assert_str_eq(cpus_of(t, g3), "0-23,48-71");
	ck_assert_str_eq(nodes_of(t, g3), "0");
	int g12 = bnd_gpu_find(t, "nvml12");
	ck_assert_str_eq(cpus_of(t, g12), "24-47,72-95");
	ck_assert_str_eq(nodes_of(t, g12), "1");
	ck_assert_int_eq(t->gpus[g12].core_first, 24);
	ck_assert_int_eq(t->gpus[g12].core_count, 24);
	char label[BND_GPU_LABEL_LEN];
	ck_assert_str_eq(bnd_gpu_label(t, g12, label, sizeof(label)), "nvml12");
	ck_assert_str_eq(bnd_gpu_label(t, vga, label, sizeof(label)), "0000:04:00.0");
	/* Sorted by bus id. */
	for (int g = 1; g < t->ngpus; g++)
		ck_assert_int_lt(strcmp(t->gpus[g - 1].busid, t->gpus[g].busid), 0);
	ck_assert_int_eq(bnd_gpu_find(t, "nvml16"), -1);
	ck_assert_int_eq(bnd_gpu_find(t, "nvml"), -1);
	bnd_topology_free(t);
}
END_TEST

START_TEST(trento_gpu_per_l3)
{
	struct bnd_topology *t = xml("AMD-Epyc-Zen3Trento-1pa4no2ca4co2t+8rocm+4hsn.xml");
	if (!t)
		return;
	ck_assert_int_eq(t->ngpus, 8);
	/* Each MI250X GCD hangs off one CCD's L3: 8 cores, 16 threads. */
	int g = bnd_gpu_find(t, "rsmi4");
	ck_assert_str_eq(t->gpus[g].busid, "0000:d1:00.0");
	ck_assert_str_eq(cpus_of(t, g), "0-7,64-71");
	ck_assert_str_eq(nodes_of(t, g), "0");
	g = bnd_gpu_find(t, "opencl0d0");
	ck_assert_str_eq(t->gpus[g].busid, "0000:c1:00.0");
	ck_assert_str_eq(cpus_of(t, g), "48-55,112-119");
	ck_assert_str_eq(nodes_of(t, g), "3");
	ck_assert_int_eq(t->gpus[g].compute, 1);
	bnd_topology_free(t);
}
END_TEST

START_TEST(power8_and_display_only)
{
	struct bnd_topology *t = xml("IBM-POWER8-2pa10co8t+4cuda+2ib.xml");
	if (t) {
		int g = bnd_gpu_find(t, "cuda2");
		ck_assert_str_eq(t->gpus[g].busid, "0002:03:00.0");
		ck_assert_str_eq(t->gpus[g].names, "cuda2 nvml2");
		ck_assert_str_eq(cpus_of(t, g), "80-159");
		bnd_topology_free(t);
	}
	t = xml("Intel-Xeon-Skylake-2pa16co+2cuda+ib.xml");
	if (t) {
		/* The Matrox VGA has a DRM card0 but nothing that computes. */
		int vga = bnd_gpu_find(t, "card0");
		ck_assert_int_eq(t->gpus[vga].compute, 0);
		int g = bnd_gpu_find(t, "cuda1");
		ck_assert_str_eq(t->gpus[g].names, "opencl0d1 cuda1");
		ck_assert_int_eq(t->gpus[g].compute, 1);
		ck_assert_int_eq(bnd_gpu_find(t, "opencl0d1"), g);
		bnd_topology_free(t);
	}
	t = xml("ARM-Apple-M1-1pa2ca4co.xml");
	if (t) {
		/* An OS device without a PCI device: no bus id, the machine's cpus. */
		ck_assert_int_eq(t->ngpus, 1);
		ck_assert_str_eq(t->gpus[0].busid, "");
		ck_assert_str_eq(t->gpus[0].names, "opencl0d0");
		ck_assert_int_eq(t->gpus[0].core_count, t->ncores);
		ck_assert_int_eq(t->gpus[0].vendor, -1);
		bnd_topology_free(t);
	}
}
END_TEST

/* Our own XMLs (tests/unit/topology/xml/gen-gpu.py). */
START_TEST(gpu_memory_nodes)
{
	struct bnd_topology *t = tu_topo("tests/unit/topology/xml/power9-v100-gpumemory.xml");
	ck_assert_int_eq(t->ngpus, 4);
	ck_assert_int_eq(t->nnuma, 6);
	int g = bnd_gpu_find(t, "cuda1");
	ck_assert_str_eq(t->gpus[g].busid, "0004:05:00.0");
	ck_assert_int_eq(t->numa_os[t->gpus[g].mem_numa], 253);
	ck_assert_str_eq(nodes_of(t, g), "0,253");
	ck_assert_str_eq(cpus_of(t, g), "0-15");
	g = bnd_gpu_find(t, "nvml2");
	ck_assert_int_eq(t->numa_os[t->gpus[g].mem_numa], 254);
	ck_assert_str_eq(nodes_of(t, g), "8,254");
	ck_assert_str_eq(cpus_of(t, g), "16-31");
	/* The cores' own node stays the DRAM one. */
	ck_assert_int_eq(t->numa_os[t->cores[4].numa], 8);
	bnd_topology_free(t);

	t = tu_topo("tests/unit/topology/xml/mi300a-apu.xml");
	ck_assert_int_eq(t->ngpus, 4);
	g = bnd_gpu_find(t, "rsmi2");
	ck_assert_str_eq(t->gpus[g].busid, "0002:02:00.0");
	ck_assert_int_eq(t->gpus[g].pci_class, 0x1200);
	ck_assert_int_eq(t->gpus[g].mem_numa, -1);
	ck_assert_str_eq(nodes_of(t, g), "2");
	ck_assert_str_eq(cpus_of(t, g), "16-23");
	ck_assert_int_eq(bnd_gpu_find(t, "renderD130"), g);
	bnd_topology_free(t);

	/* Synthetic topologies have no I/O. */
	t = tu_topo("pack:2 core:2");
	ck_assert_int_eq(t->ngpus, 0);
	ck_assert_ptr_null(t->gpus);
	bnd_topology_free(t);
}
END_TEST

START_TEST(busid_forms)
{
	char out[BND_GPU_BUSID_LEN], err[BND_ERRLEN];
	ck_assert_int_eq(bnd_gpu_busid_normalize("0000:3B:00.0", out, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(out, "0000:3b:00.0");
	ck_assert_int_eq(bnd_gpu_busid_normalize("3b:00.1", out, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(out, "0000:3b:00.1");
	ck_assert_int_eq(bnd_gpu_busid_normalize("00000035:04:00.0", out, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(out, "0035:04:00.0");
	const char *bad[] = { "", "3b", "3b:00", "0000:3b:00.8", "1:0000:3b:00.0", "g0:00.0",
			      "0000:3b:00.0 ", "123:00.0", "00000:3b:00.0x", "100000000:3b:00.0",
			      NULL };
	for (int i = 0; bad[i]; i++) {
		ck_assert_msg(bnd_gpu_busid_normalize(bad[i], out, err, sizeof(err)) == BND_EINVAL,
			      "\"%s\" accepted", bad[i]);
		ck_assert_msg(strstr(err, "is not a PCI bus id"), "%s", err);
	}
}
END_TEST

/* Every real XML: each GPU's cpus are exactly hwloc's locality of that
 * device (asked from hwloc here, not from the library), its NUMA nodes
 * those of its cores. */
static void check_locality(const char *path)
{
	struct bnd_topology *t = tu_topo(path);
	hwloc_topology_t h;
	ck_assert_int_eq(hwloc_topology_init(&h), 0);
	hwloc_topology_set_io_types_filter(h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	ck_assert_int_eq(hwloc_topology_set_xml(h, path), 0);
	ck_assert_int_eq(hwloc_topology_load(h), 0);
	for (int g = 0; g < t->ngpus; g++) {
		const struct bnd_gpu *d = &t->gpus[g];
		if (!d->busid[0])
			continue;
		hwloc_obj_t o = NULL;
		unsigned dom, bus, dev, fn;
		ck_assert_int_eq(sscanf(d->busid, "%x:%x:%x.%x", &dom, &bus, &dev, &fn), 4);
		o = hwloc_get_pcidev_by_busid(h, dom, bus, dev, fn);
		ck_assert_msg(o != NULL, "%s: %s not in hwloc", path, d->busid);
		hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(h, o);
		bnd_cpuset_t want;
		bnd_cpuset_zero(&want);
		for (int c = hwloc_bitmap_first(anc->cpuset); c >= 0;
		     c = hwloc_bitmap_next(anc->cpuset, c))
			bnd_cpuset_set(&want, c);
		ck_assert_msg(bnd_cpuset_equal(&want, &t->gpu_cpus[g]), "%s: %s cpus %s", path,
			      d->busid, cpus_of(t, g));
		bnd_nodeset_t n;
		bnd_topology_numa_of_cpus(t, &want, &n);
		for (int k = 0; k < t->nnuma; k++)
			if (k != d->mem_numa)
				ck_assert(bnd_nodeset_isset(&n, t->numa_os[k]) ==
					  bnd_nodeset_isset(&t->gpu_numa[g], k));
	}
	hwloc_topology_destroy(h);
	bnd_topology_free(t);
}

START_TEST(every_xml_locality)
{
	char **xmls = tu_topology_xmls();
	if (!xmls)
		return;
	int with = 0;
	for (char **p = xmls; *p; p++) {
		check_locality(*p);
		struct bnd_topology *t = tu_topo(*p);
		with += t->ngpus > 0;
		bnd_topology_free(t);
	}
	ck_assert_int_ge(with, 10);
	tu_free_list(xmls);
	check_locality("tests/unit/topology/xml/power9-v100-gpumemory.xml");
	check_locality("tests/unit/topology/xml/mi300a-apu.xml");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topogpu");
	TCase *tc = tcase_create("topogpu");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, dgx2h_sixteen_gpus);
	tcase_add_test(tc, trento_gpu_per_l3);
	tcase_add_test(tc, power8_and_display_only);
	tcase_add_test(tc, gpu_memory_nodes);
	tcase_add_test(tc, busid_forms);
	tcase_add_test(tc, every_xml_locality);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
