/* sbind topology: the node's topology string, taken units lower case. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/memory/memacct.h"
#include "binding/memory/memreport.h"
#include "binding/state/state.h"
#include "binding/topology/topostring.h"
#include "sbind.h"
#include "sbind_opts.h"

/* The kernel's free memory of an OS node (MemFree in its sysfs meminfo),
 * -1 when this machine has no such node (an XML or synthetic topology). */
static long long kernel_free_mib(int os)
{
	char path[96], line[256];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", os);
	FILE *fp = fopen(path, "r");
	long long kb = -1;
	while (fp && fgets(line, sizeof(line), fp)) {
		const char *p = strstr(line, "MemFree:");
		if (p)
			kb = strtoll(p + 8, NULL, 10);
	}
	if (fp)
		fclose(fp);
	return kb < 0 ? -1 : kb / 1024;
}

/* Per node: size, the accounting (memreport.h: reserved for the OS and by
 * records, free, used) and the kernel's free memory when this is the
 * machine. */
static json_t *numa_json(const struct bnd_topology *t, const struct bnd_memreport *r,
			 int this_machine)
{
	json_t *a = json_array();
	for (int n = 0; a && n < r->n; n++) {
		const struct bnd_memreport_node *m = &r->node[n];
		char cpus[BND_MAX_CPUS * 6];
		bnd_cpuset_format_list(&t->numa_cpus[n], cpus, sizeof(cpus));
		json_t *dist = json_array();
		for (int k = 0; dist && k < t->nnuma; k++)
			json_array_append_new(dist, json_integer(bnd_topology_numa_distance(t, n, k)));
		json_array_append_new(a, json_pack(
			"{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "node", m->os, "cpus", cpus,
			"total_mib", (json_int_t)m->total_mib,
			"reserved_os_mib", (json_int_t)m->reserved_os_mib,
			"reserved_jobs_mib", (json_int_t)m->reserved_jobs_mib,
			"free_mib", (json_int_t)m->free_mib, "used_mib", (json_int_t)m->used_mib,
			"kernel_free_mib", (json_int_t)(this_machine ? kernel_free_mib(m->os) : -1),
			"distances", dist));
	}
	return a;
}

/* UGE's load values of the host (memreport.h: its execd's m_* names, in
 * the document's groups and notation). The uge format stands in for
 * qhost -F, so each line carries qhost's "hl:" (a host-level value); the
 * JSON has them under "uge" by name, the numbers as numbers elsewhere. */
struct uge_out {
	json_t *obj; /* NULL: hl:name=value lines */
};

static void uge_value(void *ctx, const char *name, const char *value)
{
	struct uge_out *u = ctx;
	if (u->obj)
		json_object_set_new(u->obj, name, json_string(value));
	else
		printf("hl:%s=%s\n", name, value);
}

static int print_json(const struct bnd_topology *t, const char *sge, const char *ocs,
		      const char *numa_str, json_t *numa, const struct bnd_memreport *r,
		      json_t *uge)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:{s:I, s:I, s:I}, s:o, "
			      "s:{s:I, s:I, s:I, s:I, s:I}, s:o}",
			      "sge", sge, "ocs", ocs, "numa", numa_str,
			      "sockets", t->nsockets, "cores", t->ncores, "pus", t->npus,
			      "numa_nodes", t->nnuma, "l3", t->nl3, "l2", t->nl2,
			      "cache_bytes", "l1", (json_int_t)t->cache_size[1],
			      "l2", (json_int_t)t->cache_size[2], "l3", (json_int_t)t->cache_size[3],
			      "numa_memory", numa,
			      "host_memory", "total_mib", (json_int_t)r->total_mib,
			      "reserved_os_mib", (json_int_t)r->reserved_os_mib,
			      "reserved_jobs_mib", (json_int_t)r->reserved_jobs_mib,
			      "free_mib", (json_int_t)r->free_mib, "used_mib", (json_int_t)r->used_mib,
			      "uge", uge);
	if (!o)
		return SBIND_EXIT_ERROR;
	/* Each GPU with its locality (topogpu.h); [] without any. */
	json_object_set_new(o, "gpus", sbind_gpus_json(t));
	json_dumpf(o, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(o);
	return SBIND_EXIT_OK;
}

/* Grid Engine reports a host whose topology cannot be read as
 * m_topology=NONE: the same word in every form, the reason on stderr
 * (sbind_load_topology printed it) and exit 1. */
static int print_none(const char *format)
{
	if (!strcmp(format, "json")) {
		json_t *o = json_pack("{s:s, s:s, s:s}", "sge", "NONE", "ocs", "NONE", "numa", "NONE");
		if (o) {
			json_dumpf(o, stdout, JSON_COMPACT);
			putchar('\n');
			json_decref(o);
		}
	} else {
		puts(!strcmp(format, "uge") ? "hl:m_topology=NONE" : "NONE");
	}
	return SBIND_EXIT_ERROR;
}

/* What the records in state reserve per NUMA index (nothing without). */
static int jobs_reserved(const struct bnd_topology *t, const char *state, uint64_t *used)
{
	struct bnd_state_opts so = { .dir = state, .log = sbind_log_stderr };
	struct bnd_state_file f;
	char err[BND_ERRLEN];
	int rc = SBIND_EXIT_OK;
	if (!state || bnd_state_list(&so, &f, err, sizeof(err)) != BND_OK)
		return rc;
	if (bnd_state_mem_used(t, &f, 0, used)) {
		fprintf(stderr, "sbind topology: out of memory\n");
		rc = SBIND_EXIT_ERROR;
	}
	bnd_statefile_free(&f);
	return rc;
}

/* UGE's load values or the JSON document: the strings and the memory. */
static int report(const struct bnd_topology *t, const char *format, const char *sge,
		  const char *ocs, const char *numa, const char *plain, const char *state,
		  const struct bnd_mem_reserve *reserve, int this_machine)
{
	uint64_t *used = calloc((size_t)t->nnuma + 1, sizeof(*used));
	struct bnd_memreport r;
	int rc = used ? jobs_reserved(t, state, used) : SBIND_EXIT_ERROR;
	if (!rc && bnd_memreport_build(t, reserve, used, &r) != BND_OK)
		rc = SBIND_EXIT_ERROR;
	free(used);
	if (rc) {
		fprintf(stderr, "sbind topology: out of memory\n");
		return rc;
	}
	const struct bnd_uge_strings strings = { plain, sge, numa };
	struct uge_out u = { NULL };
	if (!strcmp(format, "uge")) {
		bnd_uge_loadvalues(t, &r, &strings, uge_value, &u);
	} else {
		u.obj = json_object();
		bnd_uge_loadvalues(t, &r, &strings, uge_value, &u);
		rc = print_json(t, sge, ocs, numa, numa_json(t, &r, this_machine), &r, u.obj);
	}
	bnd_memreport_free(&r);
	return rc;
}

/* The topology in one format, taken units lower case. */
static int render(const struct bnd_topology *t, const char *format, const bnd_cpuset_t *taken,
		  const char *state, const struct bnd_mem_reserve *reserve, int this_machine)
{
	size_t len = bnd_topostring_length(t, BND_TOPO_OCS) + 1;
	size_t nlen = bnd_topostring_numa_size(t);
	char *sge = malloc(len), *ocs = malloc(len), *numa = malloc(nlen), *plain = malloc(len);
	int rc = SBIND_EXIT_OK;
	if (!sge || !ocs || !numa || !plain ||
	    bnd_topostring_format(t, BND_TOPO_SGE, taken, sge, len) ||
	    bnd_topostring_format(t, BND_TOPO_SGE, NULL, plain, len) ||
	    bnd_topostring_format(t, BND_TOPO_OCS, taken, ocs, len) ||
	    bnd_topostring_numa(t, taken, numa, nlen)) {
		fprintf(stderr, "sbind topology: cannot format the topology string\n");
		rc = SBIND_EXIT_ERROR;
	} else if (!strcmp(format, "json") || !strcmp(format, "uge")) {
		rc = report(t, format, sge, ocs, numa, plain, state, reserve, this_machine);
	} else {
		puts(!strcmp(format, "sge") ? sge : !strcmp(format, "ocs") ? ocs : numa);
	}
	free(sge);
	free(ocs);
	free(numa);
	free(plain);
	return rc;
}

struct topology_opts {
	const char *source, *mask, *state, *format;
	struct bnd_mem_reserve reserve;
};

static int topology_set(void *ctx, int id, const char *arg)
{
	struct topology_opts *o = ctx;
	switch (id) {
	case 't': o->source = arg; break;
	case 'm': o->mask = arg; break;
	case 'S': o->state = arg; break;
	case 'f': o->format = arg; break;
	case 'R': return sbind_parse_reserve("topology", arg, &o->reserve);
	}
	return 0;
}

int sbind_cmd_topology(int argc, char **argv)
{
	struct topology_opts o = { .format = "sge" };
	int prc = sbind_getopt("topology", argc, argv, NULL, NULL, topology_set, &o, NULL);
	if (prc)
		return prc < 0 ? SBIND_EXIT_OK : prc;
	const char *source = o.source, *mask = o.mask, *state = o.state, *format = o.format;
	struct bnd_mem_reserve reserve = o.reserve;
	struct bnd_topology *t = sbind_load_topology(source, sbind_state_dir(state));
	if (!t)
		return print_none(format);
	bnd_cpuset_t taken;
	int rc = sbind_parse_mask(t, mask, &taken);
	if (!rc && state)
		rc = sbind_state_held(state, &taken);
	if (!rc)
		rc = render(t, format, &taken, state, &reserve, !source);
	bnd_topology_free(t);
	return rc;
}
