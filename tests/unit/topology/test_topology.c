/* Topology loading and flattening: synthetic descriptions with exact
 * layouts, this machine against /sys, and every real XML against the
 * object counts written in the file itself. */
#include <dirent.h>
#include <dlfcn.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/topology/topology.h"
#include "binding/topology/topostring.h"
#include "testutil.h"
#include "testtopo.h"

static char *ocs(const struct bnd_topology *t)
{
	size_t n = bnd_topostring_length(t, BND_TOPO_OCS) + 1;
	char *s = malloc(n);
	ck_assert_int_eq(bnd_topostring_format(t, BND_TOPO_OCS, NULL, s, n), BND_OK);
	return s;
}

static int count_units(const struct bnd_topology *t, int type)
{
	int n = 0;
	for (int i = 0; i < t->nunits; i++)
		n += t->units[i].type == type;
	return n;
}

START_TEST(synthetic_numa_in_packages)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:4 pu:2");
	ck_assert_int_eq(t->nsockets, 2);
	ck_assert_int_eq(t->nnuma, 4);
	ck_assert_int_eq(t->ncores, 16);
	ck_assert_int_eq(t->npus, 32);
	ck_assert_int_eq(t->nl3, 0);
	ck_assert_int_eq(t->nl2, 0);
	ck_assert_int_eq(t->has_kinds, 0);
	/* hwloc puts each node on a group inside the package: S then N. */
	char *s = ocs(t);
	ck_assert_str_eq(s, "SNCTTCTTCTTCTTNCTTCTTCTTCTTSNCTTCTTCTTCTTNCTTCTTCTTCTT");
	free(s);
	for (int c = 0; c < 16; c++) {
		ck_assert_int_eq(t->cores[c].socket, c / 8);
		ck_assert_int_eq(t->cores[c].core, c % 8);
		ck_assert_int_eq(t->cores[c].numa, c / 4);
		ck_assert_int_eq(t->cores[c].npus, 2);
		ck_assert_int_eq(t->cores[c].pu_first, 2 * c);
		ck_assert_int_eq(t->cores[c].kind, BND_KIND_POWER);
	}
	for (int n = 0; n < 4; n++) {
		ck_assert_int_eq(t->numa_os[n], n);
		ck_assert_int_eq(bnd_cpuset_count(&t->numa_cpus[n]), 8);
		ck_assert(bnd_cpuset_isset(&t->numa_cpus[n], 8 * n));
		ck_assert(bnd_cpuset_isset(&t->numa_cpus[n], 8 * n + 7));
	}
	ck_assert_int_eq(t->socket_first_core[1], 8);
	ck_assert_int_eq(t->socket_ncores[1], 8);
	ck_assert_int_eq(bnd_cpuset_count(&t->all_cpus), 32);
	bnd_topology_free(t);
}
END_TEST

START_TEST(synthetic_lookups)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:4 pu:2");
	ck_assert_int_eq(bnd_topology_core_at(t, 0, 0), 0);
	ck_assert_int_eq(bnd_topology_core_at(t, 1, 3), 11);
	ck_assert_int_eq(bnd_topology_core_at(t, 1, 7), 15);
	ck_assert_int_eq(bnd_topology_core_at(t, 1, 8), -1);
	ck_assert_int_eq(bnd_topology_core_at(t, 2, 0), -1);
	ck_assert_int_eq(bnd_topology_core_at(t, -1, 0), -1);
	ck_assert_int_eq(bnd_topology_core_at(t, 0, -1), -1);

	bnd_cpuset_t cpus;
	bnd_nodeset_t nodes;
	bnd_topology_core_cpus(t, 5, &cpus);
	ck_assert_int_eq(bnd_cpuset_count(&cpus), 2);
	ck_assert(bnd_cpuset_isset(&cpus, 10) && bnd_cpuset_isset(&cpus, 11));
	bnd_topology_core_cpus(t, 16, &cpus);
	ck_assert(bnd_cpuset_empty(&cpus));

	ck_assert_int_eq(bnd_topology_core_of_cpu(t, 13), 6);
	ck_assert_int_eq(bnd_topology_core_of_cpu(t, 31), 15);
	ck_assert_int_eq(bnd_topology_core_of_cpu(t, 32), -1);
	ck_assert_int_eq(bnd_topology_core_of_cpu(t, -1), -1);

	bnd_cpuset_zero(&cpus);
	bnd_cpuset_set(&cpus, 0);
	bnd_cpuset_set(&cpus, 9);
	bnd_cpuset_set(&cpus, 31);
	bnd_topology_numa_of_cpus(t, &cpus, &nodes);
	ck_assert_int_eq(bnd_nodeset_count(&nodes), 3);
	ck_assert(bnd_nodeset_isset(&nodes, 0) && bnd_nodeset_isset(&nodes, 1) &&
		  bnd_nodeset_isset(&nodes, 3));

	/* Unit 1 is socket 0: cpus 0-15. */
	ck_assert_int_eq(t->units[1].type, BND_U_SOCKET);
	tu_unit_cpus(t, 1, &cpus);
	ck_assert_int_eq(bnd_cpuset_count(&cpus), 16);
	ck_assert(bnd_cpuset_isset(&cpus, 15) && !bnd_cpuset_isset(&cpus, 16));
	bnd_topology_free(t);
}
END_TEST

START_TEST(synthetic_shapes)
{
	struct bnd_topology *t = tu_topo("pack:2 core:2");
	ck_assert_int_eq(t->nsockets, 2);
	ck_assert_int_eq(t->ncores, 4);
	ck_assert_int_eq(t->npus, 4);
	ck_assert_int_eq(t->nnuma, 1);
	ck_assert_int_eq(t->cores[3].socket, 1);
	ck_assert_int_eq(t->cores[3].core, 1);
	bnd_topology_free(t);

	/* No package level: one synthetic socket holds every core. */
	t = tu_topo("core:4 pu:2");
	ck_assert_int_eq(t->nsockets, 1);
	ck_assert_int_eq(t->socket_ncores[0], 4);
	char *s = ocs(t);
	ck_assert_str_eq(s, "NSCTTCTTCTTCTT");
	free(s);
	bnd_topology_free(t);

	/* No core level: each PU becomes a one-PU core. */
	t = tu_topo("pack:2 pu:3");
	ck_assert_int_eq(t->ncores, 6);
	ck_assert_int_eq(t->npus, 6);
	ck_assert_int_eq(t->cores[4].socket, 1);
	ck_assert_int_eq(t->cores[4].core, 1);
	ck_assert_int_eq(t->cores[4].npus, 1);
	s = ocs(t);
	ck_assert_str_eq(s, "NSCCCSCCC");
	free(s);
	bnd_topology_free(t);

	/* Caches: L3 and L2 units, L1 ignored. */
	t = tu_topo("pack:1 l3:2 l2:2 l1:1 core:1 pu:2");
	ck_assert_int_eq(t->nl3, 2);
	ck_assert_int_eq(t->nl2, 4);
	s = ocs(t);
	ck_assert_str_eq(s, "NSXYCTTYCTTXYCTTYCTT");
	free(s);
	ck_assert_int_eq(t->cores[3].l3, 1);
	ck_assert_int_eq(t->cores[3].l2, 3);
	ck_assert_int_eq(t->cores[0].numa, 0);
	bnd_topology_free(t);

	/* hwloc attaches these nodes to the L3s (N wraps X); groups are transparent. */
	t = tu_topo("pack:2 group:1 l3:2 numa:1 core:2 pu:1");
	s = ocs(t);
	ck_assert_str_eq(s, "SNXCCNXCCSNXCCNXCC");
	free(s);
	ck_assert_int_eq(t->cores[6].numa, 3);
	ck_assert_int_eq(t->cores[6].l3, 3);
	bnd_topology_free(t);

	/* Found by fuzz_topology: caches inside a core made L2/L3 units
	 * between the core and its PUs, and the flattening's self-check
	 * refused the topology. They are transparent there, like L1. */
	t = tu_topo("pack:1 core:2 l2:2 pu:1");
	ck_assert_int_eq(t->nl2, 0);
	ck_assert_int_eq(t->ncores, 2);
	ck_assert_int_eq(t->cores[1].npus, 2);
	ck_assert_int_eq(t->cores[1].l2, -1);
	s = ocs(t);
	ck_assert_str_eq(s, "NSCTTCTT");
	free(s);
	bnd_topology_free(t);
	t = tu_topo("pack:2 l3:1 core:1 l2:2 pu:1");
	ck_assert_int_eq(t->nl3, 2);
	ck_assert_int_eq(t->nl2, 0);
	s = ocs(t);
	ck_assert_str_eq(s, "NSXCTTSXCTT");
	free(s);
	bnd_topology_free(t);
}
END_TEST

START_TEST(bad_sources)
{
	const char *bad[] = { "bogus", "/nonexistent/dir/topo.xml", "pack:x core:2",
			      "pack:2 core:0", NULL };
	for (int i = 0; bad[i]; i++) {
		struct bnd_topology *t = (struct bnd_topology *)1;
		char err[BND_ERRLEN] = "";
		int rc = bnd_topology_load(&t, bad[i], err, sizeof(err));
		ck_assert_msg(rc == BND_EINVAL, "%s: rc %d", bad[i], rc);
		ck_assert_ptr_null(t);
		ck_assert_msg(strstr(err, bad[i]) != NULL, "message does not name %s: %s",
			      bad[i], err);
	}
	/* A file that is not an XML topology. */
	char path[] = "/tmp/bnd-topo-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "<html></html>\n", 14), 14);
	close(fd);
	struct bnd_topology *t = NULL;
	char err[BND_ERRLEN] = "";
	ck_assert_int_ne(bnd_topology_load(&t, path, err, sizeof(err)), BND_OK);
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, path) != NULL, "%s", err);
	unlink(path);
}
END_TEST

static int read_int_file(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -1;
	int ok = fgets(buf, (int)len, fp) != NULL;
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	return ok ? 0 : -1;
}

START_TEST(this_machine)
{
	struct bnd_topology *t = tu_topo(NULL);
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_topology_validate(t, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_str_eq(t->source, "this machine");
	/* The whole node: every online CPU, whatever our affinity. */
	char line[4096];
	ck_assert_int_eq(read_int_file("/sys/devices/system/cpu/online", line, sizeof(line)), 0);
	bnd_cpuset_t online;
	ck_assert_int_eq(bnd_cpuset_parse_list(&online, line, err, sizeof(err)), BND_OK);
	ck_assert_msg(bnd_cpuset_equal(&online, &t->all_cpus), "online %s", line);
	ck_assert_int_eq(t->npus, bnd_cpuset_count(&online));
	ck_assert_int_eq(t->npus, (int)sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert_int_ge(t->nnuma, 1);
	/* Each PU's core agrees with the kernel's core siblings. */
	for (int p = 0; p < t->npus; p++) {
		char path[128];
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", t->pu_os[p]);
		if (read_int_file(path, line, sizeof(line)) < 0)
			continue;
		bnd_cpuset_t sib, core;
		ck_assert_int_eq(bnd_cpuset_parse_list(&sib, line, err, sizeof(err)), BND_OK);
		bnd_topology_core_cpus(t, t->pu_core[p], &core);
		ck_assert_msg(bnd_cpuset_equal(&sib, &core), "cpu %d siblings %s", t->pu_os[p], line);
	}
	bnd_topology_free(t);
}
END_TEST

/* Independent of bnd_topology_validate: recompute what each unit's
 * subtree holds by walking the child lists. */
static void subtree(const struct bnd_topology *t, int u, int *pus, int *cores, int *pu_min)
{
	const struct bnd_unit *x = &t->units[u];
	if (x->type == BND_U_PU) {
		(*pus)++;
		if (x->index < *pu_min)
			*pu_min = x->index;
	}
	if (x->type == BND_U_CORE)
		(*cores)++;
	for (int c = x->first_child; c != -1; c = t->units[c].next_sibling) {
		ck_assert_int_eq(t->units[c].parent, u);
		subtree(t, c, pus, cores, pu_min);
	}
}

static int count_in_file(const char *path, const char *needle)
{
	FILE *fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	int n = 0;
	char line[8192];
	while (fgets(line, sizeof(line), fp))
		for (char *p = line; (p = strstr(p, needle)); p += strlen(needle))
			n++;
	fclose(fp);
	return n;
}

/* Every core has exactly one local node (the local sets partition the
 * cpus), and a distance matrix is a SLIT:
 * each node nearest to itself. */
static void check_numa_memory(const struct bnd_topology *t, const char *path)
{
	bnd_cpuset_t all;
	bnd_cpuset_zero(&all);
	for (int n = 0; n < t->nnuma; n++) {
		bnd_cpuset_t both = all;
		bnd_cpuset_and(&both, &t->numa_cpus[n]);
		ck_assert_msg(bnd_cpuset_empty(&both), "%s: node %d shares cpus", path, n);
		bnd_cpuset_or(&all, &t->numa_cpus[n]);
		for (int m = 0; m < t->nnuma; m++)
			ck_assert_msg(bnd_topology_numa_distance(t, n, n) <=
				      bnd_topology_numa_distance(t, n, m),
				      "%s: node %d nearer to %d than to itself", path, n, m);
	}
	ck_assert_msg(bnd_cpuset_equal(&all, &t->all_cpus), "%s: cpus without a local node", path);
	for (int c = 0; c < t->ncores; c++) {
		bnd_cpuset_t cpus;
		bnd_topology_core_cpus(t, c, &cpus);
		int local = 0;
		for (int n = 0; n < t->nnuma; n++)
			local += bnd_cpuset_subset(&cpus, &t->numa_cpus[n]);
		ck_assert_msg(local == 1, "%s: core %d local to %d nodes", path, c, local);
	}
}

static void check_xml(const char *path)
{
	struct bnd_topology *t = tu_topo(path);
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_topology_validate(t, err, sizeof(err)) == BND_OK, "%s: %s", path, err);

	/* Counts against the file's own objects (no XML here has
	 * disallowed-but-present PUs; offline ones are not objects). */
	int pkgs = count_in_file(path, "<object type=\"Package\"");
	ck_assert_int_eq(t->npus, count_in_file(path, "<object type=\"PU\""));
	ck_assert_int_eq(t->nsockets, pkgs ? pkgs : 1);
	ck_assert_int_eq(t->nnuma, count_in_file(path, "<object type=\"NUMANode\""));
	ck_assert_int_eq(count_units(t, BND_U_SOCKET), t->nsockets);
	ck_assert_int_eq(count_units(t, BND_U_CORE), t->ncores);
	ck_assert_int_eq(count_units(t, BND_U_PU), t->npus);

	/* Every PU in exactly one core; OS ids distinct. */
	int *owner = calloc((size_t)t->npus, sizeof(int));
	bnd_cpuset_t seen;
	bnd_cpuset_zero(&seen);
	for (int c = 0; c < t->ncores; c++)
		for (int p = t->cores[c].pu_first; p < t->cores[c].pu_first + t->cores[c].npus; p++) {
			ck_assert_int_lt(p, t->npus);
			owner[p]++;
			ck_assert_int_eq(t->pu_core[p], c);
		}
	for (int p = 0; p < t->npus; p++) {
		ck_assert_msg(owner[p] == 1, "%s: PU %d in %d cores", path, p, owner[p]);
		ck_assert(!bnd_cpuset_isset(&seen, t->pu_os[p]));
		bnd_cpuset_set(&seen, t->pu_os[p]);
	}
	free(owner);
	ck_assert(bnd_cpuset_equal(&seen, &t->all_cpus));

	/* Cores contiguous per socket, numbered 0.. without holes. */
	int next = 0;
	for (int s = 0; s < t->nsockets; s++) {
		ck_assert_int_eq(t->socket_first_core[s], next);
		for (int k = 0; k < t->socket_ncores[s]; k++) {
			int c = bnd_topology_core_at(t, s, k);
			ck_assert_int_eq(c, next + k);
			ck_assert_int_eq(t->cores[c].socket, s);
			ck_assert_int_eq(t->cores[c].core, k);
		}
		next += t->socket_ncores[s];
	}
	ck_assert_int_eq(next, t->ncores);

	/* Unit ranges match their subtree; a core's NUMA node encloses it. */
	for (int u = 0; u < t->nunits; u++) {
		int pus = 0, cores = 0, pu_min = t->npus;
		subtree(t, u, &pus, &cores, &pu_min);
		ck_assert_int_eq(t->units[u].pu_count, pus);
		if (t->units[u].type != BND_U_PU)
			ck_assert_int_eq(t->units[u].core_count, cores);
		ck_assert_int_eq(t->units[u].pu_first, pu_min);
	}
	for (int c = 0; c < t->ncores; c++) {
		int n = -1;
		for (int u = t->units[t->cores[c].unit].parent; u >= 0 && n < 0; u = t->units[u].parent)
			if (t->units[u].type == BND_U_NUMA)
				n = t->units[u].index;
		ck_assert_int_eq(t->cores[c].numa, n);
		ck_assert_int_ge(n, 0);
		bnd_cpuset_t cpus;
		bnd_topology_core_cpus(t, c, &cpus);
		ck_assert(bnd_cpuset_subset(&cpus, &t->numa_cpus[n]));
		ck_assert_int_eq(bnd_topology_core_of_cpu(t, bnd_cpuset_next(&cpus, -1)), c);
	}
	check_numa_memory(t, path);
	bnd_topology_free(t);
}

START_TEST(every_xml)
{
	char **xmls = tu_topology_xmls();
	if (!xmls)
		return;
	int n = 0;
	for (char **p = xmls; *p; p++, n++)
		check_xml(*p);
	ck_assert_int_ge(n, 1);
	tu_free_list(xmls);
}
END_TEST

static void kinds(const char *name, int power, int eff)
{
	char *p = tu_topology_xml(name);
	if (!p)
		return;
	struct bnd_topology *t = tu_topo(p);
	int np = 0, ne = 0;
	for (int c = 0; c < t->ncores; c++) {
		if (t->cores[c].kind == BND_KIND_POWER)
			np++;
		else
			ne++;
		const struct bnd_unit *cu = &t->units[t->cores[c].unit];
		ck_assert_int_eq(cu->kind, t->cores[c].kind);
		for (int q = cu->first_child; q != -1; q = t->units[q].next_sibling)
			ck_assert_int_eq(t->units[q].kind, t->cores[c].kind);
	}
	ck_assert_msg(np == power && ne == eff, "%s: %d power %d efficiency", name, np, ne);
	ck_assert_int_eq(t->has_kinds, 1);
	bnd_topology_free(t);
	free(p);
}

START_TEST(hybrid_kinds)
{
	kinds("Intel-Core-RaptorLake-1pa6co2t+2ca4co1t-hybrid.xml", 6, 8);
	kinds("Intel-Core-LunarLake-1pa4co+1ca4co-hybrid.xml", 4, 4);
	kinds("Intel-Core-MeteorLake-1pa2co2pu+2ca4co+1ca2co-hybrid.xml", 2, 10);
	kinds("Intel-LakeField-1pa5co-hybrid.xml", 1, 4);
	kinds("Intel-i9-14900HX.xml", 8, 16);
	kinds("ARM-Apple-M1-1pa2ca4co.xml", 4, 4);
	kinds("NVIDIA-Spark.xml", 10, 10);

	/* The P cores of the 14900HX have two threads, the E cores one. */
	char *p = tu_topology_xml("Intel-i9-14900HX.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		for (int c = 0; c < t->ncores; c++)
			ck_assert_int_eq(t->cores[c].npus, t->cores[c].kind == BND_KIND_POWER ? 2 : 1);
		char *s = ocs(t);
		ck_assert_str_eq(s, "NSXYCTTYCTTYCTTYCTTYCTTYCTTYCTTYCTTYEEEEYEEEEYEEEEYEEEE");
		free(s);
		bnd_topology_free(t);
		free(p);
	}
	/* One kind: not hybrid. */
	p = tu_topology_xml("AMD-Epyc-Zen4-2pa4nu3ca8co+1hsn.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		ck_assert_int_eq(t->has_kinds, 0);
		bnd_topology_free(t);
		free(p);
	}
}
END_TEST

START_TEST(epyc_several_l3_per_socket)
{
	char **xmls = tu_topology_xmls();
	if (!xmls)
		return;
	int n = 0;
	for (char **p = xmls; *p; p++) {
		if (!strstr(*p, "/AMD-Epyc-"))
			continue;
		struct bnd_topology *t = tu_topo(*p);
		for (int u = 0; u < t->nunits; u++) {
			if (t->units[u].type != BND_U_SOCKET)
				continue;
			int x = 0;
			for (int v = u + 1; v < t->nunits && t->units[v].depth > t->units[u].depth; v++)
				x += t->units[v].type == BND_U_L3;
			ck_assert_msg(x >= 2, "%s: socket %d has %d L3", *p, t->units[u].index, x);
		}
		ck_assert_int_ge(t->nl3, 2 * t->nsockets);
		bnd_topology_free(t);
		n++;
	}
	tu_free_list(xmls);
	ck_assert_int_ge(n, 1);
}
END_TEST

START_TEST(numa_special_memory)
{
	/* Sapphire Rapids SNC4 + HBM: each DRAM node (0-7) is the nearest node
	 * of its cores; the HBM node (8-15) wraps it. */
	char *p = tu_topology_xml("Intel-Xeon-SapphireRapids-2pa4no10co2t+8hbm.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		ck_assert_int_eq(t->nnuma, 16);
		char *s = ocs(t);
		ck_assert(strncmp(s, "SXNNYCTT", 8) == 0);
		free(s);
		for (int c = 0; c < t->ncores; c++) {
			int os = t->numa_os[t->cores[c].numa];
			ck_assert_int_eq(os, c / 10);
		}
		bnd_cpuset_t cpus;
		bnd_nodeset_t nodes;
		bnd_topology_core_cpus(t, 0, &cpus);
		bnd_topology_numa_of_cpus(t, &cpus, &nodes);
		ck_assert_int_eq(bnd_nodeset_count(&nodes), 1);
		ck_assert(bnd_nodeset_isset(&nodes, 0));
		bnd_topology_free(t);
		free(p);
	}
	/* KNL flat: DDR (0) and MCDRAM (1, no CPUs of its own) on the machine. */
	p = tu_topology_xml("Intel-XeonPhi-KnightsLanding-Alltoall-Flat-1pa32ca2co4t.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		char *s = ocs(t);
		ck_assert(strncmp(s, "NNSYCTTTTCTTTT", 14) == 0);
		free(s);
		ck_assert_int_eq(t->numa_os[0], 1);
		ck_assert_int_eq(t->numa_os[1], 0);
		for (int c = 0; c < t->ncores; c++)
			ck_assert_int_eq(t->cores[c].numa, 1);
		bnd_topology_free(t);
		free(p);
	}
	/* CRLF file and offline hyperthreads. */
	p = tu_topology_xml("AMD-Epyc-Zen2-2pa8ca4co+ib.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		ck_assert_int_eq(t->ncores, 64);
		ck_assert_int_eq(t->nl3, 16);
		bnd_topology_free(t);
		free(p);
	}
	p = tu_topology_xml("Intel-Xeon-Westmere-2pa6co+ib.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		ck_assert_int_eq(t->npus, 12);
		ck_assert_int_eq(t->ncores, 12);
		ck_assert_int_eq(t->pu_os[11], 11);
		bnd_topology_free(t);
		free(p);
	}
}
END_TEST

static int count_cpuless(const struct bnd_topology *t)
{
	int n = 0;
	for (int i = 0; i < t->nnuma; i++)
		n += bnd_cpuset_empty(&t->numa_cpus[i]);
	return n;
}

#define GIB (1024ull * 1024 * 1024)

/* CPU-less nodes in the real machines: memory, no local cpus, distances. */
START_TEST(numa_cpuless_real)
{
	char *p = tu_topology_xml("Intel-Xeon-SapphireRapids-2pa4no10co2t+8hbm.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		ck_assert_int_eq(t->nnuma, 16);
		ck_assert_int_eq(count_cpuless(t), 8);
		for (int n = 0; n < 16; n++) {
			int os = t->numa_os[n];
			ck_assert_int_eq(bnd_cpuset_count(&t->numa_cpus[n]), os < 8 ? 20 : 0);
			if (os >= 8)
				ck_assert(t->numa_mem[n] == 16 * GIB);
			else
				ck_assert(t->numa_mem[n] > 60 * GIB && t->numa_mem[n] < 64 * GIB);
		}
		ck_assert_int_eq(t->has_dist, 1);
		int a = bnd_topology_numa_index(t, 0), b = bnd_topology_numa_index(t, 8);
		ck_assert_int_eq(bnd_topology_numa_distance(t, a, a), 10);
		ck_assert_int_gt(bnd_topology_numa_distance(t, a, b), 10);
		ck_assert(t->cache_size[1] > 0 && t->cache_size[2] > t->cache_size[1] &&
			  t->cache_size[3] > t->cache_size[2]);
		bnd_topology_free(t);
		free(p);
	}
	/* kmem: PMEM nodes 4 and 5 wrap each package, ~742 GB, no cpus. */
	p = tu_topology_xml("Intel-Xeon-CascadeLake-2pa2no10co2t+2kmem.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		ck_assert_int_eq(t->nnuma, 6);
		ck_assert_int_eq(count_cpuless(t), 2);
		for (int os = 4; os <= 5; os++) {
			int n = bnd_topology_numa_index(t, os);
			ck_assert(bnd_cpuset_empty(&t->numa_cpus[n]));
			ck_assert(t->numa_mem[n] > 700 * GIB);
		}
		for (int c = 0; c < t->ncores; c++)
			ck_assert_int_lt(t->numa_os[t->cores[c].numa], 4);
		bnd_topology_free(t);
		free(p);
	}
	/* dax + pmem: the PMEM is a device, not memory: 4 nodes with cpus. */
	p = tu_topology_xml("Intel-Xeon-CascadeLake-2pa2no10co2t+dax+pmem.xml");
	if (p) {
		struct bnd_topology *t = tu_topo(p);
		ck_assert_int_eq(t->nnuma, 4);
		ck_assert_int_eq(count_cpuless(t), 0);
		bnd_topology_free(t);
		free(p);
	}
}
END_TEST

/* Shapes of our own: GPU memory attached to the machine (POWER9 NVLink),
 * and an hwloc 1.x XML with a CPU-less node, which hwloc 2 imports as a
 * Group without cpus: before, "topology unit N: no children". */
START_TEST(numa_cpuless_shapes)
{
	struct bnd_topology *t = tu_topo("tests/unit/topology/xml/gpu-memory-at-root.xml");
	ck_assert_int_eq(t->nnuma, 4);
	ck_assert_int_eq(count_cpuless(t), 2);
	char *s = ocs(t);
	ck_assert_str_eq(s, "NNNSCCNSCC");
	free(s);
	for (int c = 0; c < 4; c++)
		ck_assert_int_eq(t->numa_os[t->cores[c].numa], c / 2);
	ck_assert(t->numa_mem[bnd_topology_numa_index(t, 2)] == 16 * GIB);
	ck_assert(t->numa_mem[bnd_topology_numa_index(t, 0)] == 64 * GIB);
	ck_assert_int_eq(t->has_dist, 0);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 0, 1), 20);
	check_numa_memory(t, "gpu-memory-at-root.xml");
	bnd_topology_free(t);

	t = tu_topo("tests/unit/topology/xml/hwloc1-cpuless-node.xml");
	ck_assert_int_eq(t->nnuma, 3);
	ck_assert_int_eq(t->ncores, 4);
	s = ocs(t);
	ck_assert_str_eq(s, "NSXCCNSCCN");
	free(s);
	int cpuless = bnd_topology_numa_index(t, 2);
	ck_assert(bnd_cpuset_empty(&t->numa_cpus[cpuless]));
	ck_assert(t->numa_mem[cpuless] == 16 * GIB);
	const struct bnd_unit *leaf = &t->units[t->nunits - 1];
	ck_assert_int_eq(leaf->type, BND_U_NUMA);
	ck_assert_int_eq(leaf->nchildren, 0);
	ck_assert_int_eq(leaf->pu_count, 0);
	/* The 1.x latencies (base 10, factors 1/2/4) become 10/20/40. */
	ck_assert_int_eq(t->has_dist, 1);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 0, 0), 10);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 0, 1), 20);
	ck_assert_int_eq(bnd_topology_numa_distance(t, 0, cpuless), 40);
	ck_assert(t->cache_size[3] == 20971520);
	check_numa_memory(t, "hwloc1-cpuless-node.xml");
	bnd_topology_free(t);

	/* Synthetic: sizes come from hwloc's default, no matrix. */
	t = tu_topo("pack:2 numa:2 core:2 pu:1");
	ck_assert_int_eq(t->has_dist, 0);
	check_numa_memory(t, "synthetic");
	bnd_topology_free(t);
}
END_TEST

START_TEST(validate_names_the_problem)
{
	struct bnd_topology *c = tu_topo("pack:2 numa:2 core:2 pu:2");
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_topology_validate(c, err, sizeof(err)), BND_OK);
	/* Break it: validation names the problem. */
	c->cores[2].socket = 5;
	ck_assert_int_eq(bnd_topology_validate(c, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "core 2") != NULL, "%s", err);
	c->cores[2].socket = 0;
	c->units[3].next_sibling = 1;
	ck_assert_int_eq(bnd_topology_validate(c, err, sizeof(err)), BND_EINVAL);
	bnd_topology_free(c);
}
END_TEST

static int entries(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* In a child: discovery (ours, or hwloc's with its I/O defaults), with
 * OCL_ICD_VENDORS naming only the stand-in vendor library. Exit code: bit
 * 0 the library was loaded, bit 1 a thread was left behind, bit 2 a
 * descriptor; 64 discovery failed. */
static int discover_with_icd(const char *icd_dir, const char *lib, int ours)
{
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (!c) {
		setenv("OCL_ICD_VENDORS", icd_dir, 1);
		int t0 = entries("/proc/self/task"), f0 = entries("/proc/self/fd");
		if (ours) {
			struct bnd_topology *t;
			char err[BND_ERRLEN];
			if (bnd_topology_load(&t, NULL, err, sizeof(err)) != BND_OK)
				_exit(64);
			bnd_topology_free(t);
		} else {
			hwloc_topology_t topo;
			if (hwloc_topology_init(&topo) ||
			    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) ||
			    hwloc_topology_load(topo))
				_exit(64);
			hwloc_topology_destroy(topo);
		}
		int loaded = dlopen(lib, RTLD_NOW | RTLD_NOLOAD) != NULL;
		_exit(loaded | (entries("/proc/self/task") > t0) << 1 |
		      (entries("/proc/self/fd") > f0) << 2);
	}
	int st = 0;
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* Issue 32 item 7: discovery runs in root's slurmd and slurmstepd (a
 * topology cache miss) before the tasks fork. hwloc's vendor components
 * start their runtimes in the discovering process: its opencl component
 * makes the ICD loader load every vendor library listed for it. Shown with
 * a stand-in vendor library (build/tests/fakeicd.so: a thread and a
 * descriptor that is not close-on-exec, as vendor runtimes leave): hwloc's
 * own discovery loads it; the library's loads nothing, leaves no thread
 * and no descriptor. Skipped only where hwloc loads no OpenCL vendor
 * library at all (no opencl component, or no ICD loader). */
START_TEST(vendor_runtimes_stay_out)
{
	const char *b = getenv("BINDING_BUILD");
	char lib[1024], icd[1100], dir[] = "/tmp/bnd-icd-XXXXXX";
	ck_assert_msg(b && *b, "BINDING_BUILD is not set (make unit sets it)");
	snprintf(lib, sizeof(lib), "%s/tests/fakeicd.so", b);
	ck_assert_msg(!access(lib, R_OK), "%s is not built (make unit builds it)", lib);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(icd, sizeof(icd), "%s/stand-in.icd", dir);
	FILE *f = fopen(icd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", lib);
	fclose(f);
	int theirs = discover_with_icd(dir, lib, 0), ours = discover_with_icd(dir, lib, 1);
	unlink(icd);
	rmdir(dir);
	ck_assert_int_ne(theirs, 64);
	if (!(theirs & 1)) {
		printf("# SKIP vendor_runtimes_stay_out: hwloc here loads no OpenCL vendor library "
		       "(no opencl component or ICD loader): nothing to keep out\n");
		return;
	}
	ck_assert_msg(theirs & 2, "the stand-in's thread was not seen (%#x)", theirs);
	ck_assert_msg(ours == 0, "the library's discovery %s%s%s", ours & 1 ? "loaded the vendor "
		      "library; " : "", ours & 2 ? "left a thread; " : "",
		      ours & 4 ? "left a descriptor" : "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("topology");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, synthetic_numa_in_packages);
	tcase_add_test(tc, synthetic_lookups);
	tcase_add_test(tc, synthetic_shapes);
	tcase_add_test(tc, bad_sources);
	tcase_add_test(tc, this_machine);
	tcase_add_test(tc, vendor_runtimes_stay_out);
	tcase_add_test(tc, every_xml);
	tcase_add_test(tc, hybrid_kinds);
	tcase_add_test(tc, epyc_several_l3_per_socket);
	tcase_add_test(tc, numa_special_memory);
	tcase_add_test(tc, validate_names_the_problem);
	tcase_add_test(tc, numa_cpuless_real);
	tcase_add_test(tc, numa_cpuless_shapes);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
