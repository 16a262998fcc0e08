/* Slurm's cli_filter JSON into a request (clijson.h). */
#include "binding/submit/clijson.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "binding/util/error.h"

/* A member's value as text: a string as it is, a number written out (the
 * filter gave a script both); NULL for another type. */
static const char *member_text(json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	return NULL;
}

static int copy_member(json_t *o, const char *name, char *out, size_t len, char *err,
		       size_t errlen)
{
	json_t *v = json_object_get(o, name);
	const char *s = v ? json_string_value(v) : NULL;
	out[0] = '\0';
	if (!v || json_is_null(v))
		return BND_OK;
	if (!s)
		return bnd_fail(err, errlen, BND_EINVAL, "\"%s\" is not a string in Slurm's "
				"options", name);
	if (strlen(s) >= len)
		return bnd_fail(err, errlen, BND_EINVAL, "\"%s\" is longer than %zu characters",
				name, len - 1);
	memcpy(out, s, strlen(s) + 1);
	return BND_OK;
}

static int read_keys(json_t *o, struct bnd_alloc *a, char *err, size_t errlen)
{
	for (const struct bnd_alloc_key *k = bnd_alloc_keys; k->name; k++) {
		char num[32];
		json_t *v = json_object_get(o, k->name);
		const char *text = v ? member_text(v, num, sizeof(num)) : NULL;
		if (!v || json_is_null(v))
			continue;
		if (!text)
			return bnd_fail(err, errlen, BND_EINVAL, "--%s is neither a string nor a "
					"number in Slurm's options", k->name);
		int rc = bnd_alloc_set(a, k->name, text, err, errlen);
		if (rc != BND_OK)
			return rc;
	}
	return BND_OK;
}

int bnd_cli_json_read(const char *json, struct bnd_cli_request *req, struct bnd_alloc *a,
		      char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loads(json ? json : "", JSON_REJECT_DUPLICATES, &je);
	int rc;
	memset(req, 0, sizeof(*req));
	if (!o || !json_is_object(o))
		rc = bnd_fail(err, errlen, BND_EINVAL, "Slurm's options are not a JSON object (%s)",
			      o ? "another JSON value" : je.text);
	else if ((rc = copy_member(o, "spank:binding", req->binding, sizeof(req->binding), err,
				   errlen)) == BND_OK &&
		 (rc = copy_member(o, "spank:mbind", req->mbind, sizeof(req->mbind), err,
				   errlen)) == BND_OK)
		rc = read_keys(o, a, err, errlen);
	json_decref(o);
	return rc;
}

bool bnd_cli_request_binds(const struct bnd_cli_request *req)
{
	return req->binding[0] || !strcmp(req->mbind, "nlocal");
}
