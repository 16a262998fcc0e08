/* gres.conf's GPU files and cgroup.conf's ConstrainDevices (slurmconf.h). */
#include "binding/step/slurmconf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binding/step/stepinfo.h"
#include "binding/util/error.h"
#include "binding/util/textfile.h"

/* Host lists and File= ranges longer than this are not a node's. */
#define MAX_EXPAND 65536

struct record {
	char file[BND_GPU_DEVPATH_LEN];
	int links; /* position of -1 in Links=, -1 without */
};

struct line {
	const char *node, *name, *file, *links, *autodetect;
};

/* The value of key (case-insensitive, as slurmd reads keys) among the
 * line's words, NULL when absent. Words are NUL-separated in place. */
static void split_line(char *s, struct line *l)
{
	memset(l, 0, sizeof(*l));
	char *save = NULL;
	for (char *w = strtok_r(s, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		char *eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *v = eq + 1;
		if (!strcasecmp(w, "NodeName"))
			l->node = v;
		else if (!strcasecmp(w, "Name"))
			l->name = v;
		else if (!strcasecmp(w, "File"))
			l->file = v;
		else if (!strcasecmp(w, "Links"))
			l->links = v;
		else if (!strcasecmp(w, "AutoDetect"))
			l->autodetect = v;
	}
}

struct finder {
	const char *node;
	int found;
};

static int find_node(void *ctx, const char *name)
{
	struct finder *f = ctx;
	f->found = !strcmp(name, f->node);
	return f->found;
}

/* Does the host list name node? One walk of the list: a 16,000-name range
 * took 6.5 s in root's slurmstepd when each index was expanded from the
 * list's start (issue 32). */
static int names_node(const char *list, const char *node)
{
	struct finder f = { node, 0 };
	bnd_hostlist_each(list, MAX_EXPAND, find_node, &f, NULL, 0);
	return f.found;
}

/* Where -1 stands in "Links=-1,2,0,0": NVML's index of that GPU. */
static int links_index(const char *links)
{
	int i = 0;
	for (const char *p = links; p && *p; i++) {
		if (!strncmp(p, "-1", 2) && (p[2] == ',' || !p[2]))
			return i;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

struct adder {
	struct record *rec;
	int *n, links, full;
};

static int add_file(void *ctx, const char *f)
{
	struct adder *a = ctx;
	if (*a->n >= BND_MAX_GPUS) {
		a->full = 1;
		return 1;
	}
	snprintf(a->rec[*a->n].file, sizeof(a->rec[*a->n].file), "%s", f);
	a->rec[*a->n].links = a->links;
	(*a->n)++;
	return 0;
}

static int add_files(const struct line *l, struct record *rec, int *n, char *err, size_t errlen)
{
	struct adder a = { rec, n, links_index(l->links), 0 };
	int before = *n;
	int rc = bnd_hostlist_each(l->file, MAX_EXPAND, add_file, &a, NULL, 0);
	if (a.full)
		return bnd_fail(err, errlen, BND_EINVAL, "gres.conf: more than %d GPUs", BND_MAX_GPUS);
	if (rc != BND_OK && *n == before)
		return bnd_fail(err, errlen, BND_EINVAL, "gres.conf: File=%.100s does not expand to "
				"device files", l->file);
	return BND_OK;
}

/* strnatcmp's order, as slurmd sorts GPU files: digit runs by value. */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int by_file(const void *x, const void *y)
{
	return natcmp(((const struct record *)x)->file, ((const struct record *)y)->file);
}

static int by_links(const void *x, const void *y)
{
	const struct record *a = x, *b = y;
	if (a->links != b->links)
		return a->links - b->links;
	return natcmp(a->file, b->file);
}

static void order(struct record *rec, int n)
{
	int all_links = n > 0;
	for (int i = 0; i < n; i++)
		all_links &= rec[i].links >= 0;
	qsort(rec, (size_t)n, sizeof(*rec), all_links ? by_links : by_file);
}

int bnd_gresconf_parse(const char *text, const char *node, struct bnd_gres_gpus *out,
		       char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct record *rec = calloc(BND_MAX_GPUS, sizeof(*rec));
	char *copy = strdup(text ? text : "");
	int n = 0, rc = rec && copy ? BND_OK : bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	char *save = NULL;
	for (char *s = copy ? strtok_r(copy, "\n", &save) : NULL; rc == BND_OK && s;
	     s = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(s, '#');
		if (hash)
			*hash = '\0';
		struct line l;
		split_line(s, &l);
		if (l.node && !(node && names_node(l.node, node)))
			continue;
		if (l.autodetect)
			snprintf(out->autodetect, sizeof(out->autodetect), "%s",
				 strcasecmp(l.autodetect, "off") ? l.autodetect : "");
		if (l.name && !strcasecmp(l.name, "gpu") && l.file)
			rc = add_files(&l, rec, &n, err, errlen);
	}
	if (rc == BND_OK) {
		order(rec, n);
		for (int i = 0; i < n; i++)
			memcpy(out->file[i], rec[i].file, sizeof(out->file[i]));
		out->n = n;
	}
	free(rec);
	free(copy);
	return rc;
}

/* The file's text, or NULL when it cannot be read (a node without the
 * file has no GPUs or constraint to tell). Slurm's own files are small. */
static char *slurp(const char *path)
{
	char *text;
	size_t len;
	return bnd_textfile_read(path, 1u << 22, &text, &len, NULL, 0) == BND_OK ? text : NULL;
}

int bnd_gresconf_read(const char *path, const char *node, struct bnd_gres_gpus *out,
		      char *err, size_t errlen)
{
	char *text = slurp(path);
	int rc = bnd_gresconf_parse(text ? text : "", node, out, err, errlen);
	free(text);
	return rc;
}

int bnd_cgroupconf_constrain_devices(const char *path)
{
	char *text = slurp(path), *save = NULL;
	int on = 0;
	for (char *s = text ? strtok_r(text, "\n", &save) : NULL; s; s = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(s, '#');
		if (hash)
			*hash = '\0';
		char *w = s + strspn(s, " \t");
		if (!strncasecmp(w, "ConstrainDevices=", 17))
			on = !strncasecmp(w + 17, "yes", 3);
	}
	free(text);
	return on;
}

void bnd_slurmconf_dir(const char *slurm_conf, char *buf, size_t len)
{
	const char *slash = slurm_conf ? strrchr(slurm_conf, '/') : NULL;
	if (slash && slash != slurm_conf && slurm_conf[0] == '/')
		snprintf(buf, len, "%.*s", (int)(slash - slurm_conf), slurm_conf);
	else
		snprintf(buf, len, "/etc/slurm");
}
