#include "binding/report/receipt.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "binding/request/request.h"
#include "binding/state/history.h"
#include "binding/state/state.h"
#include "binding/util/error.h"
#include "binding/util/nodeset.h"

/* What one task (placement group) holds, in every numbering. */
struct task_view {
	bnd_cpuset_t cpus;      /* OS cpu ids */
	bnd_cpuset_t pus;       /* hwloc logical PU indices */
	bnd_cpuset_t cores;     /* the topology's core indices (hwloc's logical order) */
	bnd_nodeset_t numa;     /* OS NUMA node ids of its cores */
	uint64_t gpus;          /* the topology's GPU indices */
};

static void view_of(const struct bnd_topology *t, const struct bnd_state_record *r, int i,
		    struct task_view *v)
{
	memset(v, 0, sizeof(*v));
	v->cpus = r->tasks[i];
	v->gpus = i < r->ngpus ? r->gpus[i] : 0;
	if (!t)
		return;
	for (int p = 0; p < t->npus; p++)
		if (bnd_cpuset_isset(&v->cpus, t->pu_os[p])) {
			bnd_cpuset_set(&v->pus, p);
			bnd_cpuset_set(&v->cores, t->pu_core[p]);
		}
	bnd_topology_numa_of_cpus(t, &v->cpus, &v->numa);
}

/* A cpu list, malloc'd ("-" when empty); NULL when memory runs out. */
static char *list_of(const bnd_cpuset_t *s)
{
	size_t cap = (size_t)bnd_cpuset_count(s) * 6 + 2;
	char *b = malloc(cap);
	if (b && (bnd_cpuset_empty(s) ? snprintf(b, cap, "-") < 0
				       : bnd_cpuset_format_list(s, b, cap) != BND_OK)) {
		free(b);
		b = NULL;
	}
	return b;
}

/* "0,0 0,1": Grid Engine pairs of the cores, sep between them. */
static void pairs_of(const struct bnd_topology *t, const bnd_cpuset_t *cores, FILE *o, char sep)
{
	int first = 1;
	for (int c = bnd_cpuset_next(cores, -1); c >= 0; c = bnd_cpuset_next(cores, c)) {
		fprintf(o, "%s%d,%d", first ? "" : (char[2]){ sep, 0 }, t->cores[c].socket,
			t->cores[c].core);
		first = 0;
	}
	if (first)
		fputs("-", o);
}

/* OCS's binding: line, "<instance> <request>": "set:linear:2" and
 * "linear:2" both read "set linear:2". */
static void binding_line(const struct bnd_state_record *r, char *buf, size_t len)
{
	const char *q = r->request;
	if (!*q)
		snprintf(buf, len, "none");
	else if (!strncmp(q, "set:", 4) || !strncmp(q, "env:", 4) || !strncmp(q, "pe:", 3))
		snprintf(buf, len, "%.*s %s", (int)(strchr(q, ':') - q), q, strchr(q, ':') + 1);
	else
		snprintf(buf, len, "set %s", q);
}

static void when(long long ms, long long now_ms, char *buf, size_t len)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;
	char at[32] = "?";
	if (ms > 0 && localtime_r(&s, &tm))
		strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S", &tm);
	long long ago = ms > 0 && now_ms >= ms ? (now_ms - ms) / 1000 : 0;
	snprintf(buf, len, "%s (%llds ago)", at, ago);
}

/* "n1=0,0:0,1": the step's cores on this node, as OCS lists a job's. */
static void exec_binding(const struct bnd_topology *t, const struct bnd_state_record *r,
			 const char *node, FILE *o)
{
	bnd_cpuset_t cores;
	bnd_cpuset_zero(&cores);
	for (int p = 0; t && p < t->npus; p++)
		if (bnd_cpuset_isset(&r->cpus, t->pu_os[p]))
			bnd_cpuset_set(&cores, t->pu_core[p]);
	fprintf(o, "%s=", node);
	if (t)
		pairs_of(t, &cores, o, ':');
	else
		fputs("-", o);
}

/* ---- JSON ---- */

static json_t *str_of(const bnd_cpuset_t *s)
{
	char *l = list_of(s);
	json_t *j = l ? json_string(strcmp(l, "-") ? l : "") : NULL;
	free(l);
	return j;
}

static json_t *task_json(const struct bnd_topology *t, const struct bnd_state_record *r, int i)
{
	struct task_view v;
	view_of(t, r, i, &v);
	json_t *o = json_object(), *cores = json_array(), *logical = json_array(),
	       *numa = json_array(), *gpus = json_array();
	for (int c = bnd_cpuset_next(&v.cores, -1); t && c >= 0; c = bnd_cpuset_next(&v.cores, c)) {
		char pair[32];
		snprintf(pair, sizeof(pair), "%d,%d", t->cores[c].socket, t->cores[c].core);
		json_array_append_new(cores, json_string(pair));
		json_array_append_new(logical, json_integer(c));
	}
	for (int n = bnd_nodeset_next(&v.numa, -1); n >= 0; n = bnd_nodeset_next(&v.numa, n))
		json_array_append_new(numa, json_integer(n));
	for (int g = 0; t && g < t->ngpus && g < 64; g++)
		if (v.gpus >> g & 1)
			json_array_append_new(gpus, json_string(t->gpus[g].busid[0] ? t->gpus[g].busid
										     : t->gpus[g].names));
	json_object_set_new(o, "task", json_integer(i));
	json_object_set_new(o, "cores", cores);
	json_object_set_new(o, "cores_logical", logical);
	json_object_set_new(o, "cpus", str_of(&v.cpus));
	json_object_set_new(o, "cpus_logical", str_of(&v.pus));
	json_object_set_new(o, "numa", numa);
	json_object_set_new(o, "gpus", gpus);
	return o;
}

static json_t *history_json(const struct bnd_state_record *r)
{
	json_t *a = json_array();
	struct bnd_hist_event ev;
	size_t pos = 0;
	while (a && bnd_hist_next(r->hist, &pos, &ev))
		json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:s}", "event",
						   bnd_hist_kind_name(ev.kind), "ms", (json_int_t)ev.ms,
						   "cpus", ev.cpus, "why", ev.why));
	return a;
}

/* Text made by a writer of FILE * (exec_binding), as a JSON string. */
static json_t *exec_binding_json(const struct bnd_receipt_in *in, const struct bnd_state_record *r)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *o = open_memstream(&buf, &n);
	if (!o)
		return NULL;
	exec_binding(in->t, r, in->node, o);
	json_t *j = fclose(o) ? NULL : json_string(buf);
	free(buf);
	return j;
}

static json_t *step_json(const struct bnd_receipt_in *in, const struct bnd_state_record *r)
{
	char step[16], line[BND_MAX_REQUEST_TEXT + 16];
	struct bnd_request q;
	char err[BND_ERRLEN];
	int parsed = r->request[0] && bnd_request_parse(&q, r->request, err, sizeof(err)) == BND_OK;
	binding_line(r, line, sizeof(line));
	json_t *tasks = json_array(), *mem = json_object();
	for (int k = 0; tasks && k < r->ntasks; k++)
		json_array_append_new(tasks, task_json(in->t, r, k));
	for (int m = 0; mem && m < r->nmem; m++) {
		char node[16];
		snprintf(node, sizeof(node), "%d", r->mem[m].node);
		json_object_set_new(mem, node, json_integer((json_int_t)r->mem[m].mib));
	}
	json_t *o = json_pack("{s:I, s:s, s:I, s:i, s:b, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:o, "
			      "s:s, s:o, s:I, s:o, s:o, s:o, s:I}",
			      "step", (json_int_t)r->step, "step_name",
			      bnd_step_name(r->step, step, sizeof(step)), "uid", (json_int_t)r->uid,
			      "owner_pid", r->owner_pid, "owner_alive", bnd_state_owner_alive(r),
			      "status", bnd_state_status_name(r->status), "since_ms",
			      (json_int_t)(r->status == BND_ST_ACTIVE ? r->created * 1000 : r->since_ms),
			      "why", r->why, "request", r->request,
			      "instance", parsed ? bnd_instance_name(q.instance) : "",
			      "strategy", parsed ? bnd_strategy_name(q.strategy) : "", "binding", line,
			      "exec_binding_list", exec_binding_json(in, r),
			      "mbind", bnd_mbind_name(r->mbind), "memory_mib", mem,
			      "job_memory_mib", (json_int_t)r->job_mem_mib, "cpus", str_of(&r->cpus),
			      "tasks", tasks, "history", history_json(r),
			      "history_total", (json_int_t)bnd_hist_total(r->hist));
	return o;
}

json_t *bnd_receipt_node(const struct bnd_receipt_in *in)
{
	json_t *steps = json_array();
	for (int i = 0; steps && i < in->f->nrec; i++)
		if (in->f->rec[i].job == in->job &&
		    json_array_append_new(steps, step_json(in, &in->f->rec[i]))) {
			json_decref(steps);
			steps = NULL;
		}
	return steps ? json_pack("{s:I, s:s, s:o}", "job", (json_int_t)in->job, "node", in->node,
				 "steps", steps) : NULL;
}

int bnd_receipt_json(const struct bnd_receipt_in *in, FILE *out)
{
	json_t *o = bnd_receipt_node(in);
	int rc = !o || json_dumpf(o, out, JSON_COMPACT) || fputc('\n', out) == EOF;
	json_decref(o);
	return rc ? BND_ENOMEM : BND_OK;
}

int bnd_receipt_text(const struct bnd_receipt_in *in, FILE *out)
{
	json_t *o = bnd_receipt_node(in);
	int rc = o ? bnd_receipt_render(o, in->now_ms, out) : BND_ENOMEM;
	json_decref(o);
	return rc;
}

/* ---- text, from the JSON: one rendering for this node's records and for
 * another node's answer (receipts.h) ---- */

static const char *jstr(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? v : "";
}

static long long jint(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* An array of small integers as a list ("0-1,4"), or "-". */
static void ints_text(const json_t *a, char *buf, size_t len)
{
	bnd_cpuset_t s;
	bnd_cpuset_zero(&s);
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_int_t n = json_integer_value(json_array_get(a, i));
		if (n >= 0 && n < BND_MAX_CPUS)
			bnd_cpuset_set(&s, (int)n);
	}
	if (bnd_cpuset_empty(&s) || bnd_cpuset_format_list(&s, buf, len) != BND_OK)
		snprintf(buf, len, "-");
}

/* An array of strings joined by sep, or "-". */
static void strings_text(const json_t *a, char sep, FILE *o)
{
	for (size_t i = 0; i < json_array_size(a); i++) {
		const char *v = json_string_value(json_array_get(a, i));
		fprintf(o, "%s%s", i ? (char[2]){ sep, 0 } : "", v ? v : "");
	}
	if (!json_array_size(a))
		fputs("-", o);
}

static void history_render(const json_t *st, long long now_ms, FILE *o)
{
	const json_t *h = json_object_get(st, "history");
	long long total = jint(st, "history_total");
	for (size_t i = 0; i < json_array_size(h); i++) {
		const json_t *ev = json_array_get(h, i);
		char at[64];
		const char *cpus = jstr(ev, "cpus"), *why = jstr(ev, "why");
		when(jint(ev, "ms"), now_ms, at, sizeof(at));
		if (i == 1 && total > BND_HIST_KEEP)
			fprintf(o, "                      (%lld events not kept)\n", total - BND_HIST_KEEP);
		fprintf(o, "%s%s %s%s%s%s%s\n", i ? "                      " : "  history:            ",
			jstr(ev, "event"), at, *cpus ? " on cpus " : "", cpus, *why ? ": " : "", why);
	}
}

/* Without a topology a task has cpus but no logical numbering: "?". */
static void task_render(const json_t *task, FILE *o)
{
	const char *cpus = jstr(task, "cpus"), *pus = jstr(task, "cpus_logical");
	int topo = *pus || !*cpus;
	char label[24], cores[256], numa[256];
	snprintf(label, sizeof(label), "task %lld:", jint(task, "task"));
	ints_text(json_object_get(task, "cores_logical"), cores, sizeof(cores));
	ints_text(json_object_get(task, "numa"), numa, sizeof(numa));
	fprintf(o, "  %-20scores ", label);
	if (topo)
		strings_text(json_object_get(task, "cores"), ' ', o);
	else
		fputs("?", o);
	fprintf(o, " (L#%s) cpus %s (L#%s) numa %s gpus ", cores, *cpus ? cpus : "-",
		topo ? (*pus ? pus : "-") : "?", numa);
	strings_text(json_object_get(task, "gpus"), ',', o);
	fputc('\n', o);
}

static void memory_render(const json_t *st, FILE *o)
{
	const json_t *mem = json_object_get(st, "memory_mib");
	long long job = jint(st, "job_memory_mib");
	int k = 0;
	fputs("  memory:             ", o);
	for (void *it = json_object_iter((json_t *)mem); it; it = json_object_iter_next((json_t *)mem, it))
		fprintf(o, "%snuma %s: %lld MiB", k++ ? ", " : "", json_object_iter_key(it),
			(long long)json_integer_value(json_object_iter_value(it)));
	if (job)
		fprintf(o, "%sthe job's %lld MiB on this node", k ? "; " : "", job);
	fputs(k || job ? "\n" : "-\n", o);
}

static void head_render(const json_t *node, const json_t *st, long long now_ms, FILE *o)
{
	long long ms = jint(st, "since_ms"), ago = ms > 0 && now_ms >= ms ? (now_ms - ms) / 1000 : 0;
	const char *why = jstr(st, "why");
	int unbound = !strcmp(jstr(st, "status"), "unbound");
	fprintf(o, "job %lld step %s on %s: %s since %llds%s%s, uid %lld, owner pid %lld%s\n",
		jint(node, "job"), jstr(st, "step_name"), jstr(node, "node"), jstr(st, "status"), ago,
		*why ? ": " : "", why, jint(st, "uid"), jint(st, "owner_pid"),
		json_is_false(json_object_get(st, "owner_alive")) ? " (gone: sbind gc drops it)" : "");
	fprintf(o, "  binding:            %s%s\n", jstr(st, "binding"), unbound ? " (not bound)" : "");
	fprintf(o, "  exec_binding_list:  %s\n", jstr(st, "exec_binding_list"));
	fprintf(o, "  mbind:              %s\n", jstr(st, "mbind"));
	memory_render(st, o);
}

int bnd_receipt_render(const json_t *node, long long now_ms, FILE *out)
{
	const json_t *steps = json_object_get(node, "steps");
	if (!json_array_size(steps))
		fprintf(out, "job %lld: no record on %s (not here, ended, or no binding asked)\n",
			jint(node, "job"), jstr(node, "node"));
	for (size_t i = 0; i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i), *tasks = json_object_get(st, "tasks");
		head_render(node, st, now_ms, out);
		for (size_t k = 0; k < json_array_size(tasks); k++)
			task_render(json_array_get(tasks, k), out);
		if (!json_array_size(tasks))
			fputs("  tasks:              none bound now\n", out);
		history_render(st, now_ms, out);
	}
	return ferror(out) ? BND_ENOMEM : BND_OK;
}
