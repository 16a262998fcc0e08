/* Invariants of a flattened topology: the guard in front of arrays read
 * from the cache file, and a self-check after every hwloc flattening. */
#include <stdbool.h>

#include "binding/util/error.h"
#include "binding/topology/topogpu.h"
#include "binding/topology/topology.h"

#define BAD(...) bnd_fail(err, errlen, BND_EINVAL, "topology " __VA_ARGS__)

static bool in(int v, int lo, int hi)
{
	return v >= lo && v < hi;
}

static int type_count(const struct bnd_topology *t, int type)
{
	switch (type) {
	case BND_U_MACHINE: return 1;
	case BND_U_NUMA: return t->nnuma;
	case BND_U_SOCKET: return t->nsockets;
	case BND_U_L3: return t->nl3;
	case BND_U_L2: return t->nl2;
	case BND_U_CORE: return t->ncores;
	case BND_U_PU: return t->npus;
	default: return -1;
	}
}

/* Unit i's own fields: type, place in the tree, index, kind, ranges. */
static int unit_fields(const struct bnd_topology *t, int i, const int *seen, char *err,
		       size_t errlen)
{
	const struct bnd_unit *u = &t->units[i];
	if (u->type > BND_U_PU || (i == 0) != (u->type == BND_U_MACHINE))
		return BAD("unit %d: bad type %d", i, u->type);
	if (i == 0 ? u->parent != -1 || u->depth != 0
		   : !in(u->parent, 0, i) || u->depth != t->units[u->parent].depth + 1)
		return BAD("unit %d: bad parent %d or depth %d", i, u->parent, u->depth);
	/* Pre-order numbering: the n-th unit of a type has index n. */
	if (u->type != BND_U_MACHINE && u->index != seen[u->type])
		return BAD("unit %d: index %d, expected %d", i, u->index, seen[u->type]);
	if (u->type != BND_U_MACHINE && !in(u->index, 0, type_count(t, u->type)))
		return BAD("unit %d: index %d beyond the count of its type", i, u->index);
	if (u->kind > BND_KIND_EFFICIENCY ||
	    (u->kind && u->type != BND_U_CORE && u->type != BND_U_PU))
		return BAD("unit %d: bad kind %d", i, u->kind);
	if (!in(u->pu_first, 0, t->npus + 1) || !in(u->pu_count, 0, t->npus - u->pu_first + 1) ||
	    !in(u->core_first, 0, t->ncores + 1) ||
	    !in(u->core_count, 0, t->ncores - u->core_first + 1))
		return BAD("unit %d: PU or core range out of bounds", i);
	if (i == 0 && (u->index != -1 || u->next_sibling != -1))
		return BAD("unit 0: the root has no index or sibling");
	if (u->type != BND_U_PU && u->type != BND_U_NUMA && u->os_index != -1)
		return BAD("unit %d: os index %d on a unit without one", i, u->os_index);
	if (u->type == BND_U_PU && (u->pu_count != 1 || u->pu_first != u->index ||
				    u->os_index != t->pu_os[u->index] || u->nchildren ||
				    u->core_count != 0 || u->core_first != t->pu_core[u->index]))
		return BAD("unit %d: PU %d inconsistent", i, u->index);
	if (u->type == BND_U_CORE && (u->core_count != 1 || u->core_first != u->index))
		return BAD("unit %d: core %d inconsistent", i, u->index);
	if (u->type == BND_U_NUMA && u->os_index != t->numa_os[u->index])
		return BAD("unit %d: NUMA %d os index mismatch", i, u->index);
	return BND_OK;
}

/* Unit i's children: a chain of later units whose ranges tile its own. */
static int unit_children(const struct bnd_topology *t, int i, char *err, size_t errlen)
{
	const struct bnd_unit *u = &t->units[i];
	int n = 0, pu = u->pu_first, core = u->core_first, prev = i;
	for (int c = u->first_child; c != -1; c = t->units[c].next_sibling) {
		if (!in(c, prev + 1, t->nunits) || n >= u->nchildren || t->units[c].parent != i)
			return BAD("unit %d: broken child list", i);
		if (t->units[c].pu_first != pu || t->units[c].core_first != core ||
		    !in(t->units[c].pu_count, 0, t->npus + 1) ||
		    !in(t->units[c].core_count, 0, t->ncores + 1))
			return BAD("unit %d: child %d does not continue its ranges", i, c);
		pu += t->units[c].pu_count;
		core += t->units[c].core_count;
		prev = c;
		n++;
	}
	if (n != u->nchildren)
		return BAD("unit %d: %d children listed, %d counted", i, u->nchildren, n);
	if (n && (pu != u->pu_first + u->pu_count ||
		  (u->type != BND_U_CORE && core != u->core_first + u->core_count)))
		return BAD("unit %d: children do not cover its ranges", i);
	/* A NUMA node hwloc attaches to an object without CPUs (GPU memory, a
	 * 1.x XML's CPU-less node) is a leaf. */
	if (u->type != BND_U_PU && u->type != BND_U_NUMA && !n)
		return BAD("unit %d: no children", i);
	if (!n && (u->pu_count != (u->type == BND_U_PU) || u->core_count))
		return BAD("unit %d: a leaf holding PUs or cores", i);
	return BND_OK;
}

static int validate_units(const struct bnd_topology *t, char *err, size_t errlen)
{
	int seen[BND_U_PU + 1] = { 0 };
	for (int i = 0; i < t->nunits; i++) {
		int rc = unit_fields(t, i, seen, err, errlen);
		if (rc == BND_OK)
			rc = unit_children(t, i, err, errlen);
		if (rc != BND_OK)
			return rc;
		seen[t->units[i].type]++;
	}
	for (int type = BND_U_NUMA; type <= BND_U_PU; type++)
		if (seen[type] != type_count(t, type))
			return BAD("%d units of type %d, count says %d", seen[type], type,
				   type_count(t, type));
	return BND_OK;
}

static int validate_cores(const struct bnd_topology *t, char *err, size_t errlen)
{
	int next = 0;
	for (int s = 0; s < t->nsockets; s++) {
		if (t->socket_first_core[s] != next || !in(t->socket_ncores[s], 1, t->ncores - next + 1))
			return BAD("socket %d: cores not contiguous", s);
		next += t->socket_ncores[s];
	}
	if (next != t->ncores)
		return BAD("sockets hold %d cores, expected %d", next, t->ncores);
	int pu = 0;
	for (int c = 0; c < t->ncores; c++) {
		const struct bnd_core *k = &t->cores[c];
		if (!in(k->socket, 0, t->nsockets) ||
		    k->core != c - t->socket_first_core[k->socket] ||
		    !in(k->core, 0, t->socket_ncores[k->socket]))
			return BAD("core %d: bad socket,core %d,%d", c, k->socket, k->core);
		if (!in(k->unit, 0, t->nunits) || t->units[k->unit].type != BND_U_CORE ||
		    t->units[k->unit].index != c || t->units[k->unit].kind != k->kind)
			return BAD("core %d: bad unit %d", c, k->unit);
		if (k->pu_first != pu || !in(k->npus, 1, t->npus - pu + 1) || k->pu_first != t->units[k->unit].pu_first ||
		    k->npus != t->units[k->unit].pu_count)
			return BAD("core %d: PU range not contiguous", c);
		pu += k->npus;
		if (!in(k->numa, -1, t->nnuma) || !in(k->l3, -1, t->nl3) || !in(k->l2, -1, t->nl2))
			return BAD("core %d: NUMA or cache index out of range", c);
	}
	if (pu != t->npus)
		return BAD("cores hold %d PUs, expected %d", pu, t->npus);
	return BND_OK;
}

int bnd_topology_validate(const struct bnd_topology *t, char *err, size_t errlen)
{
	if (t->nunits < 2 || t->nsockets < 1 || t->ncores < 1 || t->npus < 1 ||
	    t->npus > BND_MAX_CPUS || t->nnuma < 0 || t->nl3 < 0 || t->nl2 < 0 ||
	    !t->units || !t->cores || !t->pu_os || !t->pu_core || !t->socket_first_core ||
	    !t->socket_ncores || (t->nnuma && (!t->numa_os || !t->numa_mem || !t->numa_dist)) ||
	    (t->has_dist != 0 && t->has_dist != 1))
		return BAD("counts out of range");
	bnd_cpuset_t seen;
	bnd_cpuset_zero(&seen);
	for (int p = 0; p < t->npus; p++) {
		if (!in(t->pu_os[p], 0, BND_MAX_CPUS) || bnd_cpuset_isset(&seen, t->pu_os[p]))
			return BAD("PU %d: OS cpu %d out of range or repeated", p, t->pu_os[p]);
		bnd_cpuset_set(&seen, t->pu_os[p]);
		if (!in(t->pu_core[p], 0, t->ncores))
			return BAD("PU %d: core %d out of range", p, t->pu_core[p]);
	}
	for (int n = 0; n < t->nnuma; n++)
		if (!in(t->numa_os[n], 0, BND_MAX_CPUS))
			return BAD("NUMA %d: OS node %d out of range", n, t->numa_os[n]);
	for (int a = 0; a < t->nnuma; a++)
		for (int b = 0; b < t->nnuma; b++)
			if (t->numa_dist[a * t->nnuma + b] < 0 ||
			    (t->has_dist && !t->numa_dist[a * t->nnuma + b]))
				return BAD("NUMA distance %d,%d: %d", a, b,
					   t->numa_dist[a * t->nnuma + b]);
	int rc = validate_cores(t, err, errlen);
	if (rc == BND_OK)
		rc = validate_units(t, err, errlen);
	if (rc != BND_OK)
		return rc;
	for (int p = 0; p < t->npus; p++) {
		const struct bnd_core *k = &t->cores[t->pu_core[p]];
		if (p < k->pu_first || p >= k->pu_first + k->npus)
			return BAD("PU %d: not inside its core %d", p, t->pu_core[p]);
	}
	/* What a core records about its ancestors is what the tree says. */
	for (int c = 0; c < t->ncores; c++) {
		const struct bnd_core *k = &t->cores[c];
		int near[BND_U_PU + 1] = { -1, -1, -1, -1, -1, -1, -1 };
		for (int u = t->units[k->unit].parent; u > 0; u = t->units[u].parent)
			if (near[t->units[u].type] < 0)
				near[t->units[u].type] = t->units[u].index;
		if (near[BND_U_NUMA] != k->numa || near[BND_U_SOCKET] != k->socket ||
		    near[BND_U_L3] != k->l3 || near[BND_U_L2] != k->l2)
			return BAD("core %d: NUMA, socket or cache differs from its ancestors", c);
		for (int u = t->units[k->unit].first_child; u != -1; u = t->units[u].next_sibling)
			if (t->units[u].type != BND_U_PU || t->units[u].kind != k->kind)
				return BAD("core %d: child unit %d is not a PU of its kind", c, u);
	}
	return bnd_topogpu_validate(t, err, errlen);
}

#undef BAD
