#include "binding/task/taskenv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/topology/topostring.h"

/* Room for a list of n numbers below 10^6 with separators. */
static size_t list_room(const bnd_cpuset_t *cpus)
{
	return (size_t)(cpus ? bnd_cpuset_count(cpus) : 0) * 16 + 64;
}

static int put(struct bnd_taskenv *e, const char *name, char *value)
{
	if (e->n >= BND_TASKENV_MAX) {
		free(value);
		return BND_ENOMEM;
	}
	e->v[e->n].name = name;
	e->v[e->n].value = value;
	e->n++;
	return BND_OK;
}

static int put_str(struct bnd_taskenv *e, const char *name, const char *value)
{
	char *v = NULL;
	if (value && !(v = strdup(value)))
		return BND_ENOMEM;
	return put(e, name, v);
}

/* Walks the cores holding cpus in core order, calling fn per core. */
typedef int (*core_fn)(const struct bnd_topology *t, int core, void *arg);

static int each_core(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
		     core_fn fn, void *arg)
{
	for (int c = 0; c < t->ncores; c++) {
		const struct bnd_core *k = &t->cores[c];
		int hit = 0;
		for (int p = k->pu_first; p < k->pu_first + k->npus && !hit; p++)
			hit = bnd_cpuset_isset(cpus, t->pu_os[p]);
		if (hit) {
			int rc = fn(t, c, arg);
			if (rc != BND_OK)
				return rc;
		}
	}
	return BND_OK;
}

struct sink {
	char *buf;
	size_t len, used;
	int n; /* items written */
};

static int sink_printf(struct sink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int sink_printf(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(s->buf + s->used, s->len - s->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= s->len - s->used)
		return BND_EINVAL;
	s->used += (size_t)n;
	return BND_OK;
}

static int pe_one(const struct bnd_topology *t, int core, void *arg)
{
	struct sink *s = arg;
	return sink_printf(s, "%s%d,%d", s->n++ ? ":" : "", t->cores[core].socket,
			   t->cores[core].core);
}

int bnd_pe_pairs(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
		 char *buf, size_t buflen)
{
	struct sink s = { buf, buflen, 0, 0 };
	if (!buflen)
		return BND_EINVAL;
	buf[0] = '\0';
	return each_core(t, cpus, pe_one, &s);
}

struct omp_sink {
	struct sink s;
	const bnd_cpuset_t *cpus;
};

/* Only the core's threads the task is bound to: a binding that takes part
 * of a core (OCS unit=T, LSF level=thread, a cpus: list) must not name
 * places the task cannot run on. */
static int omp_one(const struct bnd_topology *t, int core, void *arg)
{
	struct omp_sink *o = arg;
	const struct bnd_core *k = &t->cores[core];
	int rc = sink_printf(&o->s, "%s{", o->s.n++ ? "," : ""), first = 1;
	for (int p = k->pu_first; rc == BND_OK && p < k->pu_first + k->npus; p++) {
		if (!bnd_cpuset_isset(o->cpus, t->pu_os[p]))
			continue;
		rc = sink_printf(&o->s, "%s%d", first ? "" : ",", t->pu_os[p]);
		first = 0;
	}
	return rc == BND_OK ? sink_printf(&o->s, "}") : rc;
}

int bnd_omp_places(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
		   char *buf, size_t buflen)
{
	struct omp_sink o = { { buf, buflen, 0, 0 }, cpus };
	if (!buflen)
		return BND_EINVAL;
	buf[0] = '\0';
	return each_core(t, cpus, omp_one, &o);
}

struct rank_sink {
	struct sink s;
	int socket; /* socket of the previous core, -1 at the start */
};

static int rank_one(const struct bnd_topology *t, int core, void *arg)
{
	struct rank_sink *r = arg;
	const struct bnd_core *k = &t->cores[core];
	int rc;
	if (k->socket != r->socket)
		rc = sink_printf(&r->s, "%s%d:%d", r->socket < 0 ? "" : ";", k->socket, k->core);
	else
		rc = sink_printf(&r->s, ",%d", k->core);
	r->socket = k->socket;
	return rc;
}

int bnd_rankfile_format(const struct bnd_topology *t, const char *host, int ntasks,
			const int *global_ids, const bnd_cpuset_t *task_cpus,
			char **out, char *err, size_t errlen)
{
	size_t len = 64;
	*out = NULL;
	for (int i = 0; i < ntasks; i++)
		len += strlen(host) + 48 + list_room(&task_cpus[i]);
	struct rank_sink r = { { malloc(len), len, 0, 0 }, -1 };
	if (!r.s.buf)
		return bnd_fail(err, errlen, BND_ENOMEM, "rankfile: out of memory");
	r.s.buf[0] = '\0';
	for (int i = 0; i < ntasks; i++) {
		if (bnd_cpuset_empty(&task_cpus[i]))
			continue;
		r.socket = -1;
		int rc = sink_printf(&r.s, "rank %d=%s slot=", global_ids ? global_ids[i] : i, host);
		if (rc == BND_OK)
			rc = each_core(t, &task_cpus[i], rank_one, &r);
		if (rc == BND_OK)
			rc = sink_printf(&r.s, "\n");
		if (rc != BND_OK) {
			free(r.s.buf);
			return bnd_fail(err, errlen, BND_EINVAL, "rankfile: text too long");
		}
	}
	*out = r.s.buf;
	return BND_OK;
}

/* The node's topology string with the task's cores lower case; "" when
 * the topology could not be loaded. */
static int put_topology(struct bnd_taskenv *e, const char *name, const struct bnd_topology *t,
			enum bnd_topo_format fmt, const bnd_cpuset_t *cpus)
{
	char *buf;
	if (!t)
		return put_str(e, name, "");
	size_t n = bnd_topostring_length(t, fmt) + 1;
	if (!(buf = malloc(n)))
		return BND_ENOMEM;
	if (bnd_topostring_format(t, fmt, cpus, buf, n)) {
		free(buf);
		return BND_EINVAL;
	}
	return put(e, name, buf);
}

/* Our own earlier value (the marker matches) may be replaced; anything
 * else in the variable is the user's. */
static int is_ours(const char *cur, const char *marker)
{
	return cur && marker && !strcmp(cur, marker);
}

static int build(struct bnd_taskenv *e, const struct bnd_taskenv_in *in)
{
	const struct bnd_topology *t = in->topo;
	int bound = in->cpus && !bnd_cpuset_empty(in->cpus) && !in->reason;
	size_t room = list_room(bound ? in->cpus : NULL);
	char *buf = NULL;
	int rc;

	/* SLURM_BINDING and SGE_BINDING */
	if (!(buf = calloc(1, room)))
		return BND_ENOMEM;
	if (bound && bnd_cpuset_format_spaced(in->cpus, buf, room) != BND_OK) {
		free(buf);
		return BND_EINVAL;
	}
	if ((rc = put_str(e, "SGE_BINDING", buf)) != BND_OK) {
		free(buf);
		return rc;
	}
	if ((rc = put(e, "SLURM_BINDING", buf)))
		return rc;

	if ((rc = put_str(e, "SLURM_BINDING_INSTANCE", bnd_instance_name(in->instance))))
		return rc;
	if ((rc = put_str(e, "SLURM_BINDING_REQUEST",
			  in->request && *in->request ? in->request : "none")))
		return rc;

	if (bound) {
		rc = put_str(e, "SLURM_BINDING_STATUS", "bound");
	} else {
		const char *why = in->reason && *in->reason ? in->reason : "no binding requested";
		size_t n = strlen(why) + 16;
		if (!(buf = malloc(n)))
			return BND_ENOMEM;
		snprintf(buf, n, "unbound: %s", why);
		rc = put(e, "SLURM_BINDING_STATUS", buf);
	}
	if (rc)
		return rc;

	if ((rc = put_topology(e, "SLURM_BINDING_TOPOLOGY", t, BND_TOPO_SGE,
			       bound ? in->cpus : NULL)))
		return rc;
	if ((rc = put_topology(e, "SLURM_BINDING_TOPOLOGY_OCS", t, BND_TOPO_OCS,
			       bound ? in->cpus : NULL)))
		return rc;
	if ((rc = put_str(e, "SLURM_MBIND", bnd_mbind_name(in->mbind))))
		return rc;

	int pe = bound && in->instance == BND_I_PE && t;
	buf = calloc(1, pe ? room : 1);
	if (!buf)
		return BND_ENOMEM;
	if (pe && bnd_pe_pairs(t, in->cpus, buf, room)) {
		free(buf);
		return BND_EINVAL;
	}
	if ((rc = put(e, "SLURM_BINDING_PE", buf)))
		return rc;
	if ((rc = put_str(e, "SLURM_BINDING_RANKFILE", pe && in->rankfile ? in->rankfile : "")))
		return rc;

	int omp = bound && in->instance == BND_I_SET && t;
	int mine_places = !in->omp_places || is_ours(in->omp_places, in->our_omp_places);
	int mine_bind = !in->omp_proc_bind || is_ours(in->omp_proc_bind, in->our_omp_proc_bind);
	if (mine_places) {
		char *places = NULL;
		if (omp) {
			size_t n = list_room(in->cpus) * 2;
			if (!(places = malloc(n)))
				return BND_ENOMEM;
			if (bnd_omp_places(t, in->cpus, places, n)) {
				free(places);
				return BND_EINVAL;
			}
		}
		if ((rc = put_str(e, "SLURM_BINDING_OMP_PLACES", places))) {
			free(places);
			return rc;
		}
		if ((rc = put(e, "OMP_PLACES", places)))
			return rc;
	}
	if (mine_bind) {
		const char *v = omp ? "close" : NULL;
		if ((rc = put_str(e, "SLURM_BINDING_OMP_PROC_BIND", v)) ||
		    (rc = put_str(e, "OMP_PROC_BIND", v)))
			return rc;
	}
	return BND_OK;
}

int bnd_taskenv_build(struct bnd_taskenv *out, const struct bnd_taskenv_in *in,
		      char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	int rc = build(out, in);
	if (rc != BND_OK) {
		bnd_taskenv_free(out);
		return bnd_fail(err, errlen, rc, "task environment: %s",
				rc == BND_ENOMEM ? "out of memory" : "value too long");
	}
	return BND_OK;
}

void bnd_taskenv_free(struct bnd_taskenv *e)
{
	for (int i = 0; i < e->n; i++)
		free(e->v[i].value);
	e->n = 0;
}
