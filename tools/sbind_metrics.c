/* sbind metrics: the node's binding state in Prometheus' text format
 * (report/metrics.h), on stdout or into node_exporter's textfile folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/report/metrics.h"
#include "binding/state/state.h"
#include "binding/util/error.h"
#include "sbind.h"
#include "sbind_opts.h"

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

struct metrics_opts {
	const char *state, *source, *output;
	struct bnd_mem_reserve reserve;
};

static int metrics_set(void *ctx, int id, const char *arg)
{
	struct metrics_opts *o = ctx;
	switch (id) {
	case 'S': o->state = arg; break;
	case 't': o->source = arg; break;
	case 'o': o->output = arg; break;
	case 'R': return sbind_parse_reserve("metrics", arg, &o->reserve);
	}
	return 0;
}

int sbind_cmd_metrics(int argc, char **argv)
{
	struct metrics_opts mo = { 0 };
	char err[BND_ERRLEN] = "";
	int prc = sbind_getopt("metrics", argc, argv, NULL, NULL, metrics_set, &mo, NULL);
	if (prc)
		return prc < 0 ? SBIND_EXIT_OK : prc;
	const char *state = mo.state, *source = mo.source, *output = mo.output;
	struct bnd_mem_reserve reserve = mo.reserve;
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
