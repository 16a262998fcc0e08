#include "binding/step/stepinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/util/fault.h"

int bnd_slurm_cores_to_cpus(const struct bnd_topology *t, const char *list,
			    bnd_cpuset_t *cpus, char *err, size_t errlen)
{
	bnd_cpuset_t cores;
	char perr[BND_ERRLEN];
	bnd_cpuset_zero(cpus);
	if (!list || !*list)
		return bnd_fail(err, errlen, BND_EINVAL, "Slurm gave no core list");
	/* Same syntax as a cpu list; the numbers are core indices. */
	if (bnd_cpuset_parse_list(&cores, list, perr, sizeof(perr)) != BND_OK)
		return bnd_fail(err, errlen, BND_EINVAL, "Slurm core list \"%s\" unreadable: %s",
				list, perr);
	for (int c = bnd_cpuset_next(&cores, -1); c >= 0; c = bnd_cpuset_next(&cores, c)) {
		if (c >= t->ncores)
			return bnd_fail(err, errlen, BND_EINVAL,
					"Slurm core list \"%s\" names core %d, this node has %d cores "
					"(does slurm.conf describe this node's layout?)",
					list, c, t->ncores);
		bnd_cpuset_t one;
		bnd_topology_core_cpus(t, c, &one);
		bnd_cpuset_or(cpus, &one);
	}
	return BND_OK;
}

static int number(const char **p, int *out)
{
	char *end = NULL;
	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	long v = strtol(*p, &end, 10);
	if (errno || v > INT_MAX)
		return -1;
	*out = (int)v;
	*p = end;
	return 0;
}

int bnd_tasks_per_node_at(const char *tpn, int node, int *count, char *err, size_t errlen)
{
	const char *p = tpn;
	int at = 0;
	if (!p || !*p || node < 0)
		return bnd_fail(err, errlen, BND_EINVAL, "no tasks-per-node list");
	while (*p) {
		int n, rep = 1;
		if (number(&p, &n))
			return bnd_fail(err, errlen, BND_EINVAL,
					"tasks per node \"%s\": expected <n>[(x<repeat>)],...", tpn);
		if (*p == '(') {
			p++;
			if (*p++ != 'x' || number(&p, &rep) || *p++ != ')' || rep < 1)
				return bnd_fail(err, errlen, BND_EINVAL,
						"tasks per node \"%s\": bad repeat", tpn);
		}
		/* at <= node here: node - at cannot overflow, at + rep can. */
		if (node - at < rep) {
			*count = n;
			return BND_OK;
		}
		at += rep;
		if (*p == ',')
			p++;
		else if (*p)
			return bnd_fail(err, errlen, BND_EINVAL,
					"tasks per node \"%s\": unexpected \"%s\"", tpn, p);
	}
	return bnd_fail(err, errlen, BND_EINVAL, "tasks per node \"%s\": no node %d", tpn, node);
}

int bnd_batch_tasks(const char *tasks_per_node, const char *ntasks)
{
	int n = 0;
	if (bnd_tasks_per_node_at(tasks_per_node, 0, &n, NULL, 0) == BND_OK && n >= 1)
		return n;
	const char *p = ntasks;
	if (p && number(&p, &n) == 0 && !*p && n >= 1)
		return n;
	return 1;
}

int bnd_batch_cpus_per_task(const char *cpus_per_task)
{
	const char *p = cpus_per_task;
	int n = 0;
	if (p && number(&p, &n) == 0 && !*p && n >= 1)
		return n;
	return 1;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int bnd_cgroup_cpuset(const char *cgroup_root, const char *cpuset_file,
		      bnd_cpuset_t *out, char *err, size_t errlen)
{
	char rel[PATH_MAX], path[PATH_MAX + 64], text[8192];
	bnd_cpuset_zero(out);
	errno = 0;
	if (read_line(cpuset_file, rel, sizeof(rel)) || rel[0] != '/')
		return bnd_fail(err, errlen, BND_ESYS, "%s: %s", cpuset_file,
				errno ? strerror(errno) : "no cpuset path");
	if (!strcmp(rel, "/"))
		rel[0] = '\0';
	/* v1 first: on hybrid hosts the cpuset controller is the v1 one. */
	const char *forms[] = { "%s/cpuset%s/cpuset.effective_cpus", "%s/cpuset%s/cpuset.cpus",
				"%s%s/cpuset.cpus.effective" };
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(path, sizeof(path), forms[i], cgroup_root, rel);
		if (read_line(path, text, sizeof(text)))
			continue;
		if (bnd_cpuset_parse_list(out, text, err, errlen) != BND_OK)
			return BND_ESYS;
		if (!bnd_cpuset_empty(out))
			return BND_OK;
	}
	return bnd_fail(err, errlen, BND_ESYS, "no readable cpuset for cgroup %s under %s",
			rel[0] ? rel : "/", cgroup_root);
}

int bnd_whole_cores_in(const struct bnd_topology *t, const bnd_cpuset_t *cpus)
{
	int n = 0;
	for (int c = 0; c < t->ncores; c++) {
		bnd_cpuset_t one;
		bnd_topology_core_cpus(t, c, &one);
		n += bnd_cpuset_subset(&one, cpus);
	}
	return n;
}

/* Hostlist expansion: one item (no top-level comma) is a sequence of
 * literal text and bracket groups; each group is a comma list of numbers
 * or ranges. Walk the cartesian product in order, once, handing each name
 * to the visitor. */
struct hl_walk {
	int (*visit)(void *ctx, const char *name);
	void *ctx;
	int left;           /* names still allowed */
	int stop, bad;
};

static void hl_name(struct hl_walk *w, const char *name)
{
	BND_PROBE("hostlist.entry", name);
	if (w->left-- <= 0 || w->visit(w->ctx, name))
		w->stop = 1;
}

/* One group's "lo" or "lo-hi" (q..te): bounds and the zero-padded width. */
static int hl_range(const char *q, const char *te, int *lo, int *hi, int *width)
{
	const char *dash = memchr(q, '-', (size_t)(te - q));
	const char *lo_end = dash ? dash : te, *x = q;
	*width = (int)(lo_end - q);
	if (number(&x, lo) || x != lo_end)
		return -1;
	*hi = *lo;
	if (dash) {
		x = dash + 1;
		if (number(&x, hi) || x != te || *hi < *lo)
			return -1;
	}
	return 0;
}

static void hl_item(struct hl_walk *w, const char *p, const char *end, char *acc, size_t used,
		    size_t cap)
{
	if (w->stop || w->bad)
		return;
	const char *br = memchr(p, '[', (size_t)(end - p));
	size_t lit = (size_t)((br ? br : end) - p);
	if (used + lit >= cap) {
		w->bad = 1;
		return;
	}
	memcpy(acc + used, p, lit);
	used += lit;
	acc[used] = '\0';
	if (!br) {
		hl_name(w, acc);
		return;
	}
	const char *close = memchr(br, ']', (size_t)(end - br));
	if (!close || close == br + 1) {
		w->bad = 1;
		return;
	}
	for (const char *q = br + 1; q < close && !w->stop && !w->bad;) {
		const char *comma = memchr(q, ',', (size_t)(close - q));
		const char *te = comma ? comma : close;
		int lo, hi, width;
		if (hl_range(q, te, &lo, &hi, &width)) {
			w->bad = 1;
			return;
		}
		/* Stops at hi before v++: hi may be INT_MAX. */
		for (int v = lo; !w->stop && !w->bad; v++) {
			int k = snprintf(acc + used, cap - used, "%0*d", width, v);
			if (k < 0 || (size_t)k >= cap - used) {
				w->bad = 1;
				return;
			}
			hl_item(w, close + 1, end, acc, used + (size_t)k, cap);
			if (v == hi)
				break;
		}
		q = comma ? comma + 1 : close;
	}
}

int bnd_hostlist_each(const char *list, int max, int (*visit)(void *ctx, const char *name),
		      void *ctx, char *err, size_t errlen)
{
	struct hl_walk w = { visit, ctx, max, 0, 0 };
	char acc[1024];
	const char *p = list;
	if (!list || !*list)
		return bnd_fail(err, errlen, BND_EINVAL, "empty host list");
	while (*p && !w.stop && !w.bad) {
		/* The item ends at the first comma outside brackets. */
		const char *e = p;
		int depth = 0;
		while (*e && (depth || *e != ',')) {
			depth += (*e == '[') - (*e == ']');
			e++;
		}
		if (e == p || depth)
			w.bad = 1;
		else
			hl_item(&w, p, e, acc, 0, sizeof(acc));
		p = *e ? e + 1 : e;
	}
	if (w.bad)
		return bnd_fail(err, errlen, BND_EINVAL, "host list \"%s\" is malformed", list);
	return BND_OK;
}

struct nth {
	int n;
	char *out;
	size_t outlen;
	int found;
};

static int take_nth(void *ctx, const char *name)
{
	struct nth *t = ctx;
	if (t->n-- > 0)
		return 0;
	snprintf(t->out, t->outlen, "%s", name);
	t->found = 1;
	return 1;
}

int bnd_hostlist_nth(const char *list, int n, char *out, size_t outlen,
		     char *err, size_t errlen)
{
	struct nth t = { n, out, outlen, 0 };
	if (n < 0 || !outlen)
		return bnd_fail(err, errlen, BND_EINVAL, "empty host list");
	int rc = bnd_hostlist_each(list, INT_MAX, take_nth, &t, err, errlen);
	if (t.found)
		return BND_OK;
	if (rc != BND_OK)
		return rc;
	return bnd_fail(err, errlen, BND_EINVAL, "host list \"%s\" has no entry %d", list, n);
}

int bnd_hostname_valid(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n < 1 || n > 255 || name[0] == '-' || name[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '.' || c == '_'))
			return 0;
	}
	return 1;
}
