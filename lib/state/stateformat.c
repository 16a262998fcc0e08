/* The state file's text from its records (statefile.h: format, a
 * record's line): unchanged records keep their own bytes. */
#include "binding/state/statefile.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/state/history.h"
#include "binding/util/decimal.h"
#include "binding/util/error.h"
#include "binding/util/spare.h"


struct sbuf {
	char *b;
	size_t len, cap;
	int oom;
};

static int sb_reserve(struct sbuf *s, size_t more)
{
	if (s->oom)
		return -1;
	if (s->len + more + 1 <= s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 1024;
	while (cap < s->len + more + 1)
		cap *= 2;
	char *n = realloc(s->b, cap);
	if (!n) {
		s->oom = 1;
		return -1;
	}
	s->b = n;
	s->cap = cap;
	return 0;
}

static void sb_puts(struct sbuf *s, const char *str)
{
	size_t n = strlen(str);
	if (sb_reserve(s, n))
		return;
	memcpy(s->b + s->len, str, n + 1);
	s->len += n;
}

static void sb_u64(struct sbuf *s, uint64_t v)
{
	if (sb_reserve(s, BND_DECIMAL_MAX))
		return;
	s->len += bnd_decimal_u64(s->b + s->len, v);
	s->b[s->len] = '\0';
}

static void sb_key_u64(struct sbuf *s, const char *key, uint64_t v)
{
	sb_puts(s, key);
	sb_u64(s, v);
}

static void sb_i64(struct sbuf *s, int64_t v)
{
	if (v < 0) {
		sb_puts(s, "-");
		sb_u64(s, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_u64(s, (uint64_t)v);
	}
}

static void sb_hex32(struct sbuf *s, uint32_t v)
{
	if (sb_reserve(s, 8))
		return;
	for (int i = 7; i >= 0; i--)
		s->b[s->len++] = "0123456789abcdef"[(v >> (4 * i)) & 0xF];
	s->b[s->len] = '\0';
}

static void sb_cpus(struct sbuf *s, const bnd_cpuset_t *set)
{
	/* Most sets are a few ranges: try a small room first and size it
	 * exactly (worst case "4094,": 5 bytes per cpu) only when that fails. */
	if (sb_reserve(s, 64))
		return;
	if (bnd_cpuset_format_list(set, s->b + s->len, s->cap - s->len)) {
		size_t need = (size_t)bnd_cpuset_count(set) * 6 + 1;
		if (sb_reserve(s, need))
			return;
		bnd_cpuset_format_list(set, s->b + s->len, s->cap - s->len);
	}
	s->len += strlen(s->b + s->len);
}

/* Request text is free-form; keep it on one line and free of NULs. */
static void sb_request(struct sbuf *s, const char *req)
{
	size_t n = strnlen(req, BND_MAX_REQUEST_TEXT - 1);
	if (sb_reserve(s, n))
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)req[i];
		s->b[s->len++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	s->b[s->len] = '\0';
}

/* KEY<node>:<MiB>[,...] */
static void sb_shares(struct sbuf *s, const char *key, const struct bnd_state_mem *m, int n)
{
	sb_puts(s, key);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(s, ",");
		sb_i64(s, m[i].node);
		sb_puts(s, ":");
		sb_u64(s, m[i].mib);
	}
}

/* " gpus=0;1;2,3": each group's GPU indices, when the step has any. */
static void sb_gpus(struct sbuf *s, const struct bnd_state_record *r)
{
	if (!r->ngpus)
		return;
	sb_puts(s, " gpus=");
	for (int i = 0; i < r->ngpus; i++) {
		if (i)
			sb_puts(s, ";");
		int first = 1;
		for (int g = 0; g < 64; g++)
			if (r->gpus[i] >> g & 1) {
				if (!first)
					sb_puts(s, ",");
				sb_u64(s, (uint64_t)g);
				first = 0;
			}
		if (first)
			sb_puts(s, "-");
	}
}

/* " count k=v ...": the counters that are not 0, in the table's order. */
static void sb_counts(struct sbuf *s, const struct bnd_counts *c)
{
	if (bnd_counts_empty(c))
		return;
	sb_puts(s, "count");
	for (int k = 0; k < BND_CNT_COUNT; k++) {
		char key[48];
		if (!c->v[k])
			continue;
		sb_puts(s, " ");
		sb_puts(s, bnd_counter_key((enum bnd_counter)k, key, sizeof(key)));
		sb_key_u64(s, "=", c->v[k]);
	}
	sb_puts(s, "\n");
}

static void sb_record(struct sbuf *s, const struct bnd_state_record *r)
{
	sb_key_u64(s, "job=", r->job);
	sb_key_u64(s, " step=", r->step);
	sb_puts(s, " pid=");
	sb_i64(s, r->owner_pid);
	sb_key_u64(s, " start=", r->owner_start);
	sb_key_u64(s, " uid=", r->uid);
	sb_puts(s, " status=");
	sb_puts(s, bnd_state_status_name(r->status));
	sb_puts(s, " created=");
	sb_i64(s, r->created);
	sb_puts(s, " cpus=");
	sb_cpus(s, &r->cpus);
	if (r->status != BND_ST_ACTIVE) {
		sb_puts(s, " since=");
		sb_i64(s, r->since_ms);
		sb_puts(s, " why=");
		sb_puts(s, r->why);
	}
	if (r->want) {
		sb_key_u64(s, " groups=", (uint64_t)r->want_groups);
		sb_key_u64(s, " need=", (uint64_t)r->want_need);
		sb_puts(s, " want=");
		sb_cpus(s, r->want);
	}
	sb_puts(s, " tasks=");
	for (int i = 0; i < r->ntasks; i++) {
		if (i)
			sb_puts(s, ";");
		sb_cpus(s, &r->tasks[i]);
	}
	sb_shares(s, " mem=", r->mem, r->nmem);
	if (r->job_mem_mib)
		sb_key_u64(s, " jobmem=", r->job_mem_mib);
	if (r->mbind != BND_M_NONE) {
		sb_puts(s, " mbind=");
		sb_puts(s, bnd_mbind_name(r->mbind));
	}
	sb_gpus(s, r);
	if (r->hist) {
		sb_puts(s, " hist=");
		sb_puts(s, r->hist);
	}
	if (r->nbooked)
		sb_shares(s, " booked=", r->booked, r->nbooked);
	if (r->split)
		sb_key_u64(s, " split=", (uint64_t)r->split);
	sb_puts(s, " req=");
	sb_request(s, r->request);
}

/* A record as it goes into the file: its own bytes when unchanged. */
static void sb_record_line(struct sbuf *s, const struct bnd_state_record *r)
{
	if (!r->raw) {
		sb_record(s, r);
		return;
	}
	if (sb_reserve(s, r->rawlen))
		return;
	memcpy(s->b + s->len, r->raw, r->rawlen);
	s->len += r->rawlen;
	s->b[s->len] = '\0';
}

/* Records read and unchanged that were neighbours in the file are copied
 * as one block, lines and all: most of a state, most of the time. Returns
 * how many of the n records from r on it copied (at least one: r is raw). */
static int sb_raw_run(struct sbuf *s, const struct bnd_state_record *r, int n)
{
	int k = 1;
	while (k < n && r[k].raw && r[k].raw == r[k - 1].raw + r[k - 1].rawlen + 5)
		k++;
	const char *from = r[0].raw - 4, *to = r[k - 1].raw + r[k - 1].rawlen + 1;
	size_t len = (size_t)(to - from);
	if (sb_reserve(s, len))
		return k;
	memcpy(s->b + s->len, from, len);
	s->len += len;
	s->b[s->len] = '\0';
	return k;
}

char *bnd_state_record_text(const struct bnd_state_record *r)
{
	struct sbuf s = { 0 };
	sb_record_line(&s, r);
	if (s.oom) {
		free(s.b);
		return NULL;
	}
	return s.b;
}

int bnd_statefile_format(const struct bnd_state_file *f, char **out, size_t *outlen,
			 char *err, size_t errlen)
{
	struct sbuf s = { 0 };
	/* Room for the usual record up front (growing copies the text), in a
	 * spare block: the caller may give it back with bnd_spare_free. */
	size_t want = 256;
	for (int i = 0; i < f->nrec; i++)
		want += f->rec[i].raw ? f->rec[i].rawlen + 8 : 256;
	s.b = bnd_spare_alloc(BND_SPARE_WRITE, want, &s.cap);
	s.oom = !s.b;
	sb_puts(&s, BND_STATE_MAGIC);
	sb_u64(&s, BND_STATE_VERSION);
	sb_puts(&s, "\nboot ");
	sb_puts(&s, f->boot_id[0] ? f->boot_id : "unknown");
	if (f->node[0]) {
		sb_puts(&s, "\nnode ");
		sb_puts(&s, f->node);
	}
	sb_key_u64(&s, "\nscan ", f->scan);
	sb_puts(&s, "\n");
	sb_counts(&s, &f->counts);
	for (int i = 0; i < f->nrec; i++) {
		const struct bnd_state_record *r = &f->rec[i];
		if (r->ntasks < 0 || r->ntasks > BND_STATE_MAX_TASKS || r->nmem < 0 ||
		    r->nmem > BND_STATE_MAX_MEM || r->nbooked < 0 || r->nbooked > BND_STATE_MAX_MEM ||
		    r->split < 0 || r->split > BND_STATE_MAX_TASKS) {
			free(s.b);
			return bnd_fail(err, errlen, BND_EINVAL,
					"state record job %" PRIu32 " step %" PRIu32
					": bad task or memory count", r->job, r->step);
		}
		if (r->raw) {
			i += sb_raw_run(&s, f->rec + i, f->nrec - i) - 1;
			continue;
		}
		sb_puts(&s, "rec ");
		sb_record(&s, r);
		sb_puts(&s, "\n");
	}
	if (!s.oom) {
		uint32_t crc = bnd_crc32(s.b, s.len);
		sb_key_u64(&s, "end ", (uint64_t)f->nrec);
		sb_puts(&s, " crc32=");
		sb_hex32(&s, crc);
		sb_puts(&s, "\n");
	}
	if (s.oom) {
		free(s.b);
		return bnd_fail(err, errlen, BND_ENOMEM, "formatting the state: out of memory");
	}
	*out = s.b;
	*outlen = s.len;
	return BND_OK;
}
