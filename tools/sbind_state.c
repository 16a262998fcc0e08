/* sbind status / release / gc: the node's records, read without the lock
 * (status) or changed through one state transaction (release, gc). */
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/memory/memreport.h"
#include "binding/report/receipt.h"
#include "binding/state/state.h"
#include "binding/task/rankfile.h"
#include "binding/topology/topostring.h"
#include "sbind.h"
#include "sbind_opts.h"
#include "sbind_state.h"

static void format_age(long long secs, char *buf, size_t len)
{
	if (secs < 0)
		secs = 0;
	if (secs < 60)
		snprintf(buf, len, "%llds", secs);
	else if (secs < 3600)
		snprintf(buf, len, "%lldm%02llds", secs / 60, secs % 60);
	else if (secs < 86400)
		snprintf(buf, len, "%lldh%02lldm", secs / 3600, secs / 60 % 60);
	else
		snprintf(buf, len, "%lldd%02lldh", secs / 86400, secs / 3600 % 24);
}

/* Grid Engine <socket>,<core> pairs of the cores holding cpus, joined by
 * ':' as in explicit requests; cpus outside the topology are left out
 * (all of them without a topology). */
static char *cores_text(const struct bnd_topology *t, const bnd_cpuset_t *cpus)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = '\0';
	if (!t)
		return s;
	int last = -1;
	for (int c = bnd_cpuset_next(cpus, -1); c >= 0; c = bnd_cpuset_next(cpus, c)) {
		int core = bnd_topology_core_of_cpu(t, c);
		if (core < 0 || core == last)
			continue;
		last = core;
		char pair[32];
		int n = snprintf(pair, sizeof(pair), "%s%d,%d", len ? ":" : "", t->cores[core].socket,
				 t->cores[core].core);
		if (len + (size_t)n + 1 > cap) {
			cap = (len + (size_t)n + 1) * 2;
			char *ns = realloc(s, cap);
			if (!ns) {
				free(s);
				return NULL;
			}
			s = ns;
		}
		memcpy(s + len, pair, (size_t)n + 1);
		len += (size_t)n;
	}
	return s;
}

static char *cpus_text(const bnd_cpuset_t *cpus)
{
	size_t cap = (size_t)bnd_cpuset_count(cpus) * 6 + 2;
	char *s = malloc(cap);
	if (s && bnd_cpuset_format_list(cpus, s, cap)) {
		free(s);
		s = NULL;
	}
	return s;
}

static const char *status_text(const struct bnd_state_record *r)
{
	if (bnd_state_owner_alive(r))
		return bnd_state_status_name(r->status);
	/* gc (or any change) will drop it */
	switch (r->status) {
	case BND_ST_SUSPENDED: return "suspended(stale)";
	case BND_ST_DEFERRED: return "deferred(stale)";
	case BND_ST_UNBOUND: return "unbound(stale)";
	default: return "active(stale)";
	}
}

/* Suspended and deferred records: "since 12s: slurm-suspend". */
static void detail_text(const struct bnd_state_record *r, long long now_ms, char *buf, size_t len)
{
	char age[32];
	buf[0] = '\0';
	if (r->status == BND_ST_ACTIVE)
		return;
	format_age(r->since_ms ? (now_ms - r->since_ms) / 1000 : 0, age, sizeof(age));
	snprintf(buf, len, " since %s: %s", r->since_ms ? age : "?", r->why[0] ? r->why : "-");
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The node's memory as the records reserve it (memreport.h; sbind status
 * knows no mem_reserve=: the whole of each node). */
static int mem_report(const struct bnd_topology *t, const struct bnd_state_file *f,
		      struct bnd_memreport *m)
{
	uint64_t *used = calloc((size_t)t->nnuma + 1, sizeof(*used));
	int rc = !used || bnd_state_mem_used(t, f, 0, used) ||
		 bnd_memreport_build(t, NULL, used, m) != BND_OK;
	free(used);
	return rc ? SBIND_EXIT_ERROR : SBIND_EXIT_OK;
}

/* name=value, separated by a space (the first one by .before). */
struct text_sep {
	const char *before;
};

static void text_value(void *ctx, const char *name, const char *value)
{
	struct text_sep *s = ctx;
	printf("%s%s=%s", s->before, name, value);
	s->before = " ";
}

static void json_value(void *ctx, const char *name, const char *value)
{
	json_object_set_new(ctx, name, json_string(value));
}

/* The record's MiB per node; numamem: its job's booking, and how many of
 * its tasks Slurm split over nodes. */
static void mem_text(const struct bnd_state_record *r, char *mem, size_t len)
{
	size_t k = 0;
	for (int m = 0; m < r->nmem && k < len; m++)
		k += (size_t)snprintf(mem + k, len - k, "%s%d:%" PRIu64, m ? "," : "", r->mem[m].node,
				      r->mem[m].mib);
	if (!k && len > 1)
		k += (size_t)snprintf(mem, len, "-");
	for (int m = 0; m < r->nbooked && k < len; m++)
		k += (size_t)snprintf(mem + k, len - k, "%s%d:%" PRIu64, m ? "," : " booked=",
				      r->booked[m].node, r->booked[m].mib);
	if (r->split && k < len)
		snprintf(mem + k, len - k, " (Slurm split %d task%s over nodes)", r->split,
			 r->split == 1 ? "" : "s");
}

static int print_text(const struct bnd_state_file *f, const struct bnd_topology *t,
		      const char *sge)
{
	long long now = (long long)time(NULL);
	printf("%-10s %-11s %-6s %-20s %-16s %-17s %-8s %s\n", "JOB", "STEP", "UID", "CORES", "CPUS",
	       "STATUS", "AGE", "MEM(node:MiB)");
	for (int i = 0; i < f->nrec; i++) {
		const struct bnd_state_record *r = &f->rec[i];
		char step[16], age[32], detail[BND_STATE_WHY_LEN + 48];
		char *cores = cores_text(t, &r->cpus), *cpus = cpus_text(&r->cpus);
		if (!cores || !cpus) {
			free(cores);
			free(cpus);
			fprintf(stderr, "sbind status: out of memory\n");
			return SBIND_EXIT_ERROR;
		}
		format_age(now - r->created, age, sizeof(age));
		char mem[BND_STATE_MAX_MEM * 48 + 64] = "-";
		mem_text(r, mem, sizeof(mem));
		detail_text(r, now_ms(), detail, sizeof(detail));
		printf("%-10" PRIu32 " %-11s %-6" PRIu32 " %-20s %-16s %-17s %-8s %s%s\n", r->job,
		       sbind_step_name(r->step, step, sizeof(step)), r->uid, cores[0] ? cores : "-",
		       cpus[0] ? cpus : "-", status_text(r), age, mem, detail);
		free(cores);
		free(cpus);
	}
	printf("topology: %s\n", sge);
	if (!t)
		return SBIND_EXIT_OK;
	struct bnd_memreport m;
	if (mem_report(t, f, &m))
		return SBIND_EXIT_ERROR;
	/* Per NUMA node: what the records reserve of the node's memory; the
	 * host's line is their sum, with UGE's load values. */
	for (int n = 0; n < m.n; n++)
		printf("numa %d: %" PRIu64 " MiB reserved of %" PRIu64 " MiB%s\n", m.node[n].os,
		       m.node[n].reserved_jobs_mib, m.node[n].total_mib,
		       bnd_cpuset_empty(&t->numa_cpus[n]) ? " (no cpus)" : "");
	printf("host: %" PRIu64 " MiB reserved of %" PRIu64 " MiB (", m.reserved_jobs_mib,
	       m.total_mib);
	struct text_sep sep = { "" };
	bnd_memreport_host(&m, text_value, &sep);
	printf(")\ncaches:");
	sep.before = " ";
	bnd_memreport_caches(t, text_value, &sep);
	putchar('\n');
	bnd_memreport_free(&m);
	return SBIND_EXIT_OK;
}

static json_t *record_json(const struct bnd_state_record *r, const struct bnd_topology *t,
			   long long now)
{
	char step[16];
	char *cores = cores_text(t, &r->cpus), *cpus = cpus_text(&r->cpus);
	json_t *o = NULL, *tasks = json_array(), *mem = json_object(), *corev = json_array();
	if (!cores || !cpus || !tasks || !mem || !corev)
		goto out;
	for (char *save = NULL, *p = strtok_r(cores, ":", &save); p; p = strtok_r(NULL, ":", &save))
		json_array_append_new(corev, json_string(p));
	for (int i = 0; i < r->ntasks; i++) {
		char *tc = cpus_text(&r->tasks[i]);
		if (!tc)
			goto out;
		json_array_append_new(tasks, json_string(tc));
		free(tc);
	}
	for (int i = 0; i < r->nmem; i++) {
		char node[16];
		snprintf(node, sizeof(node), "%d", r->mem[i].node);
		json_object_set_new(mem, node, json_integer((json_int_t)r->mem[i].mib));
	}
	o = json_pack("{s:I, s:I, s:s, s:I, s:i, s:b, s:s, s:I, s:I, s:s, s:O, s:O, s:O, s:s}",
		      "job", (json_int_t)r->job, "step", (json_int_t)r->step, "step_name",
		      sbind_step_name(r->step, step, sizeof(step)), "uid", (json_int_t)r->uid,
		      "owner_pid", r->owner_pid, "owner_alive", bnd_state_owner_alive(r),
		      "status", bnd_state_status_name(r->status), "created", (json_int_t)r->created,
		      "age", (json_int_t)(now - r->created), "cpus", cpus, "cores", corev,
		      "tasks", tasks, "mem_mib", mem, "request", r->request);
	if (o && r->status != BND_ST_ACTIVE) {
		json_object_set_new(o, "since_ms", json_integer((json_int_t)r->since_ms));
		json_object_set_new(o, "why", json_string(r->why));
	}
	if (o && r->nbooked) {
		json_t *b = json_object();
		for (int i = 0; i < r->nbooked; i++) {
			char node[16];
			snprintf(node, sizeof(node), "%d", r->booked[i].node);
			json_object_set_new(b, node, json_integer((json_int_t)r->booked[i].mib));
		}
		json_object_set_new(o, "booked_mib", b);
		json_object_set_new(o, "split_tasks", json_integer(r->split));
	}
out:
	json_decref(tasks);
	json_decref(mem);
	json_decref(corev);
	free(cores);
	free(cpus);
	return o;
}

/* UGE's load values, all of them as sbind topology lists them (held
 * units lower case in m_topology_inuse and m_topology_numa). */
static int uge_json(const struct bnd_topology *t, const struct bnd_memreport *m,
		    const bnd_cpuset_t *held, const char *sge, json_t *uge)
{
	size_t len = bnd_topostring_length(t, BND_TOPO_SGE) + 1;
	size_t nlen = bnd_topostring_numa_size(t);
	char *plain = malloc(len), *numa = malloc(nlen);
	int rc = !plain || !numa || bnd_topostring_format(t, BND_TOPO_SGE, NULL, plain, len) ||
		 bnd_topostring_numa(t, held, numa, nlen);
	if (!rc) {
		const struct bnd_uge_strings s = { plain, sge, numa };
		bnd_uge_loadvalues(t, m, &s, json_value, uge);
	}
	free(plain);
	free(numa);
	return rc;
}

static int print_json(const struct bnd_state_file *f, const struct bnd_topology *t,
		      const bnd_cpuset_t *held, const char *dir, const char *sge, const char *ocs)
{
	long long now = (long long)time(NULL);
	json_t *recs = json_array();
	int rc = recs ? SBIND_EXIT_OK : SBIND_EXIT_ERROR;
	for (int i = 0; !rc && i < f->nrec; i++) {
		json_t *r = record_json(&f->rec[i], t, now);
		if (!r || json_array_append_new(recs, r))
			rc = SBIND_EXIT_ERROR;
	}
	struct bnd_memreport m = { 0 };
	json_t *numa = json_array(), *uge = json_object();
	if (!numa || !uge || (t && mem_report(t, f, &m)))
		rc = SBIND_EXIT_ERROR;
	for (int n = 0; !rc && n < m.n; n++)
		json_array_append_new(numa, json_pack("{s:i, s:I, s:I, s:I}", "node", m.node[n].os,
						      "total_mib", (json_int_t)m.node[n].total_mib,
						      "reserved_mib",
						      (json_int_t)m.node[n].reserved_jobs_mib,
						      "free_mib", (json_int_t)m.node[n].free_mib));
	if (!rc && t && uge_json(t, &m, held, sge, uge))
		rc = SBIND_EXIT_ERROR;
	json_t *o = rc ? NULL : json_pack("{s:s, s:O, s:s, s:s, s:O, s:{s:I, s:I, s:I}, s:O}",
					  "state_dir", dir, "records", recs, "topology_sge", sge,
					  "topology_ocs", ocs, "numa", numa,
					  "host", "total_mib", (json_int_t)m.total_mib,
					  "reserved_mib", (json_int_t)m.reserved_jobs_mib,
					  "free_mib", (json_int_t)m.free_mib, "uge", uge);
	bnd_memreport_free(&m);
	json_decref(recs);
	json_decref(numa);
	json_decref(uge);
	if (!o) {
		fprintf(stderr, "sbind status: cannot build the JSON output\n");
		return SBIND_EXIT_ERROR;
	}
	json_dumpf(o, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(o);
	return SBIND_EXIT_OK;
}

/* sbind status --job J: the job's receipt on this node (report/receipt.h). */
static int print_receipt(const struct bnd_state_file *f, const struct bnd_topology *t,
			 uint32_t job, int json, const char *node)
{
	char host[256] = "";
	if (node)
		snprintf(host, sizeof(host), "%s", node);
	else if (f->node[0])
		snprintf(host, sizeof(host), "%s", f->node);
	else if (gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "localhost");
	struct bnd_receipt_in in = { f, t, host, job, now_ms() };
	if ((json ? bnd_receipt_json(&in, stdout) : bnd_receipt_text(&in, stdout)) != BND_OK) {
		fprintf(stderr, "sbind status: out of memory\n");
		return SBIND_EXIT_ERROR;
	}
	return SBIND_EXIT_OK;
}

struct status_opts {
	const char *state, *source, *format, *jtext, *node;
	bool all;  /* --all-nodes */
};

static int status_set(void *ctx, int id, const char *arg)
{
	struct status_opts *o = ctx;
	switch (id) {
	case 'S': o->state = arg; break;
	case 't': o->source = arg; break;
	case 'f': o->format = arg; break;
	case 'j': o->jtext = arg; break;
	case 'n': o->node = arg; break;
	case 'a': o->all = true; break;
	}
	return 0;
}

int sbind_cmd_status(int argc, char **argv)
{
	struct status_opts so = { .format = "text" };
	int prc = sbind_getopt("status", argc, argv, NULL, NULL, status_set, &so, NULL);
	if (prc)
		return prc < 0 ? SBIND_EXIT_OK : prc;
	const char *state = so.state, *source = so.source, *format = so.format;
	const char *jtext = so.jtext, *node = so.node;
	bool all = so.all;
	uint32_t job = 0;
	if (jtext && sbind_parse_id(jtext, 0, &job)) {
		fprintf(stderr, "sbind status: --job: expected a job id, got \"%s\"\n", jtext);
		return SBIND_EXIT_USAGE;
	}
	if (all && (!jtext || node)) {
		fprintf(stderr, "sbind status: --all-nodes %s; expected: sbind status --job J "
			"--all-nodes\n", node ? "takes the node names from Slurm, not --node"
					      : "needs --job J");
		return SBIND_EXIT_USAGE;
	}
	if (all)
		return sbind_status_all_nodes(job, !strcmp(format, "json"), state, source);
	const char *dir = sbind_state_dir(state);
	struct bnd_state_file f;
	if (sbind_state_read("status", dir, &f) != SBIND_EXIT_OK)
		return SBIND_EXIT_ERROR;
	/* The records are worth showing without a topology: it is NONE then,
	 * as Grid Engine reports it, and the reason is on stderr. */
	struct bnd_topology *t = sbind_load_topology(source, dir);
	if (jtext) {
		int rc = print_receipt(&f, t, job, !strcmp(format, "json"), node);
		bnd_topology_free(t);
		bnd_statefile_free(&f);
		return rc;
	}
	bnd_cpuset_t held;
	bnd_state_held(&f, 0, &held);
	size_t len = t ? bnd_topostring_length(t, BND_TOPO_OCS) + 1 : sizeof("NONE");
	char *sge = malloc(len), *ocs = malloc(len);
	int rc;
	if (sge && ocs && !t) {
		snprintf(sge, len, "NONE");
		snprintf(ocs, len, "NONE");
	}
	if (!sge || !ocs || (t && (bnd_topostring_format(t, BND_TOPO_SGE, &held, sge, len) ||
				   bnd_topostring_format(t, BND_TOPO_OCS, &held, ocs, len)))) {
		fprintf(stderr, "sbind status: cannot format the topology string\n");
		rc = SBIND_EXIT_ERROR;
	} else {
		rc = !strcmp(format, "json") ? print_json(&f, t, &held, dir, sge, ocs) : print_text(&f, t, sge);
	}
	free(sge);
	free(ocs);
	bnd_topology_free(t);
	bnd_statefile_free(&f);
	return rc;
}

static int exit_of(int rc)
{
	return rc == BND_EINVAL ? SBIND_EXIT_USAGE : SBIND_EXIT_ERROR;
}

struct release_opts {
	const char *state, *jtext, *stext;
};

static int release_set(void *ctx, int id, const char *arg)
{
	struct release_opts *o = ctx;
	*(id == 'S' ? &o->state : id == 'j' ? &o->jtext : &o->stext) = arg;
	return 0;
}

int sbind_cmd_release(int argc, char **argv)
{
	struct release_opts ro = { 0 };
	int prc = sbind_getopt("release", argc, argv, NULL, NULL, release_set, &ro, NULL);
	if (prc)
		return prc < 0 ? SBIND_EXIT_OK : prc;
	const char *state = ro.state, *jtext = ro.jtext, *stext = ro.stext;
	uint32_t job, step = 0;
	if (!jtext || sbind_parse_id(jtext, 0, &job)) {
		fprintf(stderr, "sbind release: --job: expected a job id, got \"%s\"\n",
			jtext ? jtext : "(nothing)");
		return SBIND_EXIT_USAGE;
	}
	if (stext && sbind_parse_id(stext, 1, &step)) {
		fprintf(stderr, "sbind release: --step: expected a step id, batch, extern or "
			"interactive, got \"%s\"\n", stext);
		return SBIND_EXIT_USAGE;
	}
	struct bnd_state_opts o = { .dir = sbind_state_dir(state), .log = sbind_log_stderr };
	char err[BND_ERRLEN] = "", sname[16];
	int n = 0;
	int rc = stext ? bnd_state_release(&o, job, step, &n, err, sizeof(err))
		       : bnd_state_release_job(&o, job, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sbind release: %s\n", err);
		return exit_of(rc);
	}
	if (stext)
		printf("released %d record(s) of job %" PRIu32 " step %s\n", n, job,
		       sbind_step_name(step, sname, sizeof(sname)));
	else
		printf("released %d record(s) of job %" PRIu32 "\n", n, job);
	return SBIND_EXIT_OK;
}

int sbind_cmd_gc(int argc, char **argv)
{
	const char *state = NULL;
	int prc = sbind_getopt("gc", argc, argv, NULL, NULL, sbind_set_string, &state, NULL);
	if (prc)
		return prc < 0 ? SBIND_EXIT_OK : prc;
	struct bnd_state_opts o = { .dir = sbind_state_dir(state), .log = sbind_log_stderr };
	char err[BND_ERRLEN] = "";
	int n = 0;
	int rc = bnd_state_gc(&o, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sbind gc: %s\n", err);
		return exit_of(rc);
	}
	printf("reclaimed %d record(s)\n", n);
	/* after the reclaim: a dead owner's step has no record any more */
	rc = bnd_rankfile_gc(&o, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sbind gc: rankfiles: %s\n", err);
		return exit_of(rc);
	}
	printf("removed %d rankfile(s) of gone steps\n", n);
	return SBIND_EXIT_OK;
}
