/* The plugin's plugstack.conf arguments.
 *
 * Slurm hands a SPANK plugin the words after its path in plugstack.conf;
 * this module turns them into a struct. A bad word never stops the plugin:
 * it is reported and the setting keeps its safe default, because a typo in
 * a site config must not make every job on the node fail.
 */
#ifndef BINDING_CONFIG_H
#define BINDING_CONFIG_H

#include <stddef.h>

#include "binding/request/request.h"
#include "binding/util/defaults.h"

#define BND_CONFIG_PATH_MAX 1024
#define BND_DEFAULT_UNIT "C"

enum bnd_on_failure {
	BND_ONFAIL_UNBOUND = 0, /* task runs unbound, says why */
	BND_ONFAIL_FAIL,        /* task fails in task_init */
};

struct bnd_config {
	char state_dir[BND_CONFIG_PATH_MAX];
	int enabled;
	/* Binding for jobs that give no --binding; "" means none. */
	char default_spec[BND_MAX_REQUEST_TEXT];
	enum bnd_on_failure on_failure;
	int lock_timeout_ms;
	int verbose;
	/* filter=first_core: the first core of the first socket is left to
	 * the system; its cpus are taken for every placement. */
	int filter_first_core;
	/* implicit=yes: a job without --binding (and without default=) gets
	 * packed:<its cpus per task in default_unit units>:unit=<default_unit>. */
	int implicit;
	char default_unit[3];   /* a packed unit= value; "C" */
};

void bnd_config_defaults(struct bnd_config *c);

/* Parses plugstack.conf arguments into c (which starts from the defaults).
 *   state_dir=/abs/path   enabled=yes|no   default=SPEC
 *   on_failure=unbound|fail   lock_timeout=SECONDS (e.g. 10, 2.5)
 *   verbose  (or verbose=yes|no)   filter=first_core|none
 *   implicit=yes|no   default_unit=T|CT|ET|C|E|S|CS|ES|X|CX|EX|Y|CY|EY|N|CN|EN
 * Returns BND_OK, or BND_EINVAL when at least one argument was unknown or
 * malformed: err then lists every bad one ("; "-separated) and each of them
 * kept its default; the good ones are applied.
 * default= together with implicit=yes is a conflict reported the same way:
 * default= wins (the admin wrote that binding out in full) and implicit
 * keeps its default, no. */
int bnd_config_parse(struct bnd_config *c, int argc, char *const argv[],
		     char *err, size_t errlen);

const char *bnd_on_failure_name(enum bnd_on_failure f);

/* One line describing the effective settings, for the log. */
int bnd_config_describe(const struct bnd_config *c, char *buf, size_t buflen);

#endif
