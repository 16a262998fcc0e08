/* The --binding and --mbind parsers: every accepted form with each field
 * checked, every rejection with its message, and a bounded random sweep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "binding/util/error.h"
#include "binding/request/request.h"
#include "testutil.h"

#define GE_STRATEGIES "(expected none, linear, striding, explicit, packed, balance, pack, any, " \
	"cpus or gpu; see --binding=help)"
#define LINEAR_FORM "(expected linear:<amount>[:<socket>,<core>])"
#define STRIDING_FORM "(expected striding:<amount>:<step>[:<socket>,<core>])"
#define EXPLICIT_FORM "(expected explicit:<socket>,<core>[:<socket>,<core>...] (or ; between pairs))"
#define PACKED_FORM "(expected packed:<amount>[:unit=<unit>][:type=task|node]" \
	"[:sort=<letters>][:start=<letter>][:stop=<letter>][:filter=<topology>]" \
	"[:near=gpu[:visible=task|all]])"
#define GPU_FORM "(expected gpu:<amount>[:visible=task|all])"
#define LEVEL_FORM "[:level=socket|core|thread])"
#define CPUS_FORM "(expected cpus:<list>[:level=socket|core|thread], list like 0,5,7,9-11)"
#define MBIND_FORM "(expected none, cores, cores:strict, round_robin, nlocal or gpu)"

/* Big (the filter and pairs arrays): static, one test at a time. */
static struct bnd_request got, want;

static void want_init(const char *text, enum bnd_strategy s)
{
	memset(&want, 0, sizeof(want));
	/* Truncated like the parser does: the first bytes that fit. */
	size_t n = strlen(text);
	if (n > sizeof(want.text) - 1)
		n = sizeof(want.text) - 1;
	memcpy(want.text, text, n);
	want.strategy = s;
}

static void parse_ok(const char *text)
{
	char err[BND_ERRLEN] = "";
	int rc = bnd_request_parse(&got, text, err, sizeof(err));
	ck_assert_msg(rc == BND_OK, "\"%s\" rejected: %s", text, err);
	ck_assert_str_eq(err, "");
}

/* Field by field first, for a readable failure; then the whole struct, so
 * that a field set by mistake cannot hide. */
static void check_same(void)
{
	const char *t = want.text;
	ck_assert_msg(got.strategy == want.strategy, "%s: strategy %s, want %s", t,
		      bnd_strategy_name(got.strategy), bnd_strategy_name(want.strategy));
	ck_assert_msg(got.instance == want.instance, "%s: instance %s", t,
		      bnd_instance_name(got.instance));
	ck_assert_msg(got.amount == want.amount, "%s: amount %d, want %d", t, got.amount, want.amount);
	ck_assert_msg(got.step == want.step, "%s: step %d, want %d", t, got.step, want.step);
	ck_assert_msg(got.has_start == want.has_start, "%s: has_start %d", t, got.has_start);
	ck_assert_msg(got.start.socket == want.start.socket && got.start.core == want.start.core,
		      "%s: start %d,%d want %d,%d", t, got.start.socket, got.start.core,
		      want.start.socket, want.start.core);
	ck_assert_msg(got.nexplicit == want.nexplicit, "%s: nexplicit %d, want %d", t,
		      got.nexplicit, want.nexplicit);
	for (int i = 0; i < want.nexplicit; i++)
		ck_assert_msg(got.explicit_pairs[i].socket == want.explicit_pairs[i].socket &&
			      got.explicit_pairs[i].core == want.explicit_pairs[i].core,
			      "%s: pair %d is %d,%d", t, i, got.explicit_pairs[i].socket,
			      got.explicit_pairs[i].core);
	ck_assert_msg(strcmp(got.unit, want.unit) == 0, "%s: unit \"%s\", want \"%s\"", t, got.unit,
		      want.unit);
	ck_assert_msg(got.ptype == want.ptype, "%s: type %d", t, (int)got.ptype);
	ck_assert_msg(strcmp(got.sort, want.sort) == 0, "%s: sort \"%s\"", t, got.sort);
	ck_assert_msg(got.start_letter == want.start_letter, "%s: start letter %d", t,
		      got.start_letter);
	ck_assert_msg(got.stop_letter == want.stop_letter, "%s: stop letter %d", t, got.stop_letter);
	ck_assert_msg(strcmp(got.filter, want.filter) == 0, "%s: filter \"%.40s\"", t, got.filter);
	ck_assert_msg(got.level == want.level, "%s: level %d", t, (int)got.level);
	ck_assert_msg(bnd_cpuset_equal(&got.cpus, &want.cpus), "%s: cpus differ (%d listed)", t,
		      bnd_cpuset_count(&got.cpus));
	ck_assert_msg(got.ncpus_listed == want.ncpus_listed, "%s: ncpus_listed %d, want %d", t,
		      got.ncpus_listed, want.ncpus_listed);
	ck_assert_str_eq(got.text, want.text);
	ck_assert_msg(memcmp(&got, &want, sizeof(got)) == 0, "%s: some other byte differs", t);
}

/* Rejected, with the message `--binding: "<text>": ` + reason + form; the
 * request is left empty except for its text. */
static void parse_bad(const char *text, const char *reason, const char *form)
{
	char err[BND_ERRLEN] = "", head[BND_ERRLEN];
	memset(&got, 0x5a, sizeof(got));
	int rc = bnd_request_parse(&got, text, err, sizeof(err));
	ck_assert_msg(rc == BND_EINVAL, "\"%s\" accepted (rc %d)", text, rc);
	/* Long texts are shown cut short; these tests use printable ones. */
	if (text && strlen(text) > 100)
		snprintf(head, sizeof(head), "--binding: \"%.100s", text);
	else
		snprintf(head, sizeof(head), "--binding: \"%s\": ", text ? text : "");
	ck_assert_msg(strncmp(err, head, strlen(head)) == 0, "\"%s\": message \"%s\"", text, err);
	ck_assert_msg(strstr(err + strlen(head), reason), "\"%s\": message \"%s\" lacks \"%s\"", text,
		      err, reason);
	size_t el = strlen(err), fl = strlen(form);
	ck_assert_msg(el >= fl && strcmp(err + el - fl, form) == 0,
		      "\"%s\": message \"%s\" does not end with \"%s\"", text, err, form);
	want_init(text ? text : "", BND_S_NONE);
	ck_assert_msg(memcmp(&got, &want, sizeof(got)) == 0, "\"%s\": request not cleared", text);
}

/* ---- accepted --------------------------------------------------------- */

START_TEST(test_none)
{
	parse_ok("none");
	want_init("none", BND_S_NONE);
	check_same();
}
END_TEST

START_TEST(test_linear)
{
	parse_ok("linear:1");
	want_init("linear:1", BND_S_LINEAR);
	want.amount = 1;
	check_same();

	parse_ok("set:linear:2");
	want_init("set:linear:2", BND_S_LINEAR);
	want.amount = 2;
	check_same();

	parse_ok("env:linear:2:1,0");
	want_init("env:linear:2:1,0", BND_S_LINEAR);
	want.instance = BND_I_ENV;
	want.amount = 2;
	want.has_start = 1;
	want.start.socket = 1;
	check_same();

	parse_ok("pe:linear:1000000:0,0");
	want_init("pe:linear:1000000:0,0", BND_S_LINEAR);
	want.instance = BND_I_PE;
	want.amount = 1000000;
	want.has_start = 1;
	check_same();

	/* Leading zeros are still plain decimal. */
	parse_ok("linear:007:03,1000000");
	want_init("linear:007:03,1000000", BND_S_LINEAR);
	want.amount = 7;
	want.has_start = 1;
	want.start.socket = 3;
	want.start.core = 1000000;
	check_same();
}
END_TEST

START_TEST(test_striding)
{
	parse_ok("striding:2:2");
	want_init("striding:2:2", BND_S_STRIDING);
	want.amount = 2;
	want.step = 2;
	check_same();

	parse_ok("striding:2:2:0,0");
	want_init("striding:2:2:0,0", BND_S_STRIDING);
	want.amount = 2;
	want.step = 2;
	want.has_start = 1;
	check_same();

	parse_ok("env:striding:3:1:1,5");
	want_init("env:striding:3:1:1,5", BND_S_STRIDING);
	want.instance = BND_I_ENV;
	want.amount = 3;
	want.step = 1;
	want.has_start = 1;
	want.start.socket = 1;
	want.start.core = 5;
	check_same();
}
END_TEST

START_TEST(test_explicit)
{
	parse_ok("explicit:0,0");
	want_init("explicit:0,0", BND_S_EXPLICIT);
	want.nexplicit = 1;
	check_same();

	parse_ok("pe:explicit:1,3:0,0:1,0");
	want_init("pe:explicit:1,3:0,0:1,0", BND_S_EXPLICIT);
	want.instance = BND_I_PE;
	want.nexplicit = 3;
	want.explicit_pairs[0] = (struct bnd_pair){ 1, 3 };
	want.explicit_pairs[1] = (struct bnd_pair){ 0, 0 };
	want.explicit_pairs[2] = (struct bnd_pair){ 1, 0 };
	check_same();

	/* Grid Engine 6.2u5's man page writes the pairs with ';' as well */
	parse_ok("pe:explicit:1,3;0,0:1,0");
	want_init("pe:explicit:1,3;0,0:1,0", BND_S_EXPLICIT);
	want.instance = BND_I_PE;
	want.nexplicit = 3;
	want.explicit_pairs[0] = (struct bnd_pair){ 1, 3 };
	want.explicit_pairs[1] = (struct bnd_pair){ 0, 0 };
	want.explicit_pairs[2] = (struct bnd_pair){ 1, 0 };
	check_same();
	parse_ok("explicit:0,0;1,0");
	want_init("explicit:0,0;1,0", BND_S_EXPLICIT);
	want.nexplicit = 2;
	want.explicit_pairs[1] = (struct bnd_pair){ 1, 0 };
	check_same();
}
END_TEST

/* The largest explicit list: BND_MAX_EXPLICIT pairs, all kept, in order;
 * the text is longer than r->text and is truncated there. */
START_TEST(test_explicit_max)
{
	static char text[BND_MAX_EXPLICIT * 12 + 32];
	size_t o = (size_t)snprintf(text, sizeof(text), "explicit");
	for (int i = 0; i < BND_MAX_EXPLICIT; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, ":%d,%d", i / 64, i % 64);
	parse_ok(text);
	want_init(text, BND_S_EXPLICIT);
	want.nexplicit = BND_MAX_EXPLICIT;
	for (int i = 0; i < BND_MAX_EXPLICIT; i++)
		want.explicit_pairs[i] = (struct bnd_pair){ i / 64, i % 64 };
	check_same();
	ck_assert_uint_eq(strlen(got.text), BND_MAX_REQUEST_TEXT - 1);
	ck_assert(strncmp(got.text, text, BND_MAX_REQUEST_TEXT - 1) == 0);

	snprintf(text + o, sizeof(text) - o, ":99,0");
	parse_bad(text, "more than 1024 <socket>,<core> pairs", EXPLICIT_FORM);
	/* Far more fields than any strategy takes. */
	for (int i = 0; i < 600; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, ":1");
	parse_bad(text, "more than 1024 <socket>,<core> pairs", EXPLICIT_FORM);
	memcpy(text, "linear:1", 8);
	parse_bad(text, "too many fields", LINEAR_FORM);
	/* the limit counts pairs, whichever separator: 1025 in one field */
	o = (size_t)snprintf(text, sizeof(text), "explicit:");
	for (int i = 0; i <= BND_MAX_EXPLICIT; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%d,%d", i ? ";" : "", i / 64,
				      i % 64);
	parse_bad(text, "more than 1024 <socket>,<core> pairs", EXPLICIT_FORM);
}
END_TEST

START_TEST(test_packed_defaults)
{
	parse_ok("packed:6");
	want_init("packed:6", BND_S_PACKED);
	want.amount = 6;
	strcpy(want.unit, "C");
	want.ptype = BND_PT_TASK;
	check_same();
}
END_TEST

START_TEST(test_packed_keys)
{
	parse_ok("packed:4:sort=S:start=S:stop=s");
	want_init("packed:4:sort=S:start=S:stop=s", BND_S_PACKED);
	want.amount = 4;
	strcpy(want.unit, "C");
	strcpy(want.sort, "S");
	want.start_letter = 'S';
	want.stop_letter = 's';
	check_same();

	parse_ok("env:packed:3:filter=ScCCCScCCC:unit=E:type=node");
	want_init("env:packed:3:filter=ScCCCScCCC:unit=E:type=node", BND_S_PACKED);
	want.instance = BND_I_ENV;
	want.amount = 3;
	strcpy(want.unit, "E");
	want.ptype = BND_PT_NODE;
	strcpy(want.filter, "ScCCCScCCC");
	check_same();

	/* All six keys, in an unusual order, every sort letter once. */
	const char *all = "pe:packed:2:stop=T:sort=nSxYcEt:filter=nsxycetNSXYCET:start=e:type=task:unit=CY";
	parse_ok(all);
	want_init(all, BND_S_PACKED);
	want.instance = BND_I_PE;
	want.amount = 2;
	strcpy(want.unit, "CY");
	strcpy(want.sort, "nSxYcEt");
	strcpy(want.filter, "nsxycetNSXYCET");
	want.start_letter = 'e';
	want.stop_letter = 'T';
	check_same();
}
END_TEST

/* OCS documents: -bamount 0 disables binding, and -bstop is written end=
 * in the examples. */
START_TEST(test_packed_ocs_spellings)
{
	const char *zero[] = { "packed:0", "env:packed:0", "pe:packed:0:sort=S:end=s" };
	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++) {
		parse_ok(zero[i]);
		want_init(zero[i], BND_S_NONE);
		check_same();
	}

	parse_ok("packed:4:sort=S:start=S:end=s");
	want_init("packed:4:sort=S:start=S:end=s", BND_S_PACKED);
	want.amount = 4;
	strcpy(want.unit, "C");
	strcpy(want.sort, "S");
	want.start_letter = 'S';
	want.stop_letter = 's';
	check_same();
}
END_TEST

START_TEST(test_packed_units)
{
	static const char *const units[] = { "T", "CT", "ET", "C", "E", "S", "CS", "ES", "X",
					     "CX", "EX", "Y", "CY", "EY", "N", "CN", "EN" };
	char text[64];
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		snprintf(text, sizeof(text), "packed:1:unit=%s", units[i]);
		parse_ok(text);
		want_init(text, BND_S_PACKED);
		want.amount = 1;
		strcpy(want.unit, units[i]);
		check_same();
	}
}
END_TEST

/* OCS's own words for the two types. */
START_TEST(test_packed_type_synonyms)
{
	static const struct {
		const char *word;
		enum bnd_ptype t;
	} v[] = { { "task", BND_PT_TASK }, { "slot", BND_PT_TASK }, { "node", BND_PT_NODE },
		  { "host", BND_PT_NODE } };
	char text[64];
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(text, sizeof(text), "packed:5:type=%s", v[i].word);
		parse_ok(text);
		want_init(text, BND_S_PACKED);
		want.amount = 5;
		strcpy(want.unit, "C");
		want.ptype = v[i].t;
		check_same();
	}
}
END_TEST

START_TEST(test_packed_filter_max)
{
	static char text[BND_MAX_FILTER + 64];
	int o = snprintf(text, sizeof(text), "packed:1:filter=");
	for (int i = 0; i < BND_MAX_FILTER; i++)
		text[o + i] = "NSXYCETnsxycet"[i % 14];
	text[o + BND_MAX_FILTER] = '\0';
	parse_ok(text);
	want_init(text, BND_S_PACKED);
	want.amount = 1;
	strcpy(want.unit, "C");
	memcpy(want.filter, text + o, BND_MAX_FILTER + 1);
	check_same();

	text[o + BND_MAX_FILTER] = 'C';
	text[o + BND_MAX_FILTER + 1] = '\0';
	parse_bad(text, "filter is longer than 8192 letters", PACKED_FORM);
}
END_TEST

START_TEST(test_lsf_counts)
{
	static const struct {
		const char *text;
		enum bnd_strategy s;
		enum bnd_instance inst;
		int n;
		enum bnd_level level;
	} v[] = {
		{ "balance:2", BND_S_LSF_BALANCE, BND_I_SET, 2, BND_L_CORE },
		{ "pack:2", BND_S_LSF_PACK, BND_I_SET, 2, BND_L_CORE },
		{ "any:3", BND_S_LSF_ANY, BND_I_SET, 3, BND_L_CORE },
		{ "balance:4:level=socket", BND_S_LSF_BALANCE, BND_I_SET, 4, BND_L_SOCKET },
		{ "env:pack:1:level=thread", BND_S_LSF_PACK, BND_I_ENV, 1, BND_L_THREAD },
		{ "pe:any:1000000:level=core", BND_S_LSF_ANY, BND_I_PE, 1000000, BND_L_CORE },
		/* LSF's documents name the socket level "processor". */
		{ "balance:2:level=processor", BND_S_LSF_BALANCE, BND_I_SET, 2, BND_L_SOCKET },
		{ "pack:1:level=processor", BND_S_LSF_PACK, BND_I_SET, 1, BND_L_SOCKET },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		parse_ok(v[i].text);
		want_init(v[i].text, v[i].s);
		want.instance = v[i].inst;
		want.amount = v[i].n;
		want.level = v[i].level;
		check_same();
	}
}
END_TEST

static void want_cpus(const char *text, const int *ids, int n, int listed)
{
	want_init(text, BND_S_LSF_CPUS);
	for (int i = 0; i < n; i++)
		bnd_cpuset_set(&want.cpus, ids[i]);
	want.ncpus_listed = listed;
}

START_TEST(test_lsf_cpus)
{
	parse_ok("cpus:0,5,7,9-11");
	want_cpus("cpus:0,5,7,9-11", (const int[]){ 0, 5, 7, 9, 10, 11 }, 6, 6);
	check_same();

	parse_ok("cpus:1,2,9");
	want_cpus("cpus:1,2,9", (const int[]){ 1, 2, 9 }, 3, 3);
	check_same();

	parse_ok("cpus:3-3:level=thread");
	want_cpus("cpus:3-3:level=thread", (const int[]){ 3 }, 1, 1);
	want.level = BND_L_THREAD;
	check_same();

	/* Syntactically fine ids beyond BND_MAX_CPUS: counted, not stored. */
	parse_ok("cpus:4095,4096,5000-5009,1000000");
	want_cpus("cpus:4095,4096,5000-5009,1000000", (const int[]){ 4095 }, 1, 13);
	check_same();

	parse_ok("set:cpus:4090-4100");
	want_cpus("set:cpus:4090-4100", (const int[]){ 4090, 4091, 4092, 4093, 4094, 4095 }, 6, 11);
	check_same();

	parse_ok("cpus:0-1000000");
	ck_assert_int_eq(bnd_cpuset_count(&got.cpus), BND_MAX_CPUS);
	ck_assert_int_eq(got.ncpus_listed, 1000001);
}
END_TEST

START_TEST(test_text_kept)
{
	static char text[1000];
	memset(text, 0, sizeof(text));
	memcpy(text, "linear:0001", 11);
	memset(text + 11, '0', 600);
	text[611] = '1';
	parse_bad(text, "too large", LINEAR_FORM);
	/* An accepted request longer than r->text. */
	memset(text, 0, sizeof(text));
	memcpy(text, "linear:", 7);
	memset(text + 7, '0', 500);
	text[507] = '3';
	parse_ok(text);
	ck_assert_int_eq(got.amount, 3);
	ck_assert_uint_eq(strlen(got.text), BND_MAX_REQUEST_TEXT - 1);
	ck_assert(strncmp(got.text, text, BND_MAX_REQUEST_TEXT - 1) == 0);
}
END_TEST

/* ---- rejected --------------------------------------------------------- */

START_TEST(test_spec_messages)
{
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_request_parse(&got, "linear:0", err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "--binding: \"linear:0\": amount must be >= 1 "
			      "(expected linear:<amount>[:<socket>,<core>])");
	ck_assert_int_eq(bnd_request_parse(&got, "bogus", err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "--binding: \"bogus\": unknown strategy \"bogus\" (expected none, linear, "
			      "striding, explicit, packed, balance, pack, any, cpus or gpu; see "
			      "--binding=help)");
	enum bnd_mbind m = BND_M_CORES;
	ck_assert_int_eq(bnd_mbind_parse(&m, "nowhere", err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "--mbind: \"nowhere\": unknown memory policy \"nowhere\" "
			      "(expected none, cores, cores:strict, round_robin, nlocal or gpu)");
	ck_assert_int_eq(m, BND_M_NONE);
}
END_TEST

static const struct bad {
	const char *text, *reason, *form;
} bad_ge[] = {
	{ "", "empty request", GE_STRATEGIES },
	{ "bogus", "unknown strategy \"bogus\"", GE_STRATEGIES },
	{ "help", "unknown strategy \"help\"", GE_STRATEGIES },
	{ "Linear:1", "unknown strategy \"Linear\"", GE_STRATEGIES },
	{ "NONE", "unknown strategy \"NONE\"", GE_STRATEGIES },
	{ "linear_automatic:2", "unknown strategy \"linear_automatic\"", GE_STRATEGIES },
	{ " linear:1", "unknown strategy \" linear\"", GE_STRATEGIES },
	{ "set:set:linear:1", "unknown strategy \"set\"", GE_STRATEGIES },
	{ "SET:linear:1", "unknown strategy \"SET\"", GE_STRATEGIES },
	{ "set", "strategy is missing after instance \"set\"", GE_STRATEGIES },
	{ "env:", "strategy is missing after instance \"env\"", GE_STRATEGIES },
	{ ":linear:1", "strategy is missing before \":\"", GE_STRATEGIES },
	{ "none:1", "unexpected \"1\" after none", "(expected none)" },
	{ "none:", "unexpected \"\" after none", "(expected none)" },
	{ "set:none", "instance \"set\" does not apply to none", "(expected none)" },
	{ "linear", "amount is missing", LINEAR_FORM },
	{ "linear:", "trailing \":\" after \"linear\"", LINEAR_FORM },
	{ "linear:2:", "trailing \":\" after \"2\"", LINEAR_FORM },
	{ "linear::2", "empty field after \"linear\"", LINEAR_FORM },
	{ "linear:0", "amount must be >= 1", LINEAR_FORM },
	{ "linear:-1", "amount \"-1\" is not a decimal number", LINEAR_FORM },
	{ "linear:+1", "amount \"+1\" is not a decimal number", LINEAR_FORM },
	{ "linear: 1", "amount \" 1\" is not a decimal number", LINEAR_FORM },
	{ "linear:1 ", "amount \"1 \" is not a decimal number", LINEAR_FORM },
	{ "linear:0x10", "amount \"0x10\" is not a decimal number", LINEAR_FORM },
	{ "linear:1.5", "amount \"1.5\" is not a decimal number", LINEAR_FORM },
	{ "linear:1e3", "amount \"1e3\" is not a decimal number", LINEAR_FORM },
	{ "linear:2x", "amount \"2x\" is not a decimal number", LINEAR_FORM },
	{ "linear:1000001", "amount \"1000001\" is too large (at most 1000000)", LINEAR_FORM },
	{ "linear:99999999999999999999", "amount \"99999999999999999999\" is too large", LINEAR_FORM },
	{ "linear:2:1", "start \"1\" is not <socket>,<core>", LINEAR_FORM },
	{ "linear:2:0,0,0", "start \"0,0,0\" is not <socket>,<core>", LINEAR_FORM },
	{ "linear:2:a,0", "socket \"a\" is not a decimal number", LINEAR_FORM },
	{ "linear:2:-1,0", "socket \"-1\" is not a decimal number", LINEAR_FORM },
	{ "linear:2:0,b", "core \"b\" is not a decimal number", LINEAR_FORM },
	{ "linear:2:0,", "core is missing in \"0,\"", LINEAR_FORM },
	{ "linear:2:,0", "socket is missing in \",0\"", LINEAR_FORM },
	{ "linear:2:0,9999999", "core \"9999999\" is too large", LINEAR_FORM },
	{ "linear:2:1,0:3", "unexpected \"3\" after the start core", LINEAR_FORM },
	{ "striding", "amount is missing", STRIDING_FORM },
	{ "striding:2", "step is missing", STRIDING_FORM },
	{ "striding:2:0", "step must be >= 1", STRIDING_FORM },
	{ "striding:0:1", "amount must be >= 1", STRIDING_FORM },
	{ "striding:2:s", "step \"s\" is not a decimal number", STRIDING_FORM },
	{ "striding:2:1:0", "start \"0\" is not <socket>,<core>", STRIDING_FORM },
	{ "striding:2:2:0,0:1", "unexpected \"1\" after the start core", STRIDING_FORM },
	{ "striding:2:2:", "trailing \":\" after \"2\"", STRIDING_FORM },
	{ "explicit", "at least one <socket>,<core> pair is needed", EXPLICIT_FORM },
	{ "explicit:1", "pair \"1\" is not <socket>,<core>", EXPLICIT_FORM },
	{ "explicit:0,0:0,0", "pair \"0,0\" is listed twice", EXPLICIT_FORM },
	{ "explicit:1,2:0,0:01,002", "pair \"01,002\" is listed twice", EXPLICIT_FORM },
	{ "explicit:0,0:", "trailing \":\" after \"0,0\"", EXPLICIT_FORM },
	{ "explicit:0,0::1,0", "empty field after \"0,0\"", EXPLICIT_FORM },
	{ "explicit:0,0:x,1", "socket \"x\" is not a decimal number", EXPLICIT_FORM },
	{ "explicit:0;1", "pair \"0\" is not <socket>,<core>", EXPLICIT_FORM },
	{ "explicit:0,0;", "empty pair in \"0,0;\"", EXPLICIT_FORM },
	{ "explicit:0,0;;1,0", "empty pair in \"0,0;;1,0\"", EXPLICIT_FORM },
	{ "explicit:;0,0", "empty pair in \";0,0\"", EXPLICIT_FORM },
	{ "explicit:0,0;1,0:0,0", "pair \"0,0\" is listed twice", EXPLICIT_FORM },
	{ "explicit:0,0;1;0", "pair \"1\" is not <socket>,<core>", EXPLICIT_FORM },
	{ "pe:explicit:0,0,", "pair \"0,0,\" is not <socket>,<core>", EXPLICIT_FORM },
};

static const struct bad bad_packed[] = {
	{ "packed", "amount is missing", PACKED_FORM },
	{ "packed:0:unit=Q", "unit \"Q\" is not one of", PACKED_FORM },
	{ "packed:2:stop=s:end=S", "key \"stop\" is given twice (end= is another name for stop=)",
	  PACKED_FORM },
	{ "packed:two", "amount \"two\" is not a decimal number", PACKED_FORM },
	{ "packed:2:", "trailing \":\" after \"2\"", PACKED_FORM },
	{ "packed:2:unit", "\"unit\" is not <key>=<value>", PACKED_FORM },
	{ "packed:2:=C", "\"=C\" is not <key>=<value>", PACKED_FORM },
	{ "packed:2:unit=", "empty value for key \"unit\"", PACKED_FORM },
	{ "packed:2:foo=1", "unknown key \"foo\"", PACKED_FORM },
	{ "packed:2:Unit=C", "unknown key \"Unit\"", PACKED_FORM },
	{ "packed:2:level=core", "unknown key \"level\"", PACKED_FORM },
	{ "packed:2:unit=Q", "unit \"Q\" is not one of T CT ET C E S CS ES X CX EX Y CY EY N CN EN",
	  PACKED_FORM },
	{ "packed:2:unit=c", "unit \"c\" is not one of", PACKED_FORM },
	{ "packed:2:unit=CC", "unit \"CC\" is not one of", PACKED_FORM },
	{ "packed:2:unit=TC", "unit \"TC\" is not one of", PACKED_FORM },
	{ "packed:2:unit=C=E", "unit \"C=E\" is not one of", PACKED_FORM },
	{ "packed:2:unit=C:unit=E", "key \"unit\" is given twice", PACKED_FORM },
	{ "packed:2:type=slots", "type \"slots\" is not task or node", PACKED_FORM },
	{ "packed:2:type=Task", "type \"Task\" is not task or node", PACKED_FORM },
	{ "packed:2:type=task:type=node", "key \"type\" is given twice", PACKED_FORM },
	{ "packed:2:sort=SQ", "sort letter \"Q\" in \"SQ\" is not one of N S X Y C E T", PACKED_FORM },
	{ "packed:2:sort=SS", "sort letter \"S\" appears twice in \"SS\"", PACKED_FORM },
	{ "packed:2:sort=Ss", "sort letter \"s\" appears twice in \"Ss\"", PACKED_FORM },
	{ "packed:2:sort=S:sort=C", "key \"sort\" is given twice", PACKED_FORM },
	{ "packed:2:start=Q", "start \"Q\" is not a unit letter", PACKED_FORM },
	{ "packed:2:start=SS", "start \"SS\" is not a unit letter", PACKED_FORM },
	{ "packed:2:start=S:start=S", "key \"start\" is given twice", PACKED_FORM },
	{ "packed:2:stop=1", "stop \"1\" is not a unit letter", PACKED_FORM },
	{ "packed:2:stop=", "empty value for key \"stop\"", PACKED_FORM },
	{ "packed:2:stop=s:stop=S", "key \"stop\" is given twice", PACKED_FORM },
	{ "packed:2:filter=SCQ", "filter \"SCQ\" has \"Q\" at position 3, not a unit letter",
	  PACKED_FORM },
	{ "packed:2:filter=S C", "filter \"S C\" has \" \" at position 2", PACKED_FORM },
	{ "packed:2:filter=SC:filter=SC", "key \"filter\" is given twice", PACKED_FORM },
	{ "packed:2:unit=C::sort=S", "empty field after \"unit=C\"", PACKED_FORM },
};

static const struct bad bad_lsf[] = {
	{ "balance", "n is missing", "(expected balance:<n>" LEVEL_FORM },
	{ "balance:0", "n must be >= 1", "(expected balance:<n>" LEVEL_FORM },
	{ "pack:x", "n \"x\" is not a decimal number", "(expected pack:<n>" LEVEL_FORM },
	{ "pack:1000001", "n \"1000001\" is too large", "(expected pack:<n>" LEVEL_FORM },
	{ "any:2:level=numa", "level \"numa\" is not socket (or processor), core or thread",
	  "(expected any:<n>" LEVEL_FORM },
	{ "any:2:level=", "level \"\" is not socket (or processor), core or thread", "(expected any:<n>" LEVEL_FORM },
	{ "any:2:level=core:level=core", "level is given twice", "(expected any:<n>" LEVEL_FORM },
	{ "any:2:foo=1", "unknown option \"foo\"", "(expected any:<n>" LEVEL_FORM },
	{ "any:2:3", "unexpected \"3\"", "(expected any:<n>" LEVEL_FORM },
	{ "any:2:level", "unexpected \"level\"", "(expected any:<n>" LEVEL_FORM },
	{ "any:2:=core", "unexpected \"=core\"", "(expected any:<n>" LEVEL_FORM },
	{ "balance:2:", "trailing \":\" after \"2\"", "(expected balance:<n>" LEVEL_FORM },
	{ "pack:2:unit=C", "unknown option \"unit\"", "(expected pack:<n>" LEVEL_FORM },
	{ "cpus", "cpu list is missing", CPUS_FORM },
	{ "cpus:1,,2", "empty cpu id in list \"1,,2\"", CPUS_FORM },
	{ "cpus:1,", "empty cpu id in list \"1,\"", CPUS_FORM },
	{ "cpus:,1", "empty cpu id in list \",1\"", CPUS_FORM },
	{ "cpus:a", "cpu \"a\" is not a decimal number", CPUS_FORM },
	{ "cpus:-1", "first cpu is missing in \"-1\"", CPUS_FORM },
	{ "cpus:1-", "last cpu is missing in \"1-\"", CPUS_FORM },
	{ "cpus:1-2-3", "last cpu \"2-3\" is not a decimal number", CPUS_FORM },
	{ "cpus:3-1", "range \"3-1\" is reversed", CPUS_FORM },
	{ "cpus:1,1", "cpu 1 is listed twice", CPUS_FORM },
	{ "cpus:0-3,2", "cpu 2 is listed twice", CPUS_FORM },
	{ "cpus:5000,4000-6000", "cpu 5000 is listed twice", CPUS_FORM },
	{ "cpus:1000001", "cpu \"1000001\" is too large", CPUS_FORM },
	{ "cpus:1:level=die", "level \"die\" is not socket (or processor), core or thread", CPUS_FORM },
	{ "cpus:1:2", "unexpected \"2\"", CPUS_FORM },
};

static void run_bad(const struct bad *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		parse_bad(v[i].text, v[i].reason, v[i].form);
}

START_TEST(test_bad_ge)
{
	run_bad(bad_ge, sizeof(bad_ge) / sizeof(bad_ge[0]));
}
END_TEST

START_TEST(test_bad_packed)
{
	run_bad(bad_packed, sizeof(bad_packed) / sizeof(bad_packed[0]));
}
END_TEST

START_TEST(test_bad_lsf)
{
	run_bad(bad_lsf, sizeof(bad_lsf) / sizeof(bad_lsf[0]));
}
END_TEST

START_TEST(test_too_many_big_ranges)
{
	char text[2048];
	size_t o = (size_t)snprintf(text, sizeof(text), "cpus:1");
	for (int i = 0; i < 65; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, ",%d", 5000 + 2 * i);
	parse_bad(text, "more than 64 ranges of cpu ids above 4095", CPUS_FORM);
}
END_TEST

/* NULL text and buffers, tiny buffers, bytes that are not text. */
START_TEST(test_hostile)
{
	char err[BND_ERRLEN];
	parse_bad(NULL, "empty request", GE_STRATEGIES);
	ck_assert_int_eq(bnd_request_parse(NULL, "linear:1", err, sizeof(err)), BND_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "internal error"));
	ck_assert_int_eq(bnd_request_parse(&got, "bogus", NULL, 0), BND_EINVAL);
	ck_assert_int_eq(bnd_request_parse(&got, "linear:1", NULL, 0), BND_OK);
	ck_assert_int_eq(got.amount, 1);

	char tiny[8];
	memset(tiny, 'x', sizeof(tiny));
	ck_assert_int_eq(bnd_request_parse(&got, "bogus", tiny, sizeof(tiny)), BND_EINVAL);
	ck_assert_str_eq(tiny, "--bindi");

	/* Control and high bytes appear escaped, quotes and backslashes too. */
	ck_assert_int_eq(bnd_request_parse(&got, "li\001ne\"ar\\\377:2", err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "--binding: \"li\\x01ne\\\"ar\\\\\\xff:2\": unknown strategy "
			      "\"li\\x01ne\\\"ar\\\\\\xff\" " GE_STRATEGIES);
	ck_assert_str_eq(got.text, "li\001ne\"ar\\\377:2");

	/* A huge token: the message is cut, but the reason and form survive. */
	static char big[100000];
	memcpy(big, "linear:", 7);
	memset(big + 7, '\377', sizeof(big) - 8);
	ck_assert_int_eq(bnd_request_parse(&got, big, err, sizeof(err)), BND_EINVAL);
	ck_assert_msg(strstr(err, "...\": amount \"\\xff"), "%s", err);
	ck_assert_msg(strstr(err, "...\" is not a decimal number " LINEAR_FORM), "%s", err);
	ck_assert_uint_lt(strlen(err), sizeof(err) - 1);
}
END_TEST

/* ---- --mbind ---------------------------------------------------------- */

START_TEST(test_mbind)
{
	static const struct {
		const char *text;
		enum bnd_mbind m;
	} v[] = { { "none", BND_M_NONE }, { "cores", BND_M_CORES },
		  { "cores:strict", BND_M_CORES_STRICT }, { "round_robin", BND_M_ROUND_ROBIN },
		  { "nlocal", BND_M_NLOCAL } };
	char err[BND_ERRLEN];
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		enum bnd_mbind m = (enum bnd_mbind)99;
		err[0] = '\0';
		ck_assert_int_eq(bnd_mbind_parse(&m, v[i].text, err, sizeof(err)), BND_OK);
		ck_assert_int_eq(m, v[i].m);
		ck_assert_str_eq(err, "");
		ck_assert_str_eq(bnd_mbind_name(m), v[i].text);
	}
	static const struct bad bad[] = {
		{ "", "empty memory policy", MBIND_FORM },
		{ "CORES", "unknown memory policy \"CORES\"", MBIND_FORM },
		{ "cores:", "unknown memory policy \"cores:\"", MBIND_FORM },
		{ "cores:loose", "unknown memory policy \"cores:loose\"", MBIND_FORM },
		{ "strict", "unknown memory policy \"strict\"", MBIND_FORM },
		{ "round-robin", "unknown memory policy \"round-robin\"", MBIND_FORM },
		{ "none ", "unknown memory policy \"none \"", MBIND_FORM },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want_msg[BND_ERRLEN];
		enum bnd_mbind m = BND_M_CORES;
		snprintf(want_msg, sizeof(want_msg), "--mbind: \"%s\": %s %s", bad[i].text,
			 bad[i].reason, bad[i].form);
		ck_assert_int_eq(bnd_mbind_parse(&m, bad[i].text, err, sizeof(err)), BND_EINVAL);
		ck_assert_str_eq(err, want_msg);
		ck_assert_int_eq(m, BND_M_NONE);
	}
	ck_assert_int_eq(bnd_mbind_parse(NULL, "cores", err, sizeof(err)), BND_EINVAL);
	enum bnd_mbind m;
	ck_assert_int_eq(bnd_mbind_parse(&m, NULL, err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "--mbind: \"\": empty memory policy " MBIND_FORM);
}
END_TEST

/* What a step places, and each policy without cores of its own (UGE:
 * round_robin needs no core binding; cores and cores:strict follow the
 * task's cores): the rule the plugin and sbind place share. */
START_TEST(test_mbind_without_cores)
{
	static const struct {
		enum bnd_mbind m;
		int needs_cores;
	} v[] = { { BND_M_NONE, 0 }, { BND_M_CORES, 1 }, { BND_M_CORES_STRICT, 1 },
		  { BND_M_ROUND_ROBIN, 0 }, { BND_M_NLOCAL, 0 }, { BND_M_GPU, 0 } };
	char err[BND_ERRLEN], want_msg[BND_ERRLEN];
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		err[0] = '\0';
		ck_assert_int_eq(bnd_mbind_unbound(v[i].m, 0, err, sizeof(err)),
				 v[i].needs_cores ? BND_EINVAL : BND_OK);
		snprintf(want_msg, sizeof(want_msg), "--mbind=%s not applied: it needs cores bound "
			 "by --binding", bnd_mbind_name(v[i].m));
		ck_assert_str_eq(err, v[i].needs_cores ? want_msg : "");
	}
	ck_assert_int_eq(bnd_mbind_unbound(BND_M_CORES, 1, err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "--mbind=cores not applied: the task is not bound");
	/* none and packed:0 place nothing, but nlocal brings its own binding */
	struct bnd_request r;
	ck_assert_int_eq(bnd_request_parse(&r, "none", err, sizeof(err)), BND_OK);
	ck_assert(!bnd_request_places(&r, BND_M_CORES_STRICT));
	ck_assert(!bnd_request_places(NULL, BND_M_ROUND_ROBIN));
	ck_assert(bnd_request_places(NULL, BND_M_NLOCAL));
	ck_assert(bnd_request_places(&r, BND_M_NLOCAL));
	ck_assert_int_eq(bnd_request_parse(&r, "packed:0", err, sizeof(err)), BND_OK);
	ck_assert(!bnd_request_places(&r, BND_M_NONE));
	ck_assert_int_eq(bnd_request_parse(&r, "linear:1", err, sizeof(err)), BND_OK);
	ck_assert(bnd_request_places(&r, BND_M_NONE));
	/* the cores such a step takes: its own request, or linear:1 per task
	 * for nlocal alone */
	struct bnd_request lin, two;
	ck_assert_int_eq(bnd_request_parse(&two, "linear:2", err, sizeof(err)), BND_OK);
	ck_assert_ptr_eq(bnd_request_cores(&two, &lin), &two);
	ck_assert_int_eq(bnd_request_parse(&r, "none", err, sizeof(err)), BND_OK);
	const struct bnd_request *c = bnd_request_cores(&r, &lin);
	ck_assert_ptr_eq(c, &lin);
	ck_assert_int_eq(c->strategy, BND_S_LINEAR);
	ck_assert_int_eq(c->amount, 1);
	ck_assert_str_eq(c->text, "linear:1");
}
END_TEST

/* gpu:<amount>, and packed's near=gpu with the same visible= key. */
START_TEST(test_gpu)
{
	static const struct {
		const char *text;
		enum bnd_strategy s;
		enum bnd_instance inst;
		int amount;
		enum bnd_visible vis;
	} v[] = {
		{ "gpu:4", BND_S_GPU, BND_I_SET, 4, BND_VIS_TASK },
		{ "gpu:1:visible=all", BND_S_GPU, BND_I_SET, 1, BND_VIS_ALL },
		{ "env:gpu:2:visible=task", BND_S_GPU, BND_I_ENV, 2, BND_VIS_TASK },
		{ "packed:4:near=gpu", BND_S_PACKED, BND_I_SET, 4, BND_VIS_TASK },
		{ "pe:packed:2:unit=T:near=gpu:visible=all", BND_S_PACKED, BND_I_PE, 2, BND_VIS_ALL },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		parse_ok(v[i].text);
		want_init(v[i].text, v[i].s);
		want.instance = v[i].inst;
		want.amount = v[i].amount;
		want.near_gpu = 1;
		want.visible = v[i].vis;
		strcpy(want.unit, strstr(v[i].text, "unit=T") ? "T" : "C");
		check_same();
	}
	static const struct bad b[] = {
		{ "gpu", "amount is missing", GPU_FORM },
		{ "gpu:0", "amount must be >= 1", GPU_FORM },
		{ "gpu:x", "amount \"x\" is not a decimal number", GPU_FORM },
		{ "gpu:2:visible=some", "visible \"some\" is not task or all", GPU_FORM },
		{ "gpu:2:near=gpu", "unknown key \"near\"", GPU_FORM },
		{ "gpu:2:visible=all:visible=task", "visible is given twice", GPU_FORM },
		{ "gpu:2:all", "unexpected \"all\"", GPU_FORM },
		{ "packed:2:near=cpu", "near \"cpu\" is not gpu", PACKED_FORM },
		{ "packed:2:visible=all", "visible= goes with near=gpu", PACKED_FORM },
		{ "packed:2:near=gpu:near=gpu", "key \"near\" is given twice", PACKED_FORM },
	};
	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		parse_bad(b[i].text, b[i].reason, b[i].form);
	enum bnd_mbind m;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_mbind_parse(&m, "gpu", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(m, BND_M_GPU);
	ck_assert_str_eq(bnd_mbind_name(BND_M_GPU), "gpu");
}
END_TEST

/* ---- names and help ----------------------------------------------------- */

START_TEST(test_names)
{
	static const struct {
		enum bnd_strategy s;
		const char *name, *sample;
	} v[] = {
		{ BND_S_NONE, "none", "none" },
		{ BND_S_LINEAR, "linear", "linear:1" },
		{ BND_S_STRIDING, "striding", "striding:1:1" },
		{ BND_S_EXPLICIT, "explicit", "explicit:0,0" },
		{ BND_S_PACKED, "packed", "packed:1" },
		{ BND_S_LSF_BALANCE, "balance", "balance:1" },
		{ BND_S_LSF_PACK, "pack", "pack:1" },
		{ BND_S_LSF_ANY, "any", "any:1" },
		{ BND_S_LSF_CPUS, "cpus", "cpus:1" },
		{ BND_S_GPU, "gpu", "gpu:1" },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		ck_assert_str_eq(bnd_strategy_name(v[i].s), v[i].name);
		parse_ok(v[i].sample);
		ck_assert_int_eq(got.strategy, v[i].s);
	}
	ck_assert_str_eq(bnd_strategy_name((enum bnd_strategy)77), "unknown");
	ck_assert_str_eq(bnd_instance_name(BND_I_SET), "set");
	ck_assert_str_eq(bnd_instance_name(BND_I_ENV), "env");
	ck_assert_str_eq(bnd_instance_name(BND_I_PE), "pe");
	ck_assert_str_eq(bnd_mbind_name((enum bnd_mbind)77), "unknown");
}
END_TEST

/* The table of strategies: one row per strategy, its word parses back to
 * it, and the help and the completion words carry every row. */
START_TEST(test_table)
{
	char words[512];
	ck_assert_int_eq(bnd_request_words(' ', words, sizeof(words)), BND_OK);
	ck_assert_ptr_null(bnd_strategy_def(BND_S_COUNT));
	size_t rows = 0;
	while (bnd_strategy_def_at(rows))
		rows++;
	ck_assert_uint_eq(rows, BND_S_COUNT);
	for (int s = 0; s < BND_S_COUNT; s++) {
		const struct bnd_strategy_def *d = bnd_strategy_def((enum bnd_strategy)s);
		ck_assert_msg(d, "strategy %d has no row", s);
		ck_assert_int_eq(d->strategy, s);
		ck_assert_msg(d->form && *d->form && d->help && *d->help, "%s", d->word);
		ck_assert_msg(d->help[strlen(d->help) - 1] == '\n', "%s help", d->word);
		ck_assert_msg(strstr(bnd_request_help(), d->help), "help lacks %s's lines", d->word);
		ck_assert_msg(strstr(bnd_request_usage(), d->word), "usage lacks %s", d->word);
		char w[64], sample[64];
		snprintf(w, sizeof(w), " %s%s ", d->word, d->share == BND_SHARE_NONE ? "" : ":");
		char padded[520];
		snprintf(padded, sizeof(padded), " %s ", words);
		ck_assert_msg(strstr(padded, w), "completion lacks \"%s\": %s", w, words);
		if (d->example)
			snprintf(sample, sizeof(sample), "%.*s", (int)strcspn(d->example, " "),
				 d->example);
		else
			snprintf(sample, sizeof(sample), "%s%s", d->word,
				 d->share == BND_SHARE_NONE ? "" : ":1");
		parse_ok(sample);
		ck_assert_int_eq(got.strategy, s);
	}
	ck_assert_msg(strstr(words, "set: env: pe:"), "%s", words);
	ck_assert_int_eq(bnd_request_words(' ', words, 8), BND_EINVAL);
	ck_assert_int_eq(bnd_mbind_words('|', words, sizeof(words)), BND_OK);
	ck_assert_str_eq(words, "none|cores|cores:strict|round_robin|nlocal|gpu");
	ck_assert_msg(strstr(bnd_mbind_usage(), words), "%s", bnd_mbind_usage());
	ck_assert_msg(strstr(bnd_request_usage(), "any, cpus or gpu. --binding=help"), "%s",
		      bnd_request_usage());
}
END_TEST

/* Lines of at most 79 columns; returns the number of lines. */
static int check_lines(const char *h)
{
	int lines = 0;
	ck_assert_uint_gt(strlen(h), 0);
	ck_assert_msg(h[strlen(h) - 1] == '\n', "help does not end with a newline");
	for (const char *p = h; *p;) {
		const char *nl = strchr(p, '\n');
		ck_assert_msg(nl - p < 80, "help line too long: %.*s", (int)(nl - p), p);
		lines++;
		p = nl + 1;
	}
	return lines;
}

/* Every example the help gives (after "e.g.") is a valid request. */
START_TEST(test_help_examples)
{
	const char *h = bnd_request_help();
	int lines = check_lines(h), examples = 0;
	ck_assert_msg(lines >= 30 && lines <= 58, "help has %d lines", lines);
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", h);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *eg = strstr(line, "e.g. ");
		if (!eg)
			continue;
		char *save = NULL;
		for (char *w = strtok_r(eg + 5, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			if (strncmp(w, "--mbind=", 8) == 0)
				continue;
			if (strncmp(w, "--binding=", 10) == 0)
				w += 10;
			parse_ok(w);
			examples++;
		}
	}
	ck_assert_int_ge(examples, 7);
	static const char *const must[] = { "linear:", "striding:", "explicit:", "none", "packed:",
					    "unit=", "type=task|node", "sort=", "start=", "stop=",
					    "filter=", "balance:", "pack:", "any:", "cpus:",
					    "level=socket|core|thread", "set:", "env:", "pe:",
					    "--mbind=none|cores|cores:strict|round_robin|nlocal|gpu",
					    "gpu:<amount>[:visible=task|all]", "near=gpu",
					    "e.g. --binding=gpu:",
					    "e.g. --binding=packed:", "e.g. --binding=balance:",
					    "e.g. --binding=linear:" };
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		ck_assert_msg(strstr(h, must[i]), "help lacks %s", must[i]);
}
END_TEST

START_TEST(test_mbind_help)
{
	const char *h = bnd_mbind_help();
	int lines = check_lines(h);
	ck_assert_int_le(lines, 12);
	static const char *const values[] = { "none", "cores", "cores:strict", "round_robin",
					      "nlocal", "gpu" };
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char line[64];
		enum bnd_mbind m;
		char err[BND_ERRLEN];
		snprintf(line, sizeof(line), "\n  %s ", values[i]);
		ck_assert_msg(strstr(h, line), "mbind help lacks %s", values[i]);
		ck_assert_int_eq(bnd_mbind_parse(&m, values[i], err, sizeof(err)), BND_OK);
	}
	const char *eg = strstr(h, "--mbind=cores:strict\n");
	ck_assert_ptr_nonnull(eg);
}
END_TEST

/* ---- random sweep --------------------------------------------------------- */

static unsigned long long rng;

static unsigned next_rand(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng >> 33);
}

/* Strings built from the grammar's own words and separators, plus a few
 * stray bytes: most are wrong in some interesting way, some are right. */
START_TEST(test_random)
{
	static const char *const words[] = {
		"set", "env", "pe", "none", "linear", "striding", "explicit", "packed", "balance",
		"pack", "any", "cpus", ":", ":", ":", ",", ",", "-", "=", "0", "1", "2", "7", "00",
		"4096", "1000000", "1000001", "99999999999", "unit", "type", "sort", "start", "stop",
		"filter", "level", "C", "CT", "E", "S", "s", "N", "x", "task", "node", "slot", "core",
		"socket", "thread", "=C", "unit=T", "sort=S", "start=s", "level=core", "\377", "\001",
		"\"", "\\", " ",
	};
	const size_t nwords = sizeof(words) / sizeof(words[0]);
	static const char *const samples[] = {
		"none", "linear:2", "set:linear:2:1,0", "striding:2:2:0,0", "env:explicit:0,0:1,3",
		"packed:4:sort=Sc:start=S:stop=s", "pe:packed:1:unit=CX:type=host:filter=NSXCc",
		"balance:2:level=socket", "pack:3", "any:1:level=thread", "cpus:0,5,7,9-11,5000",
	};
	const size_t nsamples = sizeof(samples) / sizeof(samples[0]);
	/* Bytes the mutations use; the terminating NUL of the literal is not one. */
	static const char alphabet[] = "0123456789:,-=NSXYCETnsxycet\377";
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rng = 20261121;
	int ok = 0, bad = 0;
	for (int iter = 0; iter < 5000; iter++) {
		char text[200];
		size_t o = 0;
		if (iter % 3 == 0) {
			/* A valid request with up to two bytes changed. */
			o = (size_t)snprintf(text, sizeof(text), "%s", samples[next_rand() % nsamples]);
			for (int k = (int)(next_rand() % 3); k > 0; k--)
				text[next_rand() % o] = alphabet[next_rand() % (sizeof(alphabet) - 1)];
		} else {
			int n = (int)(next_rand() % 12);
			for (int k = 0; k < n; k++) {
				const char *w = words[next_rand() % nwords];
				size_t l = strlen(w);
				if (o + l >= sizeof(text))
					break;
				memcpy(text + o, w, l);
				o += l;
			}
		}
		text[o] = '\0';
		char err[BND_ERRLEN];
		memset(err, 0, sizeof(err));
		int rc = bnd_request_parse(&got, text, err, sizeof(err));
		ck_assert_msg(rc == BND_OK || rc == BND_EINVAL, "\"%s\": rc %d", text, rc);
		ck_assert_str_eq(got.text, text);
		if (rc == BND_OK) {
			ok++;
			ck_assert_msg(err[0] == '\0', "\"%s\": accepted with message %s", text, err);
		} else {
			bad++;
			ck_assert_msg(strncmp(err, "--binding: \"", 12) == 0 && strstr(err, "(expected "),
				      "\"%s\": message \"%s\"", text, err);
		}
		enum bnd_mbind m;
		rc = bnd_mbind_parse(&m, text, err, sizeof(err));
		ck_assert(rc == BND_OK || (rc == BND_EINVAL && strncmp(err, "--mbind: \"", 10) == 0));
	}
	/* The sweep must reach both outcomes to mean anything. */
	ck_assert_int_gt(ok, 20);
	ck_assert_int_gt(bad, 1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(s < 5.0, "random sweep took %.2f s", s);
}
END_TEST

/* The packed request built as data: errors name the bad value. */
START_TEST(test_request_packed_data)
{
	struct bnd_request *r = calloc(1, sizeof(*r));
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_request_packed(r, 3, "CS", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(r->strategy, BND_S_PACKED);
	ck_assert_int_eq(r->amount, 3);
	ck_assert_str_eq(r->unit, "CS");
	ck_assert_str_eq(r->text, "packed:3:unit=CS");
	ck_assert_int_eq(bnd_request_packed(r, 0, "C", err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "packed amount 0 is not 1..1000000");
	ck_assert_int_eq(bnd_request_packed(r, 1, "Q", err, sizeof(err)), BND_EINVAL);
	ck_assert_str_eq(err, "unit \"Q\" is not one of T CT ET C E S CS ES X CX EX Y CY EY N CN EN");
	free(r);
}
END_TEST

static Suite *request_suite(void)
{
	Suite *s = suite_create("request");
	TCase *tc = tcase_create("request");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_linear);
	tcase_add_test(tc, test_striding);
	tcase_add_test(tc, test_explicit);
	tcase_add_test(tc, test_explicit_max);
	tcase_add_test(tc, test_packed_defaults);
	tcase_add_test(tc, test_packed_keys);
	tcase_add_test(tc, test_packed_units);
	tcase_add_test(tc, test_packed_ocs_spellings);
	tcase_add_test(tc, test_packed_type_synonyms);
	tcase_add_test(tc, test_packed_filter_max);
	tcase_add_test(tc, test_gpu);
	tcase_add_test(tc, test_lsf_counts);
	tcase_add_test(tc, test_lsf_cpus);
	tcase_add_test(tc, test_text_kept);
	tcase_add_test(tc, test_spec_messages);
	tcase_add_test(tc, test_bad_ge);
	tcase_add_test(tc, test_bad_packed);
	tcase_add_test(tc, test_bad_lsf);
	tcase_add_test(tc, test_too_many_big_ranges);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_mbind);
	tcase_add_test(tc, test_mbind_without_cores);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_help_examples);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_mbind_help);
	tcase_add_test(tc, test_random);
	tcase_add_test(tc, test_request_packed_data);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(request_suite());
}
