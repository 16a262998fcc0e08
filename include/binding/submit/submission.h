/* One submission at this site, as its cli_filter runs it (the Lua module
 * and `sbind submit`): the options the binding needs (translate.h), then
 * the numamem request its --mbind needs when the site runs numamem
 * (numamem.h). */
#ifndef BINDING_SUBMIT_SUBMISSION_H
#define BINDING_SUBMIT_SUBMISSION_H

#include <stddef.h>

#include "binding/submit/siteconf.h"
#include "binding/submit/translate.h"

/* bnd_submit_translate's returns; out holds both parts' options. */
int bnd_submit_at_site(const struct bnd_request *r, enum bnd_mbind mbind,
		       const struct bnd_alloc *a, const struct bnd_submit_site *site,
		       struct bnd_submit *out, char *err, size_t errlen);

#endif
