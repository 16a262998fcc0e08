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

/* slurm.conf as slurmd reads it, for the one key the filter needs: an
 * "Include FILE" line is read inline where it stands (FILE relative to the
 * including slurm.conf's directory, %c the ClusterName set so far), and the
 * last PlugStackConfig= read wins. */
struct slurmconf_walk {
	char dir[4096];      /* slurm.conf's directory */
	char cluster[256];
	char found[4096];
	int depth;
	/* numamem=yes: the node lines' numamem types, read in the same walk
	 * (NodeName=DEFAULT's Gres= carried across Include lines). */
	struct bnd_numamem_site *numamem;
	char node_default[4096];
};

static char *read_text(const char *path);
static void slurmconf_text(struct slurmconf_walk *w, const char *text);

/* "include" (any case) then blanks then the file: the file, else NULL. */
static char *include_of(char *line)
{
	size_t n = strspn(line, " \t");
	if (strncasecmp(line + n, "include", 7) || !line[n + 7] || !strchr(" \t", line[n + 7]))
		return NULL;
	char *f = line + n + 7;
	f += strspn(f, " \t");
	f[strcspn(f, " \t\r")] = '\0';
	return *f ? f : NULL;
}

static void slurmconf_include(struct slurmconf_walk *w, const char *file)
{
	char path[4096], name[4096];
	size_t k = 0;
	/* %c: the cluster's name (slurm.conf(5), INCLUDE MODIFIERS) */
	for (const char *p = file; *p && k + 1 < sizeof(name); p++) {
		if (p[0] == '%' && p[1] == 'c') {
			k += (size_t)snprintf(name + k, sizeof(name) - k, "%s", w->cluster);
			k = k < sizeof(name) ? k : sizeof(name) - 1;
			p++;
		} else {
			name[k++] = *p;
		}
	}
	name[k] = '\0';
	if (snprintf(path, sizeof(path), "%s%s%s", name[0] == '/' ? "" : w->dir,
		     name[0] == '/' ? "" : "/", name) >= (int)sizeof(path) ||
	    w->depth >= MAX_INCLUDE_DEPTH)
		return;
	char *text = read_text(path);
	if (!text)
		return;
	w->depth++;
	slurmconf_text(w, text);
	w->depth--;
	free(text);
}

static void slurmconf_text(struct slurmconf_walk *w, const char *text)
{
	char line[4096];
	for (const char *p = text; p && *p;) {
		p = next_line(p, line, sizeof(line));
		char *inc = include_of(line);
		if (inc) {
			slurmconf_include(w, inc);
			continue;
		}
		if (w->numamem)
			bnd_numamem_site_line(w->numamem, line, w->node_default,
					      sizeof(w->node_default));
		char *save = NULL;
		for (char *tok = strtok_r(line, " \t\r", &save); tok;
		     tok = strtok_r(NULL, " \t\r", &save)) {
			if (!strncasecmp(tok, "PlugStackConfig=", 16))
				snprintf(w->found, sizeof(w->found), "%s", tok + 16);
			else if (!strncasecmp(tok, "ClusterName=", 12))
				snprintf(w->cluster, sizeof(w->cluster), "%s", tok + 12);
		}
	}
}

/* Walks slurm.conf's text (its Include files inline) into w. */
static void slurmconf_walk(struct slurmconf_walk *w, const char *slurm_conf_path,
			   const char *text)
{
	const char *slash = strrchr(slurm_conf_path, '/');
	int dirlen = slash ? (int)(slash - slurm_conf_path) : 1;
	snprintf(w->dir, sizeof(w->dir), "%.*s", dirlen, slash ? slurm_conf_path : ".");
	if (slash && !dirlen)
		snprintf(w->dir, sizeof(w->dir), "/");
	slurmconf_text(w, text);
}

int bnd_siteconf_plugstack_path(const char *slurm_conf_path, const char *text, char *out,
				size_t outlen, char *err, size_t errlen)
{
	struct slurmconf_walk w = { .depth = 0 };
	slurmconf_walk(&w, slurm_conf_path, text);
	int n;
	if (*w.found)
		n = snprintf(out, outlen, "%s", w.found);
	else
		n = snprintf(out, outlen, "%s%splugstack.conf", w.dir,
			     strcmp(w.dir, "/") ? "/" : "");
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
		bnd_config_clear(cfg); /* an earlier line's default= */
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

static const char *conf_path(const char *slurm_conf)
{
	const char *env = getenv("SLURM_CONF");
	return slurm_conf ? slurm_conf : env && *env ? env : "/etc/slurm/slurm.conf";
}

/* The plugin's line of the plugstack.conf that slurm.conf's text names
 * into cfg (left as it is when there is none); *found whether there is
 * one, stack its path (slurm.conf's when the path is too long). */
static void site_config(const char *conf, const char *text, struct bnd_config *cfg, int *found,
			char *stack, size_t slen)
{
	struct scan s = { cfg, 0, 0 };
	if (bnd_siteconf_plugstack_path(conf, text, stack, slen, NULL, 0) == BND_OK)
		scan_file(&s, stack);
	else
		snprintf(stack, slen, "%s", conf);
	*found = s.found;
}

int bnd_siteconf_config(const char *slurm_conf, struct bnd_config *cfg, char *why, size_t whylen)
{
	char stack[4096];
	int found = 0;
	const char *conf = conf_path(slurm_conf);
	char *text = read_text(conf);
	bnd_config_defaults(cfg);
	if (text)
		site_config(conf, text, cfg, &found, stack, sizeof(stack));
	if (!text)
		snprintf(why, whylen, "%s unreadable: the defaults", conf);
	else if (!found)
		snprintf(why, whylen, "%s lists no spank_binding.so: the defaults", stack);
	else
		snprintf(why, whylen, "%s", stack);
	free(text);
	return found;
}

void bnd_siteconf_submit(const char *slurm_conf, struct bnd_submit_site *site)
{
	const char *conf = conf_path(slurm_conf);
	char stack[4096];
	struct bnd_config cfg;
	int found;
	memset(site, 0, sizeof(*site));
	site->mode = BND_SUBMIT_TRANSLATE;
	site->on_error = BND_SUBMIT_ERROR_CONTINUE;
	char *text = read_text(conf);
	if (!text) {
		snprintf(site->why, sizeof(site->why), "%s unreadable: the defaults, "
			 "submit=translate submit_error=continue", conf);
		return;
	}
	bnd_config_defaults(&cfg);
	site_config(conf, text, &cfg, &found, stack, sizeof(stack));
	bnd_config_clear(&cfg); /* only the submit keys and numamem are read */
	if (!found) {
		free(text);
		site->mode = BND_SUBMIT_OFF;
		snprintf(site->why, sizeof(site->why), "%s lists no spank_binding.so: off", stack);
		return;
	}
	site->mode = cfg.enabled ? cfg.submit : BND_SUBMIT_OFF;
	site->on_error = cfg.submit_error;
	site->numamem.on = cfg.numamem;
	if (cfg.numamem) {
		struct slurmconf_walk w = { .numamem = &site->numamem };
		slurmconf_walk(&w, conf, text);
	}
	free(text);
	snprintf(site->why, sizeof(site->why), "%s: submit=%s%s%s", stack,
		 bnd_submit_mode_name(cfg.submit), cfg.enabled ? "" : ", enabled=no: off",
		 cfg.numamem ? ", numamem=yes" : "");
}

void bnd_siteconf_submit_mode(const char *slurm_conf, enum bnd_submit_mode *mode, char *why,
			      size_t whylen)
{
	struct bnd_submit_site site;
	bnd_siteconf_submit(slurm_conf, &site);
	*mode = site.mode;
	snprintf(why, whylen, "%s", site.why);
}
