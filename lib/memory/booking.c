/* Each task's memory out of what Slurm booked (booking.h). */
#include "binding/memory/booking.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "binding/util/error.h"

int bnd_booking_add(struct bnd_booking *b, int node, uint64_t mib)
{
	if (node < 0)
		return BND_EINVAL;
	if (!mib)
		return BND_OK;
	int i = 0;
	while (i < b->n && b->s[i].node < node)
		i++;
	if (i < b->n && b->s[i].node == node) {
		b->s[i].mib += mib;
		return BND_OK;
	}
	if (b->n >= BND_BOOKING_MAX)
		return BND_EINVAL;
	memmove(&b->s[i + 1], &b->s[i], (size_t)(b->n - i) * sizeof(b->s[0]));
	b->s[i] = (struct bnd_mem_share){ node, mib };
	b->n++;
	return BND_OK;
}

static void shares_text(const struct bnd_mem_share *s, int n, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%d:%" PRIu64, i ? "," : "", s[i].node,
				 s[i].mib);
		used += w > 0 ? (size_t)w : 0;
	}
}

void bnd_booking_text(const struct bnd_booking *b, char *buf, size_t len)
{
	shares_text(b->s, b->n, buf, len);
}

void bnd_booking_task_text(const struct bnd_booking_task *bt, char *buf, size_t len)
{
	shares_text(bt->s, bt->n, buf, len);
}

uint64_t bnd_booking_per_index(const struct bnd_topology *t, const struct bnd_booking *b,
			       uint64_t *left)
{
	uint64_t lost = 0;
	memset(left, 0, (size_t)t->nnuma * sizeof(*left));
	for (int i = 0; i < b->n; i++) {
		int k = bnd_topology_numa_index(t, b->s[i].node);
		if (k >= 0)
			left[k] += b->s[i].mib;
		else
			lost += b->s[i].mib;
	}
	return lost;
}

/* Takes up to *need MiB from NUMA index k into the task's part. */
static void take(const struct bnd_topology *t, uint64_t *left, int k, uint64_t *need,
		 struct bnd_booking_task *out)
{
	uint64_t got = left[k] < *need ? left[k] : *need;
	if (!got || out->n >= BND_BOOKING_MAX)
		return;
	left[k] -= got;
	*need -= got;
	out->s[out->n++] = (struct bnd_mem_share){ t->numa_os[k], got };
}

/* The NUMA indices local to the task's cores. */
static void local_of(const struct bnd_topology *t, const struct bnd_task_place *tp,
		     bnd_nodeset_t *out)
{
	bnd_nodeset_zero(out);
	for (int c = 0; c < tp->ncores; c++)
		if (t->cores[tp->cores[c]].numa >= 0)
			bnd_nodeset_set(out, t->cores[tp->cores[c]].numa);
}

/* Of the nodes not yet used with memory left: the nearest to `from` (-1:
 * any), then the one with the most left, then the lowest index. */
static int next_node(const struct bnd_topology *t, const uint64_t *left, const bnd_nodeset_t *used,
		     int from)
{
	int best = -1, bd = 0;
	for (int k = 0; k < t->nnuma; k++) {
		if (!left[k] || bnd_nodeset_isset(used, k))
			continue;
		int d = from >= 0 ? bnd_topology_numa_distance(t, from, k) : 0;
		if (best < 0 || d < bd || (d == bd && left[k] > left[best])) {
			best = k;
			bd = d;
		}
	}
	return best;
}

/* cores, cores:strict, nlocal: its own nodes first, then the nearest. */
static void part_near(const struct bnd_topology *t, const struct bnd_task_place *tp, uint64_t *left,
		      uint64_t share, struct bnd_booking_task *out)
{
	bnd_nodeset_t local, used;
	local_of(t, tp, &local);
	used = local;
	uint64_t need = share;
	int from = bnd_nodeset_next(&local, -1);
	for (int k = from; k >= 0 && need; k = bnd_nodeset_next(&local, k))
		take(t, left, k, &need, out);
	for (int k; need && (k = next_node(t, left, &used, from)) >= 0;) {
		bnd_nodeset_set(&used, k);
		out->remote |= tp->ncores > 0;
		take(t, left, k, &need, out);
	}
	out->short_mib = need;
}

/* round_robin: interleaved over every booked node, evenly. */
static void part_spread(const struct bnd_topology *t, const uint64_t *avail, uint64_t *left,
			uint64_t share, struct bnd_booking_task *out)
{
	int nodes = 0;
	for (int k = 0; k < t->nnuma; k++)
		nodes += avail[k] > 0;
	if (!nodes) {
		out->short_mib = share;
		return;
	}
	uint64_t each = share / (uint64_t)nodes, rest = share % (uint64_t)nodes, need = share;
	for (int k = 0; k < t->nnuma; k++) {
		if (!avail[k])
			continue;
		uint64_t want = each + (rest ? 1 : 0), before = want;
		rest -= rest ? 1 : 0;
		take(t, left, k, &want, out);
		need -= before - want;
	}
	out->short_mib = need;
}

static void one_task(const struct bnd_topology *t, const struct bnd_placement *p, enum bnd_mbind m,
		     const uint64_t *avail, uint64_t *left, uint64_t share, int i,
		     struct bnd_booking_task *out)
{
	memset(out, 0, sizeof(*out));
	if (m == BND_M_ROUND_ROBIN)
		part_spread(t, avail, left, share, out);
	else
		part_near(t, &p->tasks[i], left, share, out);
	out->split = out->n > 1 && m != BND_M_ROUND_ROBIN;
}

int bnd_booking_task_part(const struct bnd_topology *t, const struct bnd_placement *p,
			  enum bnd_mbind m, const uint64_t *avail, uint64_t step_mib, int task,
			  struct bnd_booking_task *out)
{
	uint64_t left[BND_BOOKING_MAX];
	memset(out, 0, sizeof(*out));
	if (t->nnuma > BND_BOOKING_MAX || task < 0 || task >= p->ntasks)
		return BND_EINVAL;
	memcpy(left, avail, (size_t)t->nnuma * sizeof(*left));
	uint64_t share = bnd_mem_task_share(step_mib, p->ntasks);
	for (int i = 0; i <= task; i++)
		one_task(t, p, m, avail, left, share, i, out);
	return BND_OK;
}

int bnd_booking_plan(const struct bnd_topology *t, const struct bnd_placement *p,
		     enum bnd_mbind m, const uint64_t *avail, uint64_t step_mib, uint64_t *demand,
		     int *nsplit, int *nremote)
{
	uint64_t left[BND_BOOKING_MAX];
	struct bnd_booking_task bt;
	*nsplit = *nremote = 0;
	if (t->nnuma > BND_BOOKING_MAX)
		return BND_EINVAL;
	memset(demand, 0, (size_t)t->nnuma * sizeof(*demand));
	memcpy(left, avail, (size_t)t->nnuma * sizeof(*left));
	uint64_t share = bnd_mem_task_share(step_mib, p->ntasks);
	for (int i = 0; i < p->ntasks; i++) {
		one_task(t, p, m, avail, left, share, i, &bt);
		*nsplit += bt.split;
		*nremote += bt.remote;
	}
	for (int k = 0; k < t->nnuma; k++)
		demand[k] = avail[k] - left[k];
	return BND_OK;
}
