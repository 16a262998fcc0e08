#include "binding/task/taskenv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/task/gpuenv.h"
#include "binding/util/error.h"
#include "binding/topology/topostring.h"

/* Every variable this module sets is named here once: the code below
 * uses NAME(), and bnd_taskenv_var lists them (sbind --list variables,
 * the man-page check). */
enum var {
	V_SLURM_BINDING,
	V_SGE_BINDING,
	V_SGE_MP_PROCBIND,
	V_GCS_BINDING,
	V_GCS_BINDING_INSTANCE,
	V_LSB_BIND_JOB,
	V_LSB_BIND_CPU_LIST,
	V_SGE_BINDING_INSTANCE,
	V_SGE_BINDING_TOPOLOGY,
	V_SGE_BINDING_CPUSET,
	V_SLURM_BINDING_INSTANCE,
	V_SLURM_BINDING_REQUEST,
	V_SLURM_BINDING_STATUS,
	V_SLURM_BINDING_TOPOLOGY,
	V_SLURM_BINDING_TOPOLOGY_OCS,
	V_SLURM_MBIND,
	V_SLURM_MBIND_NODES,
	V_SLURM_BINDING_NUMAMEM,
	V_SLURM_BINDING_NUMAMEM_SPLIT,
	V_SLURM_BINDING_TOPOLOGY_NUMA,
	V_SLURM_BINDING_PE,
	V_SLURM_BINDING_RANKFILE,
	V_SLURM_BINDING_GPUS,
	V_SLURM_BINDING_GPU_LOCALITY,
	V_SLURM_BINDING_OMP_PLACES,
	V_OMP_PLACES,
	V_SLURM_BINDING_OMP_PROC_BIND,
	V_OMP_PROC_BIND,
	V_COUNT
};
static const char *const var_names[V_COUNT] = {
	[V_SLURM_BINDING] = "SLURM_BINDING",
	[V_SGE_BINDING] = "SGE_BINDING",
	[V_SGE_MP_PROCBIND] = "SGE_MP_PROCBIND",
	[V_GCS_BINDING] = "GCS_BINDING",
	[V_GCS_BINDING_INSTANCE] = "GCS_BINDING_INSTANCE",
	[V_LSB_BIND_JOB] = "LSB_BIND_JOB",
	[V_LSB_BIND_CPU_LIST] = "LSB_BIND_CPU_LIST",
	[V_SGE_BINDING_INSTANCE] = "SGE_BINDING_INSTANCE",
	[V_SGE_BINDING_TOPOLOGY] = "SGE_BINDING_TOPOLOGY",
	[V_SGE_BINDING_CPUSET] = "SGE_BINDING_CPUSET",
	[V_SLURM_BINDING_INSTANCE] = "SLURM_BINDING_INSTANCE",
	[V_SLURM_BINDING_REQUEST] = "SLURM_BINDING_REQUEST",
	[V_SLURM_BINDING_STATUS] = "SLURM_BINDING_STATUS",
	[V_SLURM_BINDING_TOPOLOGY] = "SLURM_BINDING_TOPOLOGY",
	[V_SLURM_BINDING_TOPOLOGY_OCS] = "SLURM_BINDING_TOPOLOGY_OCS",
	[V_SLURM_MBIND] = "SLURM_MBIND",
	[V_SLURM_MBIND_NODES] = "SLURM_MBIND_NODES",
	[V_SLURM_BINDING_NUMAMEM] = "SLURM_BINDING_NUMAMEM",
	[V_SLURM_BINDING_NUMAMEM_SPLIT] = "SLURM_BINDING_NUMAMEM_SPLIT",
	[V_SLURM_BINDING_TOPOLOGY_NUMA] = "SLURM_BINDING_TOPOLOGY_NUMA",
	[V_SLURM_BINDING_PE] = "SLURM_BINDING_PE",
	[V_SLURM_BINDING_RANKFILE] = "SLURM_BINDING_RANKFILE",
	[V_SLURM_BINDING_GPUS] = "SLURM_BINDING_GPUS",
	[V_SLURM_BINDING_GPU_LOCALITY] = "SLURM_BINDING_GPU_LOCALITY",
	[V_SLURM_BINDING_OMP_PLACES] = "SLURM_BINDING_OMP_PLACES",
	[V_OMP_PLACES] = "OMP_PLACES",
	[V_SLURM_BINDING_OMP_PROC_BIND] = "SLURM_BINDING_OMP_PROC_BIND",
	[V_OMP_PROC_BIND] = "OMP_PROC_BIND",
};
#define NAME(v) var_names[V_##v]

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

/* Open MPI 4.1 reads a slot list by splitting it at ';', then each item at
 * ',', and only then at ':' and '-' (rmaps rank_file and
 * opal_hwloc_base_cpu_list_parse): "0:0,1" is socket 0 core 0 plus all of
 * socket 1. So several cores of a socket are a range "0:0-1", cores that
 * are not consecutive or on another socket are further items "0:0;0:2;1:0".
 * A task holding only some threads of a core (unit=T, level=thread, a cpus:
 * list) cannot be said in socket:core terms: its line is a list of logical
 * hardware thread ids ("0,2" or "4-5"), which mpirun reads with
 * --use-hwthread-cpus (socket:core lines mean the same either way). */
static int whole_cores(const struct bnd_topology *t, const bnd_cpuset_t *cpus)
{
	for (int c = 0; c < t->ncores; c++) {
		const struct bnd_core *k = &t->cores[c];
		int in = 0;
		for (int p = k->pu_first; p < k->pu_first + k->npus; p++)
			in += bnd_cpuset_isset(cpus, t->pu_os[p]) != 0;
		if (in && in != k->npus)
			return 0;
	}
	return 1;
}

struct run {
	int key, first, last; /* socket (or -1), first and last number */
};

static int put_run(struct sink *s, const struct run *r, const char *sep)
{
	char pre[16] = "";
	if (r->key >= 0)
		snprintf(pre, sizeof(pre), "%d:", r->key);
	if (r->first == r->last)
		return sink_printf(s, "%s%s%d", s->n++ ? sep : "", pre, r->first);
	return sink_printf(s, "%s%s%d-%d", s->n++ ? sep : "", pre, r->first, r->last);
}

/* Adds (key, num) to the current run or starts a new one. */
static int run_add(struct sink *s, struct run *r, int key, int num, const char *sep)
{
	if (r->first >= 0 && r->key == key && num == r->last + 1) {
		r->last = num;
		return BND_OK;
	}
	int rc = r->first >= 0 ? put_run(s, r, sep) : BND_OK;
	*r = (struct run){ key, num, num };
	return rc;
}

int bnd_rankfile_slot(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
		      char *buf, size_t buflen)
{
	struct sink s = { buf, buflen, 0, 0 };
	struct run r = { -1, -1, -1 };
	int rc = BND_OK, threads;
	if (!buflen)
		return BND_EINVAL;
	buf[0] = '\0';
	threads = !whole_cores(t, cpus);
	if (threads) {
		for (int p = 0; rc == BND_OK && p < t->npus; p++)
			if (bnd_cpuset_isset(cpus, t->pu_os[p]))
				rc = run_add(&s, &r, -1, p, ",");
	} else {
		for (int c = 0; rc == BND_OK && c < t->ncores; c++)
			if (bnd_cpuset_isset(cpus, t->pu_os[t->cores[c].pu_first]))
				rc = run_add(&s, &r, t->cores[c].socket, t->cores[c].core, ";");
	}
	if (rc == BND_OK && r.first >= 0)
		rc = put_run(&s, &r, threads ? "," : ";");
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
	struct sink s = { malloc(len), len, 0, 0 };
	if (!s.buf)
		return bnd_fail(err, errlen, BND_ENOMEM, "rankfile: out of memory");
	s.buf[0] = '\0';
	for (int i = 0; i < ntasks; i++) {
		if (bnd_cpuset_empty(&task_cpus[i]))
			continue;
		int rc = sink_printf(&s, "rank %d=%s slot=", global_ids ? global_ids[i] : i, host);
		if (rc == BND_OK) {
			rc = bnd_rankfile_slot(t, &task_cpus[i], s.buf + s.used, s.len - s.used);
			s.used += strlen(s.buf + s.used);
		}
		if (rc == BND_OK)
			rc = sink_printf(&s, "\n");
		if (rc != BND_OK) {
			free(s.buf);
			return bnd_fail(err, errlen, BND_EINVAL, "rankfile: text too long");
		}
	}
	*out = s.buf;
	return BND_OK;
}

/* Grid Engine's topology string of a node whose topology cannot be read
 * (m_topology=NONE). */
#define NO_TOPOLOGY "NONE"

/* The node's topology string with the task's cores lower case; NONE when
 * the topology could not be loaded. */
static int put_topology(struct bnd_taskenv *e, const char *name, const struct bnd_topology *t,
			enum bnd_topo_format fmt, const bnd_cpuset_t *cpus)
{
	char *buf;
	if (!t)
		return put_str(e, name, NO_TOPOLOGY);
	size_t n = bnd_topostring_length(t, fmt) + 1;
	if (!(buf = malloc(n)))
		return BND_ENOMEM;
	if (bnd_topostring_format(t, fmt, cpus, buf, n)) {
		free(buf);
		return BND_EINVAL;
	}
	return put(e, name, buf);
}

/* hwloc's bitmap string, as OCS prints SGE_BINDING_CPUSET; "0x0" when
 * not bound. */
static int put_hwloc_mask(struct bnd_taskenv *e, const char *name, const bnd_cpuset_t *cpus)
{
	bnd_cpuset_t none;
	bnd_cpuset_zero(&none);
	int last = -1;
	for (int c = cpus ? bnd_cpuset_next(cpus, -1) : -1; c >= 0; c = bnd_cpuset_next(cpus, c))
		last = c;
	size_t len = (size_t)(last / 32 + 1) * 11 + 1;
	char *buf = malloc(len);
	if (!buf)
		return BND_ENOMEM;
	bnd_cpuset_format_hwloc(cpus ? cpus : &none, buf, len);
	return put(e, name, buf);
}

/* OCS's own names (sge_binding(5)): SGE_BINDING_INSTANCE the instance or
 * NONE when not bound, SGE_BINDING_TOPOLOGY the node's OCS string with the
 * task's units lower case or NONE when not bound, SGE_BINDING_CPUSET the
 * task's cpus as hwloc prints a cpuset, 0x0 when not bound. */
static int put_ocs(struct bnd_taskenv *e, const struct bnd_taskenv_in *in, int bound)
{
	int rc = put_str(e, NAME(SGE_BINDING_INSTANCE), bound ? bnd_instance_name(in->instance) : "NONE");
	if (rc == BND_OK)
		rc = bound && in->topo ? put_topology(e, NAME(SGE_BINDING_TOPOLOGY), in->topo, BND_TOPO_OCS,
						      in->cpus)
				       : put_str(e, NAME(SGE_BINDING_TOPOLOGY), "NONE");
	return rc == BND_OK ? put_hwloc_mask(e, NAME(SGE_BINDING_CPUSET), bound ? in->cpus : NULL) : rc;
}

/* LSF's name of the binding method (its LSB_BIND_JOB values): the lsf
 * column of the table of strategies (strategies.def). A Grid Engine or
 * OCS binding is a list of CPUs chosen for the task, which LSF calls
 * USER_CPU_LIST. */
static const char *lsf_method(enum bnd_strategy s)
{
	static const char *const method[BND_S_COUNT] = {
#define BND_STRATEGY(id, word, family, share, parse, place, need, named, lsf, ...) \
	[BND_S_##id] = lsf,
#include "binding/request/strategies.def"
#undef BND_STRATEGY
	};
	return (unsigned)s < BND_S_COUNT ? method[s] : "USER_CPU_LIST";
}

/* What job scripts written for OCS/GCS and LSF read, in those products'
 * formats: GCS_BINDING as SGE_BINDING (cpu ids, space separated),
 * GCS_BINDING_INSTANCE the instance or NONE (as OCS's
 * SGE_BINDING_INSTANCE), LSB_BIND_CPU_LIST the cpus as LSF lists them
 * (0,5,7,9-11), LSB_BIND_JOB the method or NONE. */
static int put_compat(struct bnd_taskenv *e, const struct bnd_taskenv_in *in, int bound,
		      const char *spaced)
{
	int rc;
	if ((rc = put_str(e, NAME(GCS_BINDING), spaced)) ||
	    (rc = put_str(e, NAME(GCS_BINDING_INSTANCE),
			  bound ? bnd_instance_name(in->instance) : "NONE")) ||
	    (rc = put_str(e, NAME(LSB_BIND_JOB), bound ? lsf_method(in->strategy) : "NONE")))
		return rc;
	size_t room = list_room(bound ? in->cpus : NULL);
	char *list = calloc(1, room);
	if (!list)
		return BND_ENOMEM;
	if (bound && bnd_cpuset_format_list(in->cpus, list, room) != BND_OK) {
		free(list);
		return BND_EINVAL;
	}
	return put(e, NAME(LSB_BIND_CPU_LIST), list);
}

static int put_numa(struct bnd_taskenv *e, const struct bnd_topology *t,
		    const bnd_cpuset_t *cpus)
{
	if (!t)
		return put_str(e, NAME(SLURM_BINDING_TOPOLOGY_NUMA), NO_TOPOLOGY);
	size_t n = bnd_topostring_numa_size(t);
	char *buf = malloc(n);
	if (!buf)
		return BND_ENOMEM;
	if (bnd_topostring_numa(t, cpus, buf, n)) {
		free(buf);
		return BND_EINVAL;
	}
	return put(e, NAME(SLURM_BINDING_TOPOLOGY_NUMA), buf);
}

/* Our own earlier value (the marker matches) may be replaced; anything
 * else in the variable is the user's. */
static int is_ours(const char *cur, const char *marker)
{
	return cur && marker && !strcmp(cur, marker);
}

/* The task's GPUs and, when the plugin split the step's among its tasks,
 * the visible-device variables narrowed to them. */
static int put_gpus(struct bnd_taskenv *e, const struct bnd_taskenv_in *in)
{
	int rc;
	if ((rc = put_str(e, NAME(SLURM_BINDING_GPUS), in->gpus ? in->gpus : "")) ||
	    (rc = put_str(e, NAME(SLURM_BINDING_GPU_LOCALITY), in->gpu_locality ? in->gpu_locality : "")))
		return rc;
	for (int i = 0; in->gpu_narrow && in->gpu_env && i < BND_GPU_ENV_VARS; i++) {
		char *v;
		if ((rc = bnd_gpuenv_narrow(in->gpu_env[i], in->gpu_nstep, in->gpu_positions, &v)))
			return rc;
		if (v && (rc = put(e, bnd_gpuenv_names[i], v)))
			return rc;
	}
	return BND_OK;
}

/* SGE_BINDING, SGE_MP_PROCBIND, the compatibility names, SLURM_BINDING and
 * OCS's: the task's cpus, space separated, or empty. */
static int put_cpus(struct bnd_taskenv *e, const struct bnd_taskenv_in *in, int bound,
		    size_t room)
{
	char *buf = calloc(1, room);
	int rc;
	if (!buf)
		return BND_ENOMEM;
	if (bound && bnd_cpuset_format_spaced(in->cpus, buf, room) != BND_OK) {
		free(buf);
		return BND_EINVAL;
	}
	/* Grid Engine 6.2u5's specification names SGE_MP_PROCBIND next to
	 * SGE_BINDING for the env instance, with the same value. */
	if ((rc = put_str(e, NAME(SGE_BINDING), buf)) != BND_OK ||
	    (rc = put_str(e, NAME(SGE_MP_PROCBIND), buf)) != BND_OK ||
	    (rc = put_compat(e, in, bound, buf)) != BND_OK) {
		free(buf);
		return rc;
	}
	if ((rc = put(e, NAME(SLURM_BINDING), buf)))
		return rc;
	return put_ocs(e, in, bound);
}

static int put_status(struct bnd_taskenv *e, const struct bnd_taskenv_in *in, int bound)
{
	if (bound)
		return put_str(e, NAME(SLURM_BINDING_STATUS), "bound");
	const char *why = in->reason && *in->reason ? in->reason : "no binding requested";
	size_t n = strlen(why) + 16;
	char *buf = malloc(n);
	if (!buf)
		return BND_ENOMEM;
	snprintf(buf, n, "unbound: %s", why);
	return put(e, NAME(SLURM_BINDING_STATUS), buf);
}

/* The pe instance's pairs and rankfile; empty for the others. */
static int put_pe(struct bnd_taskenv *e, const struct bnd_taskenv_in *in, int bound, size_t room)
{
	int pe = bound && in->instance == BND_I_PE && in->topo;
	char *buf = calloc(1, pe ? room : 1);
	int rc;
	if (!buf)
		return BND_ENOMEM;
	if (pe && bnd_pe_pairs(in->topo, in->cpus, buf, room)) {
		free(buf);
		return BND_EINVAL;
	}
	if ((rc = put(e, NAME(SLURM_BINDING_PE), buf)))
		return rc;
	return put_str(e, NAME(SLURM_BINDING_RANKFILE), pe && in->rankfile ? in->rankfile : "");
}

/* OpenMP's places and binding for a set binding, unless the job set its
 * own (a value that is not the one we gave it earlier). */
static int put_omp(struct bnd_taskenv *e, const struct bnd_taskenv_in *in, int bound)
{
	int omp = bound && in->instance == BND_I_SET && in->topo, rc;
	if (!in->omp_places || is_ours(in->omp_places, in->our_omp_places)) {
		char *places = NULL;
		if (omp) {
			size_t n = list_room(in->cpus) * 2;
			if (!(places = malloc(n)))
				return BND_ENOMEM;
			if (bnd_omp_places(in->topo, in->cpus, places, n)) {
				free(places);
				return BND_EINVAL;
			}
		}
		if ((rc = put_str(e, NAME(SLURM_BINDING_OMP_PLACES), places))) {
			free(places);
			return rc;
		}
		if ((rc = put(e, NAME(OMP_PLACES), places)))
			return rc;
	}
	if (!in->omp_proc_bind || is_ours(in->omp_proc_bind, in->our_omp_proc_bind)) {
		const char *v = omp ? "close" : NULL;
		if ((rc = put_str(e, NAME(SLURM_BINDING_OMP_PROC_BIND), v)) ||
		    (rc = put_str(e, NAME(OMP_PROC_BIND), v)))
			return rc;
	}
	return BND_OK;
}

static int build(struct bnd_taskenv *e, const struct bnd_taskenv_in *in)
{
	const struct bnd_topology *t = in->topo;
	int bound = in->cpus && !bnd_cpuset_empty(in->cpus) && !in->reason;
	const bnd_cpuset_t *cpus = bound ? in->cpus : NULL;
	int rc;
	if ((rc = put_cpus(e, in, bound, list_room(cpus))) ||
	    (rc = put_str(e, NAME(SLURM_BINDING_INSTANCE), bnd_instance_name(in->instance))) ||
	    (rc = put_str(e, NAME(SLURM_BINDING_REQUEST),
			  in->request && *in->request ? in->request : "none")) ||
	    (rc = put_status(e, in, bound)) ||
	    (rc = put_topology(e, NAME(SLURM_BINDING_TOPOLOGY), t, BND_TOPO_SGE, cpus)) ||
	    (rc = put_topology(e, NAME(SLURM_BINDING_TOPOLOGY_OCS), t, BND_TOPO_OCS, cpus)) ||
	    (rc = put_str(e, NAME(SLURM_MBIND), bnd_mbind_name(in->mbind))) ||
	    (rc = put_str(e, NAME(SLURM_MBIND_NODES), in->mbind_nodes ? in->mbind_nodes : "")) ||
	    (rc = put_str(e, NAME(SLURM_BINDING_NUMAMEM), in->numamem)) ||
	    (rc = put_str(e, NAME(SLURM_BINDING_NUMAMEM_SPLIT),
			  in->numamem ? (in->numamem_split ? "yes" : "no") : NULL)) ||
	    (rc = put_numa(e, t, cpus)) || (rc = put_pe(e, in, bound, list_room(cpus))) ||
	    (rc = put_gpus(e, in)))
		return rc;
	return put_omp(e, in, bound);
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

const char *bnd_taskenv_var(size_t i)
{
	if (i < V_COUNT)
		return var_names[i];
	return i - V_COUNT < BND_GPU_ENV_VARS ? bnd_gpuenv_names[i - V_COUNT] : NULL;
}
