#include "binding/state/statefile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/decimal.h"
#include "binding/util/error.h"

#define MAGIC "spank-binding-state "

/* ---- CRC-32 ---- */

/* Slicing by 8: the checksum is computed over the whole file twice per
 * transaction (read and write); byte-at-a-time was a tenth of its time, and
 * slicing by 4 still 9% (1.3 us for a 10-record file). */
static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (int t = 1; t < 8; t++)
		for (int i = 0; i < 256; i++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
					  crc_table[0][crc_table[t - 1][i] & 0xFF];
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t bnd_crc32(const void *data, size_t len)
{
	pthread_once(&crc_once, crc_init);
	const unsigned char *p = data;
	uint32_t c = 0xFFFFFFFFu;
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo = c ^ le32(p), hi = le32(p + 4);
		c = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^
		    crc_table[5][(lo >> 16) & 0xFF] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][hi & 0xFF] ^ crc_table[2][(hi >> 8) & 0xFF] ^
		    crc_table[1][(hi >> 16) & 0xFF] ^ crc_table[0][hi >> 24];
	}
	while (len--)
		c = crc_table[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

/* ---- records ---- */

static const char *const status_names[] = { "active", "suspended", "deferred" };

const char *bnd_state_status_name(enum bnd_state_status s)
{
	if ((unsigned)s < sizeof(status_names) / sizeof(status_names[0]))
		return status_names[s];
	return "unknown";
}

int bnd_state_status_parse(const char *name, enum bnd_state_status *s)
{
	for (unsigned i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (!strcmp(name, status_names[i])) {
			*s = (enum bnd_state_status)i;
			return BND_OK;
		}
	return BND_EINVAL;
}

static const struct {
	uint32_t id;
	const char *name;
} step_names[] = {
	{ BND_STEP_BATCH, "batch" },
	{ BND_STEP_EXTERN, "extern" },
	{ BND_STEP_INTERACTIVE, "interactive" },
};

const char *bnd_step_name(uint32_t step, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(step_names) / sizeof(step_names[0]); i++)
		if (step_names[i].id == step)
			return step_names[i].name;
	snprintf(buf, len, "%" PRIu32, step);
	return buf;
}

int bnd_step_by_name(const char *name, uint32_t *step)
{
	for (size_t i = 0; i < sizeof(step_names) / sizeof(step_names[0]); i++)
		if (!strcmp(name, step_names[i].name)) {
			*step = step_names[i].id;
			return BND_OK;
		}
	return BND_EINVAL;
}

void bnd_statefile_init(struct bnd_state_file *f)
{
	memset(f, 0, sizeof(*f));
	f->version = BND_STATE_VERSION;
}

void bnd_state_record_free(struct bnd_state_record *r)
{
	free(r->tasks);
	r->tasks = NULL;
	r->ntasks = 0;
}

void bnd_statefile_free(struct bnd_state_file *f)
{
	for (int i = 0; i < f->nrec; i++)
		bnd_state_record_free(&f->rec[i]);
	free(f->rec);
	f->rec = NULL;
	f->nrec = f->cap = 0;
}

int bnd_state_record_copy(struct bnd_state_record *dst, const struct bnd_state_record *src)
{
	*dst = *src;
	dst->tasks = NULL;
	if (src->ntasks > 0) {
		dst->tasks = malloc((size_t)src->ntasks * sizeof(*dst->tasks));
		if (!dst->tasks) {
			dst->ntasks = 0;
			return BND_ENOMEM;
		}
		memcpy(dst->tasks, src->tasks, (size_t)src->ntasks * sizeof(*dst->tasks));
	}
	return BND_OK;
}

static int reserve(struct bnd_state_file *f, int cap)
{
	if (cap <= f->cap)
		return 0;
	struct bnd_state_record *n = realloc(f->rec, (size_t)cap * sizeof(*n));
	if (!n)
		return -1;
	f->rec = n;
	f->cap = cap;
	return 0;
}

static struct bnd_state_record *grow(struct bnd_state_file *f)
{
	if (f->nrec == f->cap && reserve(f, f->cap ? f->cap * 2 : 8))
		return NULL;
	return &f->rec[f->nrec];
}

int bnd_statefile_find(const struct bnd_state_file *f, uint32_t job, uint32_t step)
{
	for (int i = 0; i < f->nrec; i++)
		if (f->rec[i].job == job && f->rec[i].step == step)
			return i;
	return -1;
}

int bnd_statefile_add(struct bnd_state_file *f, const struct bnd_state_record *r)
{
	struct bnd_state_record *slot = grow(f);
	if (!slot || bnd_state_record_copy(slot, r))
		return BND_ENOMEM;
	f->nrec++;
	return BND_OK;
}

void bnd_statefile_remove(struct bnd_state_file *f, int i)
{
	if (i < 0 || i >= f->nrec)
		return;
	bnd_state_record_free(&f->rec[i]);
	memmove(&f->rec[i], &f->rec[i + 1], (size_t)(f->nrec - i - 1) * sizeof(f->rec[0]));
	f->nrec--;
}

/* ---- writing ---- */

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
	sb_puts(s, " tasks=");
	for (int i = 0; i < r->ntasks; i++) {
		if (i)
			sb_puts(s, ";");
		sb_cpus(s, &r->tasks[i]);
	}
	sb_puts(s, " mem=");
	for (int i = 0; i < r->nmem; i++) {
		if (i)
			sb_puts(s, ",");
		sb_i64(s, r->mem[i].node);
		sb_puts(s, ":");
		sb_u64(s, r->mem[i].mib);
	}
	if (r->status != BND_ST_ACTIVE) {
		sb_puts(s, " since=");
		sb_i64(s, r->since_ms);
		sb_puts(s, " why=");
		sb_puts(s, r->why);
	}
	sb_puts(s, " req=");
	sb_request(s, r->request);
}

char *bnd_state_record_text(const struct bnd_state_record *r)
{
	struct sbuf s = { 0 };
	sb_record(&s, r);
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
	/* Room for the usual record up front: growing copies the text. */
	sb_reserve(&s, 256 + (size_t)f->nrec * 256);
	sb_puts(&s, MAGIC);
	sb_u64(&s, BND_STATE_VERSION);
	sb_puts(&s, "\nboot ");
	sb_puts(&s, f->boot_id[0] ? f->boot_id : "unknown");
	sb_puts(&s, "\n");
	for (int i = 0; i < f->nrec; i++) {
		const struct bnd_state_record *r = &f->rec[i];
		if (r->ntasks < 0 || r->ntasks > BND_STATE_MAX_TASKS || r->nmem < 0 ||
		    r->nmem > BND_STATE_MAX_MEM) {
			free(s.b);
			return bnd_fail(err, errlen, BND_EINVAL,
					"state record job %" PRIu32 " step %" PRIu32
					": bad task or memory count", r->job, r->step);
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

/* ---- reading ---- */

/* Strict unsigned decimal of at most max. */
static int num(const char *s, unsigned long long max, unsigned long long *out)
{
	if (!*s)
		return -1;
	unsigned long long v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned d = (unsigned)(*p - '0');
		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Cuts "key=value " off *p: returns value (NUL-terminated) or NULL. The last
 * field (req) takes the rest of the line. */
static char *field(char **p, const char *key, int rest)
{
	size_t k = strlen(key);
	if (strncmp(*p, key, k) || (*p)[k] != '=')
		return NULL;
	char *v = *p + k + 1;
	if (rest) {
		*p = v + strlen(v);
		return v;
	}
	char *sp = strchr(v, ' ');
	if (!sp)
		return NULL;
	*sp = '\0';
	*p = sp + 1;
	return v;
}

static int parse_tasks(struct bnd_state_record *r, char *v)
{
	int n = 0;
	if (*v) {
		n = 1;
		for (const char *c = v; *c; c++)
			n += *c == ';';
	}
	if (n > BND_STATE_MAX_TASKS)
		return -1;
	r->ntasks = n;
	if (!n)
		return 0;
	r->tasks = calloc((size_t)n, sizeof(*r->tasks));
	if (!r->tasks)
		return -1;
	bnd_cpuset_t all;
	bnd_cpuset_zero(&all);
	for (int i = 0; i < n; i++) {
		char *semi = strchr(v, ';');
		if (semi)
			*semi = '\0';
		if (!*v || strchr(v, ' ') || bnd_cpuset_parse_list(&r->tasks[i], v, NULL, 0))
			return -1;
		bnd_cpuset_or(&all, &r->tasks[i]);
		v = semi ? semi + 1 : v + strlen(v);
	}
	/* The tasks split the record's cpus exactly. */
	return bnd_cpuset_equal(&all, &r->cpus) ? 0 : -1;
}

static int parse_mem(struct bnd_state_record *r, char *v)
{
	r->nmem = 0;
	while (*v) {
		if (r->nmem == BND_STATE_MAX_MEM)
			return -1;
		char *comma = strchr(v, ',');
		if (comma)
			*comma = '\0';
		char *colon = strchr(v, ':');
		unsigned long long node, mib;
		if (!colon)
			return -1;
		*colon = '\0';
		if (num(v, 1u << 20, &node) || num(colon + 1, UINT64_MAX, &mib))
			return -1;
		r->mem[r->nmem].node = (int)node;
		r->mem[r->nmem].mib = mib;
		r->nmem++;
		if (!comma)
			break;
		v = comma + 1;
		if (!*v)
			return -1;
	}
	return 0;
}

static int why_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("._:,=+-", c));
}

void bnd_state_why_clean(char *why, const char *text)
{
	size_t i = 0;
	for (; text && text[i] && i < BND_STATE_WHY_LEN - 1; i++)
		why[i] = why_char(text[i]) ? text[i] : '-';
	why[i] = '\0';
}

/* The optional since= why= pair (suspended and deferred records). */
static int parse_since_why(struct bnd_state_record *r, char **p)
{
	unsigned long long since;
	char *v;
	if (strncmp(*p, "since=", 6))
		return 0;
	if (!(v = field(p, "since", 0)) || num(v, INT64_MAX, &since) ||
	    !(v = field(p, "why", 0)) || strlen(v) >= sizeof(r->why))
		return -1;
	for (const char *c = v; *c; c++)
		if (!why_char(*c))
			return -1;
	r->since_ms = (long long)since;
	strcpy(r->why, v);
	return 0;
}

/* line: NUL-terminated, mutable, without "rec " and newline. */
static int parse_record(struct bnd_state_record *r, char *line)
{
	unsigned long long job, step, pid, start, uid, created;
	char *p = line, *v;
	memset(r, 0, sizeof(*r));
	if (!(v = field(&p, "job", 0)) || num(v, UINT32_MAX, &job) ||
	    !(v = field(&p, "step", 0)) || num(v, UINT32_MAX, &step) ||
	    !(v = field(&p, "pid", 0)) || num(v, INT32_MAX, &pid) || !pid ||
	    !(v = field(&p, "start", 0)) || num(v, ULLONG_MAX, &start) ||
	    !(v = field(&p, "uid", 0)) || num(v, UINT32_MAX, &uid) ||
	    !(v = field(&p, "status", 0)) || bnd_state_status_parse(v, &r->status) ||
	    !(v = field(&p, "created", 0)) || num(v, INT64_MAX, &created) ||
	    !(v = field(&p, "cpus", 0)) || bnd_cpuset_parse_list(&r->cpus, v, NULL, 0))
		return -1;
	r->job = (uint32_t)job;
	r->step = (uint32_t)step;
	r->owner_pid = (int)pid;
	r->owner_start = start;
	r->uid = (uint32_t)uid;
	r->created = (long long)created;
	if (!(v = field(&p, "tasks", 0)) || parse_tasks(r, v) ||
	    !(v = field(&p, "mem", 0)) || parse_mem(r, v) || parse_since_why(r, &p) ||
	    !(v = field(&p, "req", 1)) || strlen(v) >= sizeof(r->request)) {
		bnd_state_record_free(r);
		return -1;
	}
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			bnd_state_record_free(r);
			return -1;
		}
	strcpy(r->request, v);
	return 0;
}

/* "end <count> crc32=<8 hex digits>", exactly, in l bytes. */
static int parse_end(const char *t, size_t l, long *count, uint32_t *crc)
{
	size_t i = 4;
	if (l < 4 || memcmp(t, "end ", 4))
		return -1;
	long n = 0;
	if (i >= l || t[i] < '0' || t[i] > '9')
		return -1;
	while (i < l && t[i] >= '0' && t[i] <= '9') {
		n = n * 10 + (t[i++] - '0');
		if (n > INT_MAX)
			return -1;
	}
	if (l - i != 7 + 8 || memcmp(t + i, " crc32=", 7))
		return -1;
	uint32_t c = 0;
	for (i += 7; i < l; i++) {
		char h = t[i];
		int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		c = (c << 4) | (uint32_t)d;
	}
	*count = n;
	*crc = c;
	return 0;
}

static void note(char *why, size_t whylen, int *noted, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void note(char *why, size_t whylen, int *noted, const char *fmt, ...)
{
	if (*noted)
		return;
	*noted = 1;
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
}

int bnd_statefile_parse(const char *text, size_t len, struct bnd_state_file *f,
			char *why, size_t whylen)
{
	bnd_statefile_init(f);
	f->boot_id[0] = '\0';
	if (why && whylen)
		why[0] = '\0';
	int bad = 0;
	if (!len) {
		note(why, whylen, &bad, "empty file");
		return BND_SF_CORRUPT;
	}

	/* Header: a newer version is refused before anything else is judged. */
	const char *nl = memchr(text, '\n', len);
	size_t l1 = nl ? (size_t)(nl - text) : len;
	size_t ml = strlen(MAGIC);
	if (l1 > ml && l1 < ml + 12 && !memcmp(text, MAGIC, ml)) {
		char vbuf[16];
		unsigned long long v;
		memcpy(vbuf, text + ml, l1 - ml);
		vbuf[l1 - ml] = '\0';
		if (num(vbuf, 1000000, &v) || v < 1) {
			note(why, whylen, &bad, "garbage: bad version in header");
		} else if (v > BND_STATE_VERSION) {
			note(why, whylen, &bad, "format version %llu is newer than this code's %d",
			     v, BND_STATE_VERSION);
			return BND_SF_NEWER;
		}
	} else {
		note(why, whylen, &bad, "garbage: not a spank-binding state header");
	}

	/* Trailer: must be the last line and cover every byte before it. */
	long declared = -1;
	size_t body_end = len;
	if (text[len - 1] != '\n') {
		note(why, whylen, &bad, "truncated: no end line");
	} else {
		size_t s = len - 1;
		while (s > 0 && text[s - 1] != '\n')
			s--;
		uint32_t crc;
		if (parse_end(text + s, len - 1 - s, &declared, &crc)) {
			note(why, whylen, &bad, "truncated: no end line");
			declared = -1;
		} else {
			body_end = s;
			if (bnd_crc32(text, s) != crc)
				note(why, whylen, &bad, "bad checksum");
		}
	}

	/* Body: every line that parses is kept, so a damaged file can be salvaged. */
	const char *p = nl ? nl + 1 : text + len;
	const char *end = body_end < len ? text + body_end : text + len;
	int lineno = 1, seen_boot = 0;
	/* One allocation for every line there may be a record on, up to 1024
	 * (2 MB: a garbage file of empty lines must not cost more); beyond,
	 * the array doubles. */
	int lines = 0;
	for (const char *q = p; lines < 1024 && q < end &&
	     (q = memchr(q, '\n', (size_t)(end - q))); q++)
		lines++;
	if (lines && reserve(f, lines)) {
		bnd_statefile_free(f);
		return -1;
	}
	char *line = NULL;
	size_t linecap = 0;
	while (p < end) {
		lineno++;
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t ll = e ? (size_t)(e - p) : (size_t)(end - p);
		if (ll + 1 > linecap) {
			char *nb = realloc(line, ll + 1);
			if (!nb) {
				free(line);
				bnd_statefile_free(f);
				return -1;
			}
			line = nb;
			linecap = ll + 1;
		}
		memcpy(line, p, ll);
		line[ll] = '\0';
		p = e ? e + 1 : end;
		/* A cut line may still parse (the request runs to its end): only
		 * lines that were ended are believed. */
		if (!e) {
			note(why, whylen, &bad, "truncated: no end line");
			continue;
		}
		if (strlen(line) != ll) {
			note(why, whylen, &bad, "garbage: NUL byte on line %d", lineno);
			continue;
		}
		if (!seen_boot && !strncmp(line, "boot ", 5)) {
			seen_boot = 1;
			if (ll - 5 < sizeof(f->boot_id) && !strchr(line + 5, ' ') && line[5])
				strcpy(f->boot_id, line + 5);
			else
				note(why, whylen, &bad, "garbage: bad boot line");
			continue;
		}
		/* Parsed in place: a record is 2 KB, a copy per record showed. */
		struct bnd_state_record *slot = grow(f);
		if (!slot) {
			free(line);
			bnd_statefile_free(f);
			return -1;
		}
		if (strncmp(line, "rec ", 4) || parse_record(slot, line + 4)) {
			note(why, whylen, &bad, "garbage: line %d does not parse", lineno);
			continue;
		}
		f->nrec++;
	}
	free(line);
	if (!f->nrec) {
		/* no record: nothing to free, as before the reservation */
		free(f->rec);
		f->rec = NULL;
		f->cap = 0;
	}
	if (!seen_boot)
		note(why, whylen, &bad, "garbage: no boot line");
	if (declared >= 0 && declared != f->nrec)
		note(why, whylen, &bad, "record count %ld in end line, %d records read", declared,
		     f->nrec);
	return bad ? BND_SF_CORRUPT : BND_SF_CLEAN;
}
