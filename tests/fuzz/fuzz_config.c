/* plugstack.conf arguments: the input split into argv words at newlines
 * (Slurm splits at blanks, so words with blanks are a superset).
 *
 * Properties: a bad word is reported with BND_EINVAL and never crashes;
 * whatever was accepted is a usable configuration: an absolute state dir,
 * a default binding that parses, a valid default unit, a lock timeout in
 * range, not both default= and implicit=yes, and a describe line that fits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding/request/config.h"
#include "binding/util/error.h"
#include "binding/request/request.h"
#include "fuzz.h"

#define MAX_WORDS 64

FUZZ_INITIALIZE_NOTHING

static void check_request(struct bnd_request *r, const char *text)
{
	char err[BND_ERRLEN] = "";
	FUZZ_CHECK(bnd_request_parse(r, text, err, sizeof(err)) == BND_OK,
		   "accepted \"%s\" does not parse: %s", text, err);
	bnd_request_clear(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char *argv[MAX_WORDS];
	int argc = 0;
	for (char *p = text; argc < MAX_WORDS;) {
		argv[argc++] = p;
		p = strchr(p, '\n');
		if (!p)
			break;
		*p++ = '\0';
	}

	struct bnd_config c;
	char *err = malloc(BND_ERRLEN);
	FUZZ_CHECK(err, "out of memory");
	bnd_config_defaults(&c);
	int rc = bnd_config_parse(&c, argc, argv, err, BND_ERRLEN);
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL, "rc %d", rc);
	if (rc != BND_OK)
		fuzz_check_err(err, BND_ERRLEN, "bnd_config_parse");
	else
		FUZZ_CHECK(!err[0], "accepted, but err says \"%s\"", err);

	FUZZ_CHECK(c.state_dir[0] == '/' && memchr(c.state_dir, '\0', sizeof(c.state_dir)),
		   "state_dir \"%s\"", c.state_dir);
	FUZZ_CHECK(c.enabled == 0 || c.enabled == 1, "enabled %d", c.enabled);
	FUZZ_CHECK(c.verbose == 0 || c.verbose == 1, "verbose %d", c.verbose);
	FUZZ_CHECK(c.implicit == 0 || c.implicit == 1, "implicit %d", c.implicit);
	FUZZ_CHECK(c.filter == BND_FILTER_NONE || c.filter == BND_FILTER_FIRST_CORE, "filter %d",
		   (int)c.filter);
	FUZZ_CHECK(!c.default_req == !c.default_spec[0], "default= \"%s\" and its parse %p",
		   c.default_spec, (void *)c.default_req);
	FUZZ_CHECK(c.on_failure == BND_ONFAIL_UNBOUND || c.on_failure == BND_ONFAIL_FAIL ||
			   c.on_failure == BND_ONFAIL_DEFER,
		   "on_failure %d", c.on_failure);
	FUZZ_CHECK(c.lock_timeout_ms >= 1 && c.lock_timeout_ms <= 3600 * 1000, "timeout %d ms",
		   c.lock_timeout_ms);
	FUZZ_CHECK(!(c.implicit && c.default_spec[0]), "both default= and implicit=yes");
	struct bnd_request *r = malloc(sizeof(*r));
	FUZZ_CHECK(r, "out of memory");
	FUZZ_CHECK(memchr(c.default_spec, '\0', sizeof(c.default_spec)), "default unterminated");
	if (c.default_spec[0])
		check_request(r, c.default_spec);
	char unit[32];
	FUZZ_CHECK(memchr(c.default_unit, '\0', sizeof(c.default_unit)), "unit unterminated");
	snprintf(unit, sizeof(unit), "packed:1:unit=%s", c.default_unit);
	check_request(r, unit);
	free(r);

	/* state_dir, default= and the fixed words fit in this. */
	char line[BND_CONFIG_PATH_MAX + BND_MAX_REQUEST_TEXT + 256];
	FUZZ_CHECK(bnd_config_describe(&c, line, sizeof(line)) == BND_OK, "describe");
	char tiny[8];
	FUZZ_CHECK(bnd_config_describe(&c, tiny, sizeof(tiny)) == BND_EINVAL &&
		   strlen(tiny) < sizeof(tiny), "describe into 8 bytes");
	bnd_config_clear(&c);
	free(err);
	free(text);
	return 0;
}
