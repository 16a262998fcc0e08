/* hwloc's PCI and OS devices -> the GPUs of topology.h (topogpu.h). */
#include "binding/topology/topogpu.h"

#include <ctype.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"

/* OS devices whose presence makes a device a GPU, and the prefixes of the
 * ones that compute or render (a bare card* is a display). */
static int gpu_osdev(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_OS_DEVICE && (o->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU ||
						  o->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC);
}

static int computes(const char *name)
{
	static const char *const prefix[] = { "cuda", "nvml", "rsmi", "opencl", "ze", "renderD" };
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

static int gpu_class(unsigned class_id)
{
	return (class_id >> 8) == 0x03 || (class_id >> 8) == 0x12 || class_id == 0x0b40;
}

/* Appends name to the space-separated list while it fits whole. */
static void add_name(struct bnd_gpu *g, const char *name)
{
	size_t used = strlen(g->names), n = strlen(name);
	if (used + (used ? 1 : 0) + n + 1 > sizeof(g->names))
		return;
	if (used)
		g->names[used++] = ' ';
	memcpy(g->names + used, name, n + 1);
}

static void set_locality(hwloc_topology_t topo, hwloc_obj_t o, const struct bnd_topology *t,
			 struct bnd_gpu *g)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
	g->core_first = 0;
	g->core_count = 0;
	int first = -1, last = -1;
	for (int c = 0; anc && anc->cpuset && c < t->ncores; c++)
		if (hwloc_bitmap_isset(anc->cpuset, (unsigned)t->pu_os[t->cores[c].pu_first])) {
			if (first < 0)
				first = c;
			last = c;
		}
	/* A subtree's cores are contiguous in document order; should a
	 * locality ever not be, its span is the nearest range that holds it. */
	if (first >= 0) {
		g->core_first = first;
		g->core_count = last - first + 1;
	}
}

static void init_gpu(struct bnd_gpu *g)
{
	memset(g, 0, sizeof(*g));
	g->vendor = g->device = g->pci_class = -1;
	g->mem_numa = -1;
}

static void from_pcidev(hwloc_topology_t topo, hwloc_obj_t o, const struct bnd_topology *t,
			struct bnd_gpu *g)
{
	init_gpu(g);
	const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
	snprintf(g->busid, sizeof(g->busid), "%04x:%02x:%02x.%01x", a->domain & 0xffffu,
		 a->bus, a->dev, a->func & 0xfu);
	g->vendor = a->vendor_id;
	g->device = a->device_id;
	g->pci_class = a->class_id;
	for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
		if (gpu_osdev(c) && c->name) {
			add_name(g, c->name);
			g->compute |= computes(c->name) || c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC;
		}
	set_locality(topo, o, t, g);
}

static int is_gpu_pcidev(hwloc_obj_t o)
{
	if (gpu_class(o->attr->pcidev.class_id))
		return 1;
	for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
		if (gpu_osdev(c))
			return 1;
	return 0;
}

static int by_busid(const void *a, const void *b)
{
	const struct bnd_gpu *x = a, *y = b;
	if (!x->busid[0] != !y->busid[0])
		return x->busid[0] ? -1 : 1;
	int c = strcmp(x->busid, y->busid);
	return c ? c : strcmp(x->names, y->names);
}

static int by_compute(const void *a, const void *b)
{
	const struct bnd_gpu *x = a, *y = b;
	return y->compute - x->compute;
}

/* The GPU memory nodes hwloc ties to a GPU through their PCIBusID. */
static void find_memory_nodes(hwloc_topology_t topo, struct bnd_topology *t)
{
	hwloc_obj_t n = NULL;
	while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n))) {
		const char *bus = hwloc_obj_get_info_by_name(n, "PCIBusID");
		char norm[BND_GPU_BUSID_LEN];
		if (!bus || bnd_gpu_busid_normalize(bus, norm, NULL, 0) != BND_OK)
			continue;
		/* The node's index (topology.c's own lookup would make the two
		 * modules call each other). */
		int k = 0;
		while (k < t->nnuma && t->numa_os[k] != (int)n->os_index)
			k++;
		for (int g = 0; k < t->nnuma && g < t->ngpus; g++)
			if (!strcmp(t->gpus[g].busid, norm))
				t->gpus[g].mem_numa = k;
	}
}

static int count_candidates(hwloc_topology_t topo)
{
	int n = 0;
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));)
		n += is_gpu_pcidev(o);
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o));)
		n += gpu_osdev(o) && (!o->parent || o->parent->type != HWLOC_OBJ_PCI_DEVICE);
	return n;
}

int bnd_topogpu_load(struct hwloc_topology *topo, struct bnd_topology *t, char *err,
		     size_t errlen)
{
	int n = count_candidates(topo), k = 0;
	t->ngpus = 0;
	if (!n)
		return BND_OK;
	struct bnd_gpu *g = calloc((size_t)n, sizeof(*g));
	if (!g)
		return bnd_fail(err, errlen, BND_ENOMEM, "topology: out of memory");
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));)
		if (is_gpu_pcidev(o) && k < n)
			from_pcidev(topo, o, t, &g[k++]);
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o));) {
		if (!gpu_osdev(o) || (o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE) ||
		    k >= n)
			continue;
		init_gpu(&g[k]);
		add_name(&g[k], o->name ? o->name : "");
		g[k].compute = 1;
		set_locality(topo, o, t, &g[k++]);
	}
	/* More than a node can have: the display-only ones go first. */
	if (k > BND_MAX_GPUS) {
		qsort(g, (size_t)k, sizeof(*g), by_compute);
		k = BND_MAX_GPUS;
	}
	qsort(g, (size_t)k, sizeof(*g), by_busid);
	t->gpus = g;
	t->ngpus = k;
	find_memory_nodes(topo, t);
	return BND_OK;
}

int bnd_topogpu_fill_sets(struct bnd_topology *t)
{
	free(t->gpu_cpus);
	free(t->gpu_numa);
	t->gpu_cpus = NULL;
	t->gpu_numa = NULL;
	if (!t->ngpus)
		return BND_OK;
	t->gpu_cpus = calloc((size_t)t->ngpus, sizeof(*t->gpu_cpus));
	t->gpu_numa = calloc((size_t)t->ngpus, sizeof(*t->gpu_numa));
	if (!t->gpu_cpus || !t->gpu_numa)
		return BND_ENOMEM;
	for (int g = 0; g < t->ngpus; g++) {
		const struct bnd_gpu *d = &t->gpus[g];
		for (int c = d->core_first; c < d->core_first + d->core_count; c++) {
			const struct bnd_core *k = &t->cores[c];
			for (int p = k->pu_first; p < k->pu_first + k->npus; p++)
				bnd_cpuset_set(&t->gpu_cpus[g], t->pu_os[p]);
			if (k->numa >= 0)
				bnd_nodeset_set(&t->gpu_numa[g], k->numa);
		}
		if (d->mem_numa >= 0)
			bnd_nodeset_set(&t->gpu_numa[g], d->mem_numa);
	}
	return BND_OK;
}

static int terminated(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

int bnd_topogpu_validate(const struct bnd_topology *t, char *err, size_t errlen)
{
	if (t->ngpus < 0 || t->ngpus > BND_MAX_GPUS || (t->ngpus && !t->gpus))
		return bnd_fail(err, errlen, BND_EINVAL, "topology: %d GPUs (at most %d)", t->ngpus,
				BND_MAX_GPUS);
	for (int g = 0; g < t->ngpus; g++) {
		const struct bnd_gpu *d = &t->gpus[g];
		char norm[BND_GPU_BUSID_LEN];
		if (!terminated(d->busid, sizeof(d->busid)) || !terminated(d->names, sizeof(d->names)) ||
		    (d->busid[0] && (bnd_gpu_busid_normalize(d->busid, norm, NULL, 0) != BND_OK ||
				     strcmp(norm, d->busid))))
			return bnd_fail(err, errlen, BND_EINVAL, "topology: GPU %d: bad bus id or names",
					g);
		if (d->core_first < 0 || d->core_count < 0 || d->core_first > t->ncores ||
		    d->core_count > t->ncores - d->core_first || d->mem_numa < -1 ||
		    d->mem_numa >= t->nnuma || (d->compute != 0 && d->compute != 1))
			return bnd_fail(err, errlen, BND_EINVAL,
					"topology: GPU %d: core range or memory node out of range", g);
	}
	return BND_OK;
}

static int hex_field(const char **p, int max_digits, unsigned long *out)
{
	int n = 0;
	unsigned long v = 0;
	while (isxdigit((unsigned char)**p) && n < max_digits) {
		int c = tolower((unsigned char)**p);
		v = v * 16 + (unsigned long)(isdigit(c) ? c - '0' : c - 'a' + 10);
		(*p)++;
		n++;
	}
	*out = v;
	return n > 0 && !isxdigit((unsigned char)**p);
}

int bnd_gpu_busid_normalize(const char *in, char out[BND_GPU_BUSID_LEN], char *err,
			    size_t errlen)
{
	unsigned long f[4];
	const char *p = in ? in : "";
	int colons = 0;
	for (const char *q = p; *q; q++)
		colons += *q == ':';
	int i = colons == 2 ? 0 : 1, ok = colons == 1 || colons == 2;
	f[0] = 0;
	static const int digits[4] = { 8, 2, 2, 1 };
	static const char sep[4] = { ':', ':', '.', '\0' };
	for (; ok && i < 4; i++) {
		ok = hex_field(&p, digits[i], &f[i]) && *p == sep[i];
		if (ok && i < 3)
			p++;
	}
	if (!ok || f[0] > 0xffff || f[3] > 7)
		return bnd_fail(err, errlen, BND_EINVAL, "\"%.40s\" is not a PCI bus id "
				"(expected [dddd:]bb:dd.f in hex, e.g. 0000:34:00.0)", in ? in : "");
	snprintf(out, BND_GPU_BUSID_LEN, "%04lx:%02lx:%02lx.%lx", f[0], f[1], f[2], f[3]);
	return BND_OK;
}

static int has_name(const char *names, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = names; n && *p;) {
		const char *e = strchr(p, ' ');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len + (e ? 1 : 0);
	}
	return 0;
}

int bnd_gpu_find(const struct bnd_topology *t, const char *name)
{
	char bus[BND_GPU_BUSID_LEN];
	int is_bus = bnd_gpu_busid_normalize(name, bus, NULL, 0) == BND_OK;
	for (int g = 0; name && g < t->ngpus; g++)
		if ((is_bus && !strcmp(t->gpus[g].busid, bus)) || has_name(t->gpus[g].names, name))
			return g;
	return -1;
}

const char *bnd_gpu_label(const struct bnd_topology *t, int gpu, char *buf, size_t len)
{
	if (!len)
		return buf;
	if (gpu < 0 || gpu >= t->ngpus) {
		snprintf(buf, len, "?");
		return buf;
	}
	/* The name users know it by: the vendor library's before the
	 * kernel's (nvml3 rather than renderD131). */
	static const char *const prefer[] = { "cuda", "nvml", "rsmi", "ze", "opencl", "renderD",
					      "card", "" };
	const struct bnd_gpu *g = &t->gpus[gpu];
	for (size_t k = 0; k < sizeof(prefer) / sizeof(prefer[0]); k++)
		for (const char *p = g->names; *p;) {
			size_t n = strcspn(p, " ");
			if (!strncmp(p, prefer[k], strlen(prefer[k]))) {
				snprintf(buf, len, "%.*s", (int)n, p);
				return buf;
			}
			p += n + (p[n] == ' ');
		}
	snprintf(buf, len, "%s", g->busid[0] ? g->busid : "?");
	return buf;
}
