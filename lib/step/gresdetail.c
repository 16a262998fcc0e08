/* One node's GRES detail text into a booking (gresdetail.h). */
#include "binding/step/gresdetail.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"

/* The end of the entry at p: the first comma outside parentheses ("IDX:0,2"
 * holds commas). */
static const char *entry_end(const char *p)
{
	int depth = 0;
	for (; *p && (depth || *p != ','); p++)
		depth += (*p == '(') - (*p == ')');
	return p;
}

static int number(const char *p, const char *end, uint64_t *out)
{
	char *stop = NULL;
	if (p >= end || *p < '0' || *p > '9')
		return -1;
	unsigned long long v = strtoull(p, &stop, 10);
	if (stop != end)
		return -1;
	*out = v;
	return 0;
}

/* "n<node>" into node. */
static int type_node(const char *p, const char *end, int *node)
{
	uint64_t v;
	if (end - p < 2 || *p != 'n' || number(p + 1, end, &v) || v > 1u << 20)
		return -1;
	*node = (int)v;
	return 0;
}

/* The count of "numamem:n0(CNT:4096)" or "numamem:n0:4096". */
static int entry_count(const char *type_end, const char *end, uint64_t *bytes)
{
	const char *paren = memchr(type_end, '(', (size_t)(end - type_end));
	if (paren && !strncmp(paren, "(CNT:", 5) && end[-1] == ')')
		return number(paren + 5, end - 1, bytes);
	if (*type_end == ':')
		return number(type_end + 1, paren ? paren : end, bytes);
	return -1;
}

/* One "name:type(CNT:n)" entry of GRES name. *mine is 0 for other GRES. */
static int one_entry(const char *p, const char *end, const char *name, struct bnd_booking *b,
		     int *mine)
{
	size_t n = strlen(name);
	*mine = (size_t)(end - p) > n && !strncmp(p, name, n) && (p[n] == ':' || p[n] == '(');
	if (!*mine)
		return 0;
	const char *type = p + n + 1, *type_end = type;
	while (type_end < end && *type_end != ':' && *type_end != '(')
		type_end++;
	int node;
	uint64_t bytes;
	if (p[n] != ':' || type_node(type, type_end, &node) || entry_count(type_end, end, &bytes))
		return -1;
	return bnd_booking_add(b, node, (bytes + (1u << 20) - 1) >> 20) ? -1 : 0;
}

int bnd_gres_detail_booking(const char *detail, const char *name, struct bnd_booking *b,
			    char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	for (const char *p = detail ? detail : ""; *p;) {
		const char *end = entry_end(p);
		int mine = 0;
		if (one_entry(p, end, name, b, &mine)) {
			int len = (int)(end - p) < 200 ? (int)(end - p) : 200;
			memset(b, 0, sizeof(*b));
			return bnd_fail(err, errlen, BND_EINVAL, "GRES detail \"%.*s\": expected "
					"%s:n<NUMA node>(CNT:<bytes>) (gres.conf: one type n<node> "
					"per NUMA node, sbind gres-conf)", len, p, name);
		}
		p = *end ? end + 1 : end;
	}
	return BND_OK;
}
