/* sbind: a node's topology, its current bindings, and what a request would
 * get. Its interface (commands, options, output formats, exit codes) is
 * relied on by tests and admins: keep it stable. */
#include <stdio.h>
#include <string.h>

#include "binding/request/request.h"
#include "binding/util/error.h"
#include "sbind.h"
#include "sbind_opts.h"
#include "sbind_state.h"

/* sbind --help: the commands from the option table (sbind_opts.c), then
 * what they share. */
static const char usage_head[] =
	"usage: sbind <command> [options]\n"
	"\n"
	"commands:\n";

static const char usage_tail[] =
"\n"
	"SRC: an hwloc synthetic description (\"pack:2 core:4 pu:2\"), an hwloc XML\n"
	"file, or a topology cache file (*.cache: the state dir's topology.cache,\n"
	"as the plugin reads it, checked for this boot); default: this machine\n"
	"(through the state dir's topology cache).\n"
	"Exit: 0 ok/bound, 1 error, 2 bad input, 3 no binding possible.\n"
	"\n"
	"examples:\n"
	"  sbind topology --topology \"pack:2 core:2\"                  -> SCCSCC\n"
	"  sbind place --topology \"pack:2 core:2\" --binding striding:2:2 --format sge\n"
	"                                                             -> ScCScC\n"
	"  sbind place --topology \"pack:2 core:4\" --binding linear:2 --tasks 4\n"
	"  sbind place --binding linear:1 --commit --job 7 --step 0\n"
	"  sbind place --topology X.xml --binding gpu:4 --tasks 2 --gpus nvml0,nvml5\n"
	"                        (the step's GPUs, by OS device name or PCI bus id)\n"
	"  sbind place --binding help                                 (the grammar)\n"
	"  sbind submit --binding linear:2 -n 4      -> --cpus-per-task=2 --threads-per-core=1\n";

int sbind_help(FILE *f)
{
	fputs(usage_head, f);
	if (sbind_cmds_usage(f))
		return SBIND_EXIT_ERROR;
	fputs(usage_tail, f);
	fprintf(f, "\n%s\n%s", bnd_request_help(), bnd_mbind_help());
	return SBIND_EXIT_OK;
}

/* sbind complete binding|mbind: the words of the tables of strategies
 * and memory policies (request.h); the rest from the option table
 * (sbind_complete_table): the completion never lists a word by hand. */
int sbind_cmd_complete(int argc, char **argv)
{
	char words[1024];
	int binding = argc == 2 && !strcmp(argv[1], "binding");
	if (argc != 2 || (!binding && strcmp(argv[1], "mbind")))
		return sbind_complete_table(argc, argv);
	if ((binding ? bnd_request_words(' ', words, sizeof(words))
		     : bnd_mbind_words(' ', words, sizeof(words))) != BND_OK) {
		fprintf(stderr, "sbind complete: the words do not fit\n");
		return SBIND_EXIT_ERROR;
	}
	printf("%s%s\n", binding ? "help " : "", words);
	return SBIND_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		sbind_help(stderr);
		return SBIND_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	const struct sbind_cmd *c = sbind_cmd_find(!strcmp(cmd, "-h") || !strcmp(cmd, "help")
						   ? "--help" : !strcmp(cmd, "-V") ? "--version" : cmd);
	if (c)
		return c->run(argc - 1, argv + 1);
	fprintf(stderr, "sbind: unknown command \"%s\" (expected", cmd);
	for (c = sbind_cmds; c->name; c++)
		fprintf(stderr, "%s%s", c == sbind_cmds ? " " : c[1].name ? ", " : " or ", c->name);
	fputs(")\n", stderr);
	return SBIND_EXIT_USAGE;
}
