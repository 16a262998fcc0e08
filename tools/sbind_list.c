/* sbind --list keys|variables|strategies|options: the tables the plugin works
 * from, one entry a line, for the man-page check (tests/cli/t_manpage.sh),
 * admins and scripts. */
#include <stdio.h>
#include <string.h>

#include "binding/request/config.h"
#include "binding/request/request.h"
#include "binding/task/taskenv.h"
#include "binding/util/error.h"
#include "sbind.h"
#include "sbind_opts.h"

/* name, usage, default, help; tab separated. */
static void list_keys(void)
{
	struct bnd_config_key_info k;
	for (size_t i = 0; bnd_config_key_info(i, &k) == BND_OK; i++)
		printf("%s\t%s\t%s\t%s\n", k.name, k.usage, k.def, k.help);
}

static void list_variables(void)
{
	const char *name;
	for (size_t i = 0; (name = bnd_taskenv_var(i)); i++)
		printf("%s\n", name);
}

/* The request layer's words, in its enum's order. */
static void list_strategies(void)
{
	for (int s = BND_S_NONE; strcmp(bnd_strategy_name((enum bnd_strategy)s), "unknown"); s++)
		printf("%s\n", bnd_strategy_name((enum bnd_strategy)s));
}

int sbind_cmd_list(int argc, char **argv)
{
	const char *what = argc == 2 ? argv[1] : "";
	if (!strcmp(what, "keys"))
		list_keys();
	else if (!strcmp(what, "variables"))
		list_variables();
	else if (!strcmp(what, "strategies"))
		list_strategies();
	else if (!strcmp(what, "options"))
		return sbind_list_options();
	else {
		fprintf(stderr, "sbind: --list \"%s\": expected --list %s\n", what,
			sbind_cmd_find("--list")->operands);
		return SBIND_EXIT_USAGE;
	}
	return SBIND_EXIT_OK;
}
