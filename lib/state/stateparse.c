/* The state file's text into records (statefile.h: parse, load, a
 * record read whole on demand): strict, a damaged line named. */
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


/* Strict unsigned decimal of n bytes, at most max. */
static int num_n(const char *s, size_t n, unsigned long long max, unsigned long long *out)
{
	if (!n)
		return -1;
	unsigned long long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int num(const char *s, unsigned long long max, unsigned long long *out)
{
	return num_n(s, strlen(s), max, out);
}

/* A record's text from its head on, bounded (the file's text is not
 * NUL-terminated per line): "key=value " in a fixed order. */
struct cursor {
	const char *p, *end;
};

/* Past "key=" at the cursor (inlined: klen is a constant at every call,
 * and the compare becomes a load or two). */
static inline __attribute__((always_inline)) int cur_key(struct cursor *c, const char *key,
							 size_t klen)
{
	if ((size_t)(c->end - c->p) <= klen || memcmp(c->p, key, klen) || c->p[klen] != '=')
		return -1;
	c->p += klen + 1;
	return 0;
}

/* The first space from p on, or end: eight bytes at a time (a space
 * turns its byte to zero, and the lowest zero byte is found exactly), for
 * a loop that ends on a byte of varying place mispredicts once a field,
 * and the fields a transaction steps over were a third of its parse. */
static inline __attribute__((always_inline)) const char *find_space(const char *p,
								    const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL;
	for (; end - p >= 8; p += 8) {
		uint64_t x;
		memcpy(&x, p, 8);
		x ^= 0x20 * ones;
		uint64_t zero = (x - ones) & ~x & 0x80 * ones;
		if (zero)
			return p + __builtin_ctzll(zero) / 8;
	}
#endif
	while (p < end && *p != ' ')
		p++;
	return p;
}

/* The value of "key=" at the cursor, up to the next space (consumed). */
static inline __attribute__((always_inline)) int cur_field(struct cursor *c, const char *key,
							   size_t klen, const char **v, size_t *n)
{
	if (cur_key(c, key, klen))
		return -1;
	const char *sp = find_space(c->p, c->end);
	if (sp == c->end)
		return -1;
	*v = c->p;
	*n = (size_t)(sp - c->p);
	c->p = sp + 1;
	return 0;
}

/* "key=<decimal> ", the number at most max: the digits read once. */
static inline __attribute__((always_inline)) int cur_num(struct cursor *c, const char *key,
							 size_t klen, unsigned long long max,
							 unsigned long long *out)
{
	if (cur_key(c, key, klen))
		return -1;
	const char *p = c->p;
	unsigned long long v = 0;
	/* 19 digits cannot overflow: no division per digit. */
	for (; p < c->end && *p >= '0' && *p <= '9' && p - c->p < 19; p++)
		v = v * 10 + (unsigned)(*p - '0');
	for (; p < c->end && *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (unsigned)(*p - '0'), &v))
			return -1;
	if (p == c->p || p == c->end || *p != ' ' || v > max)
		return -1;
	c->p = p + 1;
	*out = v;
	return 0;
}

#define KEY(k) k, sizeof(k) - 1

static int why_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == ':' || c == ',' || c == '=' || c == '+' || c == '-';
}

void bnd_state_why_clean(char *why, const char *text)
{
	size_t i = 0;
	for (; text && text[i] && i < BND_STATE_WHY_LEN - 1; i++)
		why[i] = why_char(text[i]) ? text[i] : '-';
	why[i] = '\0';
}

/* The status named by n bytes at v, -1 for none (the three differ in
 * length). */
static int status_of(const char *v, size_t n)
{
	int k = n == 6 ? BND_ST_ACTIVE : n == 9 ? BND_ST_SUSPENDED : n == 8 ? BND_ST_DEFERRED
	      : n == 7 ? BND_ST_UNBOUND : -1;
	return k >= 0 && !memcmp(v, bnd_state_status_name((enum bnd_state_status)k), n) ? k : -1;
}

/* How much of a head to read: what every transaction needs, or all of it.
 * The owner's start time and created= are cold (only the full check of
 * an owner and sbind read them), and the cpus of a record that holds none
 * are empty: at HEAD_HOT they are stepped over, unread and unwritten, and
 * bnd_statefile_whole reads them. The two were half the digits of a
 * 1000-record transaction. */
enum head_depth { HEAD_HOT, HEAD_ALL };

/* "key=<decimal> " at the cursor: read at HEAD_ALL, stepped over at
 * HEAD_HOT (*out left alone). */
static inline __attribute__((always_inline)) int cur_cold(struct cursor *c, const char *key,
							  size_t klen, unsigned long long max,
							  unsigned long long *out, enum head_depth d)
{
	const char *v;
	size_t n;
	return d == HEAD_ALL ? cur_num(c, key, klen, max, out) : cur_field(c, key, klen, &v, &n);
}

/* job .. cpus, leaving c past the cpus' space: what a transaction reads of
 * every record (at HEAD_HOT). The rest (since= why= want=, which only
 * deferred records' queue and edits need, then tasks= on) waits for
 * parse_tail: a state of suspended records spent a third of its head
 * parse on since= and why=. */
static int parse_head(struct bnd_state_record *r, struct cursor *c, enum head_depth d)
{
	unsigned long long job, step, pid, start = 0, uid, created = 0;
	const char *v;
	size_t n;
	if (cur_num(c, KEY("job"), UINT32_MAX, &job) || cur_num(c, KEY("step"), UINT32_MAX, &step) ||
	    cur_num(c, KEY("pid"), INT32_MAX, &pid) || !pid ||
	    cur_cold(c, KEY("start"), ULLONG_MAX, &start, d) ||
	    cur_num(c, KEY("uid"), UINT32_MAX, &uid) || cur_field(c, KEY("status"), &v, &n))
		return -1;
	int k = status_of(v, n);
	if (k < 0 || cur_cold(c, KEY("created"), INT64_MAX, &created, d) ||
	    cur_field(c, KEY("cpus"), &v, &n) ||
	    ((n || k == BND_ST_ACTIVE || d == HEAD_ALL) &&
	     bnd_cpuset_parse_span(&r->cpus, v, n, NULL, 0)))
		return -1;
	r->status = (enum bnd_state_status)k;
	r->job = (uint32_t)job;
	r->step = (uint32_t)step;
	r->owner_pid = (int)pid;
	r->owner_start = start;
	r->uid = (uint32_t)uid;
	r->created = (long long)created;
	r->since_ms = 0;
	r->why[0] = '\0';
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

/* <node>:<MiB>[,...] into the record's mem= or (booked) booked= shares. */
static int parse_shares(struct bnd_state_record *r, int booked, char *v)
{
	struct bnd_state_mem **arr = booked ? &r->booked : &r->mem;
	int *count = booked ? &r->nbooked : &r->nmem;
	int n = *v ? 1 : 0;
	for (const char *c = v; *c; c++)
		n += *c == ',';
	if (booked ? bnd_state_record_booked(r, n) : bnd_state_record_mem(r, n))
		return -1;
	*count = 0;
	while (*v) {
		if (*count == n)
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
		(*arr)[*count].node = (int)node;
		(*arr)[*count].mib = mib;
		(*count)++;
		if (!comma)
			break;
		v = comma + 1;
		if (!*v)
			return -1;
	}
	return 0;
}

static int parse_mem(struct bnd_state_record *r, char *v)
{
	return parse_shares(r, 0, v);
}

/* booked= and split=, when there (version 4); booked= is never empty. */
static int parse_booked(struct bnd_state_record *r, char **p)
{
	unsigned long long v;
	char *t;
	r->split = 0;
	if (!strncmp(*p, "booked=", 7) &&
	    (!(t = field(p, "booked", 0)) || !*t || parse_shares(r, 1, t)))
		return -1;
	if (strncmp(*p, "split=", 6))
		return 0;
	if (!(t = field(p, "split", 0)) || num(t, BND_STATE_MAX_TASKS, &v) || !v)
		return -1;
	r->split = (int)v;
	return 0;
}

/* since= why=, when there: after cpus= from version 2, after mem= in
 * version 1. */
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

/* groups= need= want= (deferred records, version 2), when there. */
static int parse_want(struct bnd_state_record *r, char **p)
{
	unsigned long long groups, need;
	char *v;
	bnd_cpuset_t want;
	if (strncmp(*p, "groups=", 7))
		return 0;
	if (!(v = field(p, "groups", 0)) || num(v, BND_STATE_MAX_TASKS, &groups) || !groups ||
	    !(v = field(p, "need", 0)) || num(v, BND_MAX_CPUS, &need) ||
	    !(v = field(p, "want", 0)) || bnd_cpuset_parse_list(&want, v, NULL, 0) ||
	    bnd_cpuset_empty(&want))
		return -1;
	return bnd_state_record_want(r, &want, (int)groups, (int)need) ? -1 : 0;
}

/* jobmem=, when there (version 2). */
static int parse_jobmem(struct bnd_state_record *r, char **p)
{
	unsigned long long v;
	char *t;
	if (strncmp(*p, "jobmem=", 7))
		return 0;
	if (!(t = field(p, "jobmem", 0)) || num(t, UINT64_MAX, &v) || !v)
		return -1;
	r->job_mem_mib = v;
	return 0;
}

/* gpus=0;1;2,3 (version 3), when there: as many groups as the text has. */
static int parse_gpus(struct bnd_state_record *r, char **p)
{
	char *v;
	if (strncmp(*p, "gpus=", 5))
		return 0;
	if (!(v = field(p, "gpus", 0)) || !*v)
		return -1;
	int n = 1;
	for (const char *c = v; *c; c++)
		n += *c == ';';
	if (n > BND_STATE_MAX_TASKS)
		return -1;
	uint64_t *m = calloc((size_t)n, sizeof(*m));
	if (!m)
		return -1;
	for (int i = 0; i < n; i++) {
		char *semi = strchr(v, ';');
		if (semi)
			*semi = '\0';
		if (strcmp(v, "-")) {
			for (char *save = NULL, *g = strtok_r(v, ",", &save); g;
			     g = strtok_r(NULL, ",", &save)) {
				unsigned long long idx;
				if (num(g, 63, &idx)) {
					free(m);
					return -1;
				}
				m[i] |= 1ULL << idx;
			}
			if (!m[i]) {
				free(m);
				return -1;
			}
		}
		v = semi ? semi + 1 : v + strlen(v);
	}
	free(r->gpus);
	r->gpus = m;
	r->ngpus = n;
	return 0;
}

/* mbind= gpus= hist= (version 3), each when there. */
static int parse_v3(struct bnd_state_record *r, char **p)
{
	char *v;
	r->mbind = BND_M_NONE;
	if (!strncmp(*p, "mbind=", 6) &&
	    (!(v = field(p, "mbind", 0)) || bnd_mbind_parse(&r->mbind, v, NULL, 0) ||
	     r->mbind == BND_M_NONE))
		return -1;
	if (parse_gpus(r, p))
		return -1;
	if (strncmp(*p, "hist=", 5))
		return 0;
	if (!(v = field(p, "hist", 0)) || bnd_hist_check(v, strlen(v)) || !(r->hist = strdup(v)))
		return -1;
	return 0;
}

/* From past cpus= to the end of the line (NUL-terminated, mutable). */
static int parse_tail(struct bnd_state_record *r, char *p, int version)
{
	char *v;
	r->job_mem_mib = 0;
	r->request[0] = '\0';
	if ((version >= 2 && (parse_since_why(r, &p) || parse_want(r, &p))) ||
	    !(v = field(&p, "tasks", 0)) || parse_tasks(r, v) || !(v = field(&p, "mem", 0)) ||
	    parse_mem(r, v) ||
	    (version >= 2 ? parse_jobmem(r, &p) : parse_since_why(r, &p)) ||
	    (version >= 3 && parse_v3(r, &p)) ||
	    (version >= 4 && parse_booked(r, &p)) ||
	    !(v = field(&p, "req", 1)) || strlen(v) >= sizeof(r->request))
		return -1;
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -1;
	strcpy(r->request, v);
	r->parsed = BND_REC_WHOLE;
	return 0;
}

/* line: NUL-terminated, mutable, without "rec " and newline. */
static int parse_record(struct bnd_state_record *r, char *line, int version)
{
	memset(r, 0, sizeof(*r));
	struct cursor c = { line, line + strlen(line) };
	if (parse_head(r, &c, HEAD_ALL) || parse_tail(r, (char *)c.p, version)) {
		bnd_state_record_free(r);
		return -1;
	}
	return 0;
}

int bnd_statefile_whole(struct bnd_state_file *f, int i)
{
	struct bnd_state_record *r = &f->rec[i];
	if (r->parsed == BND_REC_WHOLE)
		return BND_OK;
	size_t n = r->rawlen - r->tail;
	/* The whole parse refuses a line with a NUL byte: so does this one. */
	if (memchr(r->raw + r->tail, '\0', n))
		return BND_ESTATE;
	/* what the head left cold */
	struct cursor c = { r->raw, r->raw + r->tail };
	if (parse_head(r, &c, HEAD_ALL) || c.p != c.end)
		return BND_ESTATE;
	char small[512], *line = n < sizeof(small) ? small : malloc(n + 1);
	if (!line)
		return BND_ENOMEM;
	memcpy(line, r->raw + r->tail, n);
	line[n] = '\0';
	int bad = parse_tail(r, line, BND_STATE_VERSION);
	if (line != small)
		free(line);
	if (!bad)
		return BND_OK;
	bnd_state_record_free(r);
	r->parsed = BND_REC_HEAD;
	return BND_ESTATE;
}

int bnd_statefile_edit(struct bnd_state_file *f, int i)
{
	int rc = bnd_statefile_whole(f, i);
	if (rc == BND_OK) {
		f->rec[i].raw = NULL;
		f->rec[i].rawlen = f->rec[i].tail = 0;
	}
	return rc;
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

/* The version on the first line: 0 when it is not a state header, -1
 * when its version is not a number >= 1. */
static long header_version(const char *text, size_t len, const char **body)
{
	const char *nl = memchr(text, '\n', len);
	size_t l1 = nl ? (size_t)(nl - text) : len;
	size_t ml = strlen(BND_STATE_MAGIC);
	unsigned long long v = 0;
	*body = nl ? nl + 1 : text + len;
	if (l1 <= ml || l1 >= ml + 12 || memcmp(text, BND_STATE_MAGIC, ml))
		return 0;
	return num_n(text + ml, l1 - ml, 1000000, &v) || !v ? -1 : (long)v;
}

/* Where the end line starts when the file ends with a valid one (its count
 * and checksum out), else 0 (no file is valid without a header before it). */
static size_t trailer(const char *text, size_t len, long *count, uint32_t *crc)
{
	if (text[len - 1] != '\n')
		return 0;
	size_t s = len - 1;
	while (s > 0 && text[s - 1] != '\n')
		s--;
	return s && !parse_end(text + s, len - 1 - s, count, crc) ? s : 0;
}

/* The value of a "name value" header line into f; 0 or -1 (bad value). */
static int header_value(struct bnd_state_file *f, int k, const char *v, size_t n)
{
	unsigned long long scan;
	if (!n || memchr(v, ' ', n))
		return -1;
	if (k == 2) {
		if (num_n(v, n, UINT32_MAX, &scan))
			return -1;
		f->scan = (unsigned)scan;
		return 0;
	}
	char *dst = k == 0 ? f->boot_id : f->node;
	size_t cap = k == 0 ? sizeof(f->boot_id) : sizeof(f->node);
	if (n >= cap)
		return -1;
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

/* "count k=v k=v ...": each key once; a key this code does not know is
 * dropped (a newer plugin's counter: reset, not refused). 0 or -1. */
static int parse_counts(struct bnd_counts *c, const char *p, const char *end)
{
	memset(c, 0, sizeof(*c));
	uint64_t seen[(BND_CNT_COUNT + 63) / 64] = { 0 };
	while (p < end) {
		if (*p++ != ' ')
			return -1;
		const char *eq = memchr(p, '=', (size_t)(end - p));
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			sp = end;
		unsigned long long v;
		if (!eq || eq > sp || eq == p || num_n(eq + 1, (size_t)(sp - eq - 1), UINT64_MAX, &v))
			return -1;
		int k = bnd_counter_by_key(p, (size_t)(eq - p));
		if (k >= 0) {
			if (seen[k / 64] >> (k % 64) & 1)
				return -1;
			seen[k / 64] |= 1ULL << (k % 64);
			c->v[k] = v;
		}
		p = sp;
	}
	return 0;
}

/* Header lines after the first: boot, node, scan, count (each once). 1
 * when the line is one (a bad value noted), 0 when it is not. */
static int header_line(struct bnd_state_file *f, const char *line, size_t ll, int *seen,
		       char *why, size_t whylen, int *bad)
{
	static const char *const names[] = { "boot ", "node ", "scan " };
	if (ll >= 5 && !memcmp(line, "count", 5) && (ll == 5 || line[5] == ' ') && !(*seen & 8)) {
		*seen |= 8;
		if (parse_counts(&f->counts, line + 5, line + ll))
			note(why, whylen, bad, "garbage: bad count line");
		return 1;
	}
	for (int k = 0; k < 3; k++) {
		if (ll < 5 || memcmp(line, names[k], 5) || (*seen & (1 << k)))
			continue;
		*seen |= 1 << k;
		if (header_value(f, k, line + 5, ll - 5))
			note(why, whylen, bad, "garbage: bad %.4s line", names[k]);
		return 1;
	}
	return 0;
}

/* What the strict parse learns around the records. */
struct frame {
	long version;    /* from the header; <= 0 when it is not one */
	const char *body; /* first byte after the header */
	size_t body_end; /* offset of the end line, or len without one */
	long declared;   /* record count in the end line, -1 without one */
};

/* Header and trailer: a newer version is refused before anything else is
 * judged; the trailer must be the last line and cover every byte before it. */
static int parse_frame(const char *text, size_t len, struct frame *fr, char *why, size_t whylen,
		       int *bad)
{
	fr->version = header_version(text, len, &fr->body);
	if (fr->version > BND_STATE_VERSION) {
		note(why, whylen, bad, "format version %ld is newer than this code's %d",
		     fr->version, BND_STATE_VERSION);
		return BND_SF_NEWER;
	}
	if (fr->version <= 0)
		note(why, whylen, bad, fr->version ? "garbage: bad version in header"
						   : "garbage: not a spank-binding state header");
	uint32_t crc;
	fr->declared = -1;
	fr->body_end = trailer(text, len, &fr->declared, &crc);
	if (!fr->body_end) {
		note(why, whylen, bad, "truncated: no end line");
		fr->declared = -1;
		fr->body_end = len;
	} else if (bnd_crc32(text, fr->body_end) != crc) {
		note(why, whylen, bad, "bad checksum");
	}
	return BND_SF_CLEAN;
}

/* One allocation for every line there may be a record on, up to 1024 (2 MB:
 * a garbage file of empty lines must not cost more); beyond, the array
 * doubles. */
static int reserve_lines(struct bnd_state_file *f, const char *p, const char *end)
{
	int lines = 0;
	for (const char *q = p; lines < 1024 && q < end &&
	     (q = memchr(q, '\n', (size_t)(end - q))); q++)
		lines++;
	return lines ? bnd_statefile_reserve(f, lines) : 0;
}

/* One ended body line: a header line, a record parsed in place (a record is
 * 2 KB, a copy per record showed), or garbage noted. -1: out of memory. */
static int parse_body_line(struct bnd_state_file *f, char *line, size_t ll, int lineno,
			   int version, int *seen, char *why, size_t whylen, int *bad)
{
	if (strlen(line) != ll) {
		note(why, whylen, bad, "garbage: NUL byte on line %d", lineno);
		return 0;
	}
	if (header_line(f, line, ll, seen, why, whylen, bad))
		return 0;
	struct bnd_state_record *slot = bnd_statefile_slot(f);
	if (!slot)
		return -1;
	if (strncmp(line, "rec ", 4) || parse_record(slot, line + 4, version > 0 ? version : 1)) {
		note(why, whylen, bad, "garbage: line %d does not parse", lineno);
		return 0;
	}
	f->nrec++;
	return 0;
}

/* Every line that parses is kept, so a damaged file can be salvaged. A cut
 * line may still parse (the request runs to its end): only lines that were
 * ended are believed. -1: out of memory. */
static int parse_body(struct bnd_state_file *f, const struct frame *fr, const char *text,
		      int *seen, char *why, size_t whylen, int *bad)
{
	const char *p = fr->body, *end = text + fr->body_end;
	char *line = NULL;
	size_t linecap = 0;
	int rc = 0;
	for (int lineno = 2; p < end && !rc; lineno++) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t ll = e ? (size_t)(e - p) : (size_t)(end - p);
		if (ll + 1 > linecap) {
			char *nb = realloc(line, ll + 1);
			if (!nb) {
				rc = -1;
				break;
			}
			line = nb;
			linecap = ll + 1;
		}
		memcpy(line, p, ll);
		line[ll] = '\0';
		p = e ? e + 1 : end;
		if (!e)
			note(why, whylen, bad, "truncated: no end line");
		else
			rc = parse_body_line(f, line, ll, lineno, (int)fr->version, seen, why, whylen,
					     bad);
	}
	free(line);
	return rc;
}

int bnd_statefile_parse(const char *text, size_t len, struct bnd_state_file *f,
			char *why, size_t whylen)
{
	bnd_statefile_init(f);
	f->boot_id[0] = '\0';
	if (why && whylen)
		why[0] = '\0';
	int bad = 0, seen = 0;
	if (!len) {
		note(why, whylen, &bad, "empty file");
		return BND_SF_CORRUPT;
	}
	struct frame fr;
	if (parse_frame(text, len, &fr, why, whylen, &bad) == BND_SF_NEWER)
		return BND_SF_NEWER;
	if (reserve_lines(f, fr.body, text + fr.body_end) ||
	    parse_body(f, &fr, text, &seen, why, whylen, &bad)) {
		bnd_statefile_free(f);
		return -1;
	}
	if (!f->nrec) {
		/* no record: nothing to free, as before the reservation */
		bnd_spare_free(BND_SPARE_RECORDS, f->rec, (size_t)f->cap * sizeof(*f->rec));
		f->rec = NULL;
		f->cap = 0;
	}
	if (!(seen & 1))
		note(why, whylen, &bad, "garbage: no boot line");
	if (fr.declared >= 0 && fr.declared != f->nrec)
		note(why, whylen, &bad, "record count %ld in end line, %d records read",
		     fr.declared, f->nrec);
	return bad ? BND_SF_CORRUPT : BND_SF_CLEAN;
}

/* The fast path of bnd_statefile_load: a whole file of this version,
 * headers then records in order. 0, or -1 when anything is off (the strict
 * parse then judges and salvages), -2 when memory runs out. */
static int load_heads(const char *p, const char *end, long count, struct bnd_state_file *f)
{
	int seen = 0, bad = 0;
	/* room for the record a transaction adds: no copy of the array */
	if (count >= 0 && bnd_statefile_reserve(f, (int)count + 2))
		return -2;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			return -1;
		size_t ll = (size_t)(e - p);
		if (ll > 4 && !memcmp(p, "rec ", 4)) {
			if (f->nrec == count)
				return -1;
			/* Only what is safe to read or free before the tail is
			 * parsed: no 2 KB memset per record. */
			struct bnd_state_record *r = &f->rec[f->nrec];
			r->tasks = NULL;
			r->want = NULL;
			r->mem = NULL;
			r->gpus = NULL;
			r->hist = NULL;
			r->booked = NULL;
			r->mbind = BND_M_NONE;
			r->ntasks = r->want_groups = r->want_need = r->nmem = r->ngpus = 0;
			r->nbooked = r->split = 0;
			struct cursor c = { p + 4, e };
			if (parse_head(r, &c, HEAD_HOT)) {
				bnd_state_record_free(r);
				return -1;
			}
			r->parsed = BND_REC_HEAD;
			r->raw = p + 4;
			r->rawlen = ll - 4;
			r->tail = (size_t)(c.p - r->raw);
			f->nrec++;
		} else if (f->nrec || memchr(p, '\0', ll) || !header_line(f, p, ll, &seen, NULL, 0, &bad) ||
			   bad) {
			return -1;
		}
		p = e + 1;
	}
	return (seen & 1) && f->nrec == count ? 0 : -1;
}

int bnd_statefile_load(char *text, size_t len, struct bnd_state_file *f, char *why,
		       size_t whylen)
{
	const char *body;
	long count = -1;
	uint32_t crc;
	size_t s = len ? trailer(text, len, &count, &crc) : 0;
	if (s && header_version(text, len, &body) == BND_STATE_VERSION && body <= text + s &&
	    bnd_crc32(text, s) == crc) {
		bnd_statefile_init(f);
		f->boot_id[0] = '\0';
		int rc = load_heads(body, text + s, count, f);
		if (!rc) {
			f->text = text;
			f->textcap = len + 1;
			if (why && whylen)
				why[0] = '\0';
			return BND_SF_CLEAN;
		}
		bnd_statefile_free(f);
		if (rc == -2) {
			bnd_spare_free(BND_SPARE_READ, text, len + 1);
			return -1;
		}
	}
	int verdict = bnd_statefile_parse(text, len, f, why, whylen);
	bnd_spare_free(BND_SPARE_READ, text, len + 1);
	return verdict;
}
