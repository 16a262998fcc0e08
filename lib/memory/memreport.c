#include "binding/memory/memreport.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/memory/memacct.h"
#include "binding/util/error.h"

int bnd_memreport_build(const struct bnd_topology *t, const struct bnd_mem_reserve *reserve,
			const uint64_t *jobs_mib, struct bnd_memreport *out)
{
	static const struct bnd_mem_reserve none = { 0, 0 };
	memset(out, 0, sizeof(*out));
	uint64_t *cap = calloc((size_t)t->nnuma + 1, sizeof(*cap));
	out->node = calloc((size_t)t->nnuma + 1, sizeof(*out->node));
	if (!cap || !out->node) {
		free(cap);
		bnd_memreport_free(out);
		return BND_ENOMEM;
	}
	bnd_mem_capacity(t, reserve ? reserve : &none, cap);
	out->n = t->nnuma;
	for (int i = 0; i < t->nnuma; i++) {
		struct bnd_memreport_node *n = &out->node[i];
		uint64_t jobs = jobs_mib ? jobs_mib[i] : 0;
		n->os = t->numa_os[i];
		n->total_mib = t->numa_mem[i] >> 20;
		n->reserved_os_mib = n->total_mib - cap[i];
		n->reserved_jobs_mib = jobs;
		n->free_mib = cap[i] > jobs ? cap[i] - jobs : 0;
		n->used_mib = n->total_mib - n->free_mib;
		out->total_mib += n->total_mib;
		out->used_mib += n->used_mib;
		out->free_mib += n->free_mib;
		out->reserved_os_mib += n->reserved_os_mib;
		out->reserved_jobs_mib += n->reserved_jobs_mib;
	}
	free(cap);
	return BND_OK;
}

void bnd_memreport_free(struct bnd_memreport *r)
{
	free(r->node);
	memset(r, 0, sizeof(*r));
}

void bnd_uge_memory(uint64_t bytes, char *buf, size_t len)
{
	static const struct { unsigned shift; char unit; } scale[] = {
		{ 30, 'G' }, { 20, 'M' }, { 10, 'K' },
	};
	for (size_t i = 0; i < sizeof(scale) / sizeof(scale[0]); i++) {
		unsigned sh = scale[i].shift;
		if (!(bytes >> sh))
			continue;
		/* thousandths of the unit, the rest compared with half a
		 * thousandth (a power of two: no float, nothing lost) */
		uint64_t whole = bytes >> sh, frac = (bytes & ((1ULL << sh) - 1)) * 1000;
		uint64_t milli = frac >> sh, rem = frac & ((1ULL << sh) - 1), half = 1ULL << (sh - 1);
		if (rem > half || (rem == half && (milli & 1)))
			milli++;
		if (milli == 1000) {
			whole++;
			milli = 0;
		}
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 "%c", whole, milli, scale[i].unit);
		return;
	}
	snprintf(buf, len, "%" PRIu64 ".000", bytes);
}

void bnd_uge_count(long long n, char *buf, size_t len)
{
	snprintf(buf, len, "%lld.000000", n);
}

static void memory_value(bnd_loadvalue_fn fn, void *ctx, const char *name, uint64_t mib)
{
	char value[48];
	bnd_uge_memory(mib << 20, value, sizeof(value));
	fn(ctx, name, value);
}

static void count_value(bnd_loadvalue_fn fn, void *ctx, const char *name, long long n)
{
	char value[32];
	bnd_uge_count(n, value, sizeof(value));
	fn(ctx, name, value);
}

enum mem_kind { MEM_TOTAL, MEM_USED, MEM_FREE };
static const char *const mem_word[] = { "total", "used", "free" };

static uint64_t pick(uint64_t total_mib, uint64_t used_mib, uint64_t free_mib, enum mem_kind k)
{
	return k == MEM_TOTAL ? total_mib : k == MEM_USED ? used_mib : free_mib;
}

/* The node with the smallest OS id above `after`, -1 when none. */
static int next_node(const struct bnd_memreport *r, int after)
{
	int best = -1;
	for (int i = 0; i < r->n; i++)
		if (r->node[i].os > after && (best < 0 || r->node[i].os < r->node[best].os))
			best = i;
	return best;
}

void bnd_memreport_host(const struct bnd_memreport *r, bnd_loadvalue_fn fn, void *ctx)
{
	char name[32];
	for (enum mem_kind k = MEM_TOTAL; k <= MEM_FREE; k++) {
		snprintf(name, sizeof(name), "m_mem_%s", mem_word[k]);
		memory_value(fn, ctx, name, pick(r->total_mib, r->used_mib, r->free_mib, k));
	}
}

/* m_mem_<kind>_n<N> of each node, by OS node id as UGE lists them (the
 * NUMA index order may differ: n0 n2 n1 n3 on a 2-socket Broadwell). */
void bnd_memreport_nodes(const struct bnd_memreport *r, bnd_loadvalue_fn fn, void *ctx)
{
	char name[48];
	for (enum mem_kind k = MEM_TOTAL; k <= MEM_FREE; k++)
		for (int i = next_node(r, -1); i >= 0; i = next_node(r, r->node[i].os)) {
			const struct bnd_memreport_node *n = &r->node[i];
			snprintf(name, sizeof(name), "m_mem_%s_n%d", mem_word[k], n->os);
			memory_value(fn, ctx, name, pick(n->total_mib, n->used_mib, n->free_mib, k));
		}
}

void bnd_memreport_caches(const struct bnd_topology *t, bnd_loadvalue_fn fn, void *ctx)
{
	char name[32], value[48];
	for (int level = 1; level <= 3; level++) {
		snprintf(name, sizeof(name), "m_cache_l%d", level);
		bnd_uge_memory(t->cache_size[level], value, sizeof(value));
		fn(ctx, name, value);
	}
}

/* One group of the listing. */
struct uge_listing {
	const struct bnd_topology *t;
	const struct bnd_memreport *r;
	const struct bnd_uge_strings *s;
	bnd_loadvalue_fn fn;
	void *ctx;
};

static void topology_group(const struct uge_listing *l)
{
	l->fn(l->ctx, "m_topology", l->s->topology);
	l->fn(l->ctx, "m_topology_inuse", l->s->inuse);
	count_value(l->fn, l->ctx, "m_socket", l->t->nsockets);
	count_value(l->fn, l->ctx, "m_core", l->t->ncores);
	count_value(l->fn, l->ctx, "m_thread", l->t->npus);
}

static void numa_group(const struct uge_listing *l)
{
	l->fn(l->ctx, "m_topology_numa", l->s->numa);
	count_value(l->fn, l->ctx, "m_numa_nodes", l->t->nnuma);
}

static void cache_group(const struct uge_listing *l)
{
	bnd_memreport_caches(l->t, l->fn, l->ctx);
}

static void host_group(const struct uge_listing *l)
{
	bnd_memreport_host(l->r, l->fn, l->ctx);
}

static void node_group(const struct uge_listing *l)
{
	bnd_memreport_nodes(l->r, l->fn, l->ctx);
}

/* The document's groups, in its order. */
static void (*const groups[])(const struct uge_listing *) = {
	topology_group, numa_group, cache_group, host_group, node_group,
};

void bnd_uge_loadvalues(const struct bnd_topology *t, const struct bnd_memreport *r,
			const struct bnd_uge_strings *s, bnd_loadvalue_fn fn, void *ctx)
{
	const struct uge_listing l = { t, r, s, fn, ctx };
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		groups[g](&l);
}
