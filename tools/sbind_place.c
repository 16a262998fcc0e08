/* sbind place: what a request would get (dry run), or recorded in the state
 * (--commit). */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/memory/memplace.h"
#include "binding/placement/near.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/task/taskenv.h"
#include "binding/topology/topostring.h"
#include "sbind.h"
#include "sbind_opts.h"

struct place_opts {
	const char *binding, *mbind, *source, *mask, *state, *format, *host;
	const char *gpus, *gpus_per_task, *gpu_bind;
	int ntasks, commit, has_job, has_step, first_rank;
	uint64_t mem_mib;
	struct bnd_mem_reserve reserve;
	uint32_t job, step;
	long owner;
};

static int parse_long(const char *name, const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "sbind place: %s \"%s\": expected a whole number from %ld to %ld\n",
			name, s, min, max);
		return SBIND_EXIT_USAGE;
	}
	*out = v;
	return SBIND_EXIT_OK;
}

/* --job, --step */
static int set_id(int c, const char *arg, struct place_opts *o)
{
	if (sbind_parse_id(arg, c == 's', c == 'j' ? &o->job : &o->step)) {
		fprintf(stderr, "sbind place: %s \"%s\": expected a number from 0 to "
			"4294967295%s\n", c == 'j' ? "--job" : "--step", arg,
			c == 's' ? ", batch, extern or interactive" : "");
		return SBIND_EXIT_USAGE;
	}
	*(c == 'j' ? &o->has_job : &o->has_step) = 1;
	return SBIND_EXIT_OK;
}

/* --mem, --mem-reserve */
static int set_mem(int c, const char *arg, struct place_opts *o)
{
	char err[BND_ERRLEN];
	if (c == 'R')
		return sbind_parse_reserve("place", arg, &o->reserve);
	if (bnd_mem_parse_size(arg, &o->mem_mib, err, sizeof(err))) {
		fprintf(stderr, "sbind place: --mem: %s\n", err);
		return SBIND_EXIT_USAGE;
	}
	return SBIND_EXIT_OK;
}

/* One option (the table's ids, sbind_opts.c). */
static int set_opt(void *ctx, int c, const char *arg)
{
	struct place_opts *o = ctx;
	long v = 1;
	int rc = SBIND_EXIT_OK;
	switch (c) {
	case 'b': o->binding = arg; break;
	case 'M': o->mbind = arg; break;
	case 't': o->source = arg; break;
	case 'm': o->mask = arg; break;
	case 'S': o->state = arg; break;
	case 'f': o->format = arg; break;
	case 'H': o->host = arg; break;
	case 'g': o->gpus = arg; break;
	case 'B': o->gpu_bind = arg; break;
	case 'c': o->commit = 1; break;
	case 'P':
		rc = parse_long("--gpus-per-task", arg, 1, 64, &v);
		o->gpus_per_task = arg;
		break;
	case 'r':
		rc = parse_long("--first-rank", arg, 0, 1 << 20, &v);
		o->first_rank = (int)v;
		break;
	case 'n':
		rc = parse_long("--tasks", arg, 1, 4096, &v);
		o->ntasks = (int)v;
		break;
	case 'j':
	case 's': return set_id(c, arg, o);
	case 'o': return parse_long("--owner-pid", arg, 1, INT_MAX, &o->owner);
	case 'G':
	case 'R': return set_mem(c, arg, o);
	}
	return rc;
}

/* A message and SBIND_EXIT_USAGE when the options do not go together. */
static int check_opts(struct place_opts *o)
{
	const char *why = NULL;
	/* --mbind alone, as a step may ask it (nlocal brings its own binding) */
	if (!o->binding && o->mbind)
		o->binding = "none";
	if (!o->binding)
		why = "--binding SPEC or --mbind SPEC is required (see sbind place --binding help)";
	else if ((o->gpus_per_task || o->gpu_bind) && !o->gpus)
		why = "--gpus-per-task and --gpu-bind go with --gpus LIST";
	else if ((o->host || o->first_rank) && strcmp(o->format, "rankfile"))
		why = "--host and --first-rank go with --format rankfile";
	else if (o->commit && (!o->has_job || !o->has_step))
		why = "--commit needs --job J and --step S";
	else if (!o->commit && (o->has_job || o->has_step || o->owner >= 0))
		why = "--job, --step and --owner-pid go with --commit";
	if (!why)
		return SBIND_EXIT_OK;
	fprintf(stderr, "sbind place: %s\n", why);
	return SBIND_EXIT_USAGE;
}

static int parse_opts(int argc, char **argv, struct place_opts *o)
{
	*o = (struct place_opts){ .format = "text", .ntasks = 1, .owner = -1 };
	int rc = sbind_getopt("place", argc, argv, NULL, NULL, set_opt, o, NULL);
	return rc ? rc : check_opts(o);
}

static void print_mem_text(const struct bnd_topology *t, const struct bnd_mem_result *m,
			   enum bnd_mbind mbind)
{
	if (m->nshares) {
		printf("memory:");
		for (int i = 0; i < m->nshares; i++)
			printf(" %d:%lluM", m->shares[i].node, (unsigned long long)m->shares[i].mib);
		putchar('\n');
	}
	if (mbind == BND_M_NLOCAL) {
		char nodes[256];
		bnd_mem_nodes_text(t, m, nodes, sizeof(nodes));
		printf("nlocal: nodes %s (%s)\n", nodes, m->bind ? "bind" : "preferred");
	}
}

/* With --gpus: the task's GPUs after its cpus. */
static void print_gpus(const struct bnd_topology *t, const struct bnd_task_place *tp)
{
	char labels[1024];
	bnd_near_labels(t, tp->gpus, labels, sizeof(labels));
	printf(" gpus %s", labels[0] ? labels : "-");
}

static void print_text(const struct bnd_topology *t, const struct bnd_placement *p, int gpus)
{
	for (int i = 0; i < p->ntasks; i++) {
		const struct bnd_task_place *tp = &p->tasks[i];
		char cpus[BND_MAX_CPUS * 6];
		if (!tp->ncores) {
			/* none, packed:0 */
			printf("task %d: not bound\n", i);
			continue;
		}
		printf("task %d:", i);
		for (int k = 0; k < tp->ncores; k++)
			printf(" %d,%d", t->cores[tp->cores[k]].socket, t->cores[tp->cores[k]].core);
		bnd_cpuset_format_list(&tp->cpus, cpus, sizeof(cpus));
		printf(" (cpus %s)", cpus);
		if (gpus)
			print_gpus(t, tp);
		putchar('\n');
	}
	if (p->near_note[0])
		printf("not next to its GPUs: %s\n", p->near_note);
}

static int print_json(const struct bnd_topology *t, const struct bnd_placement *p,
		      const char *sge, const char *ocs, const char *mbind,
		      const struct bnd_mem_result *m, const char *gpu_rule)
{
	json_t *mem = json_array();
	for (int i = 0; mem && i < m->nshares; i++)
		json_array_append_new(mem, json_pack("{s:i, s:I}", "node", m->shares[i].node,
						     "mib", (json_int_t)m->shares[i].mib));
	char nodes[256];
	bnd_mem_nodes_text(t, m, nodes, sizeof(nodes));
	json_t *tasks = json_array();
	for (int i = 0; tasks && i < p->ntasks; i++) {
		const struct bnd_task_place *tp = &p->tasks[i];
		json_t *cores = json_array(), *cpus = json_array();
		for (int k = 0; k < tp->ncores; k++)
			json_array_append_new(cores, json_pack("[i,i]", t->cores[tp->cores[k]].socket,
							       t->cores[tp->cores[k]].core));
		for (int c = bnd_cpuset_next(&tp->cpus, -1); c >= 0; c = bnd_cpuset_next(&tp->cpus, c))
			json_array_append_new(cpus, json_integer(c));
		json_t *task = json_pack("{s:i, s:o, s:o}", "task", i, "cores", cores, "cpus", cpus);
		if (task && gpu_rule)
			sbind_gpus_task_json(t, tp, task);
		json_array_append_new(tasks, task);
	}
	json_t *o = json_pack("{s:b, s:o, s:s, s:s, s:s, s:o, s:s}", "bound", 1, "tasks", tasks,
			      "topology", sge, "topology_ocs", ocs, "mbind", mbind, "mem", mem,
			      "mbind_nodes", nodes);
	if (!o)
		return SBIND_EXIT_ERROR;
	if (gpu_rule) {
		json_object_set_new(o, "gpu_rule", json_string(gpu_rule));
		json_object_set_new(o, "near_note", json_string(p->near_note));
	}
	json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
	return SBIND_EXIT_OK;
}

/* The lines a pe step's node writes, ranks from --first-rank on: what
 * mpirun --rankfile reads (several nodes: sbind rankfile merges them). */
static int print_rankfile(const struct bnd_topology *t, const struct place_opts *o,
			  const struct bnd_placement *p)
{
	char host[256] = "localhost", err[BND_ERRLEN] = "", *text = NULL;
	bnd_cpuset_t *cpus = calloc((size_t)p->ntasks, sizeof(*cpus));
	int *ids = calloc((size_t)p->ntasks, sizeof(*ids)), rc = SBIND_EXIT_ERROR;
	if (o->host)
		snprintf(host, sizeof(host), "%s", o->host);
	else if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "localhost");
	if (cpus && ids) {
		for (int i = 0; i < p->ntasks; i++) {
			ids[i] = o->first_rank + i;
			cpus[i] = p->tasks[i].cpus;
		}
		if (bnd_rankfile_format(t, host, p->ntasks, ids, cpus, &text, err, sizeof(err)) ==
		    BND_OK) {
			fputs(text, stdout);
			rc = SBIND_EXIT_OK;
		} else {
			fprintf(stderr, "sbind place: %s\n", err);
		}
	}
	free(text);
	free(cpus);
	free(ids);
	return rc;
}

static int report(const struct bnd_topology *t, const struct place_opts *o,
		  const struct bnd_placement *p, enum bnd_mbind mbind,
		  const struct bnd_mem_result *m, const char *gpu_rule)
{
	if (!strcmp(o->format, "text")) {
		print_text(t, p, gpu_rule != NULL);
		if (gpu_rule)
			printf("gpus: %s\n", gpu_rule);
		print_mem_text(t, m, mbind);
		return SBIND_EXIT_OK;
	}
	if (!strcmp(o->format, "rankfile"))
		return print_rankfile(t, o, p);
	size_t len = bnd_topostring_length(t, BND_TOPO_OCS) + 1;
	char *sge = malloc(len), *ocs = malloc(len);
	int rc = SBIND_EXIT_OK;
	if (!sge || !ocs || bnd_topostring_format(t, BND_TOPO_SGE, &p->all_cpus, sge, len) ||
	    bnd_topostring_format(t, BND_TOPO_OCS, &p->all_cpus, ocs, len)) {
		fprintf(stderr, "sbind place: cannot format the topology string\n");
		rc = SBIND_EXIT_ERROR;
	} else if (!strcmp(o->format, "json")) {
		rc = print_json(t, p, sge, ocs, bnd_mbind_name(mbind), m, gpu_rule);
	} else {
		puts(!strcmp(o->format, "sge") ? sge : ocs);
	}
	free(sge);
	free(ocs);
	return rc;
}

static int no_binding(const struct place_opts *o, const char *why)
{
	if (!strcmp(o->format, "json")) {
		json_t *j = json_pack("{s:b, s:s}", "bound", 0, "reason", why);
		if (j) {
			json_dumpf(j, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(j);
		}
	}
	fprintf(stderr, "sbind place: no binding: %s\n", why);
	return SBIND_EXIT_NOFIT;
}

/* The GPUs of --gpus, split among the tasks by the plugin's rules. */
static int place_gpus(const struct bnd_topology *t, const struct place_opts *o,
		      const struct bnd_request *req, enum bnd_mbind mbind, uint64_t *masks,
		      char *rule, size_t len)
{
	int topo[BND_MAX_GPUS], n = 0;
	int rc = sbind_gpus_parse(t, o->gpus, topo, &n);
	if (!rc)
		rc = sbind_gpus_tasks(t, topo, n, o->ntasks, o->gpus_per_task, o->gpu_bind,
				      req->near_gpu || mbind == BND_M_GPU, masks, rule, len);
	return rc;
}

/* One sbind place: the request, where it goes, and what it got. */
struct place_run {
	struct place_opts o;
	struct bnd_request req;
	enum bnd_mbind mbind;
	struct bnd_topology *t;
	bnd_cpuset_t mask;
	uint64_t *masks;        /* --gpus: each task's GPUs */
	struct bnd_near near;
	char rule[256];         /* --gpus: how they were split */
	struct bnd_placement p;
	struct bnd_mem_result m;
	char err[BND_ERRLEN];
};

/* Request, topology, mask and GPUs, each error reported where found. */
static int prepare(struct place_run *x)
{
	const struct place_opts *o = &x->o;
	if (bnd_request_parse(&x->req, o->binding, x->err, sizeof(x->err)) ||
	    (o->mbind && bnd_mbind_parse(&x->mbind, o->mbind, x->err, sizeof(x->err)))) {
		fprintf(stderr, "sbind place: %s\n", x->err);
		x->err[0] = '\0';
		return SBIND_EXIT_USAGE;
	}
	x->t = sbind_load_topology(o->source, sbind_state_dir(o->state));
	if (!x->t)
		return SBIND_EXIT_ERROR;
	int rc = sbind_parse_mask(x->t, o->mask, &x->mask);
	x->masks = calloc((size_t)o->ntasks, sizeof(*x->masks));
	x->near = (struct bnd_near){ o->ntasks, x->masks };
	if (!rc && !x->masks)
		rc = SBIND_EXIT_ERROR;
	if (!rc && o->gpus)
		rc = place_gpus(x->t, o, &x->req, x->mbind, x->masks, x->rule, sizeof(x->rule));
	return rc;
}

/* A request that places no cores: the plugin's unbound step, which
 * records nothing and reserves no memory; its --mbind applies without
 * cores, or the reason the plugin gives (request.h). */
static int unbound(struct place_run *x)
{
	if (bnd_mbind_unbound(x->mbind, 0, x->err, sizeof(x->err)) != BND_OK)
		return SBIND_EXIT_NOFIT;
	x->p.tasks = calloc((size_t)x->o.ntasks, sizeof(*x->p.tasks));
	if (!x->p.tasks)
		return SBIND_EXIT_ERROR;
	x->p.ntasks = x->o.ntasks;
	return SBIND_EXIT_OK;
}

/* Through the allocator: recorded with --commit, else a dry run against
 * the state's records (--state) or a state without any. */
static int allocate(struct place_run *x)
{
	const struct place_opts *o = &x->o;
	if (!bnd_request_places(&x->req, x->mbind))
		return unbound(x);
	struct sbind_mem mem = { o->mem_mib, x->mbind, &o->reserve, &x->m };
	struct sbind_alloc a = {
		.req = &x->req, .ntasks = o->ntasks, .job = o->job, .step = o->step,
		.owner = o->owner > 0 ? (pid_t)o->owner : getppid(), .mask = &x->mask,
		.mem = &mem, .near = o->gpus ? &x->near : NULL,
	};
	if (o->commit)
		return sbind_state_commit(sbind_state_dir(o->state), x->t, &a, &x->p, x->err,
					  sizeof(x->err));
	return sbind_state_dry_run(o->state, x->t, &a, &x->p, x->err, sizeof(x->err));
}

int sbind_cmd_place(int argc, char **argv)
{
	struct place_run *x = calloc(1, sizeof(*x));
	if (!x)
		return SBIND_EXIT_ERROR;
	int rc = parse_opts(argc, argv, &x->o);
	if (rc) {
		free(x);
		return rc < 0 ? SBIND_EXIT_OK : rc;
	}
	if (!strcmp(x->o.binding, "help")) {
		fputs(bnd_request_help(), stdout);
		free(x);
		return SBIND_EXIT_OK;
	}
	rc = prepare(x);
	if (!rc)
		rc = allocate(x);
	if (rc == SBIND_EXIT_OK) {
		rc = report(x->t, &x->o, &x->p, x->mbind, &x->m, x->o.gpus ? x->rule : NULL);
		bnd_placement_free(&x->p);
	} else if (rc == SBIND_EXIT_NOFIT) {
		no_binding(&x->o, x->err);
	} else if (x->err[0]) {
		fprintf(stderr, "sbind place: %s\n", x->err);
	}
	free(x->masks);
	bnd_topology_free(x->t);
	bnd_request_clear(&x->req);
	free(x);
	return rc;
}
