#include "binding/request/config.h"

#include <errno.h>
#include <math.h> /* isfinite only: a macro, no libm needed in the plugin */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/request/request.h"
#include "binding/topology/unitletter.h"

/* How a key's value is read (set) and written back (show). */
enum key_type {
	T_YESNO,   /* yes|no (also 1|0, true|false) */
	T_FLAG,    /* as T_YESNO, and the bare key means yes */
	T_PATH,    /* an absolute path that fits the field */
	T_REQUEST, /* a --binding request, or none */
	T_ENUM,    /* one word of the key's list */
	T_SECONDS, /* 0 < seconds <= 3600, decimals allowed; stored in ms */
	T_COUNT,   /* a decimal integer in [min, max] */
	T_UNIT,    /* a packed unit= value */
	T_RESERVE, /* memory per NUMA node: a size or a percentage */
	T_GPUDEV,  /* /dev/PATH=BUSID[,...]; each word adds */
};

struct word {
	const char *word;
	int value;
};

/* One plugstack key: the only place its name, form, default and help are
 * written. The order is the settings line's (bnd_config_describe). */
struct key {
	const char *name;
	enum key_type type;
	const char *form; /* the value's form in messages; NULL: the type's */
	/* The default as the value is written; when it equals `unset` the
	 * setting starts empty (all zero) and describe shows that word. */
	const char *def;
	const char *unset;
	const char *help;
	size_t off, size;         /* the field in struct bnd_config */
	const struct word *words; /* T_ENUM; ends with a NULL word */
	long min, max;            /* T_COUNT */
};

static const struct word on_failure_words[] = {
	{ "defer", BND_ONFAIL_DEFER }, { "unbound", BND_ONFAIL_UNBOUND },
	{ "fail", BND_ONFAIL_FAIL }, { NULL, 0 },
};
static const struct word filter_words[] = {
	{ "first_core", BND_FILTER_FIRST_CORE }, { "none", BND_FILTER_NONE }, { NULL, 0 },
};
static const struct word submit_words[] = {
	{ "translate", BND_SUBMIT_TRANSLATE }, { "refuse", BND_SUBMIT_REFUSE },
	{ "off", BND_SUBMIT_OFF }, { NULL, 0 },
};

static const struct word submit_error_words[] = {
	{ "continue", BND_SUBMIT_ERROR_CONTINUE }, { "refuse", BND_SUBMIT_ERROR_REFUSE },
	{ NULL, 0 },
};

/* T_ENUM fields are read and written as int. */
_Static_assert(sizeof(enum bnd_on_failure) == sizeof(int), "on_failure is stored as an int");
_Static_assert(sizeof(enum bnd_submit_mode) == sizeof(int), "submit is stored as an int");
_Static_assert(sizeof(enum bnd_filter) == sizeof(int), "filter is stored as an int");
_Static_assert(sizeof(enum bnd_submit_error) == sizeof(int), "submit_error is stored as an int");

#define STR_(x) #x
#define STR(x) STR_(x)
#define AT(field) offsetof(struct bnd_config, field), sizeof(((struct bnd_config *)0)->field)

static const struct key keys[] = {
	{ "state_dir", T_PATH, NULL, BND_DEFAULT_STATE_DIR, NULL,
	  "the node's state directory: records, lock, topology cache, pe rankfiles",
	  AT(state_dir), NULL, 0, 0 },
	{ "enabled", T_YESNO, NULL, "yes", NULL,
	  "no: --binding and --mbind are still checked, nothing is bound",
	  AT(enabled), NULL, 0, 0 },
	{ "default", T_REQUEST, NULL, "none", "none",
	  "the binding of jobs that give no --binding",
	  AT(default_spec), NULL, 0, 0 },
	{ "on_failure", T_ENUM, NULL, "defer", NULL,
	  "a binding that cannot be made: wait for its cores, run unbound, or fail the task",
	  AT(on_failure), on_failure_words, 0, 0 },
	{ "lock_timeout", T_SECONDS, NULL, STR(BND_DEFAULT_LOCK_TIMEOUT_S), NULL,
	  "how long a step waits for the state lock",
	  AT(lock_timeout_ms), NULL, 0, 0 },
	{ "verbose", T_FLAG, NULL, "no", NULL,
	  "each task prints its binding on its stderr",
	  AT(verbose), NULL, 0, 0 },
	{ "filter", T_ENUM, NULL, "none", NULL,
	  "first_core: core 0,0 is left to the system (OCS's admin filter)",
	  AT(filter), filter_words, 0, 0 },
	{ "implicit", T_YESNO, NULL, "no", NULL,
	  "a job without --binding gets packed:<its cpus per task>:unit=<default_unit>",
	  AT(implicit), NULL, 0, 0 },
	{ "default_unit", T_UNIT, "<unit>", BND_DEFAULT_UNIT, NULL,
	  "the packed unit= of implicit=yes",
	  AT(default_unit), NULL, 0, 0 },
	{ "mem_reserve", T_RESERVE, "<size>|<percent>%", "0", NULL,
	  "memory per NUMA node left to the OS, not handed to jobs (2G, 5%)",
	  AT(mem_reserve), NULL, 0, 0 },
	{ "defer_max", T_COUNT, "<steps>", STR(BND_DEFAULT_DEFER_MAX), NULL,
	  "deferred steps one user may have waiting on a node (0: no limit)",
	  AT(defer_max), NULL, 0, 100000 },
	{ "gpu_devices", T_GPUDEV, "/dev/<path>=<busid>[,...]", "none", "none",
	  "the PCI bus ids of GPU device files whose driver does not say; adds up",
	  AT(gpu_devices), NULL, 0, 0 },
	{ "gres_conf", T_PATH, NULL, "default", "default",
	  "Slurm's gres.conf (default: beside slurm.conf); cgroup.conf is read beside it",
	  AT(gres_conf), NULL, 0, 0 },
	{ "private_files", T_YESNO, NULL, "no", NULL,
	  "the state and the rankfiles are unreadable to other users",
	  AT(private_files), NULL, 0, 0 },
	{ "on_any_host", T_YESNO, NULL, "yes", NULL,
	  "on a node whose topology cannot be read: run requests unbound (yes) or fail them",
	  AT(on_any_host), NULL, 0, 0 },
	{ "topology", T_PATH, "/<path>.xml", "discovery", "discovery",
	  "this node's topology from an hwloc XML export instead of discovery",
	  AT(topology), NULL, 0, 0 },
	{ "metrics_file", T_PATH, "/<path>.prom", "none", "none",
	  "after every change of the node's state, its metrics for Prometheus are written here "
	  "atomically (node_exporter's textfile folder)",
	  AT(metrics_file), NULL, 0, 0 },
	{ "submit", T_ENUM, NULL, "translate", NULL,
	  "on submit hosts, the cli_filter adds the options a binding needs, only refuses "
	  "naming them, or does nothing",
	  AT(submit), submit_words, 0, 0 },
	{ "submit_error", T_ENUM, NULL, "continue", NULL,
	  "on submit hosts, when the translation fails (module or sbind missing, crashed, in "
	  "error): submit the job untranslated, or refuse it",
	  AT(submit_error), submit_error_words, 0, 0 },
	{ "numamem", T_YESNO, NULL, "no", NULL,
	  "Slurm books jobs' memory per NUMA node (GRES numamem, sbind gres-conf): the "
	  "cli_filter asks for it, the plugin binds where Slurm booked",
	  AT(numamem), NULL, 0, 0 },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static void *field(struct bnd_config *c, const struct key *k)
{
	return (char *)c + k->off;
}

static const void *cfield(const struct bnd_config *c, const struct key *k)
{
	return (const char *)c + k->off;
}

/* Appends one complaint to err so an admin sees every bad word at once. */
static void complain(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void complain(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	size_t used = strnlen(err, errlen);
	if (used + 1 >= errlen)
		return;
	if (used) {
		int n = snprintf(err + used, errlen - used, "; ");
		if (n < 0 || (size_t)n >= errlen - used)
			return;
		used += (size_t)n;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

/* The value's form: the row's, else the type's ("yes|no", the words). */
static void form_of(const struct key *k, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	if (k->form) {
		snprintf(buf, len, "%s", k->form);
	} else if (k->type == T_YESNO || k->type == T_FLAG) {
		snprintf(buf, len, "yes|no");
	} else if (k->type == T_ENUM) {
		for (const struct word *w = k->words; w->word && used < len; w++) {
			int n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", w->word);
			used += n > 0 ? (size_t)n : 0;
		}
	} else if (k->type == T_PATH) {
		snprintf(buf, len, "<path>");
	} else if (k->type == T_REQUEST) {
		snprintf(buf, len, "<request>|none");
	} else if (k->type == T_SECONDS) {
		snprintf(buf, len, "<seconds>");
	}
}

/* "expected KEY=FORM" (a flag: "expected KEY or KEY=FORM"). */
static int expected(const struct key *k, const char *extra, char *why, size_t whylen)
{
	char form[128];
	form_of(k, form, sizeof(form));
	if (k->type == T_FLAG)
		return bnd_fail(why, whylen, BND_EINVAL, "expected %s or %s=%s%s", k->name, k->name,
				form, extra);
	return bnd_fail(why, whylen, BND_EINVAL, "expected %s=%s%s", k->name, form, extra);
}

static int set_yesno(const struct key *k, struct bnd_config *c, const char *v, char *why,
		     size_t whylen)
{
	bool *out = field(c, k);
	if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false"))
		*out = false;
	else
		return expected(k, "", why, whylen);
	return BND_OK;
}

static int set_path(const struct key *k, struct bnd_config *c, const char *v, char *why,
		    size_t whylen)
{
	if (v[0] != '/' || strlen(v) >= k->size) {
		char form[128];
		form_of(k, form, sizeof(form));
		return bnd_fail(why, whylen, BND_EINVAL, "%s must be an absolute path shorter than "
				"%zu characters (expected %s=%s)", k->name, k->size, k->name, form);
	}
	snprintf(field(c, k), k->size, "%s", v);
	return BND_OK;
}

/* Parsed here once; the step takes default_req as it is. */
static int set_request(const struct key *k, struct bnd_config *c, const char *v, char *why,
		       size_t whylen)
{
	if (strlen(v) >= k->size)
		return bnd_fail(why, whylen, BND_EINVAL, "request too long (at most %zu characters)",
				k->size - 1);
	struct bnd_request *r = malloc(sizeof(*r));
	if (!r)
		return bnd_fail(why, whylen, BND_ENOMEM, "out of memory");
	int rc = bnd_request_parse(r, v, why, whylen);
	if (rc == BND_OK) {
		bool none = !strcmp(v, k->unset);
		snprintf(field(c, k), k->size, "%s", none ? "" : v);
		bnd_config_clear(c);
		if (!none) {
			c->default_req = r;
			r = NULL;
		}
	}
	if (r)
		bnd_request_clear(r);
	free(r);
	return rc;
}

static int set_enum(const struct key *k, struct bnd_config *c, const char *v, char *why,
		    size_t whylen)
{
	for (const struct word *w = k->words; w->word; w++) {
		if (!strcmp(v, w->word)) {
			*(int *)field(c, k) = w->value;
			return BND_OK;
		}
	}
	return expected(k, "", why, whylen);
}

/* Seconds, integer or decimal, up to an hour: a lock held longer than that
 * is a bug elsewhere, and waiting for it would hang every launch. */
static int set_seconds(const struct key *k, struct bnd_config *c, const char *v, char *why,
		       size_t whylen)
{
	char *end = NULL;
	double s = 0;
	if (*v && *v != '-' && *v != '+') {
		errno = 0;
		s = strtod(v, &end);
	}
	if (!end || errno || end == v || *end || !isfinite(s) || s <= 0 || s > 3600)
		return expected(k, " (0 < seconds <= 3600)", why, whylen);
	int m = (int)(s * 1000.0 + 0.5);
	*(int *)field(c, k) = m < 1 ? 1 : m;
	return BND_OK;
}

static int set_count(const struct key *k, struct bnd_config *c, const char *v, char *why,
		     size_t whylen)
{
	char *end = NULL, range[64];
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < k->min || n > k->max) {
		snprintf(range, sizeof(range), " (%ld to %ld)", k->min, k->max);
		return expected(k, range, why, whylen);
	}
	*(int *)field(c, k) = (int)n;
	return BND_OK;
}

static int set_unit(const struct key *k, struct bnd_config *c, const char *v, char *why,
		    size_t whylen)
{
	if (!bnd_packed_unit_name(v)) {
		char names[64];
		bnd_packed_unit_names('|', names, sizeof(names));
		return bnd_fail(why, whylen, BND_EINVAL, "expected %s=%s (a packed unit=)", k->name,
				names);
	}
	snprintf(field(c, k), k->size, "%s", v);
	return BND_OK;
}

static int set_reserve(const struct key *k, struct bnd_config *c, const char *v, char *why,
		       size_t whylen)
{
	struct bnd_mem_reserve r;
	int rc = bnd_mem_parse_reserve(v, &r, why, whylen);
	if (rc == BND_OK)
		*(struct bnd_mem_reserve *)field(c, k) = r;
	return rc;
}

static int set_gpudev(const struct key *k, struct bnd_config *c, const char *v, char *why,
		      size_t whylen)
{
	return bnd_gpu_devmap_add(field(c, k), v, why, whylen);
}

typedef int (*set_fn)(const struct key *k, struct bnd_config *c, const char *v, char *why,
		      size_t whylen);

static const set_fn setters[] = {
	[T_YESNO] = set_yesno,     [T_FLAG] = set_yesno,   [T_PATH] = set_path,
	[T_REQUEST] = set_request, [T_ENUM] = set_enum,    [T_SECONDS] = set_seconds,
	[T_COUNT] = set_count,     [T_UNIT] = set_unit,    [T_RESERVE] = set_reserve,
	[T_GPUDEV] = set_gpudev,
};

/* The value as the settings line shows it; an empty one as `unset`. */
static void show(const struct key *k, const struct bnd_config *c, char *buf, size_t len)
{
	const void *f = cfield(c, k);
	const int *i = f;
	const struct bnd_gpu_devmap *dm = f;
	const struct word *w;
	switch (k->type) {
	case T_YESNO:
	case T_FLAG:
		snprintf(buf, len, "%s", *(const bool *)f ? "yes" : "no");
		break;
	case T_ENUM:
		for (w = k->words; w->word && w->value != *i; w++)
			;
		snprintf(buf, len, "%s", w->word ? w->word : "?");
		break;
	case T_SECONDS:
		snprintf(buf, len, "%d.%03d", *i / 1000, *i % 1000);
		break;
	case T_COUNT:
		snprintf(buf, len, "%d", *i);
		break;
	case T_RESERVE:
		bnd_mem_reserve_text(f, buf, len);
		break;
	case T_GPUDEV:
		if (!dm->n)
			snprintf(buf, len, "%s", k->unset ? k->unset : "");
		else if (bnd_gpu_devmap_text(dm, buf, len) != BND_OK)
			snprintf(buf, len, "(%d devices)", dm->n);
		break;
	default: /* the text types */
		snprintf(buf, len, "%s", *(const char *)f ? (const char *)f
				   : k->unset ? k->unset : "");
	}
}

void bnd_config_defaults(struct bnd_config *c)
{
	char why[BND_ERRLEN];
	memset(c, 0, sizeof(*c));
	/* Every default is written as its value is and read by the same
	 * rule; the unit test checks that each one is accepted. */
	for (size_t i = 0; i < NKEYS; i++)
		if (!keys[i].unset || strcmp(keys[i].def, keys[i].unset))
			(void)setters[keys[i].type](&keys[i], c, keys[i].def, why, sizeof(why));
}

void bnd_config_clear(struct bnd_config *c)
{
	if (c->default_req)
		bnd_request_clear(c->default_req);
	free(c->default_req);
	c->default_req = NULL;
}

const char *bnd_submit_mode_name(enum bnd_submit_mode m)
{
	for (const struct word *w = submit_words; w->word; w++)
		if (w->value == (int)m)
			return w->word;
	return "translate";
}

const char *bnd_submit_error_name(enum bnd_submit_error e)
{
	for (const struct word *w = submit_error_words; w->word; w++)
		if (w->value == (int)e)
			return w->word;
	return "continue";
}

static const struct key *find_key(const char *arg, size_t klen);

/* The submit= row's own rule, for a value read outside plugstack.conf
 * (sbind submit --mode). */
int bnd_submit_mode_parse(const char *s, enum bnd_submit_mode *m, char *err, size_t errlen)
{
	struct bnd_config c;
	memset(&c, 0, sizeof(c));
	const struct key *k = find_key("submit", strlen("submit"));
	int rc = set_enum(k, &c, s ? s : "", err, errlen);
	if (rc == BND_OK)
		*m = c.submit;
	return rc;
}

static const struct key *find_key(const char *arg, size_t klen)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strlen(keys[i].name) == klen && !strncmp(arg, keys[i].name, klen))
			return &keys[i];
	return NULL;
}

static void unknown(const char *arg, char *err, size_t errlen)
{
	char known[512] = "";
	size_t used = 0;
	for (size_t i = 0; i < NKEYS && used < sizeof(known); i++) {
		int n = snprintf(known + used, sizeof(known) - used, "%s%s%s", used ? " " : "",
				 keys[i].name, keys[i].type == T_FLAG ? "" : "=");
		used += n > 0 ? (size_t)n : 0;
	}
	complain(err, errlen, "unknown argument \"%s\" (known: %s)", arg, known);
}

/* One word: KEY=VALUE, or a flag's bare KEY. */
static int one_arg(struct bnd_config *c, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct key *k = find_key(arg, klen);
	char why[BND_ERRLEN] = "";
	if (!k) {
		unknown(arg, err, errlen);
		return BND_EINVAL;
	}
	const char *v = eq ? eq + 1 : k->type == T_FLAG ? "yes" : NULL;
	if (!v || (!*v && k->type != T_FLAG)) {
		complain(err, errlen, "\"%s\": a value is required (%s=...)", arg, k->name);
		return BND_EINVAL;
	}
	int rc = setters[k->type](k, c, v, why, sizeof(why));
	if (rc != BND_OK)
		complain(err, errlen, "\"%s\": %s", arg, why);
	return rc;
}

int bnd_config_parse(struct bnd_config *c, int argc, char *const argv[],
		     char *err, size_t errlen)
{
	int bad = 0;
	if (err && errlen)
		err[0] = '\0';
	for (int i = 0; i < argc; i++) {
		if (!argv[i] || !*argv[i])
			continue;
		if (one_arg(c, argv[i], err, errlen) != BND_OK)
			bad++;
	}
	if (c->implicit && c->default_spec[0]) {
		complain(err, errlen, "default=%s and implicit=yes both given: default= applies to "
			 "jobs without --binding, implicit= is ignored (set only one)",
			 c->default_spec);
		c->implicit = 0;
		bad++;
	}
	return bad ? BND_EINVAL : BND_OK;
}

int bnd_config_describe(const struct bnd_config *c, char *buf, size_t buflen)
{
	char value[BND_CONFIG_PATH_MAX];
	size_t used = 0;
	if (!buflen)
		return BND_EINVAL;
	buf[0] = '\0';
	for (size_t i = 0; i < NKEYS; i++) {
		show(&keys[i], c, value, sizeof(value));
		int n = snprintf(buf + used, buflen - used, "%s%s=%s", i ? " " : "", keys[i].name,
				 value);
		if (n < 0 || (size_t)n >= buflen - used)
			return BND_EINVAL;
		used += (size_t)n;
	}
	return BND_OK;
}

int bnd_config_key_info(size_t i, struct bnd_config_key_info *out)
{
	char form[128];
	if (i >= NKEYS)
		return BND_EINVAL;
	const struct key *k = &keys[i];
	form_of(k, form, sizeof(form));
	out->name = k->name;
	snprintf(out->usage, sizeof(out->usage), k->type == T_FLAG ? "%s[=%s]" : "%s=%s",
		 k->name, form);
	out->def = k->def;
	out->help = k->help;
	return BND_OK;
}
