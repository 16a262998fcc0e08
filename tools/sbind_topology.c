/* sbind topology: the node's topology string, taken units lower case. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/topology/topostring.h"
#include "sbind.h"

static int print_json(const struct bnd_topology *t, const char *sge, const char *ocs)
{
	json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "sge", sge, "ocs", ocs,
			      "sockets", t->nsockets, "cores", t->ncores, "pus", t->npus,
			      "numa_nodes", t->nnuma, "l3", t->nl3, "l2", t->nl2);
	if (!o)
		return SBIND_EXIT_ERROR;
	json_dumpf(o, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(o);
	return SBIND_EXIT_OK;
}

int sbind_cmd_topology(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "mask", required_argument, NULL, 'm' },
		{ "state", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *source = NULL, *mask = NULL, *state = NULL, *format = "sge";
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': source = optarg; break;
		case 'm': mask = optarg; break;
		case 'S': state = optarg; break;
		case 'f': format = optarg; break;
		case 'h':
			puts("usage: sbind topology [--topology SRC] [--mask STR] [--state DIR] "
			     "[--format sge|ocs|json]");
			return SBIND_EXIT_OK;
		default: return SBIND_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sbind topology: unexpected argument \"%s\"\n", argv[optind]);
		return SBIND_EXIT_USAGE;
	}
	if (strcmp(format, "sge") && strcmp(format, "ocs") && strcmp(format, "json")) {
		fprintf(stderr, "sbind topology: --format \"%s\": expected sge, ocs or json\n", format);
		return SBIND_EXIT_USAGE;
	}
	struct bnd_topology *t = sbind_load_topology(source, sbind_state_dir(state));
	if (!t)
		return SBIND_EXIT_ERROR;
	bnd_cpuset_t taken;
	int rc = sbind_parse_mask(t, mask, &taken);
	if (!rc && state)
		rc = sbind_state_held(state, &taken);
	if (rc) {
		bnd_topology_free(t);
		return rc;
	}
	size_t len = bnd_topostring_length(t, BND_TOPO_OCS) + 1;
	char *sge = malloc(len), *ocs = malloc(len);
	if (!sge || !ocs ||
	    bnd_topostring_format(t, BND_TOPO_SGE, &taken, sge, len) ||
	    bnd_topostring_format(t, BND_TOPO_OCS, &taken, ocs, len)) {
		fprintf(stderr, "sbind topology: cannot format the topology string\n");
		rc = SBIND_EXIT_ERROR;
	} else if (!strcmp(format, "json")) {
		rc = print_json(t, sge, ocs);
	} else {
		puts(!strcmp(format, "sge") ? sge : ocs);
	}
	free(sge);
	free(ocs);
	bnd_topology_free(t);
	return rc;
}
