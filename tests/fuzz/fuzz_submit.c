/* The submit translation's input (lib/submit): the first line is a
 * --binding value, the second a --mbind value, the rest "name=value"
 * allocation options as a cli_filter passes them (what users type into
 * srun/sbatch/salloc); the first byte picks the command and the site's
 * mode. The whole input is also scanned as a plugstack.conf.
 *
 * Properties: options are accepted or refused with a message, never a
 * crash; a translated request gives options that are well formed (known
 * Slurm names, a number or the flag itself, a reason each) and fit the
 * text buffer; a refusal has a message; translating again with the
 * options added changes nothing (the filter's answer is a fixed point:
 * what it adds is enough). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding/submit/allocopt.h"
#include "binding/submit/siteconf.h"
#include "binding/submit/translate.h"
#include "fuzz.h"

#define MAX_OPTS 32

FUZZ_INITIALIZE_NOTHING

static char *next_line(char **p)
{
	char *line = *p, *nl = line ? strchr(line, '\n') : NULL;
	if (nl)
		*nl = '\0';
	*p = nl ? nl + 1 : NULL;
	return line;
}

static void check_result(const struct bnd_submit *s)
{
	char opts[BND_SUBMIT_TEXT];
	FUZZ_CHECK(s->nset >= 0 && s->nset <= BND_SUBMIT_MAX_SET, "nset %d", s->nset);
	for (int i = 0; i < s->nset; i++) {
		const struct bnd_submit_opt *o = &s->set[i];
		struct bnd_alloc a;
		char err[BND_ERRLEN];
		bnd_alloc_init(&a, BND_CMD_SBATCH);
		FUZZ_CHECK(o->why[0], "--%s without a reason", o->name);
		FUZZ_CHECK(bnd_alloc_set(&a, o->name, o->value, err, sizeof(err)) == BND_OK,
			   "added --%s=%s is not an option it reads back: %s", o->name, o->value, err);
	}
	FUZZ_CHECK(bnd_submit_options_text(s, opts, sizeof(opts)) == BND_OK, "options text too long");
}

/* The options added, given as the user's own, need nothing more. */
static void check_fixed_point(const struct bnd_request *r, enum bnd_mbind m,
			      const struct bnd_alloc *a, const struct bnd_submit *s)
{
	struct bnd_alloc more = *a;
	struct bnd_submit *again = malloc(sizeof(*again));
	char err[BND_ERRLEN] = "";
	FUZZ_CHECK(again, "out of memory");
	for (int i = 0; i < s->nset; i++)
		FUZZ_CHECK(bnd_alloc_set(&more, s->set[i].name, s->set[i].value, err, sizeof(err)) ==
			   BND_OK, "%s", err);
	int rc = bnd_submit_translate(r, m, &more, BND_SUBMIT_TRANSLATE, again, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK, "with its own options added, refused: %s", err);
	FUZZ_CHECK(again->nset == 0, "with its own options added, still adds --%s",
		   again->set[0].name);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = fuzz_cstr(data + 1, size - 1), *p = text;
	struct bnd_request *r = calloc(1, sizeof(*r));
	struct bnd_submit *s = malloc(sizeof(*s));
	struct bnd_alloc a;
	struct bnd_config cfg;
	char err[BND_ERRLEN] = "";
	enum bnd_mbind m = BND_M_NONE;
	enum bnd_submit_mode mode = (enum bnd_submit_mode)(data[0] % 3);
	int found = 0;
	FUZZ_CHECK(r && s, "out of memory");
	bnd_config_defaults(&cfg);
	bnd_siteconf_scan_plugstack(text, &cfg, &found, NULL, NULL);
	bnd_alloc_init(&a, (enum bnd_submit_cmd)((data[0] / 3) % 3));
	const char *binding = next_line(&p), *mbind = next_line(&p);
	if (!binding || bnd_request_parse(r, binding, err, sizeof(err)) != BND_OK ||
	    (mbind && *mbind && bnd_mbind_parse(&m, mbind, err, sizeof(err)) != BND_OK))
		goto out;
	for (int n = 0; p && n < MAX_OPTS; n++) {
		char *opt = next_line(&p), *eq = strchr(opt, '=');
		if (eq)
			*eq = '\0';
		err[0] = '\0';
		if (bnd_alloc_set(&a, opt, eq ? eq + 1 : NULL, err, sizeof(err)) != BND_OK)
			fuzz_check_err(err, sizeof(err), "bnd_alloc_set");
	}
	int rc = bnd_submit_translate(r, m, &a, mode, s, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_ENOFIT, "rc %d: %s", rc, err);
	FUZZ_CHECK(memchr(s->what, '\0', sizeof(s->what)), "what unterminated");
	if (rc != BND_OK) {
		fuzz_check_err(err, sizeof(err), "bnd_submit_translate");
		goto out;
	}
	check_result(s);
	if (mode == BND_SUBMIT_TRANSLATE)
		check_fixed_point(r, m, &a, s);
out:
	bnd_config_clear(&cfg);
	bnd_request_clear(r);
	free(r);
	free(s);
	free(text);
	return 0;
}
