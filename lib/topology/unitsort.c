#include "binding/topology/unitsort.h"

#include <stdlib.h>
#include <string.h>

#include "binding/topology/unitletter.h"
#include "binding/util/error.h"

static bool has_type(const struct bnd_topology *t, int type)
{
	for (int u = 0; u < t->nunits; u++)
		if (t->units[u].type == type)
			return true;
	return false;
}

int bnd_unit_letter(const struct bnd_topology *t, char letter, int *type, int *kind,
		    char *err, size_t errlen)
{
	if (!bnd_unit_letter_type(letter, type, kind))
		return bnd_fail(err, errlen, BND_EINVAL, "'%c' is not a unit letter (expected one of " BND_UNIT_LETTER_LIST ")",
				letter);
	/* OCS's rule for nodes that do not report a level, so one request
	 * works across a heterogeneous cluster. */
	if ((*type == BND_U_NUMA || *type == BND_U_L3) && !has_type(t, *type))
		*type = BND_U_SOCKET;
	else if (*type == BND_U_L2 && !has_type(t, *type))
		*type = BND_U_CORE;
	return BND_OK;
}

int bnd_packed_unit(const struct bnd_topology *t, const char *unit, int *type, int *kind)
{
	int ignored;
	if (!bnd_packed_unit_name(unit))
		return BND_EINVAL;
	size_t n = strlen(unit);
	char lvl = unit[n - 1];
	if (bnd_unit_letter(t, lvl, type, &ignored, NULL, 0) != BND_OK)
		return BND_EINVAL;
	*kind = (n == 2 ? unit[0] : lvl) == 'E' ? BND_KIND_EFFICIENCY : BND_KIND_POWER;
	return BND_OK;
}

bool bnd_unit_matches(const struct bnd_topology *t, int u, int type, int kind)
{
	const struct bnd_unit *x = &t->units[u];
	if (x->type != type)
		return false;
	if (type == BND_U_PU) {
		int core = t->pu_core[x->pu_first];
		if (t->cores[core].npus < 2)
			return false;
		return kind == BND_KIND_ANY || t->cores[core].kind == kind;
	}
	if (type == BND_U_CORE)
		return kind == BND_KIND_ANY || x->kind == kind;
	return true;
}

int bnd_unit_used(const struct bnd_topology *t, int u, const bool *pu_used)
{
	const struct bnd_unit *x = &t->units[u];
	int n = 0;
	for (int i = x->pu_first; i < x->pu_first + x->pu_count; i++)
		n += pu_used[i] ? 1 : 0;
	return n;
}

void bnd_unitorder_free(struct bnd_unitorder *o)
{
	free(o->order);
	free(o->pos);
	free(o->end);
	memset(o, 0, sizeof(*o));
}

/* Children lists that sorting may permute: kids[koff[u] .. koff[u+1]). */
struct tree {
	int *koff, *kids;
	int *used, *count; /* per unit: used threads, units of the letter's level */
	int *numa;         /* per unit: the NUMA index when its subtree (itself
	                      included) holds exactly one NUMA node, else -1 */
	int *near;         /* scratch of the latency order */
};

/* Utilisation a < b, compared exactly as used/total fractions. */
static int util_cmp(const struct bnd_topology *t, const struct tree *tr, int a, int b)
{
	long long ua = tr->used[a], ta = t->units[a].pu_count;
	long long ub = tr->used[b], tb = t->units[b].pu_count;
	/* units without threads (memory-only nodes) sort as fully used */
	if (ta == 0) { ua = 1; ta = 1; }
	if (tb == 0) { ub = 1; tb = 1; }
	long long l = ua * tb, r = ub * ta;
	return (l > r) - (l < r);
}

/* a before b in the latency order from NUMA node `from`: nearer first,
 * equal distances in document order (units are numbered in it). */
static bool nearer(const struct bnd_topology *t, const struct tree *tr, int from, int a, int b)
{
	int da = bnd_topology_numa_distance(t, from, tr->numa[a]);
	int db = bnd_topology_numa_distance(t, from, tr->numa[b]);
	return da != db ? da < db : a < b;
}

/* OCS orders NUMA nodes by load only up to the first one; the others
 * follow by memory latency from it ("latency quadrant" order: N0, then
 * N1/N2, then N3 on a 2x2 mesh), equal distances in document order, as in
 * sge_binding(5)'s example, where a loaded node comes before an idle one
 * at the same distance. v holds carriers in load order, each one NUMA
 * node with cpus. Without hwloc's matrix, or when it puts every other
 * node at one distance from the first, latency says nothing and the load
 * order stands. */
static void latency_order(const struct bnd_topology *t, const struct tree *tr, int *v, int nv)
{
	if (nv < 3 || !t->has_dist)
		return;
	int from = tr->numa[v[0]], d1 = bnd_topology_numa_distance(t, from, tr->numa[v[1]]);
	bool says = false;
	for (int i = 2; i < nv && !says; i++)
		says = bnd_topology_numa_distance(t, from, tr->numa[v[i]]) != d1;
	if (!says)
		return;
	for (int i = 2; i < nv; i++) {
		int x = v[i], j = i;
		while (j > 1 && nearer(t, tr, from, x, v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* When the sorted carriers are NUMA nodes (or each wraps exactly one),
 * this is an order of NUMA nodes: the ones with cpus take the latency
 * order among their slots; a memory-only node keeps its slot. */
static void numa_order(const struct bnd_topology *t, const struct tree *tr, int *c, int nc)
{
	int nv = 0;
	for (int i = 0; i < nc; i++) {
		if (tr->numa[c[i]] < 0)
			return;
		if (t->units[c[i]].pu_count > 0)
			tr->near[nv++] = c[i];
	}
	latency_order(t, tr, tr->near, nv);
	for (int i = 0, j = 0; i < nc; i++)
		if (t->units[c[i]].pu_count > 0)
			c[i] = tr->near[j++];
}

/* Stable insertion sort of the carriers among u's children: children whose
 * subtree holds exactly one unit of the level. Others keep their slots. */
static void sort_children(const struct bnd_topology *t, const struct tree *tr, int u,
			  bool desc, int *tmp)
{
	int *k = tr->kids + tr->koff[u];
	int nk = tr->koff[u + 1] - tr->koff[u], nc = 0;
	for (int i = 0; i < nk; i++)
		if (tr->count[k[i]] == 1)
			tmp[nc++] = k[i];
	if (nc < 2)
		return;
	for (int i = 1; i < nc; i++) {
		int v = tmp[i], j = i;
		while (j > 0) {
			int c = util_cmp(t, tr, tmp[j - 1], v);
			if (desc ? c >= 0 : c <= 0)
				break;
			tmp[j] = tmp[j - 1];
			j--;
		}
		tmp[j] = v;
	}
	numa_order(t, tr, tmp, nc);
	for (int i = 0, j = 0; i < nk; i++)
		if (tr->count[k[i]] == 1)
			k[i] = tmp[j++];
}

static void sort_level(const struct bnd_topology *t, struct tree *tr, int type, bool desc,
		       int *tmp)
{
	/* units are stored in pre-order, so children come after parents */
	for (int u = t->nunits - 1; u >= 0; u--)
		tr->count[u] = t->units[u].type == type ? 1 : 0;
	for (int u = t->nunits - 1; u > 0; u--)
		tr->count[t->units[u].parent] += tr->count[u];
	for (int u = 0; u < t->nunits; u++)
		if (tr->count[u] >= 2)
			sort_children(t, tr, u, desc, tmp);
}

/* tr->numa from the pre-order: a parent's subtree is its own unit and its
 * children's subtrees. cnt is scratch of t->nunits ints. */
static void numa_of_subtrees(const struct bnd_topology *t, struct tree *tr, int *cnt)
{
	for (int u = 0; u < t->nunits; u++) {
		bool n = t->units[u].type == BND_U_NUMA;
		cnt[u] = n ? 1 : 0;
		tr->numa[u] = n ? t->units[u].index : -1;
	}
	for (int u = t->nunits - 1; u > 0; u--) {
		int p = t->units[u].parent;
		cnt[p] += cnt[u];
		if (tr->numa[u] >= 0)
			tr->numa[p] = tr->numa[u];
	}
	for (int u = 0; u < t->nunits; u++)
		if (cnt[u] != 1)
			tr->numa[u] = -1;
}

/* Is a unit of this type and kind in the topology (as printed: a T only
 * under a core with several threads)? */
static bool topology_has_unit(const struct bnd_topology *t, int type, int kind)
{
	for (int u = 0; u < t->nunits; u++)
		if (bnd_unit_matches(t, u, type, kind))
			return true;
	return false;
}

static int emit(const struct tree *tr, int u, int k, struct bnd_unitorder *o)
{
	o->order[k] = u;
	o->pos[u] = k++;
	for (int i = tr->koff[u]; i < tr->koff[u + 1]; i++)
		k = emit(tr, tr->kids[i], k, o);
	o->end[u] = k;
	return k;
}

/* Without sort= the order is the document's: the units' own pre-order
 * numbering, when every subtree is contiguous in it (the topology module
 * stores them so). Checked, not assumed: false sends the caller to the
 * general walk. Packed placements call this once per walk, and the
 * general walk's per-unit usage counts made it most of a GPU-near
 * placement's time. */
static bool document_order(const struct bnd_topology *t, struct bnd_unitorder *o)
{
	int n = t->nunits;
	for (int u = 0; u < n; u++)
		o->end[u] = 1; /* subtree sizes first */
	for (int u = n - 1; u > 0; u--)
		o->end[t->units[u].parent] += o->end[u];
	for (int u = 0; u < n; u++) {
		o->order[u] = o->pos[u] = u;
		o->end[u] += u;
	}
	for (int u = 0; u < n; u++) {
		int next = u + 1;
		for (int c = t->units[u].first_child; c >= 0; c = t->units[c].next_sibling) {
			if (c != next)
				return false;
			next = o->end[c];
		}
		if (next != o->end[u])
			return false;
	}
	return true;
}

/* The general walk: the tree's children stably sorted level by level. */
static int sorted_order(struct bnd_unitorder *o, const struct bnd_topology *t,
			const bool *pu_used, const char *sort, char *err, size_t errlen)
{
	int n = t->nunits, rc = BND_ENOMEM;
	struct tree tr;
	tr.koff = calloc((size_t)n + 1, sizeof(int));
	tr.kids = calloc((size_t)n, sizeof(int));
	tr.used = calloc((size_t)n, sizeof(int));
	tr.count = calloc((size_t)n, sizeof(int));
	tr.numa = calloc((size_t)n, sizeof(int));
	tr.near = calloc((size_t)n, sizeof(int));
	int *tmp = calloc((size_t)n, sizeof(int));
	if (!tr.koff || !tr.kids || !tr.used ||
	    !tr.count || !tr.numa || !tr.near || !tmp) {
		rc = bnd_fail(err, errlen, BND_ENOMEM, "out of memory sorting %d units", n);
		goto out;
	}

	int k = 0;
	for (int u = 0; u < n; u++) {
		tr.koff[u] = k;
		for (int c = t->units[u].first_child; c >= 0; c = t->units[c].next_sibling)
			tr.kids[k++] = c;
		tr.used[u] = bnd_unit_used(t, u, pu_used);
	}
	tr.koff[n] = k;
	numa_of_subtrees(t, &tr, tmp);

	/* Last letter first: with stable sorts the first letter ends up as
	 * the primary key wherever two letters order the same siblings. */
	size_t ns = sort ? strlen(sort) : 0;
	for (size_t i = ns; i-- > 0;) {
		int type, kind;
		rc = bnd_unit_letter(t, sort[i], &type, &kind, err, errlen);
		if (rc != BND_OK)
			goto out;
		/* OCS: a letter for a unit the node lacks is ignored (unlike
		 * unit=, start= and stop=, which map N and X to S, Y to C). */
		bnd_unit_letter_type(sort[i], &type, &kind);
		if (!topology_has_unit(t, type, kind))
			continue;
		bool desc = sort[i] >= 'a' && sort[i] <= 'z';
		sort_level(t, &tr, type, desc, tmp);
	}
	emit(&tr, 0, 0, o);
	rc = BND_OK;
out:
	free(tr.koff);
	free(tr.kids);
	free(tr.used);
	free(tr.count);
	free(tr.numa);
	free(tr.near);
	free(tmp);
	return rc;
}

int bnd_unitorder_build(struct bnd_unitorder *o, const struct bnd_topology *t,
			const bool *pu_used, const char *sort, char *err, size_t errlen)
{
	int n = t->nunits;
	memset(o, 0, sizeof(*o));
	o->n = n;
	o->order = calloc((size_t)n, sizeof(int));
	o->pos = calloc((size_t)n, sizeof(int));
	o->end = calloc((size_t)n, sizeof(int));
	if (!o->order || !o->pos || !o->end) {
		bnd_unitorder_free(o);
		return bnd_fail(err, errlen, BND_ENOMEM, "out of memory sorting %d units", n);
	}
	if ((!sort || !*sort) && n > 0 && document_order(t, o))
		return BND_OK;
	int rc = sorted_order(o, t, pu_used, sort, err, errlen);
	if (rc != BND_OK)
		bnd_unitorder_free(o);
	return rc;
}
