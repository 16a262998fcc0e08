/* hwloc (this machine, XML, synthetic) -> the flattened arrays of
 * topology.h, plus the lookups placement uses on them. */
#include "binding/topology/topology.h"

#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/topology/topogpu.h"
#include "binding/topology/toposource.h"
#include "binding/util/error.h"

/* Flattening state: arrays grow as the hwloc tree is walked once. */
struct flat {
	hwloc_topology_t topo;
	struct bnd_topology *t;
	int cap_units, cap_cores, cap_pus, cap_sockets, cap_numa;
	int *last_child;       /* per unit, to append children in O(1) */
	int has_packages;
	int nkinds;            /* ranked cpukinds, 0 when not hybrid */
	hwloc_bitmap_t power;   /* PUs of the power kinds */
	char *err;
	size_t errlen;
	int rc;
};

/* Where a walk currently stands: the enclosing units that cores record. */
struct ctx {
	int parent;  /* unit to attach to */
	int socket;  /* GE socket number, -1 outside any */
	int numa, l3, l2;
	int core;    /* core index when inside a core, else -1 */
};

static int grow(void **p, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return 0;
	int n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, (size_t)n * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static int nomem(struct flat *f)
{
	f->rc = bnd_fail(f->err, f->errlen, BND_ENOMEM, "topology: out of memory");
	return -1;
}

static int add_unit(struct flat *f, int type, int parent)
{
	struct bnd_topology *t = f->t;
	int old = f->cap_units;
	if (grow((void **)&t->units, &f->cap_units, t->nunits + 1, sizeof(*t->units)))
		return nomem(f);
	if (f->cap_units != old) {
		int *lc = realloc(f->last_child, (size_t)f->cap_units * sizeof(*lc));
		if (!lc)
			return nomem(f);
		f->last_child = lc;
	}
	int i = t->nunits++;
	struct bnd_unit *u = &t->units[i];
	memset(u, 0, sizeof(*u));
	u->type = (uint8_t)type;
	u->parent = parent;
	u->depth = parent < 0 ? 0 : t->units[parent].depth + 1;
	u->first_child = -1;
	u->next_sibling = -1;
	u->os_index = -1;
	u->index = -1;
	u->pu_first = t->npus;
	u->core_first = t->ncores;
	f->last_child[i] = -1;
	if (parent >= 0) {
		struct bnd_unit *p = &t->units[parent];
		if (f->last_child[parent] < 0)
			p->first_child = i;
		else
			t->units[f->last_child[parent]].next_sibling = i;
		f->last_child[parent] = i;
		p->nchildren++;
	}
	return i;
}

static int kind_of(const struct flat *f, hwloc_const_bitmap_t cpus)
{
	if (f->nkinds < 2)
		return BND_KIND_POWER;
	int first = hwloc_bitmap_first(cpus);
	if (first >= 0 && hwloc_bitmap_isset(f->power, (unsigned)first))
		return BND_KIND_POWER;
	return BND_KIND_EFFICIENCY;
}

static int add_socket(struct flat *f, struct ctx *c)
{
	struct bnd_topology *t = f->t;
	int u = add_unit(f, BND_U_SOCKET, c->parent);
	if (u < 0)
		return -1;
	if (grow((void **)&t->socket_first_core, &f->cap_sockets, t->nsockets + 1, sizeof(int)))
		return nomem(f);
	int cap = f->cap_sockets;
	int *n = realloc(t->socket_ncores, (size_t)cap * sizeof(int));
	if (!n)
		return nomem(f);
	t->socket_ncores = n;
	t->units[u].index = t->nsockets;
	t->socket_first_core[t->nsockets] = t->ncores;
	t->socket_ncores[t->nsockets] = 0;
	c->socket = t->nsockets++;
	c->parent = u;
	return 0;
}

static int add_core(struct flat *f, struct ctx *c, hwloc_const_bitmap_t cpus, int logical)
{
	struct bnd_topology *t = f->t;
	if (c->socket < 0) {
		f->rc = bnd_fail(f->err, f->errlen, BND_EINVAL,
				 "topology %s: core L#%d is outside every package",
				 t->source, logical);
		return -1;
	}
	int u = add_unit(f, BND_U_CORE, c->parent);
	if (u < 0)
		return -1;
	if (grow((void **)&t->cores, &f->cap_cores, t->ncores + 1, sizeof(*t->cores)))
		return nomem(f);
	int k = kind_of(f, cpus);
	struct bnd_core *co = &t->cores[t->ncores];
	memset(co, 0, sizeof(*co));
	co->socket = c->socket;
	co->core = t->ncores - t->socket_first_core[c->socket];
	co->kind = (uint8_t)k;
	co->unit = u;
	co->pu_first = t->npus;
	co->npus = 0;
	co->numa = c->numa;
	co->l3 = c->l3;
	co->l2 = c->l2;
	t->units[u].index = t->ncores;
	t->units[u].kind = (uint8_t)k;
	t->socket_ncores[c->socket]++;
	c->core = t->ncores++;
	c->parent = u;
	return 0;
}

static int add_pu(struct flat *f, struct ctx *c, hwloc_obj_t o)
{
	struct bnd_topology *t = f->t;
	if (c->core < 0 && add_core(f, c, o->cpuset, (int)o->logical_index) < 0)
		return -1;
	int u = add_unit(f, BND_U_PU, c->parent);
	if (u < 0)
		return -1;
	int cap = f->cap_pus;
	if (grow((void **)&t->pu_os, &f->cap_pus, t->npus + 1, sizeof(int)))
		return nomem(f);
	if (cap != f->cap_pus) {
		int *pc = realloc(t->pu_core, (size_t)f->cap_pus * sizeof(int));
		if (!pc)
			return nomem(f);
		t->pu_core = pc;
	}
	if (o->os_index >= BND_MAX_CPUS) {
		f->rc = bnd_fail(f->err, f->errlen, BND_EINVAL,
				 "topology %s: OS cpu %u exceeds the supported %d",
				 t->source, o->os_index, BND_MAX_CPUS);
		return -1;
	}
	struct bnd_unit *pu = &t->units[u];
	pu->index = t->npus;
	pu->os_index = (int)o->os_index;
	pu->core_first = c->core; /* with core_count 0: inside that core */
	pu->kind = t->cores[c->core].kind;
	t->pu_os[t->npus] = (int)o->os_index;
	t->pu_core[t->npus] = c->core;
	t->cores[c->core].npus++;
	bnd_cpuset_set(&t->all_cpus, (int)o->os_index);
	t->npus++;
	return 0;
}

static int is_plain_dram(hwloc_obj_t n)
{
	return !n->subtype || !strcmp(n->subtype, "DRAM");
}

static void collect_numa(hwloc_obj_t o, hwloc_obj_t *v, int *n, int max)
{
	for (hwloc_obj_t m = o->memory_first_child; m; m = m->next_sibling) {
		if (m->type == HWLOC_OBJ_NUMANODE) {
			if (*n < max)
				v[*n] = m;
			(*n)++;
		} else {
			collect_numa(m, v, n, max); /* memory-side caches */
		}
	}
}

/* Several nodes on one parent nest as a chain. The plain DRAM node goes
 * innermost so it is the "nearest" node of the cores (HBM, MCDRAM and other
 * special memories are reachable but not the default). */
static int add_numa_chain(struct flat *f, struct ctx *c, hwloc_obj_t o)
{
	hwloc_obj_t v[64];
	int n = 0;
	collect_numa(o, v, &n, 64);
	if (n > 64) {
		f->rc = bnd_fail(f->err, f->errlen, BND_EINVAL,
				 "topology %s: %d NUMA nodes on one object, at most 64 supported",
				 f->t->source, n);
		return -1;
	}
	hwloc_obj_t ord[64];
	int k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++)
			if (is_plain_dram(v[i]) == pass)
				ord[k++] = v[i];
	struct bnd_topology *t = f->t;
	for (int i = 0; i < k; i++) {
		int u = add_unit(f, BND_U_NUMA, c->parent);
		if (u < 0)
			return -1;
		int cap = f->cap_numa;
		if (grow((void **)&t->numa_os, &f->cap_numa, t->nnuma + 1, sizeof(int)))
			return nomem(f);
		if (cap != f->cap_numa) {
			uint64_t *m = realloc(t->numa_mem, (size_t)f->cap_numa * sizeof(*m));
			if (!m)
				return nomem(f);
			t->numa_mem = m;
		}
		t->numa_mem[t->nnuma] = ord[i]->attr->numanode.local_memory;
		t->units[u].index = t->nnuma;
		t->units[u].os_index = (int)ord[i]->os_index;
		t->numa_os[t->nnuma] = (int)ord[i]->os_index;
		c->numa = t->nnuma++;
		c->parent = u;
	}
	return 0;
}

static int is_cpu_cache(hwloc_obj_t o, int level)
{
	if (!hwloc_obj_type_is_dcache(o->type) || o->attr->cache.depth != (unsigned)level)
		return 0;
	return o->attr->cache.type == HWLOC_OBJ_CACHE_UNIFIED ||
	       o->attr->cache.type == HWLOC_OBJ_CACHE_DATA;
}

/* One size per level for reporting (Univa's m_cache_l1/l2/l3): the first
 * data or unified cache met; levels differ between core kinds, but a
 * single figure per level is what the report format has. */
static void note_cache_size(struct bnd_topology *t, hwloc_obj_t o)
{
	for (int level = 1; level <= 3; level++)
		if (is_cpu_cache(o, level) && !t->cache_size[level])
			t->cache_size[level] = o->attr->cache.size;
}

static int walk(struct flat *f, hwloc_obj_t o, struct ctx c)
{
	struct bnd_topology *t = f->t;
	if (add_numa_chain(f, &c, o) < 0)
		return -1;
	int u;
	switch (o->type) {
	case HWLOC_OBJ_MACHINE:
		/* The root's unit already exists; without packages it holds
		 * one synthetic socket so <socket>,<core> always exists. */
		if (!o->parent && !f->has_packages && add_socket(f, &c) < 0)
			return -1;
		break;
	case HWLOC_OBJ_PACKAGE:
		if (add_socket(f, &c) < 0)
			return -1;
		break;
	case HWLOC_OBJ_CORE:
		if (add_core(f, &c, o->cpuset, (int)o->logical_index) < 0)
			return -1;
		break;
	case HWLOC_OBJ_PU:
		return add_pu(f, &c, o);
	default:
		/* A core holds only its PUs (T); a cache hwloc places inside one
		 * (e.g. synthetic "core:2 l2:2") is transparent like L1. */
		if (c.core < 0 && (is_cpu_cache(o, 3) || is_cpu_cache(o, 2))) {
			note_cache_size(t, o);
			int l3 = o->attr->cache.depth == 3;
			u = add_unit(f, l3 ? BND_U_L3 : BND_U_L2, c.parent);
			if (u < 0)
				return -1;
			if (l3) {
				t->units[u].index = t->nl3;
				c.l3 = t->nl3++;
			} else {
				t->units[u].index = t->nl2;
				c.l2 = t->nl2++;
			}
			c.parent = u;
		}
		/* Groups, dies, L1 and other caches: transparent. */
		note_cache_size(t, o);
		break;
	}
	for (hwloc_obj_t ch = o->first_child; ch; ch = ch->next_sibling)
		if (walk(f, ch, c) < 0)
			return -1;
	return 0;
}

/* Subtree ranges: units are in pre-order, so children come after their
 * parent and counts can be summed backwards. */
static void finish_ranges(struct bnd_topology *t)
{
	for (int i = 0; i < t->nunits; i++) {
		struct bnd_unit *u = &t->units[i];
		u->pu_count = u->type == BND_U_PU;
		u->core_count = u->type == BND_U_CORE;
	}
	for (int i = t->nunits - 1; i > 0; i--) {
		struct bnd_unit *u = &t->units[i];
		t->units[u->parent].pu_count += u->pu_count;
		t->units[u->parent].core_count += u->core_count;
	}
}

int bnd_topology_fill_cpusets(struct bnd_topology *t)
{
	free(t->numa_cpus);
	t->numa_cpus = calloc((size_t)(t->nnuma ? t->nnuma : 1), sizeof(*t->numa_cpus));
	if (!t->numa_cpus)
		return BND_ENOMEM;
	bnd_cpuset_zero(&t->all_cpus);
	for (int p = 0; p < t->npus; p++) {
		bnd_cpuset_set(&t->all_cpus, t->pu_os[p]);
		/* A node wrapping another (HBM around DRAM, kmem around a
		 * package) is not local to those cpus: the kernel lists them
		 * under the nearest node only. */
		int n = t->cores[t->pu_core[p]].numa;
		if (n >= 0)
			bnd_cpuset_set(&t->numa_cpus[n], t->pu_os[p]);
	}
	return bnd_topogpu_fill_sets(t);
}

/* A numeric info attribute of every kind (LinuxCapacity, FrequencyMaxMHz),
 * or 0 when some kind lacks it. */
static int kind_metric(hwloc_topology_t topo, int nr, const char *name, double *v)
{
	for (int i = 0; i < nr; i++) {
		unsigned n = 0;
		struct hwloc_info_s *infos = NULL;
		if (hwloc_cpukinds_get_info(topo, (unsigned)i, NULL, NULL, &n, &infos, 0) < 0)
			return 0;
		v[i] = 0;
		for (unsigned k = 0; k < n; k++)
			if (!strcmp(infos[k].name, name))
				v[i] = strtod(infos[k].value, NULL);
		if (v[i] <= 0)
			return 0;
	}
	return 1;
}

/* Ranked kinds go from most efficient (0) to most powerful (nr-1). Two
 * kinds are E and P. With more (NVIDIA GB10 reports five: two A725 and
 * three X925 frequency classes), the split is at the largest relative jump
 * in capacity or max frequency, so near-identical kinds stay together;
 * without either metric only the top kind is power. */
static int first_power_kind(hwloc_topology_t topo, int nr)
{
	double v[64];
	if (nr > 64 || (!kind_metric(topo, nr, "LinuxCapacity", v) &&
			!kind_metric(topo, nr, "FrequencyMaxMHz", v)))
		return nr - 1;
	int split = nr - 1;
	double best = 0;
	for (int i = 1; i < nr; i++) {
		double r = v[i] / v[i - 1];
		if (r > best) {
			best = r;
			split = i;
		}
	}
	return split;
}

static void load_kinds(struct flat *f)
{
	int nr = hwloc_cpukinds_get_nr(f->topo, 0);
	if (nr < 2)
		return;
	hwloc_bitmap_t set = hwloc_bitmap_alloc(), power = hwloc_bitmap_alloc();
	int ok = set && power;
	for (int i = 0; ok && i < nr; i++) {
		int eff = -1;
		if (hwloc_cpukinds_get_info(f->topo, (unsigned)i, set, &eff, NULL, NULL, 0) < 0 ||
		    eff < 0)
			ok = 0; /* unranked: kinds are known but not which is faster */
	}
	int split = ok ? first_power_kind(f->topo, nr) : nr;
	for (int i = split; ok && i < nr; i++) {
		if (hwloc_cpukinds_get_info(f->topo, (unsigned)i, set, NULL, NULL, NULL, 0) < 0)
			ok = 0;
		else
			hwloc_bitmap_or(power, power, set);
	}
	hwloc_bitmap_free(set);
	if (!ok) {
		hwloc_bitmap_free(power);
		return;
	}
	f->power = power;
	f->nkinds = nr;
}

static void set_filters(hwloc_topology_t topo)
{
	/* Only what placement reads; everything else costs time at load. The
	 * I/O devices hwloc deems important (GPUs, NICs, storage) give the
	 * GPUs and their locality (topogpu.h); bridges are not needed for
	 * that, hwloc then hangs devices off their non-I/O parent. */
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_BRIDGE, HWLOC_TYPE_FILTER_KEEP_NONE);
	/* Only hwloc's own readers of the kernel (linux, x86, no_os): the
	 * linux component reads PCI devices and their DRM devices from sysfs
	 * itself. Discovery runs in root's slurmd and slurmstepd before the
	 * user's tasks fork, so no component may start anything there: pci's
	 * libpciaccess leaks a kilobyte per discovery (valgrind), gl connects
	 * to X servers, and the vendors' components start their runtimes in
	 * the discovering process: opencl makes the ICD loader load every
	 * vendor library in /etc/OpenCL/vendors (a stand-in vendor library's
	 * thread and its descriptor, not close-on-exec, were in the process
	 * after a discovery; test_topology's vendor_runtimes_stay_out), cuda,
	 * nvml, rsmi and levelzero open the GPUs' device files, which tasks
	 * forked from slurmstepd would inherit past ConstrainDevices. GPUs keep
	 * their PCI bus id, class and kernel names (card, renderD). */
	static const char *const off[] = { "pci", "gl", "opencl", "cuda", "nvml", "rsmi",
					   "levelzero" };
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, off[i]);
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_L4CACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_L5CACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
}

/* hwloc's NUMA matrix (the OS's SLIT, or a 1.x XML's latencies), mapped
 * onto NUMA indices; values are kept as hwloc gives them (10 = local). A
 * matrix not covering every node is ignored: the default applies. */
static int load_distances(hwloc_topology_t topo, struct bnd_topology *t)
{
	int n = t->nnuma;
	t->numa_dist = calloc((size_t)(n ? n * n : 1), sizeof(int));
	if (!t->numa_dist)
		return BND_ENOMEM;
	unsigned nr = 1;
	struct hwloc_distances_s *d = NULL;
	if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) < 0 || nr < 1)
		return BND_OK;
	int *map = malloc((size_t)(d->nbobjs ? d->nbobjs : 1) * sizeof(int));
	int ok = map != NULL && d->nbobjs == (unsigned)n;
	for (unsigned i = 0; ok && i < d->nbobjs; i++) {
		map[i] = bnd_topology_numa_index(t, (int)d->objs[i]->os_index);
		ok = map[i] >= 0;
	}
	for (unsigned i = 0; ok && i < d->nbobjs; i++)
		for (unsigned j = 0; j < d->nbobjs; j++) {
			uint64_t v = d->values[i * d->nbobjs + j];
			t->numa_dist[map[i] * n + map[j]] = v > INT_MAX ? INT_MAX : (int)v;
		}
	t->has_dist = ok;
	if (!ok)
		memset(t->numa_dist, 0, (size_t)(n ? n * n : 1) * sizeof(int));
	free(map);
	hwloc_distances_release(topo, d);
	return BND_OK;
}

static int flatten(hwloc_topology_t topo, struct bnd_topology *t, char *err, size_t errlen)
{
	struct flat f = { .topo = topo, .t = t, .err = err, .errlen = errlen, .rc = BND_OK };
	f.has_packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) > 0;
	load_kinds(&f);
	t->has_kinds = f.nkinds >= 2;
	struct ctx c = { .parent = -1, .socket = -1, .numa = -1, .l3 = -1, .l2 = -1, .core = -1 };
	int rc = BND_OK;
	int root = add_unit(&f, BND_U_MACHINE, -1);
	if (root < 0) {
		rc = f.rc;
	} else {
		c.parent = root;
		if (walk(&f, hwloc_get_root_obj(topo), c) < 0)
			rc = f.rc;
	}
	if (rc == BND_OK && !t->numa_mem && !(t->numa_mem = calloc(1, sizeof(*t->numa_mem))))
		rc = bnd_fail(err, errlen, BND_ENOMEM, "topology: out of memory");
	if (rc == BND_OK && t->npus == 0)
		rc = bnd_fail(err, errlen, BND_EINVAL, "topology %s: no processing units", t->source);
	if (rc == BND_OK) {
		finish_ranges(t);
		if (load_distances(topo, t) != BND_OK)
			rc = bnd_fail(err, errlen, BND_ENOMEM, "topology: out of memory");
		else
			rc = bnd_topogpu_load(topo, t, err, errlen);
		if (rc == BND_OK && bnd_topology_fill_cpusets(t) != BND_OK)
			rc = bnd_fail(err, errlen, BND_ENOMEM, "topology: out of memory");
		if (rc == BND_OK)
			rc = bnd_topology_validate(t, err, errlen);
	}
	hwloc_bitmap_free(f.power);
	free(f.last_child);
	return rc;
}

int bnd_topology_load(struct bnd_topology **out, const char *source,
		      char *err, size_t errlen)
{
	*out = NULL;
	struct bnd_topology *t = calloc(1, sizeof(*t));
	if (!t)
		return bnd_fail(err, errlen, BND_ENOMEM, "topology: out of memory");
	snprintf(t->source, sizeof(t->source), "%s",
		 source && *source ? source : "this machine");
	hwloc_topology_t topo;
	if (hwloc_topology_init(&topo) < 0) {
		free(t);
		return bnd_fail(err, errlen, BND_ESYS, "hwloc_topology_init: %s", strerror(errno));
	}
	set_filters(topo);
	/* The whole node, also PUs our cgroup excludes: Grid Engine numbering
	 * must not depend on which job's process looked. */
	hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	char *xml = NULL;
	int rc = bnd_toposource_set(topo, source, &xml, err, errlen);
	if (rc == BND_OK && hwloc_topology_load(topo) < 0)
		rc = bnd_fail(err, errlen, BND_ESYS, "topology %s: hwloc cannot load it: %s",
			      t->source, strerror(errno));
	if (rc == BND_OK)
		rc = flatten(topo, t, err, errlen);
	hwloc_topology_destroy(topo);
	free(xml);
	if (rc != BND_OK) {
		bnd_topology_free(t);
		return rc;
	}
	*out = t;
	return BND_OK;
}

void bnd_topology_free(struct bnd_topology *t)
{
	if (!t)
		return;
	free(t->units);
	free(t->cores);
	free(t->pu_os);
	free(t->pu_core);
	free(t->socket_first_core);
	free(t->socket_ncores);
	free(t->numa_os);
	free(t->numa_cpus);
	free(t->numa_mem);
	free(t->numa_dist);
	free(t->gpus);
	free(t->gpu_cpus);
	free(t->gpu_numa);
	free(t);
}

int bnd_topology_core_at(const struct bnd_topology *t, int socket, int core)
{
	if (socket < 0 || socket >= t->nsockets || core < 0 || core >= t->socket_ncores[socket])
		return -1;
	return t->socket_first_core[socket] + core;
}

void bnd_topology_core_cpus(const struct bnd_topology *t, int core, bnd_cpuset_t *out)
{
	bnd_cpuset_zero(out);
	if (core < 0 || core >= t->ncores)
		return;
	const struct bnd_core *c = &t->cores[core];
	for (int p = c->pu_first; p < c->pu_first + c->npus; p++)
		bnd_cpuset_set(out, t->pu_os[p]);
}

int bnd_topology_core_of_cpu(const struct bnd_topology *t, int os_cpu)
{
	for (int p = 0; p < t->npus; p++)
		if (t->pu_os[p] == os_cpu)
			return t->pu_core[p];
	return -1;
}

void bnd_topology_numa_of_cpus(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
			       bnd_nodeset_t *nodes)
{
	bnd_nodeset_zero(nodes);
	for (int p = 0; p < t->npus; p++) {
		if (!bnd_cpuset_isset(cpus, t->pu_os[p]))
			continue;
		int n = t->cores[t->pu_core[p]].numa;
		if (n >= 0)
			bnd_nodeset_set(nodes, t->numa_os[n]);
	}
}

int bnd_topology_numa_index(const struct bnd_topology *t, int os_node)
{
	for (int n = 0; n < t->nnuma; n++)
		if (t->numa_os[n] == os_node)
			return n;
	return -1;
}

int bnd_topology_numa_distance(const struct bnd_topology *t, int a, int b)
{
	if (a < 0 || b < 0 || a >= t->nnuma || b >= t->nnuma)
		return INT_MAX;
	if (t->has_dist && t->numa_dist[a * t->nnuma + b] > 0)
		return t->numa_dist[a * t->nnuma + b];
	return a == b ? 10 : 20;
}

