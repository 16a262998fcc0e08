/* LSF processor binding policies (BIND_JOB): BALANCE, PACK, ANY and a CPU
 * list, at socket, core or thread level. A "processor" is a socket; its load
 * is the share of its units at the level that are not free (held by other
 * jobs, outside the step, or already picked for this request). */
#include "binding/placement/strategy.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"

struct lsf {
	const struct bnd_topology *t;
	bool *busy;            /* PU index: not free for this request */
	struct bnd_pick *out;
	int npus_out;
};

static int sock_pu_first(const struct bnd_topology *t, int s)
{
	return t->socket_ncores[s] < 1 ? 0 : t->cores[t->socket_first_core[s]].pu_first;
}

static int sock_pu_count(const struct bnd_topology *t, int s)
{
	if (t->socket_ncores[s] < 1)
		return 0;
	const struct bnd_core *last = &t->cores[t->socket_first_core[s] + t->socket_ncores[s] - 1];
	return last->pu_first + last->npus - sock_pu_first(t, s);
}

static int free_pus(const struct lsf *l, int first, int count)
{
	int n = 0;
	for (int i = first; i < first + count; i++)
		n += l->busy[i] ? 0 : 1;
	return n;
}

static bool core_free(const struct lsf *l, int c)
{
	const struct bnd_core *k = &l->t->cores[c];
	return free_pus(l, k->pu_first, k->npus) == k->npus;
}

static int sock_free_cores(const struct lsf *l, int s)
{
	int n = 0;
	for (int c = l->t->socket_first_core[s]; c < l->t->socket_first_core[s] + l->t->socket_ncores[s]; c++)
		n += core_free(l, c) ? 1 : 0;
	return n;
}

static void take(struct lsf *l, int first, int count)
{
	for (int i = first; i < first + count; i++) {
		l->out->pus[l->npus_out++] = i;
		l->busy[i] = true;
	}
	l->out->ngroups++;
	l->out->off[l->out->ngroups] = l->npus_out;
}

static void take_core(struct lsf *l, int c)
{
	take(l, l->t->cores[c].pu_first, l->t->cores[c].npus);
}

/* used_a/total_a compared with used_b/total_b, exactly. */
static int load_cmp(int used_a, int total_a, int used_b, int total_b)
{
	long long x = (long long)used_a * total_b, y = (long long)used_b * total_a;
	return (x > y) - (x < y);
}

/* Index of the bin with free > 0 and the least (or most) load; ties go to
 * the lower index. -1 when every bin is full. */
static int pick_bin(int n, const int *fr, const int *total, bool most)
{
	int best = -1;
	for (int b = 0; b < n; b++) {
		if (fr[b] <= 0)
			continue;
		if (best < 0) {
			best = b;
			continue;
		}
		int c = load_cmp(total[b] - fr[b], total[b], total[best] - fr[best], total[best]);
		if (most ? c > 0 : c < 0)
			best = b;
	}
	return best;
}

/* PACK over bins: fill one bin if any can hold `want` (the most loaded of
 * those), else empty the bin with most free units and go on, which uses as
 * few bins as possible. take_n[b] receives how many to take from bin b, seq
 * the bins in the order chosen; returns how many bins were chosen, or -1
 * when the bins cannot hold `want` together. */
static int pack_bins(int n, const int *fr, const int *total, int want, int *take_n, int *seq)
{
	int *left = calloc((size_t)n, sizeof(int));
	int nseq = 0;
	if (!left)
		return -1;
	memcpy(left, fr, (size_t)n * sizeof(int));
	memset(take_n, 0, (size_t)n * sizeof(int));
	while (want > 0) {
		int fit = -1, big = -1;
		for (int b = 0; b < n; b++) {
			if (left[b] <= 0)
				continue;
			if (left[b] >= want &&
			    (fit < 0 || load_cmp(total[b] - left[b], total[b],
						 total[fit] - left[fit], total[fit]) > 0))
				fit = b;
			if (big < 0 || left[b] > left[big])
				big = b;
		}
		int b = fit >= 0 ? fit : big;
		if (b < 0) {
			nseq = -1;
			break;
		}
		int k = fit >= 0 ? want : left[b];
		take_n[b] = k;
		left[b] -= k;
		want -= k;
		seq[nseq++] = b;
	}
	free(left);
	return nseq;
}

/* Fills per-socket free/total counts at the level (cores or threads). */
static void socket_counts(const struct lsf *l, bool threads, int *fr, int *total)
{
	const struct bnd_topology *t = l->t;
	for (int s = 0; s < t->nsockets; s++) {
		if (threads) {
			total[s] = sock_pu_count(t, s);
			fr[s] = free_pus(l, sock_pu_first(t, s), total[s]);
		} else {
			total[s] = t->socket_ncores[s];
			fr[s] = sock_free_cores(l, s);
		}
	}
}

static void core_counts(const struct lsf *l, int s, int *fr, int *total)
{
	const struct bnd_topology *t = l->t;
	for (int i = 0; i < t->socket_ncores[s]; i++) {
		const struct bnd_core *k = &t->cores[t->socket_first_core[s] + i];
		total[i] = k->npus;
		fr[i] = free_pus(l, k->pu_first, k->npus);
	}
}

static int first_free_pu(const struct lsf *l, int first, int count)
{
	for (int i = first; i < first + count; i++)
		if (!l->busy[i])
			return i;
	return -1;
}

static bool sock_free(const struct lsf *l, int s)
{
	int n = sock_pu_count(l->t, s);
	return free_pus(l, sock_pu_first(l->t, s), n) == n;
}

/* Whole free sockets, in order: at this level every policy sees the same
 * candidates with no load to tell them apart. */
static int sockets(struct lsf *l, int need)
{
	int got = 0;
	for (int s = 0; s < l->t->nsockets && got < need; s++)
		if (sock_free(l, s)) {
			take(l, sock_pu_first(l->t, s), sock_pu_count(l->t, s));
			got++;
		}
	return got;
}

/* One unit at a time: least-loaded socket, then least-loaded core, then
 * its first free thread. */
static int balance(struct lsf *l, bool threads, int need, int *fr, int *total)
{
	const struct bnd_topology *t = l->t;
	for (int got = 0; got < need; got++) {
		socket_counts(l, threads, fr, total);
		int s = pick_bin(t->nsockets, fr, total, false);
		if (s < 0)
			return got;
		int c0 = t->socket_first_core[s];
		if (!threads) {
			for (int c = c0; c < c0 + t->socket_ncores[s]; c++)
				if (core_free(l, c)) {
					take_core(l, c);
					break;
				}
			continue;
		}
		core_counts(l, s, fr, total);
		const struct bnd_core *k = &t->cores[c0 + pick_bin(t->socket_ncores[s], fr, total, false)];
		take(l, first_free_pu(l, k->pu_first, k->npus), 1);
	}
	return need;
}

static int pack(struct lsf *l, bool threads, int need, int *fr, int *total, int *tk, int *seq)
{
	const struct bnd_topology *t = l->t;
	socket_counts(l, threads, fr, total);
	int ns = pack_bins(t->nsockets, fr, total, need, tk, seq);
	if (ns < 0)
		return 0;
	/* seq/tk are reused one level down: keep this level's choice */
	int *ss = calloc((size_t)ns * 2, sizeof(int));
	if (!ss)
		return 0;
	for (int i = 0; i < ns; i++) {
		ss[2 * i] = seq[i];
		ss[2 * i + 1] = tk[seq[i]];
	}
	for (int i = 0; i < ns; i++) {
		int s = ss[2 * i], want = ss[2 * i + 1];
		int c0 = t->socket_first_core[s];
		if (!threads) {
			for (int c = c0; c < c0 + t->socket_ncores[s] && want > 0; c++)
				if (core_free(l, c)) {
					take_core(l, c);
					want--;
				}
			continue;
		}
		/* threads: the same packing again over the socket's cores */
		core_counts(l, s, fr, total);
		int nc = pack_bins(t->socket_ncores[s], fr, total, want, tk, seq);
		for (int j = 0; j < nc; j++) {
			const struct bnd_core *k = &t->cores[c0 + seq[j]];
			for (int n = tk[seq[j]]; n > 0; n--)
				take(l, first_free_pu(l, k->pu_first, k->npus), 1);
		}
	}
	free(ss);
	return need;
}

static int lowest_os(const struct bnd_topology *t, int first, int count)
{
	int m = t->pu_os[first];
	for (int i = first + 1; i < first + count; i++)
		if (t->pu_os[i] < m)
			m = t->pu_os[i];
	return m;
}

struct keyed {
	int key, idx;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The first free units in OS cpu order (a core by its lowest cpu id). */
static int any(struct lsf *l, bool threads, int need)
{
	const struct bnd_topology *t = l->t;
	int n = threads ? t->npus : t->ncores, got = 0;
	struct keyed *v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return 0;
	for (int i = 0; i < n; i++) {
		v[i].idx = i;
		v[i].key = threads ? t->pu_os[i]
				   : lowest_os(t, t->cores[i].pu_first, t->cores[i].npus);
	}
	qsort(v, (size_t)n, sizeof(*v), by_key);
	for (int i = 0; i < n && got < need; i++) {
		int u = v[i].idx;
		if (threads ? l->busy[u] : !core_free(l, u))
			continue;
		if (threads)
			take(l, u, 1);
		else
			take_core(l, u);
		got++;
	}
	free(v);
	return got;
}

static int pu_of_os(const struct bnd_topology *t, int os)
{
	for (int i = 0; i < t->npus; i++)
		if (t->pu_os[i] == os)
			return i;
	return -1;
}

/* cpus:<list>: ids the node does not have are dropped (LSF binds to the
 * valid ones); an existing id outside the free domain refuses the binding,
 * as an explicit request for a taken core does. */
static int cpu_list(struct lsf *l, const struct bnd_request *r, char *err, size_t errlen)
{
	const struct bnd_topology *t = l->t;
	int valid = 0;
	for (int os = bnd_cpuset_next(r->cpus, -1); os >= 0; os = bnd_cpuset_next(r->cpus, os)) {
		int pu = pu_of_os(t, os);
		if (pu < 0)
			continue;
		if (l->busy[pu]) {
			l->out->ngroups = 0;
			return bnd_fail(err, errlen, BND_ENOFIT,
					"cpus: cpu %d is held by another job or outside the step's cpus", os);
		}
		take(l, pu, 1);
		valid++;
	}
	if (!valid) {
		char have[256];
		if (bnd_cpuset_format_list(&t->all_cpus, have, sizeof(have)) != BND_OK)
			snprintf(have, sizeof(have), "%d in all", t->npus);
		return bnd_fail(err, errlen, BND_ENOFIT,
				"cpus: none of the listed cpus exists on this node (it has cpus %s)",
				have);
	}
	return BND_OK;
}

static const char *level_name(enum bnd_level lv)
{
	return lv == BND_L_SOCKET ? "socket" : lv == BND_L_THREAD ? "thread" : "core";
}

/* One LSF policy over the free units of its level. */
static int run_policy(struct lsf *l, const struct bnd_request *r, int need, int *fr, int *total,
		      int *tk, int *seq, char *err, size_t errlen)
{
	const struct bnd_topology *t = l->t;
	bool threads = r->level == BND_L_THREAD;
	int nfree = 0;
	for (int s = 0; s < t->nsockets; s++)
		nfree += r->level == BND_L_SOCKET ? (sock_free(l, s) ? 1 : 0)
			 : threads ? free_pus(l, sock_pu_first(t, s), sock_pu_count(t, s))
				   : sock_free_cores(l, s);
	/* Cores are exclusive here, so a policy either finds `need` free units
	 * or nothing can: LSF's PACK-to-BALANCE fallback for a fully loaded
	 * host has no case left to cover. */
	if (nfree < need)
		return bnd_fail(err, errlen, BND_ENOFIT, "%s: %d free %s%s needed, %d free",
				bnd_strategy_name(r->strategy), need, level_name(r->level),
				need == 1 ? "" : "s", nfree);
	int got;
	if (r->level == BND_L_SOCKET)
		got = sockets(l, need);
	else if (r->strategy == BND_S_LSF_BALANCE)
		got = balance(l, threads, need, fr, total);
	else if (r->strategy == BND_S_LSF_PACK)
		got = pack(l, threads, need, fr, total, tk, seq);
	else if (r->strategy == BND_S_LSF_ANY)
		got = any(l, threads, need);
	else
		return bnd_fail(err, errlen, BND_EINVAL, "--binding: \"%s\": not an LSF policy",
				r->text);
	if (got >= need)
		return BND_OK;
	l->out->ngroups = 0;
	return bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
}

/* The four LSF rows' placement: the request's method (balance, pack, any)
 * over the free units of its level, or its cpu list. */
int bnd_place_lsf(const struct bnd_topology *t, const struct bnd_domain *dom,
		  const struct bnd_request *r, const struct bnd_units *u, struct bnd_pick *out,
		  char *err, size_t errlen)
{
	int n = t->npus + t->ncores + t->nsockets + 1, rc = BND_OK, need = u->need;
	bool *busy = calloc((size_t)t->npus + 1, sizeof(bool));
	int *fr = calloc((size_t)n, sizeof(int)), *total = calloc((size_t)n, sizeof(int));
	int *tk = calloc((size_t)n, sizeof(int)), *seq = calloc((size_t)n, sizeof(int));

	out->ngroups = 0;
	out->off[0] = 0;
	if (!busy || !fr || !total || !tk || !seq) {
		rc = bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < t->npus; i++)
		busy[i] = !bnd_pu_available(t, dom, i);
	struct lsf l = { t, busy, out, 0 };
	if (r->strategy == BND_S_LSF_CPUS) {
		rc = cpu_list(&l, r, err, errlen);
		goto out;
	}
	if (need < 1) {
		rc = bnd_fail(err, errlen, BND_EINVAL, "--binding: \"%s\": n must be >= 1", r->text);
		goto out;
	}

	rc = run_policy(&l, r, need, fr, total, tk, seq, err, errlen);
out:
	free(busy);
	free(fr);
	free(total);
	free(tk);
	free(seq);
	return rc;
}
