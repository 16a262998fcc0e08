/* sbind submit: the Slurm options a --binding/--mbind request needs from
 * the allocation, given the options the user gave (lib/submit), or why it
 * is refused. The cli_filter runs it and reads its text; admins and users
 * run it to see and test the translation without a cluster. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/submit/allocopt.h"
#include "binding/submit/clijson.h"
#include "binding/submit/siteconf.h"
#include "binding/submit/submission.h"
#include "binding/submit/translate.h"
#include "binding/util/error.h"
#include "binding/util/textfile.h"
#include "sbind.h"
#include "sbind_opts.h"

struct submit_opts {
	const char *binding, *mbind, *format, *slurm_conf, *cli_json;
	int mode_given, list, site, numamem_given;
	enum bnd_submit_mode mode;
	struct bnd_numamem_site numamem;
	struct bnd_alloc alloc;
};

static const char *need_unit_name(enum bnd_need_unit u)
{
	return u == BND_NEED_THREAD ? "thread" : u == BND_NEED_CORE ? "core"
		: u == BND_NEED_SOCKET ? "socket" : "none";
}

/* After the table's options (sbind_opts.c): the Slurm options it reads,
 * from the library's table (allocopt.h). */
void sbind_submit_help(FILE *f)
{
	fputs("SLURM OPTIONS, as srun/sbatch/salloc spell them:\n", f);
	for (const struct bnd_alloc_key *k = bnd_alloc_keys; k->name; k++) {
		char left[64];
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s%s", k->short_opt ? "-" : "",
			 k->short_opt ? k->short_opt : ' ', k->short_opt ? ", " : "  ", k->name,
			 k->arg == BND_ARG_OPTIONAL ? "[=" : k->arg ? "=" : "",
			 k->value ? k->value : "", k->arg == BND_ARG_OPTIONAL ? "]" : "");
		fprintf(f, "  %s\n", left + (k->short_opt ? 0 : 1));
	}
	fputs("--jobid (srun inside an allocation) asks for a step of that job.\n"
	      "Exit 3: refused, with the reason.\n", f);
}

const char *sbind_submit_words(const char *option)
{
	for (const struct bnd_alloc_key *k = bnd_alloc_keys; k->name; k++)
		if (!strncmp(option, "--", 2) && !strcmp(option + 2, k->name) && k->value &&
		    strchr(k->value, '|'))
			return k->value;
	return NULL;
}

/* getopt's rows for the Slurm options, one per allocation key, and
 * their short letters. */
static struct option *key_options(char *shorts, size_t slen)
{
	size_t nkeys = 0, used = 0;
	while (bnd_alloc_keys[nkeys].name)
		nkeys++;
	struct option *o = calloc(nkeys + 1, sizeof(*o));
	if (!o)
		return NULL;
	for (size_t i = 0; i < nkeys; i++) {
		const struct bnd_alloc_key *k = &bnd_alloc_keys[i];
		/* A flag takes an ignored value too: a cli_filter shows it as
		 * "set", and passes --overcommit=set on. */
		o[i] = (struct option){ k->name, k->arg == BND_ARG_REQUIRED ? required_argument
					: optional_argument, NULL, SO_KEY0 + (int)i };
		if (k->short_opt && used + 3 < slen) {
			shorts[used++] = k->short_opt;
			if (k->arg == BND_ARG_REQUIRED)
				shorts[used++] = ':';
		}
	}
	shorts[used] = '\0';
	return o;
}

static int key_of_short(int c)
{
	for (int i = 0; bnd_alloc_keys[i].name; i++)
		if (bnd_alloc_keys[i].short_opt == c)
			return i;
	return -1;
}

static int one_opt(void *ctx, int c, const char *arg)
{
	struct submit_opts *o = ctx;
	char err[BND_ERRLEN] = "";
	int key = c >= SO_KEY0 ? c - SO_KEY0 : key_of_short(c);
	switch (c) {
	case SO_BINDING: o->binding = arg; return 0;
	case SO_MBIND: o->mbind = arg; return 0;
	case SO_FORMAT: o->format = arg; return 0;
	case SO_SLURM_CONF: o->slurm_conf = arg; return 0;
	case SO_LIST: o->list = 1; return 0;
	case SO_SITE: o->site = 1; return 0;
	case SO_CLI_JSON: o->cli_json = arg; return 0;
	case SO_NUMAMEM_GRES:
		o->numamem_given = o->numamem.on = 1;
		bnd_numamem_site_add(&o->numamem, arg);
		return 0;
	case SO_COMMAND:
		/* parse_opts read it first: --jobid depends on it */
		if (bnd_submit_cmd_parse(arg, &o->alloc.cmd, err, sizeof(err)) == BND_OK)
			return 0;
		break;
	case SO_MODE:
		o->mode_given = 1;
		if (bnd_submit_mode_parse(arg, &o->mode, err, sizeof(err)) == BND_OK)
			return 0;
		break;
	default:
		if (key < 0)
			return SBIND_EXIT_USAGE;
		if (bnd_alloc_set(&o->alloc, bnd_alloc_keys[key].name, arg, err, sizeof(err)) ==
		    BND_OK)
			return 0;
	}
	fprintf(stderr, "sbind submit: %s\n", err);
	return SBIND_EXIT_USAGE;
}

static int parse_opts(int argc, char **argv, struct submit_opts *o)
{
	char shorts[32];
	struct option *keys = key_options(shorts, sizeof(shorts));
	enum bnd_submit_cmd cmd = BND_CMD_SRUN;
	if (!keys)
		return SBIND_EXIT_ERROR;
	*o = (struct submit_opts){ .format = "text" };
	/* The command decides what --jobid means: find it first. */
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--command"))
			bnd_submit_cmd_parse(argv[i + 1], &cmd, NULL, 0);
		else if (!strncmp(argv[i], "--command=", 10))
			bnd_submit_cmd_parse(argv[i] + 10, &cmd, NULL, 0);
	bnd_alloc_init(&o->alloc, cmd);
	int rc = sbind_getopt("submit", argc, argv, shorts, keys, one_opt, o, NULL);
	free(keys);
	return rc;
}

static void print_text(const struct bnd_submit *s, enum bnd_submit_mode mode, const char *why,
		       const char *refused)
{
	char opts[BND_SUBMIT_TEXT];
	printf("request: %s\n", s->what);
	if (refused) {
		printf("refused: %s\n", refused);
		return;
	}
	bnd_submit_options_text(s, opts, sizeof(opts));
	if (mode == BND_SUBMIT_OFF)
		printf("options: none (submit=off: %s)\n", why);
	else
		printf("options: %s\n", *opts ? opts : "none");
	for (int i = 0; i < s->nset; i++) {
		const struct bnd_submit_opt *o = &s->set[i];
		/* a flag (--exclusive) has its name as its value */
		if (!strcmp(o->name, o->value))
			printf("set --%s: %s\n", o->name, o->why);
		else
			printf("set --%s=%s: %s\n", o->name, o->value, o->why);
	}
	for (int i = 0; i < s->nnotes; i++)
		printf("note: %s\n", s->notes[i]);
}

static void print_json(const struct bnd_submit *s, const struct bnd_alloc *a,
		       enum bnd_submit_mode mode, const char *why, const char *refused)
{
	char opts[BND_SUBMIT_TEXT];
	json_t *set = json_array(), *notes = json_array();
	bnd_submit_options_text(s, opts, sizeof(opts));
	for (int i = 0; !refused && i < s->nset; i++)
		json_array_append_new(set, json_pack("{s:s, s:s, s:s}", "option", s->set[i].name,
						     "value", s->set[i].value, "why", s->set[i].why));
	for (int i = 0; !refused && i < s->nnotes; i++)
		json_array_append_new(notes, json_string(s->notes[i]));
	json_t *need = json_pack("{s:s, s:s, s:i, s:i, s:b, s:b}", "unit",
				 need_unit_name(s->need.unit), "per",
				 s->need.scope == BND_NEED_PER_NODE ? "node" : "task", "amount",
				 s->need.amount, "span", s->need.span, "named", s->need.named,
				 "whole_node", bnd_need_whole_node(&s->need));
	json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:o, s:s, s:o, s:o, s:o}",
			      "request", s->what, "command", bnd_submit_cmd_name(a->cmd), "mode",
			      bnd_submit_mode_name(mode), "step", a->in_job, "mode_from", why,
			      "need", need, "options", refused ? "" : opts, "set", set, "notes", notes,
			      "refused", refused ? json_string(refused) : json_null());
	json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

static void list_options(void)
{
	for (const struct bnd_alloc_key *k = bnd_alloc_keys; k->name; k++)
		printf("%s\n", k->name);
}

/* --cli-json FILE: the request and the options from Slurm's JSON
 * (submit/clijson.h) into o, their values said first for the filter
 * (its check of a heterogeneous job's components). -1: nothing asked,
 * said so (the filter leaves the submission as it is). */
static int read_cli_json(struct submit_opts *o, struct bnd_cli_request *req)
{
	char err[BND_ERRLEN] = "", *json = NULL;
	size_t len;
	const char *path = !strcmp(o->cli_json, "-") ? "/dev/stdin" : o->cli_json;
	int rc = bnd_textfile_read(path, 1 << 24, &json, &len, err, sizeof(err));
	if (rc == BND_OK)
		rc = bnd_cli_json_read(json, req, &o->alloc, err, sizeof(err));
	free(json);
	if (rc != BND_OK) {
		fprintf(stderr, "sbind submit: --cli-json: %s\n", err);
		return rc == BND_EINVAL ? SBIND_EXIT_USAGE : SBIND_EXIT_ERROR;
	}
	printf("binding: %s\nmbind: %s\n", req->binding[0] ? req->binding : "none",
	       req->mbind[0] ? req->mbind : "none");
	if (!bnd_cli_request_binds(req)) {
		puts("untouched: neither --binding nor --mbind=nlocal");
		return -1;
	}
	o->binding = req->binding[0] ? req->binding : o->binding;
	o->mbind = req->mbind[0] ? req->mbind : o->mbind;
	return 0;
}

int sbind_cmd_submit(int argc, char **argv)
{
	struct submit_opts o;
	struct bnd_cli_request req;
	char err[BND_ERRLEN] = "";
	int rc = parse_opts(argc, argv, &o);
	if (!rc && o.cli_json)
		rc = read_cli_json(&o, &req);
	if (rc)
		return rc < 0 ? SBIND_EXIT_OK : rc;
	if (o.list) {
		list_options();
		return SBIND_EXIT_OK;
	}
	if (o.site) {
		struct bnd_submit_site site;
		bnd_siteconf_submit(o.slurm_conf, &site);
		printf("site: submit=%s submit_error=%s (%s)\n", bnd_submit_mode_name(site.mode),
		       bnd_submit_error_name(site.on_error), site.why);
		return SBIND_EXIT_OK;
	}
	enum bnd_mbind mbind = BND_M_NONE;
	if (o.mbind && bnd_mbind_parse(&mbind, o.mbind, err, sizeof(err)) != BND_OK) {
		fprintf(stderr, "sbind submit: %s\n", err);
		return SBIND_EXIT_USAGE;
	}
	struct bnd_request *r = calloc(1, sizeof(*r));
	struct bnd_submit *s = calloc(1, sizeof(*s));
	if (!r || !s) {
		free(r), free(s);
		fprintf(stderr, "sbind submit: out of memory\n");
		return SBIND_EXIT_ERROR;
	}
	rc = bnd_request_parse(r, o.binding ? o.binding : "none", err, sizeof(err));
	if (rc != BND_OK) {
		fprintf(stderr, "sbind submit: %s\n", err);
		bnd_request_clear(r);
		free(r), free(s);
		return SBIND_EXIT_USAGE;
	}
	struct bnd_submit_site site;
	bnd_siteconf_submit(o.slurm_conf, &site);
	if (o.mode_given) {
		site.mode = o.mode;
		snprintf(site.why, sizeof(site.why), "--mode %s", bnd_submit_mode_name(o.mode));
	}
	if (o.numamem_given)
		site.numamem = o.numamem;
	o.mode = site.mode;
	rc = bnd_submit_at_site(r, mbind, &o.alloc, &site, s, err, sizeof(err));
	if (rc != BND_OK && rc != BND_ENOFIT) {
		fprintf(stderr, "sbind submit: %s\n", err);
	} else if (!strcmp(o.format, "json")) {
		print_json(s, &o.alloc, o.mode, site.why, rc == BND_ENOFIT ? err : NULL);
	} else {
		print_text(s, o.mode, site.why, rc == BND_ENOFIT ? err : NULL);
	}
	bnd_request_clear(r);
	free(r), free(s);
	return sbind_exit_of(rc);
}
