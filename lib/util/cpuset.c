#include "binding/util/cpuset.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/decimal.h"
#include "binding/util/error.h"

#define NW (BND_MAX_CPUS / 64)

void bnd_cpuset_zero(bnd_cpuset_t *s)
{
	memset(s, 0, sizeof(*s));
}

void bnd_cpuset_set(bnd_cpuset_t *s, int cpu)
{
	if (cpu >= 0 && cpu < BND_MAX_CPUS)
		s->w[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

bool bnd_cpuset_isset(const bnd_cpuset_t *s, int cpu)
{
	if (cpu < 0 || cpu >= BND_MAX_CPUS)
		return false;
	return (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

int bnd_cpuset_count(const bnd_cpuset_t *s)
{
	int n = 0;
	for (int i = 0; i < NW; i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

bool bnd_cpuset_empty(const bnd_cpuset_t *s)
{
	for (int i = 0; i < NW; i++)
		if (s->w[i])
			return false;
	return true;
}

bool bnd_cpuset_intersects(const bnd_cpuset_t *a, const bnd_cpuset_t *b)
{
	for (int i = 0; i < NW; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

bool bnd_cpuset_equal(const bnd_cpuset_t *a, const bnd_cpuset_t *b)
{
	return memcmp(a->w, b->w, sizeof(a->w)) == 0;
}

bool bnd_cpuset_subset(const bnd_cpuset_t *sub, const bnd_cpuset_t *super)
{
	for (int i = 0; i < NW; i++)
		if (sub->w[i] & ~super->w[i])
			return false;
	return true;
}

void bnd_cpuset_or(bnd_cpuset_t *dst, const bnd_cpuset_t *src)
{
	for (int i = 0; i < NW; i++)
		dst->w[i] |= src->w[i];
}

void bnd_cpuset_andnot(bnd_cpuset_t *dst, const bnd_cpuset_t *src)
{
	for (int i = 0; i < NW; i++)
		dst->w[i] &= ~src->w[i];
}

void bnd_cpuset_and(bnd_cpuset_t *dst, const bnd_cpuset_t *src)
{
	for (int i = 0; i < NW; i++)
		dst->w[i] &= src->w[i];
}

int bnd_cpuset_next(const bnd_cpuset_t *s, int prev)
{
	int cpu = prev + 1;
	if (cpu < 0)
		cpu = 0;
	if (cpu >= BND_MAX_CPUS)
		return -1;
	int i = cpu / 64;
	uint64_t w = s->w[i] >> (cpu % 64);
	if (w)
		return cpu + __builtin_ctzll(w);
	/* then whole words: most sets end early, and the scan to the end of
	 * 64 words is what every list formatting pays */
	for (i++; i < NW; i++)
		if (s->w[i])
			return i * 64 + __builtin_ctzll(s->w[i]);
	return -1;
}

/* Strict decimal: digits only, no sign, no overflow, below BND_MAX_CPUS. */
static int parse_id(const char *s, const char *end, int *out)
{
	if (s == end)
		return -1;
	long v = 0;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v >= BND_MAX_CPUS)
			return -1;
	}
	*out = (int)v;
	return 0;
}

int bnd_cpuset_parse_list(bnd_cpuset_t *s, const char *text, char *err, size_t errlen)
{
	return bnd_cpuset_parse_span(s, text, text ? strlen(text) : 0, err, errlen);
}

int bnd_cpuset_parse_span(bnd_cpuset_t *s, const char *text, size_t len, char *err,
			  size_t errlen)
{
	bnd_cpuset_zero(s);
	if (!text)
		return BND_OK;
	const char *p = text;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	const char *end = text + len;
	if (p == end)
		return BND_OK;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *tok_end = comma ? comma : end;
		const char *dash = memchr(p, '-', (size_t)(tok_end - p));
		int lo = 0, hi = 0;
		int bad = dash ? (parse_id(p, dash, &lo) || parse_id(dash + 1, tok_end, &hi) || hi < lo)
			       : parse_id(p, tok_end, &lo);
		if (bad)
			return bnd_fail(err, errlen, BND_EINVAL,
					"cpu list \"%.*s\": bad token \"%.*s\" (expected <cpu>[-<cpu>][,...], cpus 0..%d)",
					(int)len, text, (int)(tok_end - p), p, BND_MAX_CPUS - 1);
		if (!dash)
			hi = lo;
		for (int c = lo; c <= hi; c++)
			bnd_cpuset_set(s, c);
		p = comma ? comma + 1 : end;
		if (comma && p == end)
			return bnd_fail(err, errlen, BND_EINVAL,
					"cpu list \"%.*s\": trailing comma (expected <cpu>[-<cpu>][,...])",
					(int)len, text);
	}
	return BND_OK;
}

/* Appends "<sep><a>" or "<sep><a>-<b>" (b < 0: just a). */
static int append(char *buf, size_t buflen, size_t *pos, char sep, int a, int b)
{
	char tmp[2 * BND_DECIMAL_MAX + 2];
	size_t n = bnd_decimal_u64(tmp, (uint64_t)a);
	if (b >= 0) {
		tmp[n++] = '-';
		n += bnd_decimal_u64(tmp + n, (uint64_t)b);
	}
	tmp[n] = '\0';
	size_t need = (size_t)n + (*pos ? 1 : 0);
	if (need >= buflen - *pos)
		return BND_EINVAL;
	if (*pos)
		buf[(*pos)++] = sep;
	memcpy(buf + *pos, tmp, (size_t)n + 1);
	*pos += (size_t)n;
	return BND_OK;
}

int bnd_cpuset_format_list(const bnd_cpuset_t *s, char *buf, size_t buflen)
{
	size_t pos = 0;
	if (!buflen)
		return BND_EINVAL;
	buf[0] = '\0';
	for (int c = bnd_cpuset_next(s, -1); c >= 0;) {
		int last = c;
		while (bnd_cpuset_isset(s, last + 1))
			last++;
		if (append(buf, buflen, &pos, ',', c, last == c ? -1 : last))
			return BND_EINVAL;
		c = bnd_cpuset_next(s, last);
	}
	return BND_OK;
}

int bnd_cpuset_format_spaced(const bnd_cpuset_t *s, char *buf, size_t buflen)
{
	size_t pos = 0;
	if (!buflen)
		return BND_EINVAL;
	buf[0] = '\0';
	for (int c = bnd_cpuset_next(s, -1); c >= 0; c = bnd_cpuset_next(s, c))
		if (append(buf, buflen, &pos, ' ', c, -1))
			return BND_EINVAL;
	return BND_OK;
}

int bnd_cpuset_format_hwloc(const bnd_cpuset_t *s, char *buf, size_t buflen)
{
	int last = -1;
	for (int c = bnd_cpuset_next(s, -1); c >= 0; c = bnd_cpuset_next(s, c))
		last = c;
	int words = last < 0 ? 1 : last / 32 + 1;
	size_t k = 0;
	if (buflen < (size_t)words * 11 + 1)
		return BND_EINVAL;
	for (int w = words - 1; w >= 0; w--) {
		unsigned v = 0;
		for (int b = 0; b < 32; b++)
			if (bnd_cpuset_isset(s, w * 32 + b))
				v |= 1u << b;
		int n = v ? snprintf(buf + k, buflen - k, "%s0x%08x", w < words - 1 ? "," : "", v)
			  : snprintf(buf + k, buflen - k, "%s%s", w < words - 1 ? "," : "", w ? "" : "0x0");
		k += n > 0 ? (size_t)n : 0;
	}
	return BND_OK;
}
