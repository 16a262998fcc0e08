/* Parser for --binding and --mbind values.
 *
 * The text is split on ':' once, then each strategy checks its own fields.
 * Every message quotes the user's text and the token at fault, escaping
 * bytes that are not printable ASCII: the text comes straight from a
 * command line and ends up in terminals and slurmd logs.
 */
#include "binding/request/request.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/topology/unitletter.h"
#include "binding/util/error.h"

/* Most characters of the text / of a token a message shows, so that the
 * reason and the accepted form still fit in BND_ERRLEN. */
#define SHOW_TEXT 120
#define SHOW_TOKEN 40
/* instance + strategy + the explicit pairs + one, so that one pair too
 * many is still seen by the explicit parser. */
#define MAX_FIELDS (BND_MAX_EXPLICIT + 3)
/* Ranges of cpu ids beyond BND_MAX_CPUS remembered for the duplicate
 * check of a cpus: list. */
#define MAX_BIG_RANGES 64

struct span {
	const char *p;
	size_t n;
};

struct ctx {
	const char *opt;      /* "--binding" or "--mbind" */
	const char *text;     /* never NULL */
	char *err;
	size_t errlen;
	const char *expected; /* accepted form of what is being parsed; NULL:
	                         a strategy (strategy_list) */
};

struct tok {
	char s[SHOW_TOKEN + 1];
};

/* At most outlen - 1 characters, "..." included when s is cut short. */
static void show(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0, i;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char tmp[8];
		size_t k;
		if (ch == '"' || ch == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)ch;
			k = 2;
		} else if (ch < 0x20 || ch > 0x7e) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", ch);
			k = 4;
		} else {
			tmp[0] = (char)ch;
			k = 1;
		}
		if (o + k + 4 > outlen)
			break;
		memcpy(out + o, tmp, k);
		o += k;
	}
	if (i < n) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

static const char *T(struct tok *b, struct span s)
{
	show(s.p, s.n, b->s, sizeof(b->s));
	return b->s;
}

static const char *strategy_list(char *buf, size_t len);
static int fail(const struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(const struct ctx *c, const char *fmt, ...)
{
	char reason[512];
	char shown[SHOW_TEXT + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	char list[256];
	show(c->text, strlen(c->text), shown, sizeof(shown));
	return bnd_fail(c->err, c->errlen, BND_EINVAL, "%s: \"%s\": %s (expected %s)",
			c->opt, shown, reason,
			c->expected ? c->expected : strategy_list(list, sizeof(list)));
}

static int is(struct span s, const char *word)
{
	size_t n = strlen(word);
	return s.n == n && memcmp(s.p, word, n) == 0;
}

static struct span sub(struct span s, size_t from, size_t to)
{
	struct span r = { s.p + from, to - from };
	return r;
}

static const char *find(struct span s, char ch)
{
	return s.n ? memchr(s.p, ch, s.n) : NULL;
}

/* "key=value" into its two parts; false without '=' or without a key. */
static bool split_kv(struct span s, struct span *key, struct span *val)
{
	const char *eq = find(s, '=');
	if (!eq || eq == s.p)
		return false;
	size_t k = (size_t)(eq - s.p);
	*key = sub(s, 0, k);
	*val = sub(s, k + 1, s.n);
	return true;
}

enum { NUM_OK, NUM_BAD, NUM_BIG };

/* Plain decimal digits only: no sign, no blanks, no base prefix. */
static int parse_num(struct span s, int *out)
{
	long v = 0;
	int big = 0;
	if (!s.n)
		return NUM_BAD;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return NUM_BAD;
		if (!big) {
			v = v * 10 + (s.p[i] - '0');
			big = v > BND_MAX_NUMBER;
		}
	}
	if (big)
		return NUM_BIG;
	*out = (int)v;
	return NUM_OK;
}

/* `in` (may be empty) is the field holding s, named when s is empty. */
static int num_field(const struct ctx *c, struct span s, struct span in, const char *what,
		     int min, int *out)
{
	struct tok a, b;
	if (!s.n)
		return fail(c, "%s is missing in \"%s\"", what, T(&b, in));
	switch (parse_num(s, out)) {
	case NUM_BAD:
		return fail(c, "%s \"%s\" is not a decimal number", what, T(&a, s));
	case NUM_BIG:
		return fail(c, "%s \"%s\" is too large (at most %d)", what, T(&a, s), BND_MAX_NUMBER);
	default:
		break;
	}
	if (*out < min)
		return fail(c, "%s must be >= %d", what, min);
	return BND_OK;
}

static int parse_pair(const struct ctx *c, struct span s, const char *what, struct bnd_pair *out)
{
	struct tok a;
	const char *comma = find(s, ',');
	if (!comma || find(sub(s, (size_t)(comma - s.p) + 1, s.n), ','))
		return fail(c, "%s \"%s\" is not <socket>,<core>", what, T(&a, s));
	size_t k = (size_t)(comma - s.p);
	int rc = num_field(c, sub(s, 0, k), s, "socket", 0, &out->socket);
	if (rc == BND_OK)
		rc = num_field(c, sub(s, k + 1, s.n), s, "core", 0, &out->core);
	return rc;
}

/* ---- positional fields, read from the strategy's form ----------------- */

/* The numbers a form may name in turn, and where each goes. */
static const struct {
	const char *name;
	size_t at;
} numbers[] = {
	{ "amount", offsetof(struct bnd_request, amount) },
	{ "step", offsetof(struct bnd_request, step) },
};

#define NNUMBERS (sizeof(numbers) / sizeof(numbers[0]))
#define START_FORM "[:<socket>,<core>]"
#define MAX_POSITIONAL 4

/* A form of numbers in turn, then at most an optional start core (Grid
 * Engine's linear:<amount>[:<socket>,<core>] and
 * striding:<amount>:<step>[:<socket>,<core>]): c->expected is the grammar,
 * so a strategy of that shape needs no parser of its own
 * (docs/architecture.md, "Adding a strategy"). */
struct positional {
	size_t n;                           /* numbers, each >= 1 */
	size_t number[MAX_POSITIONAL];      /* their rows in numbers[] */
	bool start;                         /* then [:<socket>,<core>] */
};

static bool positional_of(const char *form, struct positional *p)
{
	const char *f = strchr(form, ':');
	memset(p, 0, sizeof(*p));
	while (f && *f) {
		if (!strcmp(f, START_FORM)) {
			p->start = true;
			return true;
		}
		const char *end = strchr(f, '>');
		size_t k = 0;
		if (f[0] != ':' || f[1] != '<' || !end || p->n == MAX_POSITIONAL)
			return false;
		struct span name = { f + 2, (size_t)(end - f - 2) };
		while (k < NNUMBERS && !is(name, numbers[k].name))
			k++;
		if (k == NNUMBERS)
			return false;
		p->number[p->n++] = k;
		f = end + 1;
	}
	return p->n > 0;
}

static int parse_positional(const struct ctx *c, struct bnd_request *r, const struct span *a,
			    size_t n)
{
	struct tok t;
	struct positional p;
	if (!c->expected || !positional_of(c->expected, &p))
		return fail(c, "the form \"%s\" is not numbers and a start (internal error)",
			    c->expected ? c->expected : "");
	if (n < p.n)
		return fail(c, "%s is missing", numbers[p.number[n]].name);
	if (n > p.n + p.start)
		return fail(c, "unexpected \"%s\" after the %s", T(&t, a[p.n + p.start]),
			    p.start ? "start core" : numbers[p.number[p.n - 1]].name);
	int rc = BND_OK;
	for (size_t i = 0; i < p.n && rc == BND_OK; i++)
		rc = num_field(c, a[i], a[i], numbers[p.number[i]].name, 1,
			       (int *)((char *)r + numbers[p.number[i]].at));
	if (rc == BND_OK && n > p.n) {
		r->has_start = true;
		rc = parse_pair(c, a[p.n], "start", &r->start);
	}
	return rc;
}

/* ---- Grid Engine 6.2u5 ---------------------------------------------- */

/* One pair of an explicit list; `field` (the text between two ':') holds
 * it, for the message about an empty pair. */
static int explicit_pair(const struct ctx *c, struct bnd_request *r, struct span s,
			 struct span field)
{
	struct tok t;
	struct bnd_pair p;
	if (!s.n)
		return fail(c, "empty pair in \"%s\"", T(&t, field));
	if (r->nexplicit >= BND_MAX_EXPLICIT)
		return fail(c, "more than %d <socket>,<core> pairs", BND_MAX_EXPLICIT);
	int rc = parse_pair(c, s, "pair", &p);
	if (rc != BND_OK)
		return rc;
	for (int j = 0; j < r->nexplicit; j++)
		if (r->explicit_pairs[j].socket == p.socket && r->explicit_pairs[j].core == p.core)
			return fail(c, "pair \"%s\" is listed twice", T(&t, s));
	r->explicit_pairs[r->nexplicit++] = p;
	return BND_OK;
}

/* Room for the pairs of fields a[0..n): one per field and one more per
 * ';' in them, at most the limit (explicit_pair refuses the next pair
 * before storing it). */
static int alloc_pairs(const struct ctx *c, struct bnd_request *r, const struct span *a, size_t n)
{
	size_t room = 0;
	for (size_t i = 0; i < n && room <= BND_MAX_EXPLICIT; i++) {
		room++;
		for (size_t k = 0; k < a[i].n; k++)
			room += a[i].p[k] == ';';
	}
	if (room > BND_MAX_EXPLICIT)
		room = BND_MAX_EXPLICIT;
	if (!(r->explicit_pairs = calloc(room, sizeof(*r->explicit_pairs))))
		return bnd_fail(c->err, c->errlen, BND_ENOMEM, "out of memory");
	return BND_OK;
}

/* Grid Engine 6.2u5's man page separates the pairs with ';' as well as
 * ':' (explicit:0,0;1,0): a field between two ':' may hold several. */
static int parse_explicit(const struct ctx *c, struct bnd_request *r, const struct span *a,
			  size_t n)
{
	if (n == 0)
		return fail(c, "at least one <socket>,<core> pair is needed");
	int rc = alloc_pairs(c, r, a, n);
	if (rc != BND_OK)
		return rc;
	for (size_t i = 0; i < n; i++) {
		size_t from = 0;
		for (;;) {
			const char *semi = find(sub(a[i], from, a[i].n), ';');
			size_t to = semi ? (size_t)(semi - a[i].p) : a[i].n;
			rc = explicit_pair(c, r, sub(a[i], from, to), a[i]);
			if (rc != BND_OK)
				return rc;
			if (!semi)
				break;
			from = to + 1;
		}
	}
	return BND_OK;
}

/* ---- OCS/GCS packed --------------------------------------------------- */

static int unit_letter(char ch)
{
	return bnd_is_unit_letter(ch);
}

enum { K_UNIT, K_TYPE, K_SORT, K_START, K_STOP, K_FILTER, K_NEAR, K_VISIBLE, K_COUNT };
static const char *const packed_keys[K_COUNT] = { "unit", "type", "sort", "start", "stop", "filter",
						  "near", "visible" };

/* Other spellings of a key the OCS documents use ("end" in the -bstop
 * examples); they count as the key itself for "given twice". */
static const struct {
	const char *word;
	int key;
} packed_aliases[] = { { "end", K_STOP } };

/* visible=task|all: whether a task sees only its own GPUs when the
 * plugin splits the step's among its tasks. */
static int parse_visible(const struct ctx *c, struct bnd_request *r, struct span v)
{
	struct tok a;
	if (is(v, "task"))
		r->visible = BND_VIS_TASK;
	else if (is(v, "all"))
		r->visible = BND_VIS_ALL;
	else
		return fail(c, "visible \"%s\" is not task or all", T(&a, v));
	return BND_OK;
}

static int packed_unit(const struct ctx *c, struct bnd_request *r, struct span v)
{
	struct tok a;
	char names[64];
	if (v.n < sizeof(r->unit) && bnd_packed_unit_name(T(&a, v))) {
		memcpy(r->unit, v.p, v.n);
		r->unit[v.n] = '\0';
		return BND_OK;
	}
	bnd_packed_unit_names(' ', names, sizeof(names));
	return fail(c, "unit \"%s\" is not one of %s", T(&a, v), names);
}

static int packed_type(const struct ctx *c, struct bnd_request *r, struct span v)
{
	struct tok a;
	if (is(v, "task") || is(v, "slot"))
		r->ptype = BND_PT_TASK;
	else if (is(v, "node") || is(v, "host"))
		r->ptype = BND_PT_NODE;
	else
		return fail(c, "type \"%s\" is not task or node", T(&a, v));
	return BND_OK;
}

static int packed_sort(const struct ctx *c, struct bnd_request *r, struct span v)
{
	struct tok a, b;
	for (size_t i = 0; i < v.n; i++) {
		if (!unit_letter(v.p[i]))
			return fail(c, "sort letter \"%s\" in \"%s\" is not one of " BND_UNIT_LETTER_LIST " "
				    "(either case)", T(&a, sub(v, i, i + 1)), T(&b, v));
		for (size_t j = 0; j < i; j++)
			if ((v.p[j] | 0x20) == (v.p[i] | 0x20))
				return fail(c, "sort letter \"%s\" appears twice in \"%s\"",
					    T(&a, sub(v, i, i + 1)), T(&b, v));
	}
	/* Seven distinct letters at most, so it always fits. */
	memcpy(r->sort, v.p, v.n);
	r->sort[v.n] = '\0';
	return BND_OK;
}

static int packed_filter(const struct ctx *c, struct bnd_request *r, struct span v)
{
	struct tok a, b;
	if (v.n > BND_MAX_FILTER)
		return fail(c, "filter is longer than %d letters", BND_MAX_FILTER);
	for (size_t i = 0; i < v.n; i++)
		if (!unit_letter(v.p[i]))
			return fail(c, "filter \"%s\" has \"%s\" at position %zu, not a unit letter "
				    "(" BND_UNIT_LETTER_LIST ", either case)", T(&b, v),
				    T(&a, sub(v, i, i + 1)), i + 1);
	if (!(r->filter = strndup(v.p, v.n)))
		return bnd_fail(c->err, c->errlen, BND_ENOMEM, "out of memory");
	return BND_OK;
}

static int packed_value(const struct ctx *c, struct bnd_request *r, int key, struct span v)
{
	struct tok a;
	switch (key) {
	case K_UNIT:
		return packed_unit(c, r, v);
	case K_TYPE:
		return packed_type(c, r, v);
	case K_SORT:
		return packed_sort(c, r, v);
	case K_START:
	case K_STOP:
		if (v.n != 1 || !unit_letter(v.p[0]))
			return fail(c, "%s \"%s\" is not a unit letter (one of " BND_UNIT_LETTER_LIST ", either case)",
				    packed_keys[key], T(&a, v));
		if (key == K_START)
			r->start_letter = v.p[0];
		else
			r->stop_letter = v.p[0];
		return BND_OK;
	case K_FILTER:
		return packed_filter(c, r, v);
	case K_NEAR:
		if (!is(v, "gpu"))
			return fail(c, "near \"%s\" is not gpu", T(&a, v));
		r->near_gpu = true;
		return BND_OK;
	case K_VISIBLE:
		return parse_visible(c, r, v);
	default:
		return fail(c, "internal: unknown key");
	}
}

static int parse_packed(const struct ctx *c, struct bnd_request *r, const struct span *a, size_t n)
{
	struct tok t;
	unsigned seen = 0;
	memcpy(r->unit, "C", 2);
	r->ptype = BND_PT_TASK;
	if (n == 0)
		return fail(c, "amount is missing");
	/* 0 is OCS's -bamount 0: binding disabled (checked for syntax still). */
	int rc = num_field(c, a[0], a[0], "amount", 0, &r->amount);
	for (size_t i = 1; i < n && rc == BND_OK; i++) {
		struct span key, val;
		if (!split_kv(a[i], &key, &val))
			return fail(c, "\"%s\" is not <key>=<value>", T(&t, a[i]));
		int id = -1;
		for (int j = 0; j < K_COUNT; j++)
			if (is(key, packed_keys[j]))
				id = j;
		for (size_t j = 0; j < sizeof(packed_aliases) / sizeof(packed_aliases[0]); j++)
			if (is(key, packed_aliases[j].word))
				id = packed_aliases[j].key;
		if (id < 0)
			return fail(c, "unknown key \"%s\"", T(&t, key));
		if (seen & (1u << id))
			return fail(c, "key \"%s\" is given twice%s", packed_keys[id],
				    id == K_STOP ? " (end= is another name for stop=)" : "");
		seen |= 1u << id;
		if (!val.n)
			return fail(c, "empty value for key \"%s\"", packed_keys[id]);
		rc = packed_value(c, r, id, val);
	}
	if (rc == BND_OK && (seen & (1u << K_VISIBLE)) && !r->near_gpu)
		return fail(c, "visible= goes with near=gpu");
	return rc;
}

/* ---- LSF -------------------------------------------------------------- */

/* Options after the LSF count or list: only level=, at most once. */
static int parse_level(const struct ctx *c, struct bnd_request *r, const struct span *a, size_t n)
{
	struct tok t;
	int seen = 0;
	r->level = BND_L_CORE;
	for (size_t i = 0; i < n; i++) {
		struct span key, val;
		if (!split_kv(a[i], &key, &val))
			return fail(c, "unexpected \"%s\"", T(&t, a[i]));
		if (!is(key, "level"))
			return fail(c, "unknown option \"%s\"", T(&t, key));
		if (seen++)
			return fail(c, "level is given twice");
		/* LSF's documents call a socket a processor. */
		if (is(val, "socket") || is(val, "processor"))
			r->level = BND_L_SOCKET;
		else if (is(val, "core"))
			r->level = BND_L_CORE;
		else if (is(val, "thread"))
			r->level = BND_L_THREAD;
		else
			return fail(c, "level \"%s\" is not socket (or processor), core or thread",
				    T(&t, val));
	}
	return BND_OK;
}

static int parse_lsf_count(const struct ctx *c, struct bnd_request *r, const struct span *a,
			   size_t n)
{
	if (n == 0)
		return fail(c, "n is missing");
	int rc = num_field(c, a[0], a[0], "n", 1, &r->amount);
	return rc == BND_OK ? parse_level(c, r, a + 1, n - 1) : rc;
}

struct big_ranges {
	int n;
	int lo[MAX_BIG_RANGES], hi[MAX_BIG_RANGES];
};

/* Ids beyond BND_MAX_CPUS are kept only as ranges, to count them once. */
static int add_cpus(const struct ctx *c, struct bnd_request *r, struct big_ranges *big,
		    int lo, int hi)
{
	for (int id = lo; id <= hi && id < BND_MAX_CPUS; id++) {
		if (bnd_cpuset_isset(r->cpus, id))
			return fail(c, "cpu %d is listed twice", id);
		bnd_cpuset_set(r->cpus, id);
	}
	if (hi >= BND_MAX_CPUS) {
		int blo = lo > BND_MAX_CPUS ? lo : BND_MAX_CPUS;
		for (int i = 0; i < big->n; i++)
			if (blo <= big->hi[i] && hi >= big->lo[i])
				return fail(c, "cpu %d is listed twice",
					    blo > big->lo[i] ? blo : big->lo[i]);
		if (big->n == MAX_BIG_RANGES)
			return fail(c, "more than %d ranges of cpu ids above %d", MAX_BIG_RANGES,
				    BND_MAX_CPUS - 1);
		big->lo[big->n] = blo;
		big->hi[big->n++] = hi;
	}
	r->ncpus_listed += hi - lo + 1;
	return BND_OK;
}

static int parse_cpu_list(const struct ctx *c, struct bnd_request *r, struct span list)
{
	struct tok t, u;
	struct big_ranges big = { 0 };
	size_t from = 0;
	while (from <= list.n) {
		const char *comma = find(sub(list, from, list.n), ',');
		size_t to = comma ? (size_t)(comma - list.p) : list.n;
		struct span item = sub(list, from, to);
		if (!item.n)
			return fail(c, "empty cpu id in list \"%s\"", T(&t, list));
		const char *dash = find(item, '-');
		int lo, hi, rc;
		if (dash) {
			size_t k = (size_t)(dash - item.p);
			rc = num_field(c, sub(item, 0, k), item, "first cpu", 0, &lo);
			if (rc == BND_OK)
				rc = num_field(c, sub(item, k + 1, item.n), item, "last cpu", 0, &hi);
			if (rc == BND_OK && hi < lo)
				rc = fail(c, "range \"%s\" is reversed in list \"%s\"", T(&t, item),
					  T(&u, list));
		} else {
			rc = num_field(c, item, item, "cpu", 0, &lo);
			hi = lo;
		}
		if (rc == BND_OK)
			rc = add_cpus(c, r, &big, lo, hi);
		if (rc != BND_OK)
			return rc;
		from = to + 1;
	}
	return BND_OK;
}

static int parse_lsf_cpus(const struct ctx *c, struct bnd_request *r, const struct span *a,
			  size_t n)
{
	if (n == 0)
		return fail(c, "cpu list is missing");
	if (!(r->cpus = calloc(1, sizeof(*r->cpus))))
		return bnd_fail(c->err, c->errlen, BND_ENOMEM, "out of memory");
	int rc = parse_cpu_list(c, r, a[0]);
	return rc == BND_OK ? parse_level(c, r, a + 1, n - 1) : rc;
}

/* ---- GPUs ------------------------------------------------------------- */

static int parse_gpu(const struct ctx *c, struct bnd_request *r, const struct span *a, size_t n)
{
	struct tok t;
	if (n == 0)
		return fail(c, "amount is missing");
	int rc = num_field(c, a[0], a[0], "amount", 1, &r->amount);
	r->near_gpu = true;
	memcpy(r->unit, "C", 2);
	for (size_t i = 1; i < n && rc == BND_OK; i++) {
		struct span key, val;
		if (!split_kv(a[i], &key, &val))
			return fail(c, "unexpected \"%s\"", T(&t, a[i]));
		if (!is(key, "visible"))
			return fail(c, "unknown key \"%s\"", T(&t, key));
		if (i > 1)
			return fail(c, "visible is given twice");
		rc = parse_visible(c, r, val);
	}
	return rc;
}

/* ---- the request ------------------------------------------------------ */

typedef int (*parse_fn)(const struct ctx *, struct bnd_request *, const struct span *, size_t);

/* The grammar's columns of the table of strategies (strategies.def): its
 * word, help, completion words and the split of its units among the
 * tasks, and the parser of its fields. */
static const struct {
	struct bnd_strategy_def d;
	parse_fn parse;
} strategies[] = {
#define BND_STRATEGY(id, word, family, share, parse, place, need, named, lsf, form, help, \
		     example, consumes) \
	[BND_S_##id] = { { word, BND_S_##id, BND_F_##family, BND_SHARE_##share, form, help, \
			   example }, parse },
#include "binding/request/strategies.def"
#undef BND_STRATEGY
};

/* One row per value of the enum, at compile time: the rows are indexed by
 * it (a second row of a value does not compile: -Woverride-init), and
 * there are as many as values. */
enum {
	STRATEGY_ROWS = 0
#define BND_STRATEGY(...) + 1
#include "binding/request/strategies.def"
#undef BND_STRATEGY
};
_Static_assert((int)STRATEGY_ROWS == (int)BND_S_COUNT, "strategies.def: one row per enum bnd_strategy value");

#define NSTRATEGIES (sizeof(strategies) / sizeof(strategies[0]))

const struct bnd_strategy_def *bnd_strategy_def(enum bnd_strategy s)
{
	return (unsigned)s < NSTRATEGIES ? &strategies[s].d : NULL;
}

const struct bnd_strategy_def *bnd_strategy_def_at(size_t i)
{
	return i < NSTRATEGIES ? &strategies[i].d : NULL;
}

/* "none, linear, ... or gpu; see --binding=help": the accepted strategies
 * in a message. */
static const char *strategy_list(char *buf, size_t len)
{
	size_t o = 0;
	for (size_t k = 0; k < NSTRATEGIES && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s",
				      k == 0 ? "" : k + 1 == NSTRATEGIES ? " or " : ", ",
				      strategies[k].d.word);
	if (o < len)
		snprintf(buf + o, len - o, "; see --binding=help");
	return buf;
}

int bnd_request_split(const struct bnd_request *r, int ntasks, int *per_task, bool *shared,
		      char *err, size_t errlen)
{
	const struct bnd_strategy_def *d = bnd_strategy_def(r->strategy);
	*per_task = 0;
	*shared = false;
	switch (d ? d->share : BND_SHARE_NONE) {
	case BND_SHARE_AMOUNT:
		*per_task = r->amount;
		*shared = r->ptype == BND_PT_NODE;
		return BND_OK;
	case BND_SHARE_PAIRS:
		if (ntasks < 1 || r->nexplicit % ntasks)
			return bnd_fail(err, errlen, BND_ENOFIT,
					"explicit lists %d cores, which cannot be shared out evenly "
					"among %d tasks", r->nexplicit, ntasks);
		*per_task = r->nexplicit / ntasks;
		return BND_OK;
	case BND_SHARE_LISTED:
		*shared = true; /* the strategy decides how many listed cpus exist */
		return BND_OK;
	default:
		return bnd_fail(err, errlen, BND_EINVAL, "unknown strategy %d", (int)r->strategy);
	}
}

/* Splits on ':'; returns the number of fields, which may exceed cap (the
 * fields beyond cap are not stored). */
static size_t split(const char *text, struct span *f, size_t cap)
{
	size_t n = 0;
	const char *p = text;
	for (;;) {
		const char *q = strchr(p, ':');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (n < cap) {
			f[n].p = p;
			f[n].n = len;
		}
		n++;
		if (!q)
			return n;
		p = q + 1;
	}
}

/* r as none with (the head of) text; r's lists, if any, are freed by the
 * caller (bnd_request_clear): a request being parsed owns none yet. */
static void reset(struct bnd_request *r, const char *text)
{
	memset(r, 0, sizeof(*r));
	if (text) {
		size_t n = 0;
		while (n < sizeof(r->text) - 1 && text[n])
			n++;
		memcpy(r->text, text, n);
		r->text[n] = '\0';
	}
}

static int parse(struct bnd_request *r, const struct ctx *base)
{
	struct span f[MAX_FIELDS];
	struct ctx c = *base;
	struct tok t;
	size_t nf = split(c.text, f, MAX_FIELDS), i = 0;

	if (is(f[0], "set") || is(f[0], "env") || is(f[0], "pe")) {
		r->instance = f[0].p[0] == 's' ? BND_I_SET : f[0].p[0] == 'e' ? BND_I_ENV : BND_I_PE;
		i = 1;
		if (nf == 1 || !f[1].n)
			return fail(&c, "strategy is missing after instance \"%s\"", T(&t, f[0]));
	}
	int s = -1;
	for (size_t k = 0; k < NSTRATEGIES; k++)
		if (is(f[i], strategies[k].d.word))
			s = (int)k;
	if (s < 0) {
		if (!f[i].n)
			return fail(&c, "strategy is missing before \":\"");
		return fail(&c, "unknown strategy \"%s\"", T(&t, f[i]));
	}
	r->strategy = strategies[s].d.strategy;
	c.expected = strategies[s].d.form;
	if (r->strategy == BND_S_NONE) {
		if (i)
			return fail(&c, "instance \"%s\" does not apply to none", T(&t, f[0]));
		if (nf > 1)
			return fail(&c, "unexpected \"%s\" after none", T(&t, f[1]));
		return BND_OK;
	}
	if (nf > MAX_FIELDS) {
		if (r->strategy == BND_S_EXPLICIT)
			return fail(&c, "more than %d <socket>,<core> pairs", BND_MAX_EXPLICIT);
		return fail(&c, "too many fields (%zu)", nf);
	}
	for (size_t j = i + 1; j < nf; j++) {
		if (f[j].n)
			continue;
		if (j == nf - 1)
			return fail(&c, "trailing \":\" after \"%s\"", T(&t, f[j - 1]));
		return fail(&c, "empty field after \"%s\"", T(&t, f[j - 1]));
	}
	int rc = strategies[s].parse(&c, r, f + i + 1, nf - i - 1);
	/* OCS's -bamount 0 disables binding: the same request as none (which
	 * also opts the job out of implicit and default binding). */
	if (rc == BND_OK && r->strategy == BND_S_PACKED && r->amount == 0) {
		bnd_request_clear(r);
		reset(r, c.text);
	}
	return rc;
}

int bnd_request_parse(struct bnd_request *r, const char *text, char *err, size_t errlen)
{
	struct ctx c = { "--binding", text ? text : "", err, errlen, NULL };
	if (!r)
		return fail(&c, "no request to fill (internal error)");
	reset(r, text);
	if (!text || !*text)
		return fail(&c, "empty request");
	int rc = parse(r, &c);
	if (rc != BND_OK) {
		bnd_request_clear(r);
		reset(r, text);
	}
	return rc;
}

void bnd_request_clear(struct bnd_request *r)
{
	free(r->explicit_pairs);
	free(r->filter);
	free(r->cpus);
	memset(r, 0, sizeof(*r));
}

int bnd_request_packed(struct bnd_request *r, int amount, const char *unit, char *err,
		       size_t errlen)
{
	if (!r)
		return bnd_fail(err, errlen, BND_EINVAL, "no request to fill (internal error)");
	reset(r, NULL);
	if (amount < 1 || amount > BND_MAX_NUMBER)
		return bnd_fail(err, errlen, BND_EINVAL, "packed amount %d is not 1..%d", amount,
				BND_MAX_NUMBER);
	if (!bnd_packed_unit_name(unit)) {
		char names[64];
		bnd_packed_unit_names(' ', names, sizeof(names));
		return bnd_fail(err, errlen, BND_EINVAL, "unit \"%s\" is not one of %s",
				unit ? unit : "", names);
	}
	r->strategy = BND_S_PACKED;
	r->instance = BND_I_SET;
	r->ptype = BND_PT_TASK;
	r->amount = amount;
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	snprintf(r->text, sizeof(r->text), "packed:%d:unit=%s", amount, unit);
	return BND_OK;
}

/* The memory policies: one row each, with its lines of --mbind=help. */
static const struct bnd_mbind_def mbinds[] = {
	{ "none", BND_M_NONE, false, "  none          leave it alone (default)\n" },
	{ "cores", BND_M_CORES, true, "  cores         prefer the NUMA node(s) of the task's cores\n" },
	{ "cores:strict", BND_M_CORES_STRICT, true,
	  "  cores:strict  allocate only on the NUMA node(s) of the task's cores\n" },
	{ "round_robin", BND_M_ROUND_ROBIN, false,
	  "  round_robin   interleave over the NUMA nodes the task may use\n" },
	{ "nlocal", BND_M_NLOCAL, false,
	  "  nlocal        the one NUMA node whose free cores and memory hold the step\n"
	  "                (else the fewest, nearest nodes); implies linear:1 per task\n"
	  "                without --binding; memory bound there (preferred when short)\n" },
	{ "gpu", BND_M_GPU, false,
	  "  gpu           prefer the NUMA node(s) of the task's GPUs (with gpu:<n> or\n"
	  "                near=gpu, also where its cores had to go elsewhere)\n" },
};

#define NMBINDS (sizeof(mbinds) / sizeof(mbinds[0]))

const struct bnd_mbind_def *bnd_mbind_def_at(size_t i)
{
	return i < NMBINDS ? &mbinds[i] : NULL;
}

/* "none, cores, ... or gpu" */
static const char *mbind_list(char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < NMBINDS && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s",
				      k == 0 ? "" : k + 1 == NMBINDS ? " or " : ", ", mbinds[k].word);
	return buf;
}

int bnd_mbind_parse(enum bnd_mbind *m, const char *text, char *err, size_t errlen)
{
	char list[128];
	struct ctx c = { "--mbind", text ? text : "", err, errlen, mbind_list(list, sizeof(list)) };
	struct tok t;
	if (!m)
		return fail(&c, "no policy to fill (internal error)");
	*m = BND_M_NONE;
	if (!text || !*text)
		return fail(&c, "empty memory policy");
	for (size_t i = 0; i < NMBINDS; i++)
		if (strcmp(text, mbinds[i].word) == 0) {
			*m = mbinds[i].m;
			return BND_OK;
		}
	struct span s = { text, strlen(text) };
	return fail(&c, "unknown memory policy \"%s\"", T(&t, s));
}

static const struct bnd_mbind_def *mbind_def(enum bnd_mbind m)
{
	for (size_t i = 0; i < NMBINDS; i++)
		if (mbinds[i].m == m)
			return &mbinds[i];
	return NULL;
}

const char *bnd_mbind_name(enum bnd_mbind m)
{
	const struct bnd_mbind_def *d = mbind_def(m);
	return d ? d->word : "unknown";
}

bool bnd_request_places(const struct bnd_request *r, enum bnd_mbind m)
{
	return (r && r->strategy != BND_S_NONE) || m == BND_M_NLOCAL;
}

const struct bnd_request *bnd_request_cores(const struct bnd_request *r, struct bnd_request *lin)
{
	if (r->strategy != BND_S_NONE)
		return r;
	memset(lin, 0, sizeof(*lin));
	lin->strategy = BND_S_LINEAR;
	lin->amount = 1;
	snprintf(lin->text, sizeof(lin->text), "linear:1");
	return lin;
}

int bnd_mbind_unbound(enum bnd_mbind m, bool binding_asked, char *err, size_t errlen)
{
	const struct bnd_mbind_def *d = mbind_def(m);
	if (d && !d->follows_cores)
		return BND_OK;
	return bnd_fail(err, errlen, BND_EINVAL, "--mbind=%s not applied: %s",
			bnd_mbind_name(m), binding_asked ? "the task is not bound"
							 : "it needs cores bound by --binding");
}

const char *bnd_instance_name(enum bnd_instance i)
{
	switch (i) {
	case BND_I_SET: return "set";
	case BND_I_ENV: return "env";
	case BND_I_PE: return "pe";
	}
	return "unknown";
}

const char *bnd_strategy_name(enum bnd_strategy s)
{
	const struct bnd_strategy_def *d = bnd_strategy_def(s);
	return d ? d->word : "unknown";
}
