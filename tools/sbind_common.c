#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/memsize.h"
#include "binding/util/defaults.h"
#include "binding/util/error.h"
#include "binding/state/statefile.h"
#include "binding/topology/topocache.h"
#include "binding/topology/topostring.h"
#include "sbind.h"

struct bnd_topology *sbind_load_topology(const char *source, const char *state_dir)
{
	struct bnd_topology *t = NULL;
	char err[BND_ERRLEN] = "";
	size_t n = source ? strlen(source) : 0;
	int rc;
	if (!source)
		rc = bnd_topocache_load(&t, state_dir, err, sizeof(err));
	else if (n > 6 && strcmp(source + n - 6, ".cache") == 0)
		rc = bnd_topocache_read(&t, source, NULL, err, sizeof(err));
	else
		rc = bnd_topology_load(&t, source, err, sizeof(err));
	if (rc != BND_OK) {
		fprintf(stderr, "sbind: topology: %s\n", err);
		return NULL;
	}
	return t;
}

int sbind_parse_mask(const struct bnd_topology *t, const char *mask, bnd_cpuset_t *taken)
{
	char err[BND_ERRLEN] = "";
	bnd_cpuset_zero(taken);
	if (!mask)
		return SBIND_EXIT_OK;
	if (bnd_topostring_parse_mask(t, mask, taken, err, sizeof(err)) != BND_OK) {
		fprintf(stderr, "sbind: --mask: %s\n", err);
		return SBIND_EXIT_USAGE;
	}
	return SBIND_EXIT_OK;
}

int sbind_exit_of(int rc)
{
	switch (rc) {
	case BND_OK: return SBIND_EXIT_OK;
	case BND_ENOFIT: return SBIND_EXIT_NOFIT;
	case BND_EINVAL: return SBIND_EXIT_USAGE;
	default: return SBIND_EXIT_ERROR;
	}
}

const char *sbind_state_dir(const char *opt)
{
	if (opt)
		return opt;
	const char *env = getenv("BINDING_STATE_DIR");
	return env && *env ? env : BND_DEFAULT_STATE_DIR;
}

void sbind_log_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "sbind: state: %s\n", msg);
}

const char *sbind_step_name(uint32_t step, char *buf, size_t len)
{
	return bnd_step_name(step, buf, len);
}

int sbind_parse_id(const char *s, int names, uint32_t *out)
{
	if (names && bnd_step_by_name(s, out) == BND_OK)
		return 0;
	if (!*s || strlen(s) > 10)
		return -1;
	unsigned long long v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int sbind_parse_reserve(const char *cmd, const char *arg, struct bnd_mem_reserve *out)
{
	char err[BND_ERRLEN];
	if (bnd_mem_parse_reserve(arg, out, err, sizeof(err)) == BND_OK)
		return SBIND_EXIT_OK;
	fprintf(stderr, "sbind %s: --mem-reserve: %s\n", cmd, err);
	return SBIND_EXIT_USAGE;
}
