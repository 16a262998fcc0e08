#include "binding/request/config.h"

#include <errno.h>
#include <math.h> /* isfinite only: a macro, no libm needed in the plugin */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/request/request.h"
#include "binding/topology/unitletter.h"

void bnd_config_defaults(struct bnd_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->state_dir, sizeof(c->state_dir), "%s", BND_DEFAULT_STATE_DIR);
	c->enabled = 1;
	c->on_failure = BND_ONFAIL_DEFER;
	c->lock_timeout_ms = BND_DEFAULT_LOCK_TIMEOUT_MS;
	c->defer_max = BND_DEFAULT_DEFER_MAX;
	c->on_any_host = 1;
	snprintf(c->default_unit, sizeof(c->default_unit), "%s", BND_DEFAULT_UNIT);
}

const char *bnd_on_failure_name(enum bnd_on_failure f)
{
	return f == BND_ONFAIL_FAIL ? "fail" : f == BND_ONFAIL_DEFER ? "defer" : "unbound";
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

static int parse_yesno(const char *v, int *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false")) {
		*out = 0;
		return 0;
	}
	return -1;
}

/* Seconds, integer or decimal, up to an hour: a lock held longer than that
 * is a bug elsewhere, and waiting for it would hang every launch. */
static int parse_timeout(const char *v, int *ms)
{
	char *end = NULL;
	if (!*v || *v == '-' || *v == '+')
		return -1;
	errno = 0;
	double s = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(s) || s <= 0 || s > 3600)
		return -1;
	int m = (int)(s * 1000.0 + 0.5);
	*ms = m < 1 ? 1 : m;
	return 0;
}

static int one_arg(struct bnd_config *c, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *v = eq ? eq + 1 : NULL;
#define KEY(k) (klen == sizeof(k) - 1 && !strncmp(arg, k, klen))

	if (KEY("verbose")) {
		int b = 1;
		if (v && parse_yesno(v, &b)) {
			complain(err, errlen, "\"%s\": expected verbose or verbose=yes|no", arg);
			return -1;
		}
		c->verbose = b;
		return 0;
	}
	if (!KEY("state_dir") && !KEY("enabled") && !KEY("default") &&
	    !KEY("on_failure") && !KEY("lock_timeout") && !KEY("filter") &&
	    !KEY("implicit") && !KEY("default_unit") && !KEY("mem_reserve") &&
	    !KEY("defer_max") && !KEY("gpu_devices") && !KEY("gres_conf") &&
	    !KEY("private_files") && !KEY("on_any_host") && !KEY("topology")) {
		complain(err, errlen, "unknown argument \"%s\" (known: state_dir= enabled= "
			 "default= on_failure= lock_timeout= verbose filter= implicit= "
			 "default_unit= mem_reserve= defer_max= gpu_devices= gres_conf= "
			 "private_files= on_any_host= topology=)", arg);
		return -1;
	}
	if (!v || !*v) {
		complain(err, errlen, "\"%s\": a value is required (%.*s=...)", arg,
			 (int)klen, arg);
		return -1;
	}
	if (KEY("state_dir")) {
		if (v[0] != '/' || strlen(v) >= sizeof(c->state_dir)) {
			complain(err, errlen, "\"%s\": state_dir must be an absolute path "
				 "shorter than %zu characters", arg, sizeof(c->state_dir));
			return -1;
		}
		snprintf(c->state_dir, sizeof(c->state_dir), "%s", v);
	} else if (KEY("enabled")) {
		if (parse_yesno(v, &c->enabled)) {
			complain(err, errlen, "\"%s\": expected enabled=yes|no", arg);
			return -1;
		}
	} else if (KEY("default")) {
		struct bnd_request *r = calloc(1, sizeof(*r));
		char perr[BND_ERRLEN] = "";
		if (!r) {
			complain(err, errlen, "\"%s\": out of memory", arg);
			return -1;
		}
		int rc = strlen(v) >= sizeof(c->default_spec) ? BND_EINVAL
			: bnd_request_parse(r, v, perr, sizeof(perr));
		free(r);
		if (rc != BND_OK) {
			complain(err, errlen, "\"%s\": %s", arg,
				 *perr ? perr : "request too long");
			return -1;
		}
		snprintf(c->default_spec, sizeof(c->default_spec), "%s",
			 strcmp(v, "none") ? v : "");
	} else if (KEY("on_failure")) {
		if (!strcmp(v, "defer")) {
			c->on_failure = BND_ONFAIL_DEFER;
		} else if (!strcmp(v, "unbound")) {
			c->on_failure = BND_ONFAIL_UNBOUND;
		} else if (!strcmp(v, "fail")) {
			c->on_failure = BND_ONFAIL_FAIL;
		} else {
			complain(err, errlen, "\"%s\": expected on_failure=defer|unbound|fail", arg);
			return -1;
		}
	} else if (KEY("filter")) {
		if (!strcmp(v, "first_core")) {
			c->filter_first_core = 1;
		} else if (!strcmp(v, "none")) {
			c->filter_first_core = 0;
		} else {
			complain(err, errlen, "\"%s\": expected filter=first_core|none", arg);
			return -1;
		}
	} else if (KEY("on_any_host")) {
		if (parse_yesno(v, &c->on_any_host)) {
			complain(err, errlen, "\"%s\": expected on_any_host=yes|no", arg);
			return -1;
		}
	} else if (KEY("topology")) {
		if (v[0] != '/' || strlen(v) >= sizeof(c->topology)) {
			complain(err, errlen, "\"%s\": topology must be the absolute path of an "
				 "hwloc XML file, shorter than %zu characters", arg,
				 sizeof(c->topology));
			return -1;
		}
		snprintf(c->topology, sizeof(c->topology), "%s", v);
	} else if (KEY("implicit")) {
		if (parse_yesno(v, &c->implicit)) {
			complain(err, errlen, "\"%s\": expected implicit=yes|no", arg);
			return -1;
		}
	} else if (KEY("private_files")) {
		if (parse_yesno(v, &c->private_files)) {
			complain(err, errlen, "\"%s\": expected private_files=yes|no", arg);
			return -1;
		}
	} else if (KEY("default_unit")) {
		if (!bnd_packed_unit_name(v)) {
			char names[64];
			bnd_packed_unit_names('|', names, sizeof(names));
			complain(err, errlen, "\"%s\": expected default_unit=%s (a packed unit=)", arg,
				 names);
			return -1;
		}
		snprintf(c->default_unit, sizeof(c->default_unit), "%s", v);
	} else if (KEY("mem_reserve")) {
		char perr[BND_ERRLEN] = "";
		struct bnd_mem_reserve r;
		if (bnd_mem_parse_reserve(v, &r, perr, sizeof(perr)) != BND_OK) {
			complain(err, errlen, "\"%s\": %s", arg, perr);
			return -1;
		}
		c->mem_reserve = r;
	} else if (KEY("defer_max")) {
		char *end = NULL;
		errno = 0;
		long n = strtol(v, &end, 10);
		if (errno || end == v || *end || n < 0 || n > 100000) {
			complain(err, errlen, "\"%s\": expected defer_max=<steps> (0 for no limit, "
				 "at most 100000)", arg);
			return -1;
		}
		c->defer_max = (int)n;
	} else if (KEY("gpu_devices")) {
		char perr[BND_ERRLEN] = "";
		if (bnd_gpu_devmap_add(&c->gpu_devices, v, perr, sizeof(perr)) != BND_OK) {
			complain(err, errlen, "\"%s\": %s", arg, perr);
			return -1;
		}
	} else if (KEY("gres_conf")) {
		if (v[0] != '/' || strlen(v) >= sizeof(c->gres_conf)) {
			complain(err, errlen, "\"%s\": gres_conf must be an absolute path shorter "
				 "than %zu characters", arg, sizeof(c->gres_conf));
			return -1;
		}
		snprintf(c->gres_conf, sizeof(c->gres_conf), "%s", v);
	} else if (KEY("lock_timeout")) {
		if (parse_timeout(v, &c->lock_timeout_ms)) {
			complain(err, errlen, "\"%s\": expected lock_timeout=<seconds> "
				 "(0 < seconds <= 3600)", arg);
			return -1;
		}
	}
#undef KEY
	return 0;
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
		if (one_arg(c, argv[i], err, errlen))
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
	char reserve[32], devs[1024];
	bnd_mem_reserve_text(&c->mem_reserve, reserve, sizeof(reserve));
	if (bnd_gpu_devmap_text(&c->gpu_devices, devs, sizeof(devs)) != BND_OK)
		snprintf(devs, sizeof(devs), "(%d devices)", c->gpu_devices.n);
	int n = snprintf(buf, buflen,
			 "state_dir=%s enabled=%s default=%s on_failure=%s "
			 "lock_timeout=%d.%03d verbose=%s filter=%s implicit=%s "
			 "default_unit=%s mem_reserve=%s defer_max=%d gpu_devices=%s gres_conf=%s "
			 "private_files=%s on_any_host=%s topology=%s",
			 c->state_dir, c->enabled ? "yes" : "no",
			 *c->default_spec ? c->default_spec : "none",
			 bnd_on_failure_name(c->on_failure),
			 c->lock_timeout_ms / 1000, c->lock_timeout_ms % 1000,
			 c->verbose ? "yes" : "no", c->filter_first_core ? "first_core" : "none",
			 c->implicit ? "yes" : "no", c->default_unit, reserve, c->defer_max,
			 c->gpu_devices.n ? devs : "none", c->gres_conf[0] ? c->gres_conf : "default",
			 c->private_files ? "yes" : "no", c->on_any_host ? "yes" : "no",
			 c->topology[0] ? c->topology : "discovery");
	return (n < 0 || (size_t)n >= buflen) ? BND_EINVAL : BND_OK;
}
