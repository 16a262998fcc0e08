/* sbind: a node's topology, its current bindings, and what a request would
 * get. Its interface (commands, options, output formats, exit codes) is
 * relied on by tests and admins: keep it stable. */
#include <stdio.h>
#include <string.h>

#include "sbind.h"
#include "sbind_opts.h"

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
