/* numamem at submission (numamem.h). */
#include "binding/submit/numamem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binding/submit/translate.h"
#include "binding/util/error.h"

/* A GRES count as Slurm reads it: a number, K, M, G, T or P multiplying
 * by 1024 each; bytes without one. In MiB, rounded down (what the node
 * surely holds). -1 when it is not a count. */
static int gres_count(const char *s, size_t n, uint64_t *mib)
{
	static const char units[] = "KMGTP";
	char *end = NULL;
	if (!n || !isdigit((unsigned char)*s))
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	size_t used = (size_t)(end - s);
	int shift = 0;
	if (used + 1 == n) {
		const char *u = strchr(units, toupper((unsigned char)s[used]));
		if (!u || !*u)
			return -1;
		shift = 10 * (int)(u - units + 1);
	} else if (used != n) {
		return -1;
	}
	if (v > (1ull << 50))
		return -1;
	*mib = shift >= 20 ? (uint64_t)v << (shift - 20) : (uint64_t)v >> (20 - shift);
	return 0;
}

/* One node line's numamem types. */
struct node_types {
	int n;
	char type[BND_NUMAMEM_TYPES][BND_NUMAMEM_TYPE_LEN];
	uint64_t mib[BND_NUMAMEM_TYPES];
};

/* "numamem:<type>:<count>" (after an optional "gres:" or "gres/"). */
static void one_gres(struct node_types *nt, const char *e, size_t n)
{
	if (n > 5 && (!strncmp(e, "gres:", 5) || !strncmp(e, "gres/", 5)))
		e += 5, n -= 5;
	const char *c1 = memchr(e, ':', n), *c2;
	if (!c1 || (size_t)(c1 - e) != strlen(BND_NUMAMEM_GRES) || strncmp(e, BND_NUMAMEM_GRES,
									     (size_t)(c1 - e)))
		return;
	c2 = memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - e));
	size_t tl = c2 ? (size_t)(c2 - c1 - 1) : 0;
	uint64_t mib;
	if (!c2 || !tl || tl >= BND_NUMAMEM_TYPE_LEN || nt->n >= BND_NUMAMEM_TYPES ||
	    gres_count(c2 + 1, n - (size_t)(c2 + 1 - e), &mib))
		return;
	memcpy(nt->type[nt->n], c1 + 1, tl);
	nt->type[nt->n][tl] = '\0';
	nt->mib[nt->n++] = mib;
}

/* The types every line so far has, each at its smallest. */
static void merge_types(struct bnd_numamem_site *site, const struct node_types *nt)
{
	if (!site->nnodes++) {
		site->ntypes = nt->n;
		memcpy(site->type, nt->type, sizeof(nt->type));
		memcpy(site->type_mib, nt->mib, sizeof(nt->mib));
		return;
	}
	int kept = 0;
	for (int i = 0; i < site->ntypes; i++)
		for (int j = 0; j < nt->n; j++)
			if (!strcmp(site->type[i], nt->type[j])) {
				memmove(site->type[kept], site->type[i], BND_NUMAMEM_TYPE_LEN);
				site->type_mib[kept++] = nt->mib[j] < site->type_mib[i] ? nt->mib[j]
							 : site->type_mib[i];
				break;
			}
	site->ntypes = kept;
}

void bnd_numamem_site_add(struct bnd_numamem_site *site, const char *gres)
{
	struct node_types nt = { 0 };
	for (const char *p = gres ? gres : ""; *p;) {
		size_t n = strcspn(p, ", \t");
		one_gres(&nt, p, n);
		p += n;
		p += *p != '\0';
	}
	if (!nt.n)
		return;
	for (int i = 0; i < nt.n; i++)
		if (nt.mib[i] > site->largest_mib) {
			site->largest_mib = nt.mib[i];
			snprintf(site->largest, sizeof(site->largest), "%s", nt.type[i]);
		}
	merge_types(site, &nt);
}

/* The value of key (case as slurm.conf: any) among a line's words, or NULL. */
static const char *word_value(char *const *w, int n, const char *key)
{
	size_t k = strlen(key);
	for (int i = 0; i < n; i++)
		if (!strncasecmp(w[i], key, k) && w[i][k] == '=')
			return w[i] + k + 1;
	return NULL;
}

void bnd_numamem_site_line(struct bnd_numamem_site *site, const char *text, char *dflt,
			   size_t dlen)
{
	char line[8192];
	snprintf(line, sizeof(line), "%s", text);
	line[strcspn(line, "#\n")] = '\0';
	char *w[128], *save = NULL;
	int nw = 0;
	for (char *t = strtok_r(line, " \t\r", &save); t && nw < 128; t = strtok_r(NULL, " \t\r", &save))
		w[nw++] = t;
	const char *node = word_value(w, nw, "NodeName"), *gres = word_value(w, nw, "Gres");
	if (!node)
		return;
	if (!strcasecmp(node, "DEFAULT"))
		snprintf(dflt, dlen, "%s", gres ? gres : dflt);
	else
		bnd_numamem_site_add(site, gres ? gres : dflt);
}

void bnd_numamem_site_scan(struct bnd_numamem_site *site, const char *text,
			   void (*include)(void *ctx, const char *path), void *ctx)
{
	char line[8192], dflt[4096] = "";
	for (const char *p = text ? text : ""; *p;) {
		size_t n = strcspn(p, "\n"), k = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
		memcpy(line, p, k);
		line[k] = '\0';
		p += n + (p[n] != '\0');
		char inc[4096], word[16];
		if (include && sscanf(line, " %15s %4095s", word, inc) == 2 &&
		    !strcasecmp(word, "include"))
			include(ctx, inc);
		else
			bnd_numamem_site_line(site, line, dflt, sizeof(dflt));
	}
}

/* The submission being worked out. */
struct nm {
	const struct bnd_alloc *a;
	const struct bnd_numamem_site *site;
	enum bnd_mbind mbind;
	struct bnd_submit *out;
	char *err;
	size_t errlen;
	int tpn;              /* tasks a node gets, 0: unknown */
	uint64_t node_mib, task_mib;
	char label[64];       /* "--mbind=cores:strict" */
};

static int nm_refuse(struct nm *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int nm_refuse(struct nm *m, const char *fmt, ...)
{
	char why[BND_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return bnd_fail(m->err, m->errlen, BND_ENOFIT, "%s %s", m->label, why);
}

/* The most tasks a node gets, when the options fix it; 0 when Slurm is
 * free to put more or fewer there. */
static int tasks_per_node(const struct bnd_alloc *a)
{
	if (a->ntasks_per_node)
		return a->ntasks_per_node;
	if (!a->ntasks || a->ntasks == 1)
		return 1;
	if (a->nodes_min && a->nodes_min == a->nodes_max)
		return (a->ntasks + a->nodes_min - 1) / a->nodes_min;
	return 0;
}

/* CPUs per task: what the translation set, else the user's -c, else 1. */
static int cpus_per_task(const struct nm *m)
{
	for (int i = 0; i < m->out->nset; i++)
		if (!strcmp(m->out->set[i].name, "cpus-per-task"))
			return atoi(m->out->set[i].value);
	return m->a->cpus_per_task ? m->a->cpus_per_task : 1;
}

/* The memory of a node and of a task. BND_OK, or refused. */
static int amounts(struct nm *m)
{
	const struct bnd_alloc *a = m->a;
	m->tpn = tasks_per_node(a);
	if (a->has_mem) {
		m->node_mib = a->mem_mib;
	} else if (!m->tpn) {
		return nm_refuse(m, "with --mem-per-cpu=%" PRIu64 "M: Slurm books numamem per node, "
				 "and -n %d without -N or --ntasks-per-node leaves a node's tasks to "
				 "Slurm (Slurm has no numamem per task: 22.05 no --tres-per-task, "
				 "24.11 and 26.05 book nothing with it): give --ntasks-per-node, -N "
				 "with -n, or --mem (per node)", a->mem_per_cpu_mib, a->ntasks);
	} else {
		m->node_mib = a->mem_per_cpu_mib * (uint64_t)cpus_per_task(m) * (uint64_t)m->tpn;
	}
	m->task_mib = m->tpn ? (m->node_mib + (uint64_t)m->tpn - 1) / (uint64_t)m->tpn
			     : m->node_mib;
	return BND_OK;
}

static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	if (used < len)
		vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* round_robin: evenly over the types every numamem node has. */
static int ask_spread(struct nm *m, char *req, size_t len, char *why, size_t wlen)
{
	const struct bnd_numamem_site *s = m->site;
	if (!s->ntypes) {
		snprintf(req, len, "%s:%" PRIu64 "M", BND_NUMAMEM_GRES, m->node_mib);
		snprintf(why, wlen, "the node's %" PRIu64 " MiB, booked per NUMA node (the nodes "
			 "offer no common types: Slurm picks them, and the interleave covers the "
			 "booked ones)", m->node_mib);
		return BND_OK;
	}
	uint64_t each = (m->node_mib + (uint64_t)s->ntypes - 1) / (uint64_t)s->ntypes;
	for (int j = 0; j < s->ntypes; j++) {
		if (each > s->type_mib[j])
			return nm_refuse(m, "interleaves a node's %" PRIu64 " MiB over its %d NUMA "
					 "nodes, %" PRIu64 " MiB on each; NUMA node %s holds %" PRIu64
					 " MiB", m->node_mib, s->ntypes, each, s->type[j],
					 s->type_mib[j]);
		append(req, len, "%s%s:%s:%" PRIu64 "M", j ? "," : "", BND_NUMAMEM_GRES, s->type[j],
		       each);
	}
	snprintf(why, wlen, "the node's %" PRIu64 " MiB interleaved evenly over its %d NUMA nodes "
		 "(typed: Slurm books %" PRIu64 " MiB on each)", m->node_mib, s->ntypes, each);
	return BND_OK;
}

/* More than one NUMA node holds: typed, task after task on the types in
 * order (each type as many whole tasks as it holds). */
static int ask_per_task(struct nm *m, char *req, size_t len, char *why, size_t wlen)
{
	const struct bnd_numamem_site *s = m->site;
	int left = m->tpn;
	for (int j = 0; j < s->ntypes && left > 0; j++) {
		int k = (int)(s->type_mib[j] / m->task_mib);
		k = k < left ? k : left;
		if (k > 0)
			append(req, len, "%s%s:%s:%" PRIu64 "M", *req ? "," : "", BND_NUMAMEM_GRES,
			       s->type[j], (uint64_t)k * m->task_mib);
		left -= k;
	}
	if (left > 0)
		return nm_refuse(m, "needs %d task(s) of %" PRIu64 " MiB on a node, each on one "
				 "NUMA node; the nodes' NUMA nodes hold only %d of them", m->tpn,
				 m->task_mib, m->tpn - left);
	snprintf(why, wlen, "%d task(s) of %" PRIu64 " MiB on a node: %" PRIu64 " MiB is more "
		 "than one NUMA node holds (%" PRIu64 " MiB, %s), and Slurm refuses an untyped "
		 "request larger than every NUMA node, so each task is booked on a NUMA node of "
		 "its own, by name (the job waits for those)", m->tpn, m->task_mib, m->node_mib,
		 s->largest_mib, s->largest);
	return BND_OK;
}

/* The request for cores, cores:strict and nlocal. */
static int ask_local(struct nm *m, char *req, size_t len, char *why, size_t wlen)
{
	const struct bnd_numamem_site *s = m->site;
	if (!s->largest_mib || m->node_mib <= s->largest_mib) {
		snprintf(req, len, "%s:%" PRIu64 "M", BND_NUMAMEM_GRES, m->node_mib);
		snprintf(why, wlen, "the node's %" PRIu64 " MiB booked per NUMA node: Slurm picks "
			 "the NUMA nodes, and the job waits until they have it", m->node_mib);
		return BND_OK;
	}
	if (!m->tpn)
		return nm_refuse(m, "needs %" PRIu64 " MiB on a node (--mem is per node); the "
				 "largest NUMA node holds %" PRIu64 " MiB (the nodes' Gres=numamem:%s). "
				 "Slurm books an untyped request only within one NUMA node, and booking "
				 "each task on a NUMA node by name needs a node's tasks, which -n "
				 "without -N or --ntasks-per-node leaves to Slurm: give "
				 "--ntasks-per-node (or -N with -n)", m->node_mib, s->largest_mib,
				 s->largest);
	if (m->task_mib > s->largest_mib)
		return nm_refuse(m, "needs %" PRIu64 " MiB per task on one NUMA node; the largest "
				 "NUMA node holds %" PRIu64 " MiB (the nodes' Gres=numamem:%s)",
				 m->task_mib, s->largest_mib, s->largest);
	return ask_per_task(m, req, len, why, wlen);
}

static int set_gres(struct nm *m, const char *req, const char *why, enum bnd_submit_mode mode)
{
	char value[sizeof(m->out->set[0].value)];
	int n = snprintf(value, sizeof(value), "%s%s%s", m->a->gres, *m->a->gres ? "," : "", req);
	if (n < 0 || (size_t)n >= sizeof(value))
		return nm_refuse(m, "needs --gres=%s, which does not fit beside --gres=%s", req,
				 m->a->gres);
	if (mode == BND_SUBMIT_REFUSE)
		return nm_refuse(m, "needs --gres=%s (%s); this site's filter does not add options "
				 "(submit=refuse): give it yourself", req, why);
	if (m->out->nset >= BND_SUBMIT_MAX_SET)
		return nm_refuse(m, "needs --gres=%s: too many options to add", req);
	struct bnd_submit_opt *o = &m->out->set[m->out->nset++];
	snprintf(o->name, sizeof(o->name), "gres");
	memcpy(o->value, value, sizeof(o->value));
	snprintf(o->why, sizeof(o->why), "%s", why);
	return BND_OK;
}

/* Does the request place memory by its cores or over its nodes, with a
 * binding (memory/booking.h)? */
static int wants_numamem(const struct bnd_request *r, enum bnd_mbind mbind)
{
	int policy = mbind == BND_M_CORES || mbind == BND_M_CORES_STRICT ||
		     mbind == BND_M_NLOCAL || mbind == BND_M_ROUND_ROBIN;
	return policy && (r->strategy != BND_S_NONE || mbind == BND_M_NLOCAL);
}

int bnd_submit_numamem(const struct bnd_request *r, enum bnd_mbind mbind,
		       const struct bnd_alloc *a, const struct bnd_numamem_site *site,
		       enum bnd_submit_mode mode, struct bnd_submit *out, char *err, size_t errlen)
{
	struct nm m = { a, site, mbind, out, err, errlen, 0, 0, 0, "" };
	char req[sizeof(out->set[0].value)] = "", why[BND_SUBMIT_TEXT];
	if (!site || !site->on || mode == BND_SUBMIT_OFF || !wants_numamem(r, mbind))
		return BND_OK;
	snprintf(m.label, sizeof(m.label), "--mbind=%s", bnd_mbind_name(mbind));
	if (a->in_job) {
		bnd_submit_note(m.out, "numamem: a step shares the memory Slurm booked for its job (the job's "
			"own --mbind asked for it): nothing to add");
		return BND_OK;
	}
	if (strstr(a->gres, BND_NUMAMEM_GRES ":")) {
		bnd_submit_note(m.out, "numamem: --gres=%s already asks for it: kept as given", a->gres);
		return BND_OK;
	}
	if (!a->has_mem && !a->has_mem_per_cpu) {
		bnd_submit_note(m.out, "numamem: without --mem or --mem-per-cpu Slurm books no memory per NUMA "
			"node (the site's DefMemPerCPU is not known here): the node's own accounting "
			"holds");
		return BND_OK;
	}
	int rc = amounts(&m);
	if (rc == BND_OK)
		rc = mbind == BND_M_ROUND_ROBIN ? ask_spread(&m, req, sizeof(req), why, sizeof(why))
						: ask_local(&m, req, sizeof(req), why, sizeof(why));
	return rc == BND_OK ? set_gres(&m, req, why, mode) : rc;
}
