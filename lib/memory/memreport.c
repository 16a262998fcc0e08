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

void bnd_uge_mib(uint64_t mib, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".000000M", mib);
}

void bnd_uge_cache(uint64_t bytes, char *buf, size_t len)
{
	/* exact: KiB and the rest as millionths of a KiB */
	uint64_t rest = (bytes % 1024) * 1000000 / 1024;
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64 "K", bytes / 1024, rest);
}

enum mem_kind { MEM_FREE, MEM_TOTAL, MEM_USED };

static uint64_t pick(uint64_t free_mib, uint64_t total_mib, uint64_t used_mib, enum mem_kind k)
{
	return k == MEM_FREE ? free_mib : k == MEM_TOTAL ? total_mib : used_mib;
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

/* m_mem_<kind> of the host, then m_mem_<kind>_n<N> of each node. */
static void mem_values(const struct bnd_memreport *r, enum mem_kind k, bnd_loadvalue_fn fn,
		       void *ctx)
{
	static const char *const word[] = { "free", "total", "used" };
	char name[48], value[48];
	snprintf(name, sizeof(name), "m_mem_%s", word[k]);
	bnd_uge_mib(pick(r->free_mib, r->total_mib, r->used_mib, k), value, sizeof(value));
	fn(ctx, name, value);
	/* by OS node id, as UGE lists them (NUMA index order may differ:
	 * n0 n2 n1 n3 on a 2-socket Broadwell) */
	for (int i = next_node(r, -1); i >= 0; i = next_node(r, r->node[i].os)) {
		const struct bnd_memreport_node *n = &r->node[i];
		snprintf(name, sizeof(name), "m_mem_%s_n%d", word[k], n->os);
		bnd_uge_mib(pick(n->free_mib, n->total_mib, n->used_mib, k), value, sizeof(value));
		fn(ctx, name, value);
	}
}

void bnd_memreport_caches(const struct bnd_topology *t, bnd_loadvalue_fn fn, void *ctx)
{
	char name[32], value[48];
	for (int level = 1; level <= 3; level++) {
		snprintf(name, sizeof(name), "m_cache_l%d", level);
		bnd_uge_cache(t->cache_size[level], value, sizeof(value));
		fn(ctx, name, value);
	}
}

void bnd_memreport_values(const struct bnd_memreport *r, bnd_loadvalue_fn fn, void *ctx)
{
	for (enum mem_kind k = MEM_FREE; k <= MEM_USED; k++)
		mem_values(r, k, fn, ctx);
}
