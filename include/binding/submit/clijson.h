/* What Slurm's cli_filter hands a script as JSON (cli_filter/lua's
 * slurm.json_cli_options: one object, each option a string member, the
 * plugin's own as "spank:binding" and "spank:mbind", arrays such as argv)
 * read with jansson into the request and the allocation options the
 * translation reads. The filter passes the text on as it is (to the
 * module, or to `sbind submit --cli-json`), so no JSON is read by hand. */
#ifndef BINDING_SUBMIT_CLIJSON_H
#define BINDING_SUBMIT_CLIJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "binding/request/request.h"
#include "binding/submit/allocopt.h"

struct bnd_cli_request {
	char binding[BND_MAX_REQUEST_TEXT]; /* "" when not given */
	char mbind[64];                     /* "" when not given */
};

/* Reads json into req and a (started by bnd_alloc_init): every
 * allocation key (allocopt.h) the object holds, a flag's value as Slurm
 * shows it ("set"). BND_OK, or BND_EINVAL naming what is wrong (not an
 * object, a value too long, an option's bad value, as bnd_alloc_set says). */
int bnd_cli_json_read(const char *json, struct bnd_cli_request *req, struct bnd_alloc *a,
		      char *err, size_t errlen);

/* Whether the submission asks anything of the translation: a --binding,
 * or --mbind=nlocal (which brings a binding of its own). */
bool bnd_cli_request_binds(const struct bnd_cli_request *req);

#endif
