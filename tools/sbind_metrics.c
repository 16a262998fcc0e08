/* sbind metrics: the node's binding state in Prometheus' text format
 * (report/metrics.h), on stdout or into node_exporter's textfile folder. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/report/metrics.h"
#include "binding/state/state.h"
#include "binding/util/error.h"
#include "sbind.h"

static const char usage_text[] =
	"usage: sbind metrics [--state DIR] [--topology SRC] [--mem-reserve SIZE|N%] "
	"[--output FILE]";

/* Without --output: the text on stdout, read without any lock. */
static int print_metrics(const char *dir, const struct bnd_topology *t,
			 const struct bnd_mem_reserve *reserve)
{
	char err[BND_ERRLEN] = "";
	struct bnd_state_opts o = { .dir = dir, .log = sbind_log_stderr };
	struct bnd_state_file f;
	int src = bnd_state_list(&o, &f, err, sizeof(err));
	if (src != BND_OK)
		fprintf(stderr, "sbind metrics: %s\n", err);
	/* a damaged state is shown as it parses (the log says so on stderr);
	 * --output's bnd_metrics_update tells the two apart for state_ok */
	struct bnd_metrics_in in = { t, &f, reserve, src == BND_OK, src == BND_OK };
	char *text = NULL;
	size_t len = 0;
	int rc = bnd_metrics_format(&in, &text, &len, err, sizeof(err));
	bnd_statefile_free(&f);
	if (rc) {
		fprintf(stderr, "sbind metrics: %s\n", err);
		return SBIND_EXIT_ERROR;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	return src == BND_OK ? SBIND_EXIT_OK : SBIND_EXIT_ERROR;
}

int sbind_cmd_metrics(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state", required_argument, NULL, 'S' },
		{ "topology", required_argument, NULL, 't' },
		{ "mem-reserve", required_argument, NULL, 'R' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *state = NULL, *source = NULL, *output = NULL;
	struct bnd_mem_reserve reserve = { 0, 0 };
	char err[BND_ERRLEN] = "";
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'S': state = optarg; break;
		case 't': source = optarg; break;
		case 'o': output = optarg; break;
		case 'R':
			if (bnd_mem_parse_reserve(optarg, &reserve, err, sizeof(err))) {
				fprintf(stderr, "sbind metrics: --mem-reserve: %s\n", err);
				return SBIND_EXIT_USAGE;
			}
			break;
		case 'h': puts(usage_text); return SBIND_EXIT_OK;
		default: return SBIND_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sbind metrics: unexpected argument \"%s\"\n", argv[optind]);
		return SBIND_EXIT_USAGE;
	}
	const char *dir = sbind_state_dir(state);
	/* Without a topology the records and counters are still worth
	 * writing: only the per-socket and per-NUMA gauges go. */
	struct bnd_topology *t = sbind_load_topology(source, dir);
	int rc;
	if (!output) {
		rc = print_metrics(dir, t, &reserve);
	} else {
		rc = bnd_metrics_update(dir, output, t, &reserve, NULL, NULL, err, sizeof(err));
		if (rc)
			fprintf(stderr, "sbind metrics: %s\n", err);
		rc = rc ? SBIND_EXIT_ERROR : SBIND_EXIT_OK;
	}
	bnd_topology_free(t);
	return rc;
}
