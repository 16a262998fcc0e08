#include "binding/request/option.h"

#include <stdlib.h>

#include "binding/request/request.h"
#include "binding/util/error.h"

int bnd_option_check(enum bnd_option which, const char *text, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!text || !*text)
		return bnd_fail(err, errlen, BND_EINVAL, "--%s: a value is required (--%s=help)",
				which == BND_OPT_MBIND ? "mbind" : "binding",
				which == BND_OPT_MBIND ? "mbind" : "binding");
	if (which == BND_OPT_MBIND) {
		enum bnd_mbind m;
		int rc = bnd_mbind_parse(&m, text, err, errlen);
		/* Accepted (Grid Engine scripts carry it), but the user hears now
		 * that it will not do anything yet. */
		if (rc == BND_OK && m == BND_M_NLOCAL)
			bnd_fail(err, errlen, BND_OK, "--mbind=nlocal: not supported yet, the memory "
				 "policy stays the default (use cores, cores:strict or round_robin)");
		return rc;
	}
	struct bnd_request *r = calloc(1, sizeof(*r));
	if (!r)
		return bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	int rc = bnd_request_parse(r, text, err, errlen);
	free(r);
	return rc;
}

const char *bnd_option_help(enum bnd_option which)
{
	return which == BND_OPT_MBIND ? bnd_mbind_help() : bnd_request_help();
}
