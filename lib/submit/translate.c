/* From a binding request and the user's allocation options to the Slurm
 * options the binding needs (translate.h). Each rule adds an option only
 * where the user gave none, and refuses, naming both sides, where the
 * user's own option cannot hold the binding. */
#include "binding/submit/translate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/util/intmath.h"

struct tr {
	const struct bnd_alloc *a;
	struct bnd_need *n;
	char label[BND_MAX_REQUEST_TEXT + 16];   /* "--binding=linear:2" */
	struct bnd_submit *out;
	char *err;
	size_t errlen;
};

static void add_v(struct tr *t, const char *name, const char *value, const char *fmt,
		  va_list ap)
{
	if (t->out->nset >= BND_SUBMIT_MAX_SET)
		return;
	struct bnd_submit_opt *o = &t->out->set[t->out->nset++];
	snprintf(o->name, sizeof(o->name), "%s", name);
	snprintf(o->value, sizeof(o->value), "%s", value);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
}

/* A flag (--exclusive): its value is its name. */
static void add_flag(struct tr *t, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_flag(struct tr *t, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_v(t, name, name, fmt, ap);
	va_end(ap);
}

static int refuse(struct tr *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A count, computed wide: one that Slurm cannot be asked for (a product of
 * a million cores and a million threads) refuses the request instead of
 * reaching Slurm as a wrapped number. */
static int add_count(struct tr *t, const char *name, long long value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int add_count(struct tr *t, const char *name, long long value, const char *fmt, ...)
{
	if (value < 1 || value > BND_ALLOC_MAX_COUNT)
		return refuse(t, "would need --%s=%lld, which Slurm cannot be asked for (at most %d)",
			      name, value, BND_ALLOC_MAX_COUNT);
	char v[24];
	snprintf(v, sizeof(v), "%lld", value);
	va_list ap;
	va_start(ap, fmt);
	add_v(t, name, v, fmt, ap);
	va_end(ap);
	return BND_OK;
}

void bnd_submit_note(struct bnd_submit *out, const char *fmt, ...)
{
	if (out->nnotes >= BND_SUBMIT_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->notes[out->nnotes++], BND_SUBMIT_TEXT, fmt, ap);
	va_end(ap);
}

/* BND_ENOFIT with "<label> <reason>". */
static int refuse(struct tr *t, const char *fmt, ...)
{
	char why[BND_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return bnd_fail(t->err, t->errlen, BND_ENOFIT, "%s %s", t->label, why);
}

static const char *per(const struct bnd_need *n)
{
	return n->scope == BND_NEED_PER_NODE ? "per node" : "per task";
}

static int plural(int k, const struct bnd_need *n, char *buf, size_t len)
{
	snprintf(buf, len, "%d %s", k, k == 1 ? n->unit_name : n->unit_names);
	return 0;
}

/* Options that let tasks share what the binding gives each task alone. */
static int sharing_checks(struct tr *t)
{
	const struct bnd_alloc *a = t->a;
	if (a->overcommit)
		return refuse(t, "gives every task %s of its own; --overcommit lets tasks share "
			      "CPUs", t->n->unit_names);
	if (t->n->unit != BND_NEED_THREAD && a->ntasks_per_core > 1)
		return refuse(t, "gives every task whole cores of its own; --ntasks-per-core=%d puts "
			      "%d tasks on one core", a->ntasks_per_core, a->ntasks_per_core);
	if (t->n->unit != BND_NEED_THREAD && !strcmp(a->hint, "multithread"))
		return refuse(t, "binds whole cores, all their threads; --hint=multithread counts "
			      "hardware threads as CPUs: drop --hint (every task gets all threads of "
			      "its cores)");
	return BND_OK;
}

/* Slurm's --mem-bind and --mbind both set the memory policy. */
static int memory_checks(struct tr *t, enum bnd_mbind mbind)
{
	const struct bnd_alloc *a = t->a;
	if (mbind == BND_M_NONE)
		return BND_OK;
	if (a->mem_bind[0] && !strstr(a->mem_bind, "none") && strcmp(a->mem_bind, "verbose") &&
	    strcmp(a->mem_bind, "v"))
		return bnd_fail(t->err, t->errlen, BND_ENOFIT, "--mbind=%s and --mem-bind=%s both "
				"set each task's memory policy: give one of them",
				bnd_mbind_name(mbind), a->mem_bind);
	if ((mbind == BND_M_CORES_STRICT || mbind == BND_M_NLOCAL) && !a->has_mem &&
	    !a->has_mem_per_cpu)
		bnd_submit_note(t->out, "--mbind=%s reserves the step's memory on the NUMA nodes of its cores: "
		     "without --mem or --mem-per-cpu that is the site's default (DefMemPerCPU)",
		     bnd_mbind_name(mbind));
	return BND_OK;
}

static int adds(const struct tr *t, const char *name)
{
	for (int i = 0; i < t->out->nset; i++)
		if (!strcmp(t->out->set[i].name, name))
			return 1;
	return 0;
}

/* --hint=nomultithread, compute_bound or memory_bound counts one thread
 * per core already (Slurm sets its own --threads-per-core=1 for them).
 * Slurm drops the hint when --threads-per-core, --ntasks-per-core, -B or a
 * --cpu-bind binding is given too ("Following options are mutually
 * exclusive with --hint ... Ignoring --hint.", 22.05 to 26.05), and 26.05
 * when --sockets-per-node or --cores-per-socket is (the user's or one
 * added here). So adding --threads-per-core=1 to a hint that holds would
 * silently undo the user's memory_bound or compute_bound layout, and
 * leaving it out where the hint is dropped would count threads. Where
 * releases differ, the binding wins: --threads-per-core=1. */
static int hint_counts_cores(const struct tr *t)
{
	const struct bnd_alloc *a = t->a;
	return (!strcmp(a->hint, "nomultithread") || !strcmp(a->hint, "compute_bound") ||
		!strcmp(a->hint, "memory_bound")) &&
	       !a->threads_per_core && !a->ntasks_per_core && !a->extra_node_info && !a->cpu_bind &&
	       !a->sockets_per_node && !a->cores_per_socket && !adds(t, "sockets-per-node") &&
	       !adds(t, "cores-per-socket");
}

/* s whole cores per task: -c s with --threads-per-core=1 (or the user's
 * --hint that implies it), whatever the node's threads per core. The
 * user's -c is kept: too small is refused; big enough only needs cores
 * counted. */
static int core_rule(struct tr *t, int s)
{
	const struct bnd_alloc *a = t->a;
	int tpc = a->threads_per_core, hint = hint_counts_cores(t);
	char need[64];
	plural(s, &(struct bnd_need){ .unit_name = "core", .unit_names = "cores" }, need,
	       sizeof(need));
	if (a->cpus_per_task) {
		int c = a->cpus_per_task, have = tpc > 1 ? c / tpc : c;
		if (have < s) {
			char with[48] = "";
			if (tpc)
				snprintf(with, sizeof(with), " with --threads-per-core=%d", tpc);
			return refuse(t, "needs %s per task; -c %d%s gives %d", need, c, with, have);
		}
		if (tpc || hint)
			return BND_OK;
		return add_count(t, "threads-per-core", 1, "-c %d then counts whole cores, not "
				 "hardware threads, on nodes with and without SMT", c);
	}
	if (tpc > 1)
		return add_count(t, "cpus-per-task", (long long)s * tpc, "%s per task, of "
				 "--threads-per-core=%d threads each", need, tpc);
	int rc = s > 1 ? add_count(t, "cpus-per-task", s, "%s per task%s", need,
				   hint ? " (--hint counts one thread per core)" : "") : BND_OK;
	if (rc == BND_OK && !tpc && !hint)
		rc = add_count(t, "threads-per-core", 1, "-c counts whole cores, not hardware "
			       "threads, on nodes with and without SMT: every task gets %s of its own",
			       need);
	return rc;
}

/* s hardware threads per task: Slurm's CPUs are threads. */
static int thread_rule(struct tr *t, int s)
{
	const struct bnd_alloc *a = t->a;
	char need[64];
	plural(s, t->n, need, sizeof(need));
	if (a->cpus_per_task) {
		if (a->cpus_per_task < s)
			return refuse(t, "needs %s per task; -c %d gives %d", need, a->cpus_per_task,
				      a->cpus_per_task);
		return BND_OK;
	}
	if (s > 1)
		return add_count(t, "cpus-per-task", s, "%s per task (Slurm's CPUs are hardware "
				 "threads)", need);
	return BND_OK;
}

/* With --ntasks-per-node t (a maximum when -n is given too), the tasks of
 * the last node: -n mod t, or t. */
static int last_node_tasks(const struct bnd_alloc *a)
{
	int rest = a->ntasks ? a->ntasks % a->ntasks_per_node : 0;
	return rest ? rest : a->ntasks_per_node;
}

/* The fewest tasks any node of the job gets, from -n, -N and
 * --ntasks-per-node; *fixed is 0 when Slurm is free to spread them (then
 * 1, the safe guess). */
static int fewest_tasks_per_node(const struct bnd_alloc *a, int *fixed)
{
	*fixed = 1;
	if (a->ntasks_per_node)
		return last_node_tasks(a);
	if (!a->ntasks)
		return 1;
	if (a->nodes_min && a->nodes_min == a->nodes_max)
		return a->ntasks / a->nodes_min > 0 ? a->ntasks / a->nodes_min : 1;
	*fixed = a->ntasks == 1;
	return 1;
}

/* Why only a whole node holds the request. */
static void whole_why(const struct tr *t, char *buf, size_t len)
{
	const struct bnd_need *n = t->n;
	if (n->named)
		snprintf(buf, len, "names physical %s: only a whole node is sure to hold them",
			 n->unit == BND_NEED_THREAD ? "cpus" : "cores");
	else if (n->spread)
		snprintf(buf, len, "spreads each task's cores over the node (%d cores per task): "
			 "only a whole node holds the pattern", n->span);
	else
		snprintf(buf, len, "takes whole %s: only whole nodes hold them", n->unit_names);
}

static int whole_node_rule(struct tr *t)
{
	const struct bnd_alloc *a = t->a;
	char why[160];
	whole_why(t, why, sizeof(why));
	if (a->in_job) {
		if (a->cpus_per_task || a->exact || a->exclusive == BND_EXCL_NODE)
			return refuse(t, "%s, so its step needs every CPU the job has on its nodes; "
				      "%s makes a step use only the CPUs it asks for", why,
				      a->cpus_per_task ? "-c" : a->exact ? "--exact" : "--exclusive");
		bnd_submit_note(t->out, "a step takes every CPU of its job on its nodes (it gives no -c, --exact or "
		     "--exclusive): the job must hold whole nodes (--exclusive, which a job's own "
		     "--binding of this kind asks for)");
		return BND_OK;
	}
	if (a->exclusive == BND_EXCL_USER || a->exclusive == BND_EXCL_MCS)
		return refuse(t, "%s; --exclusive=%s shares nodes with other jobs", why,
			      a->exclusive == BND_EXCL_USER ? "user" : "mcs");
	if (a->exclusive == BND_EXCL_SHARED)
		return refuse(t, "%s; --oversubscribe shares nodes with other jobs", why);
	if (a->cmd == BND_CMD_SRUN && (a->ntasks || a->cpus_per_task || a->ntasks_per_node))
		return refuse(t, "%s, and srun gives a new job's step only the CPUs of its tasks "
			      "when -n, -c or --ntasks-per-node is given (srun --exclusive implies "
			      "--exact): run the tasks inside salloc or sbatch (the job is then made "
			      "--exclusive), or give srun only -N (one task per node)", why);
	if (a->exclusive != BND_EXCL_NODE)
		add_flag(t, "exclusive", "%s", why);
	return BND_OK;
}

/* The node must have the named core. A smaller minimum the user gave
 * would let Slurm pick a node without it. */
static int named_core_rule(struct tr *t)
{
	const struct bnd_need *n = t->n;
	const struct bnd_alloc *a = t->a;
	if (n->min_sockets > 1) {
		if (a->sockets_per_node && a->sockets_per_node < n->min_sockets)
			return refuse(t, "names a core of socket %d, so the node needs %d sockets; "
				      "--sockets-per-node=%d lets Slurm pick a node with fewer",
				      n->min_sockets - 1, n->min_sockets, a->sockets_per_node);
		if (!a->sockets_per_node && add_count(t, "sockets-per-node", n->min_sockets,
						      "it names a core of socket %d: nodes with at "
						      "least %d sockets", n->min_sockets - 1,
						      n->min_sockets) != BND_OK)
			return BND_ENOFIT;
	}
	if (n->min_cores_per_socket > 1) {
		if (a->cores_per_socket && a->cores_per_socket < n->min_cores_per_socket)
			return refuse(t, "names core %d of a socket, so the node needs %d cores per "
				      "socket; --cores-per-socket=%d lets Slurm pick a node with fewer",
				      n->min_cores_per_socket - 1, n->min_cores_per_socket,
				      a->cores_per_socket);
		if (!a->cores_per_socket)
			return add_count(t, "cores-per-socket", n->min_cores_per_socket, "it names "
					 "core %d of a socket: nodes with at least %d cores per socket",
					 n->min_cores_per_socket - 1, n->min_cores_per_socket);
	}
	return BND_OK;
}

/* explicit: a node's k listed cores are shared out evenly among its
 * tasks, so every possible count of tasks on a node must divide k. */
static int shared_out_rule(struct tr *t)
{
	const struct bnd_alloc *a = t->a;
	int k = t->n->shared_out, counts[2] = { 1, 1 };
	const char *from = "--ntasks-per-node";
	if (a->ntasks_per_node) {
		counts[0] = a->ntasks_per_node;
		counts[1] = last_node_tasks(a);
	} else if (a->ntasks && a->nodes_min && a->nodes_min == a->nodes_max) {
		counts[0] = a->ntasks / a->nodes_min;
		counts[1] = (a->ntasks + a->nodes_min - 1) / a->nodes_min;
		from = "-n and -N";
	} else if (a->ntasks > 1) {
		if (k % a->ntasks || a->nodes_min > 1)
			return refuse(t, "lists %d cores, which cannot be shared out evenly among %d "
				      "tasks on one node: list a multiple of %d cores, or give "
				      "--ntasks-per-node (or -n and a fixed -N) so that a node's tasks "
				      "divide %d", k, a->ntasks, a->ntasks, k);
		return add_count(t, "nodes", 1, "the %d listed cores are shared out evenly among a "
				 "node's tasks: all %d tasks on one node", k, a->ntasks);
	}
	for (int i = 0; i < 2; i++)
		if (counts[i] > 0 && k % counts[i])
			return refuse(t, "lists %d cores, which cannot be shared out evenly among %d "
				      "tasks on a node (%s): list a multiple of %d cores", k, counts[i],
				      from, counts[i]);
	return BND_OK;
}

/* Whole sockets (and the units Slurm cannot count, at least one per
 * socket): at most amount x tasks sockets' worth on a node. */
static int socket_rule(struct tr *t)
{
	const struct bnd_need *n = t->n;
	const struct bnd_alloc *a = t->a;
	long long sockets = n->amount;
	int tpn = 1;
	if (n->scope == BND_NEED_PER_TASK && n->amount == 1) {
		if (a->ntasks_per_socket > 1)
			return refuse(t, "takes a whole %s per task; --ntasks-per-socket=%d puts %d "
				      "tasks on a socket", n->unit_name, a->ntasks_per_socket,
				      a->ntasks_per_socket);
		if (!a->ntasks_per_socket)
			return add_count(t, "ntasks-per-socket", 1, "at most one task per socket, so "
					 "every task finds a whole %s (a socket holds at least one)",
					 n->unit_name);
		return BND_OK;
	}
	if (n->scope == BND_NEED_PER_TASK) {
		tpn = a->ntasks_per_node;
		/* A new job's srun with only -N already runs one task per node,
		 * and may not be given --ntasks-per-node (whole_node_rule). */
		int srun_one_per_node = a->cmd == BND_CMD_SRUN && !a->in_job && !a->ntasks;
		if (!tpn && (a->ntasks > 1 || a->nodes_min)) {
			tpn = 1;
			if (!srun_one_per_node && add_count(t, "ntasks-per-node", 1, "one task per "
							    "node, whose %d %s a node must hold",
							    n->amount, n->unit_names) != BND_OK)
				return BND_ENOFIT;
		}
		sockets = (long long)n->amount * (tpn ? tpn : 1);
	}
	if (a->sockets_per_node && a->sockets_per_node < sockets)
		return refuse(t, "needs %lld %s on a node (%lld sockets); --sockets-per-node=%d "
			      "lets Slurm pick a node with fewer", sockets, n->unit_names, sockets,
			      a->sockets_per_node);
	if (!a->sockets_per_node && sockets > 1)
		return add_count(t, "sockets-per-node", sockets, "nodes with at least %lld sockets: "
				 "%d %s %s (a socket holds at least one)", sockets, n->amount,
				 n->unit_names, per(n));
	return BND_OK;
}

/* type=node: amount units for all of a node's tasks together; each task
 * asks for its share of the fewest tasks a node may get. */
static int per_node_rule(struct tr *t)
{
	int fixed = 1, tmin = fewest_tasks_per_node(t->a, &fixed);
	int s = bnd_div_ceil(t->n->amount, tmin);
	if (!fixed)
		bnd_submit_note(t->out, "-n without -N or --ntasks-per-node: Slurm may put a task alone on a node, "
		     "so each task asks for all %d %s; give --ntasks-per-node to share them",
		     t->n->amount, t->n->unit_names);
	return t->n->unit == BND_NEED_THREAD ? thread_rule(t, s) : core_rule(t, s);
}

static void describe(struct tr *t)
{
	const struct bnd_need *n = t->n;
	char amount[64];
	plural(n->amount, n, amount, sizeof(amount));
	if (n->unit == BND_NEED_NONE)
		snprintf(t->out->what, BND_SUBMIT_TEXT, "%s binds nothing", t->label);
	else if (n->shared_out)
		snprintf(t->out->what, BND_SUBMIT_TEXT, "%s: the %s listed, shared out among a "
			 "node's tasks, on whole nodes", t->label, amount);
	else if (n->named && n->scope == BND_NEED_PER_NODE)
		snprintf(t->out->what, BND_SUBMIT_TEXT, "%s: the %s listed, for every task of a "
			 "node, on whole nodes", t->label, amount);
	else
		snprintf(t->out->what, BND_SUBMIT_TEXT, "%s: %d %s%s %s%s", t->label, n->amount,
			 n->unit == BND_NEED_THREAD ? "" : "whole ",
			 n->amount == 1 ? n->unit_name : n->unit_names, per(n),
			 bnd_need_whole_node(n) ? ", on whole nodes" : "");
}

/* What only whole nodes hold: exclusivity first, then what the node must
 * have, then (sbatch/salloc) -c to bound the tasks a node gets. */
static int whole_node(struct tr *t)
{
	const struct bnd_need *n = t->n;
	int rc = whole_node_rule(t);
	if (rc != BND_OK || t->a->in_job)
		return rc;
	if ((rc = named_core_rule(t)) != BND_OK)
		return rc;
	if (n->shared_out && (rc = shared_out_rule(t)) != BND_OK)
		return rc;
	if (n->unit == BND_NEED_SOCKET)
		return socket_rule(t);
	/* srun's step would turn --exact with a -c: one task per node, the
	 * whole node, is what it gets. */
	if (n->scope == BND_NEED_PER_NODE || t->a->cmd == BND_CMD_SRUN)
		return BND_OK;
	return core_rule(t, n->span);
}

static int translate(struct tr *t, enum bnd_mbind mbind)
{
	const struct bnd_need *n = t->n;
	int rc = memory_checks(t, mbind);
	if (rc != BND_OK || n->unit == BND_NEED_NONE)
		return rc;
	if (n->span > BND_ALLOC_MAX_COUNT)
		return refuse(t, "spreads each task over more than %d %s (amount x step): more than "
			      "Slurm can allocate a task", BND_ALLOC_MAX_COUNT, n->unit_names);
	if ((rc = sharing_checks(t)) != BND_OK)
		return rc;
	if (bnd_need_whole_node(n))
		return whole_node(t);
	if (n->scope == BND_NEED_PER_NODE)
		return per_node_rule(t);
	return n->unit == BND_NEED_THREAD ? thread_rule(t, n->amount) : core_rule(t, n->span);
}

int bnd_submit_translate(const struct bnd_request *r, enum bnd_mbind mbind,
			 const struct bnd_alloc *a, enum bnd_submit_mode mode,
			 struct bnd_submit *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct tr t = { .a = a, .n = &out->need, .out = out, .err = err, .errlen = errlen };
	if (r->strategy == BND_S_NONE && mbind == BND_M_NLOCAL) {
		/* nlocal brings its own binding: one core per task (memplace.h). */
		snprintf(t.label, sizeof(t.label), "--mbind=nlocal");
		out->need = (struct bnd_need){ .unit = BND_NEED_CORE, .amount = 1, .span = 1,
					       .unit_name = "core", .unit_names = "cores" };
	} else {
		snprintf(t.label, sizeof(t.label), "--binding=%s", r->text);
		if (bnd_need_of(r, &out->need, err, errlen) != BND_OK)
			return BND_EINVAL;
	}
	describe(&t);
	if (mode == BND_SUBMIT_OFF)
		return BND_OK;
	int rc = translate(&t, mbind);
	if (rc != BND_OK || mode != BND_SUBMIT_REFUSE || !out->nset)
		return rc;
	char opts[BND_SUBMIT_TEXT];
	bnd_submit_options_text(out, opts, sizeof(opts));
	return refuse(&t, "needs %s (%s); this site's filter does not add options "
		      "(submit=refuse): give them yourself", opts, out->set[0].why);
}

int bnd_submit_options_text(const struct bnd_submit *s, char *buf, size_t buflen)
{
	size_t used = 0;
	if (buflen)
		buf[0] = '\0';
	for (int i = 0; i < s->nset; i++) {
		const struct bnd_submit_opt *o = &s->set[i];
		int flag = !strcmp(o->name, o->value);
		int n = snprintf(buf + used, buflen - used, "%s--%s%s%s", used ? " " : "", o->name,
				 flag ? "" : "=", flag ? "" : o->value);
		if (n < 0 || (size_t)n >= buflen - used)
			return BND_EINVAL;
		used += (size_t)n;
	}
	return BND_OK;
}
