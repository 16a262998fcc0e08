/* Memory sizes (memsize.h). */
#include "binding/util/memsize.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"

#define SIZE_FORM "expected <number>[K|M|G|T], a plain number is MiB, e.g. 900M or 2G"

int bnd_mem_parse_size(const char *text, uint64_t *mib, char *err, size_t errlen)
{
	if (!text || !isdigit((unsigned char)*text))
		return bnd_fail(err, errlen, BND_EINVAL, "memory size \"%s\": %s",
				text ? text : "", SIZE_FORM);
	errno = 0;
	char *end;
	unsigned long long v = strtoull(text, &end, 10);
	int shift = 20, unit = 1; /* bytes per unit, as a power of two */
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	default: unit = 0; break;
	}
	if (unit) {
		end++;
		if ((*end == 'i' || *end == 'I') && (end[1] == 'b' || end[1] == 'B'))
			end += 2;
		else if (*end == 'b' || *end == 'B')
			end++;
	}
	if (*end || errno == ERANGE || v > (1ull << 40))
		return bnd_fail(err, errlen, BND_EINVAL, "memory size \"%s\": %s", text,
				SIZE_FORM);
	/* Kilobytes round up to whole MiB: a reservation never falls short. */
	*mib = shift >= 20 ? (uint64_t)v << (shift - 20) : ((uint64_t)v + 1023) >> 10;
	return BND_OK;
}

int bnd_mem_parse_reserve(const char *text, struct bnd_mem_reserve *r, char *err,
			  size_t errlen)
{
	memset(r, 0, sizeof(*r));
	size_t n = text ? strlen(text) : 0;
	if (n >= 2 && text[n - 1] == '%') {
		char *end;
		long p = strtol(text, &end, 10);
		if (end != text + n - 1 || p < 0 || p > 99 || !isdigit((unsigned char)*text))
			return bnd_fail(err, errlen, BND_EINVAL,
					"mem_reserve=%s: a percentage must be 0%%..99%% "
					"(expected e.g. mem_reserve=5%% or mem_reserve=2G)", text);
		r->percent = (int)p;
		return BND_OK;
	}
	char why[BND_ERRLEN];
	if (bnd_mem_parse_size(text, &r->mib, why, sizeof(why)) != BND_OK)
		return bnd_fail(err, errlen, BND_EINVAL,
				"mem_reserve=%s: expected a size per NUMA node (2G, 512M, a plain "
				"number is MiB) or a percentage (5%%)", text ? text : "");
	return BND_OK;
}

void bnd_mem_reserve_text(const struct bnd_mem_reserve *r, char *buf, size_t len)
{
	if (r->percent > 0)
		snprintf(buf, len, "%d%%", r->percent);
	else
		snprintf(buf, len, "%" PRIu64 "M", r->mib);
}
