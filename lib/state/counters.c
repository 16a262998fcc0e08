#include "binding/state/counters.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

const uint64_t bnd_lockwait_bounds_us[BND_LOCKWAIT_BUCKETS] = {
	10, 100, 1000, 10000, 100000, 1000000, 10000000,
};
static const char *const bucket_names[BND_LOCKWAIT_BUCKETS] = {
	"10us", "100us", "1ms", "10ms", "100ms", "1s", "10s",
};

static const char *const refusal_names[BND_R_COUNT] = {
	[BND_R_HELD_BY_OTHER_JOBS] = "held_by_other_jobs",
	[BND_R_HELD_BY_OWN_STEPS] = "held_by_own_steps",
	[BND_R_MEMORY_SHORT] = "memory_short",
	[BND_R_ALLOCATION_TOO_SMALL] = "allocation_too_small",
	[BND_R_INVALID_REQUEST] = "invalid_request",
	[BND_R_NO_TOPOLOGY] = "no_topology",
	[BND_R_STATE_ERROR] = "state_error",
	[BND_R_LOCK_TIMEOUT] = "lock_timeout",
};

static const char *const fallback_names[BND_FB_COUNT] = {
	[BND_FB_DEFERRED] = "deferred",
	[BND_FB_UNBOUND] = "unbound",
	[BND_FB_FAILED] = "failed",
	[BND_FB_MEMORY_PREFERRED] = "memory_preferred",
};

const char *bnd_refusal_name(enum bnd_refusal r)
{
	return (unsigned)r < BND_R_COUNT ? refusal_names[r] : "unknown";
}

const char *bnd_fallback_name(enum bnd_fallback f)
{
	return (unsigned)f < BND_FB_COUNT ? fallback_names[f] : "unknown";
}

const char *bnd_counter_key(enum bnd_counter c, char *buf, size_t len)
{
	unsigned k = (unsigned)c;
	buf[0] = '\0';
	/* no strategy: --mbind=nlocal's own binding (memplace.h) */
	if (k == BND_CNT_PLACEMENT + BND_S_NONE)
		snprintf(buf, len, "placements.nlocal");
	else if (k < BND_CNT_REFUSAL)
		snprintf(buf, len, "placements.%s", bnd_strategy_name((enum bnd_strategy)k));
	else if (k < BND_CNT_FALLBACK)
		snprintf(buf, len, "refusals.%s", refusal_names[k - BND_CNT_REFUSAL]);
	else if (k < BND_CNT_CROSS_NUMA)
		snprintf(buf, len, "fallbacks.%s", fallback_names[k - BND_CNT_FALLBACK]);
	else if (k == BND_CNT_CROSS_NUMA)
		snprintf(buf, len, "cross_numa");
	else if (k == BND_CNT_GPU_NONLOCAL)
		snprintf(buf, len, "gpu_nonlocal");
	else if (k == BND_CNT_RANKFILE)
		snprintf(buf, len, "rankfiles");
	else if (k < BND_CNT_LOCKWAIT_SUM_NS)
		snprintf(buf, len, "lock_wait.%s", bucket_names[k - BND_CNT_LOCKWAIT_BUCKET]);
	else if (k == BND_CNT_LOCKWAIT_SUM_NS)
		snprintf(buf, len, "lock_wait.sum_ns");
	else if (k == BND_CNT_LOCKWAIT_COUNT)
		snprintf(buf, len, "lock_wait.count");
	return buf;
}

/* The keys, made once: every transaction that reads a count line looks
 * its keys up. */
static char keys[BND_CNT_COUNT][48];
static size_t key_len[BND_CNT_COUNT];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void make_keys(void)
{
	for (int c = 0; c < BND_CNT_COUNT; c++)
		key_len[c] = strlen(bnd_counter_key((enum bnd_counter)c, keys[c], sizeof(keys[c])));
}

int bnd_counter_by_key(const char *key, size_t n)
{
	pthread_once(&keys_once, make_keys);
	for (int c = 0; c < BND_CNT_COUNT; c++)
		if (key_len[c] == n && !memcmp(keys[c], key, n))
			return c;
	return -1;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t s;
	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

void bnd_counts_add(struct bnd_counts *to, const struct bnd_counts *d)
{
	for (int c = 0; c < BND_CNT_COUNT; c++)
		to->v[c] = sat_add(to->v[c], d->v[c]);
}

void bnd_counts_inc(struct bnd_counts *c, enum bnd_counter k)
{
	if ((unsigned)k < BND_CNT_COUNT)
		c->v[k] = sat_add(c->v[k], 1);
}

int bnd_counts_empty(const struct bnd_counts *c)
{
	for (int k = 0; k < BND_CNT_COUNT; k++)
		if (c->v[k])
			return 0;
	return 1;
}

void bnd_counts_lockwait(struct bnd_counts *c, uint64_t ns)
{
	for (int b = 0; b < BND_LOCKWAIT_BUCKETS; b++)
		if (ns <= bnd_lockwait_bounds_us[b] * 1000) {
			bnd_counts_inc(c, (enum bnd_counter)(BND_CNT_LOCKWAIT_BUCKET + b));
			break;
		}
	c->v[BND_CNT_LOCKWAIT_SUM_NS] = sat_add(c->v[BND_CNT_LOCKWAIT_SUM_NS], ns);
	bnd_counts_inc(c, BND_CNT_LOCKWAIT_COUNT);
}
