/* sbind submit: the Slurm options a --binding/--mbind request needs from
 * the allocation, given the options the user gave (lib/submit), or why it
 * is refused. The cli_filter runs it and reads its text; admins and users
 * run it to see and test the translation without a cluster. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/submit/allocopt.h"
#include "binding/submit/siteconf.h"
#include "binding/submit/submission.h"
#include "binding/submit/translate.h"
#include "binding/util/error.h"
#include "sbind.h"

enum { OPT_BINDING = 1000, OPT_MBIND, OPT_COMMAND, OPT_MODE, OPT_FORMAT, OPT_SLURM_CONF,
       OPT_LIST, OPT_SITE, OPT_HELP, OPT_NUMAMEM_GRES, OPT_KEY0 };

struct submit_opts {
	const char *binding, *mbind, *format, *slurm_conf;
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

static void usage(FILE *f)
{
	fputs("usage: sbind submit [--binding SPEC] [--mbind SPEC] [--command srun|sbatch|salloc]\n"
	      "                    [--mode translate|refuse|off] [--slurm-conf PATH] [--site]\n"
	      "                    [--format text|json] [SLURM OPTIONS]\n"
	      "       sbind submit --list-options\n"
	      "  the Slurm options the request needs from the allocation, given the\n"
	      "  allocation options the user gave (exit 3: refused, with the reason).\n"
	      "  SLURM OPTIONS, as srun/sbatch/salloc spell them:\n", f);
	for (const struct bnd_alloc_key *k = bnd_alloc_keys; k->name; k++) {
		char left[64];
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s%s", k->short_opt ? "-" : "",
			 k->short_opt ? k->short_opt : ' ', k->short_opt ? ", " : "  ", k->name,
			 k->arg == BND_ARG_OPTIONAL ? "[=" : k->arg ? "=" : "",
			 k->value ? k->value : "", k->arg == BND_ARG_OPTIONAL ? "]" : "");
		fprintf(f, "    %s\n", left + (k->short_opt ? 0 : 1));
	}
	fputs("  --jobid (srun inside an allocation) asks for a step of that job.\n"
	      "  --list-options prints the Slurm option names above, one per line (the\n"
	      "  ones the cli_filter passes on, and the only ones it sets).\n"
	      "  --site prints the site's settings for the filter (submit=, submit_error=)\n"
	      "  and where they come from.\n"
	      "  --mode: the site's plugstack.conf submit= by default (slurm.conf's\n"
	      "  PlugStackConfig, from --slurm-conf or $SLURM_CONF).\n"
	      "  --numamem-gres GRES: numamem=yes with a node line's Gres= value\n"
	      "  (numamem:n0:497M,numamem:n1:503M; repeat for more node lines) instead\n"
	      "  of the site's plugstack.conf numamem= and slurm.conf's node lines.\n", f);
}

/* getopt's table: sbind's own options, then one per allocation key. */
static struct option *long_options(char *shorts, size_t slen)
{
	static const struct option own[] = {
		{ "binding", required_argument, NULL, OPT_BINDING },
		{ "mbind", required_argument, NULL, OPT_MBIND },
		{ "command", required_argument, NULL, OPT_COMMAND },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "slurm-conf", required_argument, NULL, OPT_SLURM_CONF },
		{ "list-options", no_argument, NULL, OPT_LIST },
		{ "site", no_argument, NULL, OPT_SITE },
		{ "numamem-gres", required_argument, NULL, OPT_NUMAMEM_GRES },
		{ "help", no_argument, NULL, OPT_HELP },
	};
	size_t nown = sizeof(own) / sizeof(own[0]), nkeys = 0, used = 0;
	while (bnd_alloc_keys[nkeys].name)
		nkeys++;
	struct option *o = calloc(nown + nkeys + 1, sizeof(*o));
	if (!o)
		return NULL;
	memcpy(o, own, sizeof(own));
	for (size_t i = 0; i < nkeys; i++) {
		const struct bnd_alloc_key *k = &bnd_alloc_keys[i];
		/* A flag takes an ignored value too: a cli_filter shows it as
		 * "set", and passes --overcommit=set on. */
		o[nown + i] = (struct option){ k->name, k->arg == BND_ARG_REQUIRED ? required_argument
					       : optional_argument, NULL, OPT_KEY0 + (int)i };
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

static int one_opt(struct submit_opts *o, int c, const char *arg)
{
	char err[BND_ERRLEN] = "";
	int key = c >= OPT_KEY0 ? c - OPT_KEY0 : key_of_short(c);
	switch (c) {
	case OPT_BINDING: o->binding = arg; return 0;
	case OPT_MBIND: o->mbind = arg; return 0;
	case OPT_FORMAT: o->format = arg; return 0;
	case OPT_SLURM_CONF: o->slurm_conf = arg; return 0;
	case OPT_LIST: o->list = 1; return 0;
	case OPT_SITE: o->site = 1; return 0;
	case OPT_NUMAMEM_GRES:
		o->numamem_given = o->numamem.on = 1;
		bnd_numamem_site_add(&o->numamem, arg);
		return 0;
	case OPT_HELP: usage(stdout); return -1;
	case OPT_COMMAND:
		/* parse_opts read it first: --jobid depends on it */
		if (bnd_submit_cmd_parse(arg, &o->alloc.cmd, err, sizeof(err)) == BND_OK)
			return 0;
		break;
	case OPT_MODE:
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
	struct option *longs = long_options(shorts, sizeof(shorts));
	enum bnd_submit_cmd cmd = BND_CMD_SRUN;
	int c, rc = 0;
	if (!longs)
		return SBIND_EXIT_ERROR;
	*o = (struct submit_opts){ .format = "text" };
	/* The command decides what --jobid means: find it first. */
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--command"))
			bnd_submit_cmd_parse(argv[i + 1], &cmd, NULL, 0);
		else if (!strncmp(argv[i], "--command=", 10))
			bnd_submit_cmd_parse(argv[i] + 10, &cmd, NULL, 0);
	bnd_alloc_init(&o->alloc, cmd);
	optind = 1;
	while (!rc && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1)
		rc = one_opt(o, c, optarg);
	free(longs);
	if (rc)
		return rc;
	if (optind < argc) {
		fprintf(stderr, "sbind submit: unexpected argument \"%s\"\n", argv[optind]);
		return SBIND_EXIT_USAGE;
	}
	if (strcmp(o->format, "text") && strcmp(o->format, "json")) {
		fprintf(stderr, "sbind submit: --format \"%s\": expected text or json\n", o->format);
		return SBIND_EXIT_USAGE;
	}
	return 0;
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

int sbind_cmd_submit(int argc, char **argv)
{
	struct submit_opts o;
	char err[BND_ERRLEN] = "";
	int rc = parse_opts(argc, argv, &o);
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
