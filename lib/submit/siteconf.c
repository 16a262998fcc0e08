/* submit= read from the submit host's plugstack.conf (siteconf.h). */
#include "binding/submit/siteconf.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binding/util/error.h"

#define CONF_MAX (1 << 20)
#define MAX_ARGS 64
#define MAX_INCLUDE_DEPTH 4

/* Next line of text into buf (comment and trailing blanks cut). */
static const char *next_line(const char *p, char *buf, size_t len)
{
	size_t n = strcspn(p, "\n");
	size_t k = n < len - 1 ? n : len - 1;
	memcpy(buf, p, k);
	buf[k] = '\0';
	char *hash = strchr(buf, '#');
	if (hash)
		*hash = '\0';
	return p[n] ? p + n + 1 : p + n;
}

int bnd_siteconf_plugstack_path(const char *slurm_conf_path, const char *text, char *out,
				size_t outlen, char *err, size_t errlen)
{
	char line[4096], found[4096] = "";
	for (const char *p = text; p && *p;) {
		p = next_line(p, line, sizeof(line));
		char *save = NULL;
		for (char *tok = strtok_r(line, " \t\r", &save); tok;
		     tok = strtok_r(NULL, " \t\r", &save))
			if (!strncasecmp(tok, "PlugStackConfig=", 16))
				snprintf(found, sizeof(found), "%s", tok + 16);
	}
	int n;
	if (*found) {
		n = snprintf(out, outlen, "%s", found);
	} else {
		const char *slash = strrchr(slurm_conf_path, '/');
		int dirlen = slash ? (int)(slash - slurm_conf_path) : 1;
		n = snprintf(out, outlen, "%.*s/plugstack.conf", dirlen, slash ? slurm_conf_path : ".");
	}
	if (n < 0 || (size_t)n >= outlen)
		return bnd_fail(err, errlen, BND_EINVAL, "plugstack.conf path too long");
	return BND_OK;
}

static int is_plugin(const char *path)
{
	const char *base = strrchr(path, '/');
	return !strcmp(base ? base + 1 : path, "spank_binding.so");
}

int bnd_siteconf_scan_plugstack(const char *text, struct bnd_config *cfg, int *found,
				void (*include)(void *ctx, const char *pattern), void *ctx)
{
	char line[8192];
	for (const char *p = text; p && *p;) {
		p = next_line(p, line, sizeof(line));
		char *argv[MAX_ARGS], *save = NULL;
		int argc = 0;
		for (char *tok = strtok_r(line, " \t\r", &save); tok && argc < MAX_ARGS;
		     tok = strtok_r(NULL, " \t\r", &save))
			argv[argc++] = tok;
		if (argc >= 2 && !strcmp(argv[0], "include") && include)
			include(ctx, argv[1]);
		if (argc < 2 || (strcmp(argv[0], "required") && strcmp(argv[0], "optional")) ||
		    !is_plugin(argv[1]))
			continue;
		bnd_config_defaults(cfg);
		bnd_config_parse(cfg, argc - 2, argv + 2, NULL, 0);
		*found = 1;
	}
	return BND_OK;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *buf = malloc(CONF_MAX + 1);
	size_t n = buf ? fread(buf, 1, CONF_MAX, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

struct scan {
	struct bnd_config *cfg;
	int found, depth;
};

static void scan_file(struct scan *s, const char *path);

static void on_include(void *ctx, const char *pattern)
{
	struct scan *s = ctx;
	glob_t g;
	if (s->depth >= MAX_INCLUDE_DEPTH || glob(pattern, 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		scan_file(s, g.gl_pathv[i]);
	globfree(&g);
}

static void scan_file(struct scan *s, const char *path)
{
	char *text = read_text(path);
	if (!text)
		return;
	s->depth++;
	bnd_siteconf_scan_plugstack(text, s->cfg, &s->found, on_include, s);
	s->depth--;
	free(text);
}

/* slurm.conf's node lines, and its Include lines' files. */
struct nodescan {
	struct bnd_numamem_site *site;
	int depth;
};

static void scan_nodes(struct nodescan *n, const char *text);

static void on_node_include(void *ctx, const char *pattern)
{
	struct nodescan *n = ctx;
	glob_t g;
	if (n->depth >= MAX_INCLUDE_DEPTH || glob(pattern, 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *text = read_text(g.gl_pathv[i]);
		if (text)
			scan_nodes(n, text);
		free(text);
	}
	globfree(&g);
}

static void scan_nodes(struct nodescan *n, const char *text)
{
	n->depth++;
	bnd_numamem_site_scan(n->site, text, on_node_include, n);
	n->depth--;
}

/* slurm.conf's text (malloc'd, NULL when unreadable) and the plugin's
 * line of the plugstack.conf it names into cfg; *found tells whether there
 * is one, stack its path. */
static char *site_config(const char *conf, struct bnd_config *cfg, int *found, char *stack,
			 size_t slen)
{
	char *text = read_text(conf);
	*found = 0;
	bnd_config_defaults(cfg);
	if (!text)
		return NULL;
	if (bnd_siteconf_plugstack_path(conf, text, stack, slen, NULL, 0) != BND_OK) {
		snprintf(stack, slen, "%s", conf);
		return text;
	}
	struct scan s = { cfg, 0, 0 };
	scan_file(&s, stack);
	*found = s.found;
	return text;
}

static const char *conf_path(const char *slurm_conf)
{
	const char *env = getenv("SLURM_CONF");
	return slurm_conf ? slurm_conf : env && *env ? env : "/etc/slurm/slurm.conf";
}

int bnd_siteconf_config(const char *slurm_conf, struct bnd_config *cfg, char *why, size_t whylen)
{
	char stack[4096];
	int found;
	const char *conf = conf_path(slurm_conf);
	char *text = site_config(conf, cfg, &found, stack, sizeof(stack));
	if (!text)
		snprintf(why, whylen, "%s unreadable: the defaults", conf);
	else if (!found)
		snprintf(why, whylen, "%s lists no spank_binding.so: the defaults", stack);
	else
		snprintf(why, whylen, "%s", stack);
	free(text);
	return found;
}

void bnd_siteconf_site(const char *slurm_conf, struct bnd_submit_site *site, char *why,
		       size_t whylen)
{
	const char *conf = conf_path(slurm_conf);
	char stack[4096];
	struct bnd_config cfg;
	int found;
	memset(site, 0, sizeof(*site));
	site->mode = BND_SUBMIT_TRANSLATE;
	char *text = site_config(conf, &cfg, &found, stack, sizeof(stack));
	if (!text) {
		snprintf(why, whylen, "%s unreadable: the default, submit=translate", conf);
		return;
	}
	if (!found) {
		free(text);
		site->mode = BND_SUBMIT_OFF;
		snprintf(why, whylen, "%s lists no spank_binding.so: off", stack);
		return;
	}
	site->mode = cfg.enabled ? cfg.submit : BND_SUBMIT_OFF;
	site->numamem.on = cfg.numamem;
	if (cfg.numamem) {
		struct nodescan n = { &site->numamem, 0 };
		scan_nodes(&n, text);
	}
	free(text);
	snprintf(why, whylen, "%s: submit=%s%s%s", stack, bnd_submit_mode_name(cfg.submit),
		 cfg.enabled ? "" : ", enabled=no: off", cfg.numamem ? ", numamem=yes" : "");
}

void bnd_siteconf_submit_mode(const char *slurm_conf, enum bnd_submit_mode *mode, char *why,
			      size_t whylen)
{
	struct bnd_submit_site site;
	bnd_siteconf_site(slurm_conf, &site, why, whylen);
	*mode = site.mode;
}
