#include "binding/state/history.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "binding/state/statefile.h"
#include "binding/util/error.h"

_Static_assert(BND_HIST_WHY_LEN == BND_STATE_WHY_LEN, "an event's why is its record's");

static const char *const kind_names[BND_H_COUNT] = {
	[BND_H_BOUND] = "bound",
	[BND_H_DEFERRED] = "deferred",
	[BND_H_SUSPENDED] = "suspended",
	[BND_H_REBOUND] = "rebound",
	[BND_H_UNBOUND] = "unbound",
};

long long bnd_state_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *bnd_hist_kind_name(enum bnd_hist_kind k)
{
	return (unsigned)k < BND_H_COUNT ? kind_names[k] : "unknown";
}

static int kind_of(const char *p, size_t n)
{
	for (int k = 0; k < BND_H_COUNT; k++)
		if (strlen(kind_names[k]) == n && !memcmp(kind_names[k], p, n))
			return k;
	return -1;
}

static int cpu_char(char c)
{
	return (c >= '0' && c <= '9') || c == ',' || c == '-';
}

/* The state's why alphabet, as bnd_state_why_clean writes it. */
static int why_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == ':' || c == ',' || c == '=' || c == '+' || c == '-';
}

/* One event from p (bounded by end): 0 and *next past it, or -1. */
static int parse_event(const char *p, const char *end, struct bnd_hist_event *ev,
		       const char **next)
{
	const char *at = memchr(p, '@', (size_t)(end - p));
	int k = at ? kind_of(p, (size_t)(at - p)) : -1;
	if (k < 0)
		return -1;
	const char *q = at + 1;
	long long ms = 0;
	for (; q < end && *q >= '0' && *q <= '9'; q++)
		if (__builtin_mul_overflow(ms, 10, &ms) || __builtin_add_overflow(ms, *q - '0', &ms))
			return -1;
	if (q == at + 1)
		return -1;
	const char *c0 = q, *c1 = q;
	if (q < end && *q == '=') {
		c0 = ++q;
		while (q < end && cpu_char(*q))
			q++;
		c1 = q;
		if (c1 == c0 || (size_t)(c1 - c0) > BND_HIST_CPUS_MAX)
			return -1;
	}
	const char *w0 = q, *w1 = q;
	if (q < end && *q == ':') {
		w0 = ++q;
		while (q < end && why_char(*q))
			q++;
		w1 = q;
		if (w1 == w0 || (size_t)(w1 - w0) >= BND_HIST_WHY_LEN)
			return -1;
	}
	if (q < end && *q != '/')
		return -1;
	if (ev) {
		ev->kind = (enum bnd_hist_kind)k;
		ev->ms = ms;
		memcpy(ev->cpus, c0, (size_t)(c1 - c0));
		ev->cpus[c1 - c0] = '\0';
		memcpy(ev->why, w0, (size_t)(w1 - w0));
		ev->why[w1 - w0] = '\0';
	}
	*next = q;
	return 0;
}

/* The event count before the first '/': 0 and *body past the '/', or -1. */
static int parse_total(const char *p, const char *end, unsigned long long *total,
		       const char **body)
{
	unsigned long long t = 0;
	const char *q = p;
	for (; q < end && *q >= '0' && *q <= '9'; q++)
		if (__builtin_mul_overflow(t, 10, &t) || __builtin_add_overflow(t, (unsigned)(*q - '0'), &t))
			return -1;
	if (q == p || q >= end || *q != '/' || !t)
		return -1;
	*total = t;
	*body = q + 1;
	return 0;
}

int bnd_hist_check(const char *text, size_t n)
{
	const char *end = text + n, *p;
	unsigned long long total;
	if (parse_total(text, end, &total, &p))
		return -1;
	unsigned long long kept = 0;
	while (p < end) {
		if (parse_event(p, end, NULL, &p))
			return -1;
		kept++;
		if (p < end && ++p == end)
			return -1; /* a trailing '/' */
	}
	return kept && kept <= BND_HIST_KEEP && kept <= total ? 0 : -1;
}

unsigned long long bnd_hist_total(const char *hist)
{
	unsigned long long t = 0;
	const char *body;
	if (!hist || parse_total(hist, hist + strlen(hist), &t, &body))
		return 0;
	return t;
}

int bnd_hist_next(const char *hist, size_t *pos, struct bnd_hist_event *ev)
{
	if (!hist)
		return 0;
	const char *end = hist + strlen(hist), *p = hist + *pos;
	if (!*pos) {
		unsigned long long t;
		if (parse_total(hist, end, &t, &p))
			return 0;
	}
	if (p >= end || parse_event(p, end, ev, &p))
		return 0;
	*pos = (size_t)(p < end ? p + 1 - hist : p - hist);
	return 1;
}

/* "<kind>@<ms>[=<cpus>][:<why>]" into buf. */
static void format_event(char *buf, size_t len, enum bnd_hist_kind kind, long long ms,
			 const bnd_cpuset_t *cpus, const char *why)
{
	char list[BND_HIST_CPUS_MAX + 2] = "", w[BND_HIST_WHY_LEN] = "";
	if (cpus && !bnd_cpuset_empty(cpus) &&
	    (bnd_cpuset_format_list(cpus, list, sizeof(list)) || strlen(list) > BND_HIST_CPUS_MAX))
		list[0] = '\0';
	size_t i = 0;
	for (; why && why[i] && i < sizeof(w) - 1; i++)
		w[i] = why_char(why[i]) ? why[i] : '-';
	w[i] = '\0';
	snprintf(buf, len, "%s@%lld%s%s%s%s", kind_names[kind], ms < 0 ? 0 : ms, list[0] ? "=" : "",
		 list, w[0] ? ":" : "", w);
}

/* Drops kept events past the first until at most BND_HIST_KEEP remain:
 * the first says how the step started, the last ones what it did since. */
static void trim(char *body)
{
	for (;;) {
		int kept = 1;
		for (const char *p = body; *p; p++)
			kept += *p == '/';
		char *second = strchr(body, '/');
		if (kept <= BND_HIST_KEEP || !second)
			return;
		char *third = strchr(second + 1, '/');
		memmove(second, third, strlen(third) + 1);
	}
}

int bnd_hist_append(char **hist, enum bnd_hist_kind kind, long long ms, const bnd_cpuset_t *cpus,
		    const char *why)
{
	char ev[BND_HIST_CPUS_MAX + BND_HIST_WHY_LEN + 64];
	if ((unsigned)kind >= BND_H_COUNT)
		return BND_EINVAL;
	format_event(ev, sizeof(ev), kind, ms, cpus, why);
	unsigned long long total = bnd_hist_total(*hist);
	/* a record's history was checked when read: total > 0 means a '/' */
	const char *body = total ? strchr(*hist, '/') + 1 : "";
	char *n = NULL;
	if (asprintf(&n, "%llu/%s%s%s", total + 1, body, *body ? "/" : "", ev) < 0)
		return BND_ENOMEM;
	trim(strchr(n, '/') + 1);
	free(*hist);
	*hist = n;
	return BND_OK;
}
