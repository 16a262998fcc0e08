/* OCS/GCS 9.1 "packed" binding: walk the (sorted, filtered, start..stop)
 * topology string left to right and take free units of the requested kind
 * until `need` are found. All or nothing.
 *
 * With near=gpu (near.h's rank of a core for a task's GPUs), the
 * walk for each task, inside the cores of rank 0, then up to the next
 * rank and so on: as many of its units in the nearest ring as fit there
 * before the next ring is tried. */
#include "binding/placement/strategy.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/placement/near.h"
#include "binding/util/error.h"
#include "binding/topology/topostring.h"
#include "binding/topology/unitsort.h"

struct target {
	int type;       /* unit type picked as one group */
	int kind;       /* power or efficiency: a hard requirement */
	char name[3];   /* as requested, for messages */
};

/* unit=: [C|E]<level> or a lone C, E, T; C when not given. */
static int parse_unit(const struct bnd_topology *t, const struct bnd_request *r,
		      struct target *g, char *err, size_t errlen)
{
	const char *u = r->unit[0] ? r->unit : "C";
	snprintf(g->name, sizeof(g->name), "%s", u);
	if (bnd_packed_unit(t, u, &g->type, &g->kind) == BND_OK)
		return BND_OK;
	return bnd_fail(err, errlen, BND_EINVAL,
			"--binding: \"%s\": unit=%s is not a unit (expected unit=T|CT|ET|C|E|S|CS|ES|X|CX|EX|Y|CY|EY|N|CN|EN)",
			r->text, u);
}

/* The letters this topology's OCS string contains, for messages. */
static void letters_present(const struct bnd_topology *t, char *buf)
{
	static const char all[] = BND_UNIT_LETTERS;
	int k = 0;
	for (const char *l = all; *l; l++) {
		int type, kind;
		bool found = false;
		if (bnd_unit_letter(t, *l, &type, &kind, NULL, 0) != BND_OK)
			continue;
		for (int u = 0; u < t->nunits && !found; u++)
			found = bnd_unit_matches(t, u, type, kind);
		/* a mapped letter (X on a node without L3) is not in the string */
		if (found && !(*l == 'N' && type != BND_U_NUMA) &&
		    !(*l == 'X' && type != BND_U_L3) && !(*l == 'Y' && type != BND_U_L2))
			buf[k++] = *l;
	}
	buf[k] = 0;
}

/* Position of the first unit matching `letter` (upper case: no used thread
 * below it; lower case: at least one) at or after `from`; -1 if none,
 * also when this node has no unit of that letter at all (E without
 * efficiency cores, T without SMT): a request is checked against the
 * grammar, not against one node, so a mixed cluster's nodes differ here.
 * *absent tells that case apart for the message. */
static int find_letter(const struct bnd_topology *t, const struct bnd_unitorder *o,
		       const bool *used, const struct bnd_request *r, const char *key,
		       char letter, int from, int *found, bool *absent, char *err, size_t errlen)
{
	int type, kind;
	char e[BND_ERRLEN];
	*found = -1;
	if (bnd_unit_letter(t, letter, &type, &kind, e, sizeof(e)) != BND_OK)
		return bnd_fail(err, errlen, BND_EINVAL, "--binding: \"%s\": %s=%c: %s",
				r->text, key, letter, e);
	bool exists = false;
	for (int u = 0; u < t->nunits && !exists; u++)
		exists = bnd_unit_matches(t, u, type, kind);
	*absent = !exists;
	if (!exists)
		return BND_OK;
	bool want_used = letter >= 'a' && letter <= 'z';
	for (int k = from; k < o->n; k++) {
		int u = o->order[k];
		if (!bnd_unit_matches(t, u, type, kind))
			continue;
		if ((bnd_unit_used(t, u, used) > 0) == want_used) {
			*found = k;
			break;
		}
	}
	return BND_OK;
}

/* OCS: a filter must match the host's layout, else the host is not
 * eligible: here, no binding on this node (a mixed cluster's nodes
 * differ; the request itself is well-formed). */
static int load_filter(const struct bnd_topology *t, const struct bnd_request *r,
		       bnd_cpuset_t *filt, char *err, size_t errlen)
{
	char e[BND_ERRLEN];
	bnd_cpuset_zero(filt);
	if (!r->filter)
		return BND_OK;
	if (bnd_topostring_parse_mask(t, r->filter, filt, e, sizeof(e)) == BND_OK)
		return BND_OK;
	char expect[128];
	size_t len = bnd_topostring_length(t, BND_TOPO_OCS);
	if (len < sizeof(expect))
		bnd_topostring_format(t, BND_TOPO_OCS, NULL, expect, sizeof(expect));
	else
		snprintf(expect, sizeof(expect), "%zu letters in OCS or Grid Engine form", len);
	return bnd_fail(err, errlen, BND_ENOFIT,
			"packed: filter does not match this node's topology: %s (expected filter=%s with lower case for units never to use)",
			e, expect);
}

struct walk {
	const struct bnd_topology *t;
	const struct bnd_unitorder *o;
	bool *blocked;   /* PU index: not usable by this request */
	struct bnd_pick *out;
	int npus_out;
};

static bool pus_free(const struct walk *w, int first, int count)
{
	for (int i = first; i < first + count; i++)
		if (w->blocked[i])
			return false;
	return true;
}

static void add_pus(struct walk *w, int first, int count)
{
	for (int i = first; i < first + count; i++) {
		w->out->pus[w->npus_out++] = i;
		w->blocked[i] = true;
	}
}

static void close_group(struct walk *w)
{
	w->out->ngroups++;
	w->out->off[w->out->ngroups] = w->npus_out;
}

/* Tries unit u (at sorted position k) as one group; true when taken. */
static bool try_unit(struct walk *w, const struct target *g, int u, int k)
{
	const struct bnd_topology *t = w->t;
	const struct bnd_unit *x = &t->units[u];

	if (g->type == BND_U_PU) {
		int core = t->pu_core[x->pu_first];
		if (t->cores[core].kind != g->kind || !pus_free(w, x->pu_first, 1))
			return false;
		add_pus(w, x->pu_first, 1);
		close_group(w);
		return true;
	}
	if (g->type == BND_U_CORE) {
		if (x->kind != g->kind || !pus_free(w, x->pu_first, x->pu_count))
			return false;
		add_pus(w, x->pu_first, x->pu_count);
		close_group(w);
		return true;
	}
	/* A container holds only if every core of the wanted kind below it
	 * is wholly free; the group is those cores, in sorted order. */
	int relevant = 0;
	for (int j = k; j < w->o->end[u]; j++) {
		const struct bnd_unit *c = &t->units[w->o->order[j]];
		if (c->type != BND_U_CORE || c->kind != g->kind)
			continue;
		if (!pus_free(w, c->pu_first, c->pu_count))
			return false;
		relevant++;
	}
	if (!relevant)
		return false;
	for (int j = k; j < w->o->end[u]; j++) {
		const struct bnd_unit *c = &t->units[w->o->order[j]];
		if (c->type == BND_U_CORE && c->kind == g->kind)
			add_pus(w, c->pu_first, c->pu_count);
	}
	close_group(w);
	return true;
}

/* OCS: "If a specified start position for binding cannot be found, then
 * no valid binding can be found" on that host; a letter the node has no
 * unit of at all is the same case, not a bad request. */
static int no_start(const struct bnd_topology *t, const struct bnd_request *r, bool absent,
		    char *err, size_t errlen)
{
	char have[16];
	if (absent) {
		letters_present(t, have);
		return bnd_fail(err, errlen, BND_ENOFIT,
				"packed: start=%c: this node has no such unit (its units: %s)",
				r->start_letter, have);
	}
	bool lower = r->start_letter >= 'a' && r->start_letter <= 'z';
	char how[BND_MAX_SORT + 16] = "";
	if (r->sort[0])
		snprintf(how, sizeof(how), " (sort=%s)", r->sort);
	return bnd_fail(err, errlen, BND_ENOFIT, "packed: start=%c: no %s unit of that level%s",
			r->start_letter, lower ? "partly or fully used" : "completely unused", how);
}

static const char *kind_word(int kind)
{
	return kind == BND_KIND_EFFICIENCY ? "efficiency" : "power";
}

/* The sorted unit order; a bad sort= names the request. */
static int build_order(const struct bnd_topology *t, const struct bnd_request *r,
		       const bool *used, struct bnd_unitorder *o, char *err, size_t errlen)
{
	int rc = bnd_unitorder_build(o, t, used, r->sort, err, errlen);
	if (rc == BND_EINVAL) {
		char e[BND_ERRLEN];
		snprintf(e, sizeof(e), "%s", err ? err : "");
		rc = bnd_fail(err, errlen, BND_EINVAL, "--binding: \"%s\": sort=%s: %s", r->text,
			      r->sort, e);
	}
	return rc;
}

/* The part of the string the walk may take: start= to stop=. OCS: no stop
 * after the start (none on this node at all included) walks to the end of
 * the string. */
static int walk_range(const struct bnd_topology *t, const struct bnd_unitorder *o,
		      const bool *used, const struct bnd_request *r, int *from, int *to, char *err,
		      size_t errlen)
{
	bool absent = false;
	int rc;
	*from = 0;
	*to = o->n;
	if (r->start_letter) {
		rc = find_letter(t, o, used, r, "start", r->start_letter, 0, from, &absent, err,
				 errlen);
		if (rc != BND_OK)
			return rc;
		if (*from < 0)
			return no_start(t, r, absent, err, errlen);
	}
	if (r->stop_letter) {
		int stop;
		rc = find_letter(t, o, used, r, "stop", r->stop_letter, *from + 1, &stop, &absent,
				 err, errlen);
		if (rc != BND_OK)
			return rc;
		if (stop >= 0)
			*to = stop;
	}
	return BND_OK;
}

/* Takes the first need free units of the target between from and to (only
 * units lying wholly inside), marking their cpus blocked. */
static int take_units(const struct bnd_topology *t, const struct bnd_unitorder *o,
		      bool *blocked, const struct target *g, const struct bnd_request *r,
		      int need, int from, int to, struct bnd_pick *out, char *err, size_t errlen)
{
	struct walk w = { t, o, blocked, out, 0 };
	for (int k = from; k < to && out->ngroups < need; k++) {
		int u = o->order[k];
		if (t->units[u].type == g->type && o->end[u] <= to)
			try_unit(&w, g, u, k);
	}
	if (out->ngroups >= need)
		return BND_OK;
	int found = out->ngroups;
	out->ngroups = 0;
	return bnd_fail(err, errlen, BND_ENOFIT, "packed: %d free %s unit%s of %s cores needed, %d found%s",
			need, g->name, need == 1 ? "" : "s", kind_word(g->kind), found,
			r->start_letter || r->stop_letter ? " between start and stop" : "");
}

static int packed_walk(const struct bnd_topology *t, const struct bnd_domain *dom,
		       const struct bnd_request *r, int need, struct bnd_pick *out, char *err,
		       size_t errlen)
{
	struct target g = { 0, 0, "" };
	struct bnd_unitorder o = { 0 };
	bnd_cpuset_t filt;
	out->ngroups = 0;
	out->off[0] = 0;
	if (need < 1)
		return bnd_fail(err, errlen, BND_EINVAL, "--binding: \"%s\": amount must be >= 1",
				r->text);
	int rc = parse_unit(t, r, &g, err, errlen);
	if (rc == BND_OK)
		rc = load_filter(t, r, &filt, err, errlen);
	if (rc != BND_OK)
		return rc;
	bool *used = calloc((size_t)t->npus + 1, sizeof(bool));
	bool *blocked = calloc((size_t)t->npus + 1, sizeof(bool));
	int from = 0, to = 0;
	if (!used || !blocked) {
		rc = bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
		goto out;
	}
	/* Used (occupied or outside the step) drives sort and start/stop; the
	 * filter only forbids, it does not make a unit look used. */
	for (int i = 0; i < t->npus; i++) {
		used[i] = !bnd_pu_available(t, dom, i);
		blocked[i] = used[i] || bnd_cpuset_isset(&filt, t->pu_os[i]);
	}
	if ((rc = build_order(t, r, used, &o, err, errlen)) == BND_OK &&
	    (rc = walk_range(t, &o, used, r, &from, &to, err, errlen)) == BND_OK)
		rc = take_units(t, &o, blocked, &g, r, need, from, to, out, err, errlen);
out:
	bnd_unitorder_free(&o);
	free(used);
	free(blocked);
	return rc;
}

/* ---- packed near=gpu --------------------------------------------------- */

struct rings {
	int n;
	int *rank;  /* distinct ranks, ascending */
};

/* The distinct ranks of the task's cores. */
static int make_rings(const struct bnd_topology *t, uint64_t gpus, int *core_rank,
		      struct rings *rg)
{
	struct bnd_near_ctx ctx;
	bnd_near_ctx_init(t, gpus, &ctx);
	rg->n = 0;
	for (int c = 0; c < t->ncores; c++) {
		core_rank[c] = bnd_near_ctx_rank(t, &ctx, c);
		int seen = 0;
		for (int i = 0; i < rg->n && !seen; i++)
			seen = rg->rank[i] == core_rank[c];
		if (!seen)
			rg->rank[rg->n++] = core_rank[c];
	}
	for (int i = 1; i < rg->n; i++)
		for (int j = i; j > 0 && rg->rank[j - 1] > rg->rank[j]; j--) {
			int x = rg->rank[j];
			rg->rank[j] = rg->rank[j - 1];
			rg->rank[j - 1] = x;
		}
	return rg->n;
}

/* Moves the groups of src to the end of dst and marks their cpus taken. */
static void append(const struct bnd_topology *t, struct bnd_pick *dst, const struct bnd_pick *src,
		   bnd_cpuset_t *taken)
{
	for (int g = 0; g < src->ngroups; g++) {
		int at = dst->off[dst->ngroups];
		for (int i = src->off[g]; i < src->off[g + 1]; i++) {
			dst->pus[at++] = src->pus[i];
			bnd_cpuset_set(taken, t->pu_os[src->pus[i]]);
		}
		dst->off[++dst->ngroups] = at;
	}
}

/* As many units as fit in the ring (cores up to rank `upto`), fewer when
 * not all do: the packed walk is all or nothing. */
static int fill_ring(const struct bnd_topology *t, const struct bnd_domain *dom,
		     const struct bnd_request *r, const int *core_rank, int upto, int *left,
		     bnd_cpuset_t *taken, struct bnd_pick *tmp, struct bnd_pick *out)
{
	bnd_cpuset_t ring;
	bnd_cpuset_zero(&ring);
	for (int c = 0; c < t->ncores; c++)
		if (core_rank[c] <= upto)
			for (int p = t->cores[c].pu_first; p < t->cores[c].pu_first + t->cores[c].npus; p++)
				bnd_cpuset_set(&ring, t->pu_os[p]);
	if (dom && dom->allowed)
		bnd_cpuset_and(&ring, dom->allowed);
	struct bnd_domain d = { &ring, taken, NULL };
	for (int m = *left; m > 0; m--) {
		int rc = packed_walk(t, &d, r, m, tmp, NULL, 0);
		if (rc == BND_ENOFIT)
			continue;
		if (rc != BND_OK)
			return rc;
		append(t, out, tmp, taken);
		*left -= m;
		break;
	}
	return BND_OK;
}

/* Each task's per_task units in the rings around its GPUs. */
static int packed_near(const struct bnd_topology *t, const struct bnd_domain *dom,
		       const struct bnd_request *r, int ntasks, int per_task,
		       struct bnd_pick *out, char *err, size_t errlen)
{
	bnd_cpuset_t taken;
	bnd_cpuset_zero(&taken);
	if (dom && dom->taken)
		taken = *dom->taken;
	int *core_rank = malloc(((size_t)t->ncores + 1) * sizeof(int));
	struct rings rg = { 0, malloc(((size_t)t->ncores + 1) * sizeof(int)) };
	struct bnd_pick tmp = { 0, calloc((size_t)t->npus + 2, sizeof(int)),
				calloc((size_t)t->npus + 1, sizeof(int)) };
	int rc = core_rank && rg.rank && tmp.off && tmp.pus
		 ? BND_OK : bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	out->ngroups = 0;
	out->off[0] = 0;
	for (int i = 0; rc == BND_OK && i < ntasks; i++) {
		int left = per_task, groups = out->ngroups;
		bnd_cpuset_t before = taken;
		make_rings(t, bnd_near_gpus(dom, i), core_rank, &rg);
		for (int k = 0; rc == BND_OK && left > 0 && k < rg.n; k++)
			rc = fill_ring(t, dom, r, core_rank, rg.rank[k], &left, &taken, &tmp, out);
		if (rc == BND_OK && left > 0) {
			/* The rings' units did not add up (a unit spanning two
			 * rings): the task's units in one walk over the node, or
			 * the packed model's own reason. */
			out->ngroups = groups;
			taken = before;
			struct bnd_domain d = { dom ? dom->allowed : NULL, &taken, NULL };
			rc = packed_walk(t, &d, r, per_task, &tmp, err, errlen);
			if (rc == BND_OK)
				append(t, out, &tmp, &taken);
		}
	}
	free(core_rank);
	free(rg.rank);
	free(tmp.off);
	free(tmp.pus);
	return rc;
}

/* packed's placement: the walk, or with near=gpu each task's units in the
 * rings around its GPUs (type=node: around the union of the tasks' GPUs,
 * as one task whose units every task shares). */
int bnd_place_packed(const struct bnd_topology *t, const struct bnd_domain *dom,
		     const struct bnd_request *r, const struct bnd_units *u, struct bnd_pick *out,
		     char *err, size_t errlen)
{
	if (!r->near_gpu)
		return packed_walk(t, dom, r, u->need, out, err, errlen);
	if (!u->shared)
		return packed_near(t, dom, r, u->ntasks, u->per_task, out, err, errlen);
	uint64_t all = 0;
	for (int i = 0; i < u->ntasks; i++)
		all |= bnd_near_gpus(dom, i);
	struct bnd_near one = { 1, &all };
	struct bnd_domain d = { dom ? dom->allowed : NULL, dom ? dom->taken : NULL, &one };
	return packed_near(t, &d, r, 1, u->per_task, out, err, errlen);
}
