#include "binding/request/option.h"

#include <stdlib.h>
#include <string.h>

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
	struct bnd_option_value *v = calloc(1, sizeof(*v));
	if (!v || bnd_option_value_set(v, which, text) != BND_OK) {
		free(v);
		return bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	}
	int rc = v->rc;
	bnd_fail(err, errlen, rc, "%s", v->err);
	bnd_option_value_clear(v);
	free(v);
	return rc;
}

static int parse(struct bnd_option_value *v, enum bnd_option which)
{
	if (which == BND_OPT_MBIND)
		return bnd_mbind_parse(&v->mbind, v->text, v->err, sizeof(v->err));
	return bnd_request_parse(&v->req, v->text, v->err, sizeof(v->err));
}

int bnd_option_value_set(struct bnd_option_value *v, enum bnd_option which, const char *text)
{
	char *copy = strdup(text ? text : "");
	bnd_option_value_clear(v);
	if (!copy)
		return BND_ENOMEM;
	v->text = copy;
	v->rc = parse(v, which);
	return BND_OK;
}

void bnd_option_value_clear(struct bnd_option_value *v)
{
	free(v->text);
	bnd_request_clear(&v->req);
	memset(v, 0, sizeof(*v));
}

const char *bnd_option_help(enum bnd_option which)
{
	return which == BND_OPT_MBIND ? bnd_mbind_help() : bnd_request_help();
}
