/* sbind topology: the node's topology string, taken units lower case. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/memory/memacct.h"
#include "binding/state/state.h"
#include "binding/topology/topostring.h"
#include "sbind.h"

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

/* Per node: size, the accounting (capacity after the reserve, reserved by
 * records, free) and the kernel's free memory when this is the machine. */
static json_t *numa_json(const struct bnd_topology *t, const uint64_t *used,
			 const struct bnd_mem_reserve *reserve, int this_machine)
{
	json_t *a = json_array();
	uint64_t *cap = calloc((size_t)t->nnuma + 1, sizeof(*cap));
	if (cap)
		bnd_mem_capacity(t, reserve, cap);
	for (int n = 0; a && cap && n < t->nnuma; n++) {
		char cpus[BND_MAX_CPUS * 6];
		bnd_cpuset_format_list(&t->numa_cpus[n], cpus, sizeof(cpus));
		json_t *dist = json_array();
		for (int m = 0; dist && m < t->nnuma; m++)
			json_array_append_new(dist, json_integer(bnd_topology_numa_distance(t, n, m)));
		uint64_t total = t->numa_mem[n] >> 20;
		json_array_append_new(a, json_pack(
			"{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:o}", "node", t->numa_os[n], "cpus", cpus,
			"total_mib", (json_int_t)total, "reserved_os_mib", (json_int_t)(total - cap[n]),
			"reserved_jobs_mib", (json_int_t)used[n],
			"free_mib", (json_int_t)(cap[n] > used[n] ? cap[n] - used[n] : 0),
			"kernel_free_mib", (json_int_t)(this_machine ? kernel_free_mib(t->numa_os[n]) : -1),
			"distances", dist));
	}
	free(cap);
	return a;
}

static int print_json(const struct bnd_topology *t, const char *sge, const char *ocs,
		      const char *numa_str, json_t *numa)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:{s:I, s:I, s:I}, s:o}",
			      "sge", sge, "ocs", ocs, "numa", numa_str,
			      "sockets", t->nsockets, "cores", t->ncores, "pus", t->npus,
			      "numa_nodes", t->nnuma, "l3", t->nl3, "l2", t->nl2,
			      "cache_bytes", "l1", (json_int_t)t->cache_size[1],
			      "l2", (json_int_t)t->cache_size[2], "l3", (json_int_t)t->cache_size[3],
			      "numa_memory", numa);
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
		puts("NONE");
	}
	return SBIND_EXIT_ERROR;
}

int sbind_cmd_topology(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "mask", required_argument, NULL, 'm' },
		{ "state", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "mem-reserve", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *source = NULL, *mask = NULL, *state = NULL, *format = "sge";
	struct bnd_mem_reserve reserve = { 0, 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': source = optarg; break;
		case 'm': mask = optarg; break;
		case 'S': state = optarg; break;
		case 'f': format = optarg; break;
		case 'R': {
			char err[BND_ERRLEN];
			if (bnd_mem_parse_reserve(optarg, &reserve, err, sizeof(err))) {
				fprintf(stderr, "sbind topology: --mem-reserve: %s\n", err);
				return SBIND_EXIT_USAGE;
			}
			break;
		}
		case 'h':
			puts("usage: sbind topology [--topology SRC] [--mask STR] [--state DIR] "
			     "[--mem-reserve SIZE|N%] [--format sge|ocs|numa|json]");
			return SBIND_EXIT_OK;
		default: return SBIND_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sbind topology: unexpected argument \"%s\"\n", argv[optind]);
		return SBIND_EXIT_USAGE;
	}
	if (strcmp(format, "sge") && strcmp(format, "ocs") && strcmp(format, "json") &&
	    strcmp(format, "numa")) {
		fprintf(stderr, "sbind topology: --format \"%s\": expected sge, ocs, numa or json\n",
			format);
		return SBIND_EXIT_USAGE;
	}
	struct bnd_topology *t = sbind_load_topology(source, sbind_state_dir(state));
	if (!t)
		return print_none(format);
	bnd_cpuset_t taken;
	int rc = sbind_parse_mask(t, mask, &taken);
	if (!rc && state)
		rc = sbind_state_held(state, &taken);
	if (rc) {
		bnd_topology_free(t);
		return rc;
	}
	size_t len = bnd_topostring_length(t, BND_TOPO_OCS) + 1;
	size_t nlen = 2 * (size_t)t->ncores + 2 * (size_t)t->nnuma + 1;
	char *sge = malloc(len), *ocs = malloc(len), *numa = malloc(nlen);
	uint64_t *used = calloc((size_t)t->nnuma + 1, sizeof(*used));
	if (!sge || !ocs || !numa || !used ||
	    bnd_topostring_format(t, BND_TOPO_SGE, &taken, sge, len) ||
	    bnd_topostring_format(t, BND_TOPO_OCS, &taken, ocs, len) ||
	    bnd_topostring_numa(t, &taken, numa, nlen)) {
		fprintf(stderr, "sbind topology: cannot format the topology string\n");
		rc = SBIND_EXIT_ERROR;
	} else if (!strcmp(format, "json")) {
		if (state) {
			struct bnd_state_opts so = { .dir = state, .log = sbind_log_stderr };
			struct bnd_state_file f;
			char err[BND_ERRLEN];
			if (bnd_state_list(&so, &f, err, sizeof(err)) == BND_OK) {
				if (bnd_state_mem_used(t, &f, 0, used)) {
					fprintf(stderr, "sbind topology: out of memory\n");
					rc = SBIND_EXIT_ERROR;
				}
				bnd_statefile_free(&f);
			}
		}
		if (!rc)
			rc = print_json(t, sge, ocs, numa, numa_json(t, used, &reserve, !source));
	} else {
		puts(!strcmp(format, "sge") ? sge : !strcmp(format, "ocs") ? ocs : numa);
	}
	free(sge);
	free(ocs);
	free(numa);
	free(used);
	bnd_topology_free(t);
	return rc;
}
