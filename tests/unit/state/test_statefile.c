/* statefile: the text format, round trips, and every kind of damage. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/hooks/crc32.h"
#include "binding/util/error.h"
#include "binding/state/statefile.h"
#include "statetest.h"
#include "binding/state/history.h"
#include "testutil.h"

#define BOOT "0f0e0d0c-0b0a-0908-0706-050403020100"

static void sample(struct bnd_state_file *f)
{
	bnd_statefile_init(f);
	struct bnd_state_record a = st_rec(12, 0, 4242, 981234, "0-1;2-3");
	a.uid = 1001;
	ck_assert_int_eq(bnd_state_record_mem(&a, 2), BND_OK);
	a.mem[0].node = 0;
	a.mem[0].mib = 512;
	a.mem[1].node = 3;
	a.mem[1].mib = 0;
	snprintf(a.request, sizeof(a.request), "packed:4:sort=Cc:filter=a b");
	a.mbind = BND_M_CORES_STRICT;
	const uint64_t gpus[2] = { 0x1, 0x8000000000000006ull };
	ck_assert_int_eq(bnd_state_record_gpus(&a, gpus, 2), BND_OK);
	ck_assert_int_eq(bnd_hist_append(&a.hist, BND_H_BOUND, 1700000000001LL, &a.cpus, NULL),
			 BND_OK);
	ck_assert_int_eq(bnd_hist_append(&a.hist, BND_H_SUSPENDED, 1700000000002LL, &a.cpus,
					 "slurm-suspend"), BND_OK);
	f->counts.v[BND_CNT_PLACEMENT + BND_S_LINEAR] = 7;
	f->counts.v[BND_CNT_LOCKWAIT_SUM_NS] = UINT64_MAX;
	struct bnd_state_record b = st_rec(13, BND_STEP_BATCH, 77, 5, "8,10,12");
	b.status = BND_ST_SUSPENDED;
	b.since_ms = 1700000000123LL;
	snprintf(b.why, sizeof(b.why), "slurm-suspend");
	struct bnd_state_record c = st_rec(4294967295u, 1, 2147483647, 18446744073709551615ull, "100-4095");
	c.status = BND_ST_DEFERRED;
	c.since_ms = 9223372036854775807LL;
	snprintf(c.why, sizeof(c.why), "held-by-job:1,2");
	c.request[0] = '\0';
	ck_assert_int_eq(bnd_statefile_add(f, &a), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(f, &b), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(f, &c), BND_OK);
	bnd_state_record_free(&a);
	bnd_state_record_free(&b);
	bnd_state_record_free(&c);
}

static void same_record(const struct bnd_state_record *x, const struct bnd_state_record *y)
{
	ck_assert_uint_eq(x->job, y->job);
	ck_assert_uint_eq(x->step, y->step);
	ck_assert_int_eq(x->owner_pid, y->owner_pid);
	ck_assert_uint_eq(x->owner_start, y->owner_start);
	ck_assert_uint_eq(x->uid, y->uid);
	ck_assert_int_eq(x->status, y->status);
	ck_assert_int_eq(x->created, y->created);
	ck_assert(bnd_cpuset_equal(&x->cpus, &y->cpus));
	ck_assert_int_eq(x->ntasks, y->ntasks);
	for (int i = 0; i < x->ntasks; i++)
		ck_assert(bnd_cpuset_equal(&x->tasks[i], &y->tasks[i]));
	ck_assert_int_eq(x->nmem, y->nmem);
	for (int i = 0; i < x->nmem; i++) {
		ck_assert_int_eq(x->mem[i].node, y->mem[i].node);
		ck_assert_uint_eq(x->mem[i].mib, y->mem[i].mib);
	}
	ck_assert_int_eq(x->since_ms, y->since_ms);
	ck_assert_str_eq(x->why, y->why);
	ck_assert_str_eq(x->request, y->request);
	ck_assert_int_eq(x->mbind, y->mbind);
	ck_assert_int_eq(x->ngpus, y->ngpus);
	for (int i = 0; i < x->ngpus; i++)
		ck_assert_uint_eq(x->gpus[i], y->gpus[i]);
	ck_assert_str_eq(x->hist ? x->hist : "", y->hist ? y->hist : "");
}

START_TEST(crc32_check_value)
{
	/* The CRC-32 catalogue's check value. */
	ck_assert_uint_eq(bnd_crc32("123456789", 9), 0xCBF43926u);
	ck_assert_uint_eq(bnd_crc32("", 0), 0);
	/* Every length and alignment against the definition, bit at a time:
	 * the sliced loop and the byte tail must agree on any split. */
	unsigned char buf[80];
	for (int i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 37 + 11);
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; off + len <= sizeof(buf); len++) {
			uint32_t c = 0xFFFFFFFFu;
			for (size_t k = 0; k < len; k++) {
				c ^= buf[off + k];
				for (int b = 0; b < 8; b++)
					c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
			}
			ck_assert_uint_eq(bnd_crc32(buf + off, len), c ^ 0xFFFFFFFFu);
		}
}
END_TEST

/* One table of Slurm's special step names for the plugin and sbind. */
START_TEST(step_names)
{
	char buf[16];
	uint32_t id = 0;
	ck_assert_str_eq(bnd_step_name(BND_STEP_BATCH, buf, sizeof(buf)), "batch");
	ck_assert_str_eq(bnd_step_name(BND_STEP_EXTERN, buf, sizeof(buf)), "extern");
	ck_assert_str_eq(bnd_step_name(BND_STEP_INTERACTIVE, buf, sizeof(buf)), "interactive");
	ck_assert_str_eq(bnd_step_name(7, buf, sizeof(buf)), "7");
	ck_assert_str_eq(bnd_step_name(0xFFFFFFFDu, buf, sizeof(buf)), "4294967293");
	ck_assert_int_eq(bnd_step_by_name("batch", &id), BND_OK);
	ck_assert_uint_eq(id, 4294967291u);
	ck_assert_int_eq(bnd_step_by_name("extern", &id), BND_OK);
	ck_assert_uint_eq(id, 4294967292u);
	ck_assert_int_eq(bnd_step_by_name("interactive", &id), BND_OK);
	ck_assert_uint_eq(id, 4294967290u);
	ck_assert_int_eq(bnd_step_by_name("Batch", &id), BND_EINVAL);
	ck_assert_int_eq(bnd_step_by_name("7", &id), BND_EINVAL);
	ck_assert_uint_eq(id, 4294967290u);
}
END_TEST

START_TEST(text_is_readable)
{
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	struct bnd_state_record a = st_rec(12, 0, 4242, 981234, "0-1;2-3");
	ck_assert_int_eq(bnd_statefile_add(&f, &a), BND_OK);
	char *text;
	size_t len = st_format(&f, BOOT, &text);
	const char *body = "spank-binding-state 4\n"
			   "boot " BOOT "\n"
			   "scan 0\n"
			   "rec job=12 step=0 pid=4242 start=981234 uid=1000 status=active "
			   "created=1700000000 cpus=0-3 tasks=0-1;2-3 mem= req=linear:1\n";
	char want[1024];
	snprintf(want, sizeof(want), "%send 1 crc32=%08x\n", body,
		 (unsigned)bnd_crc32(body, strlen(body)));
	ck_assert_str_eq(text, want);
	ck_assert_uint_eq(len, strlen(want));
	free(text);
	bnd_state_record_free(&a);
	bnd_statefile_free(&f);
}
END_TEST

START_TEST(round_trip)
{
	struct bnd_state_file f, g;
	sample(&f);
	char *text, *again, why[256];
	size_t len = st_format(&f, BOOT, &text), len2;
	ck_assert_int_eq(bnd_statefile_parse(text, len, &g, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_str_eq(g.boot_id, BOOT);
	ck_assert_int_eq(g.nrec, 3);
	for (int i = 0; i < 3; i++)
		same_record(&f.rec[i], &g.rec[i]);
	ck_assert_int_eq(bnd_statefile_format(&g, &again, &len2, NULL, 0), BND_OK);
	ck_assert_uint_eq(len, len2);
	ck_assert_mem_eq(text, again, len);
	ck_assert_ptr_nonnull(strstr(text, "cpus=8,10,12 since=1700000000123 why=slurm-suspend "
					   "tasks=8,10,12 mem= req=linear:1\n"));
	ck_assert_ptr_nonnull(strstr(text, " since=9223372036854775807 why=held-by-job:1,2 "
					   "tasks=100-4095 mem= req=\n"));
	ck_assert_ptr_nonnull(strstr(text, "mem=0:512,3:0 mbind=cores:strict gpus=0;1,2,63 "
					   "hist=2/bound@1700000000001=0-3/suspended@1700000000002=0-3:"
					   "slurm-suspend req=packed:4:sort=Cc:filter=a b\n"));
	ck_assert_ptr_nonnull(strstr(text, "\ncount placements.linear=7 "
					   "lock_wait.sum_ns=18446744073709551615\nrec "));
	ck_assert_uint_eq(g.counts.v[BND_CNT_PLACEMENT + BND_S_LINEAR], 7);
	ck_assert_uint_eq(g.counts.v[BND_CNT_LOCKWAIT_SUM_NS], UINT64_MAX);
	ck_assert_ptr_nonnull(strstr(text, "step=4294967291 "));
	free(text);
	free(again);
	bnd_statefile_free(&f);
	bnd_statefile_free(&g);

	/* no records at all */
	bnd_statefile_init(&f);
	len = st_format(&f, BOOT, &text);
	ck_assert_int_eq(bnd_statefile_parse(text, len, &g, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_int_eq(g.nrec, 0);
	free(text);
	bnd_statefile_free(&g);
}
END_TEST

START_TEST(request_text_stays_on_its_line)
{
	struct bnd_state_file f, g;
	bnd_statefile_init(&f);
	struct bnd_state_record a = st_rec(1, 2, 3, 4, "5");
	snprintf(a.request, sizeof(a.request), "linear:1\nrec job=9 step=9");
	ck_assert_int_eq(bnd_statefile_add(&f, &a), BND_OK);
	char *text, why[256];
	size_t len = st_format(&f, BOOT, &text);
	ck_assert_int_eq(bnd_statefile_parse(text, len, &g, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_int_eq(g.nrec, 1);
	ck_assert_str_eq(g.rec[0].request, "linear:1?rec job=9 step=9");
	free(text);
	bnd_state_record_free(&a);
	bnd_statefile_free(&f);
	bnd_statefile_free(&g);
}
END_TEST

START_TEST(empty_file)
{
	struct bnd_state_file g;
	char why[256];
	ck_assert_int_eq(bnd_statefile_parse("", 0, &g, why, sizeof(why)), BND_SF_CORRUPT);
	ck_assert_str_eq(why, "empty file");
	ck_assert_int_eq(g.nrec, 0);
	bnd_statefile_free(&g);
}
END_TEST

/* Every strict prefix of a valid file is damaged, and the records whose
 * lines are complete are salvaged. */
START_TEST(every_truncation)
{
	struct bnd_state_file f, g;
	sample(&f);
	char *text, why[256];
	size_t len = st_format(&f, BOOT, &text);
	const char *r2 = strstr(text, "rec job=13");
	const char *r3 = strstr(text, "rec job=4294967295");
	ck_assert_ptr_nonnull(r2);
	const char *tail = strstr(text, "end 3 crc32=");
	ck_assert_ptr_nonnull(r3);
	ck_assert_ptr_nonnull(tail);
	for (size_t cut = 0; cut < len; cut++) {
		ck_assert_int_eq(bnd_statefile_parse(text, cut, &g, why, sizeof(why)), BND_SF_CORRUPT);
		int complete = cut >= (size_t)(tail - text) ? 3 : cut >= (size_t)(r3 - text) ? 2
			     : cut >= (size_t)(r2 - text) ? 1 : 0;
		ck_assert_msg(g.nrec == complete, "cut %zu: %d records, want %d (%s)", cut, g.nrec,
			      complete, why);
		for (int i = 0; i < g.nrec; i++)
			same_record(&f.rec[i], &g.rec[i]);
		bnd_statefile_free(&g);
	}
	ck_assert_int_eq(bnd_statefile_parse(text, (size_t)(r3 - text), &g, why, sizeof(why)),
			 BND_SF_CORRUPT);
	ck_assert_str_eq(why, "truncated: no end line");
	bnd_statefile_free(&g);
	free(text);
	bnd_statefile_free(&f);
}
END_TEST

/* Any changed byte before the end line breaks the checksum (or the line). */
START_TEST(every_flipped_byte)
{
	struct bnd_state_file f, g;
	sample(&f);
	char *text, why[256];
	size_t len = st_format(&f, BOOT, &text);
	size_t body = (size_t)(strstr(text, "end 3 crc32=") - text);
	for (size_t i = 0; i < body; i++) {
		char keep = text[i];
		text[i] = (char)(keep ^ 0x01);
		/* the version digit 4 flipped reads 5: a newer version, refused
		 * whole; anything else the checksum (or the line) judges */
		int want = i == strlen("spank-binding-state ") ? BND_SF_NEWER : BND_SF_CORRUPT;
		ck_assert_msg(bnd_statefile_parse(text, len, &g, why, sizeof(why)) == want,
			      "byte %zu flipped went unnoticed", i);
		ck_assert_int_le(g.nrec, 3);
		bnd_statefile_free(&g);
		text[i] = keep;
	}
	/* A digit of a record changed: the line still parses, only the sum tells. */
	char *pid = strstr(text, "pid=4242");
	pid[4] = '5';
	ck_assert_int_eq(bnd_statefile_parse(text, len, &g, why, sizeof(why)), BND_SF_CORRUPT);
	ck_assert_str_eq(why, "bad checksum");
	ck_assert_int_eq(g.nrec, 3);
	ck_assert_int_eq(g.rec[0].owner_pid, 5242);
	bnd_statefile_free(&g);
	free(text);
	bnd_statefile_free(&f);
}
END_TEST

START_TEST(garbage)
{
	struct bnd_state_file g;
	char why[256];
	unsigned seed = 12345;
	char buf[2048];
	for (int round = 0; round < 300; round++) {
		size_t len = 1 + (size_t)(rand_r(&seed) % (int)sizeof(buf));
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)(rand_r(&seed) & 0xFF);
		ck_assert_int_eq(bnd_statefile_parse(buf, len, &g, why, sizeof(why)), BND_SF_CORRUPT);
		ck_assert_int_eq(g.nrec, 0);
		bnd_statefile_free(&g);
	}
	const char *text = "hello\nworld\n";
	ck_assert_int_eq(bnd_statefile_parse(text, strlen(text), &g, why, sizeof(why)), BND_SF_CORRUPT);
	ck_assert_str_eq(why, "garbage: not a spank-binding state header");
	bnd_statefile_free(&g);
}
END_TEST

/* Valid checksum, but the lines themselves are wrong. */
static int parse_signed(const char *body, char *why, size_t whylen, int *nrec)
{
	char text[2048];
	snprintf(text, sizeof(text), "%send %d crc32=%08x\n", body, *nrec,
		 (unsigned)bnd_crc32(body, strlen(body)));
	struct bnd_state_file g;
	int v = bnd_statefile_parse(text, strlen(text), &g, why, whylen);
	*nrec = g.nrec;
	bnd_statefile_free(&g);
	return v;
}

START_TEST(invalid_lines_with_good_checksum)
{
	char why[256];
	int n;
	const char *hdr = "spank-binding-state 1\nboot " BOOT "\n";
	const char *good = "rec job=1 step=0 pid=5 start=6 uid=0 status=active created=0 cpus=0-1 "
			   "tasks=0;1 mem= req=linear:1\n";
	char body[1024];
	struct { const char *line; const char *why; } bad[] = {
		/* tasks do not add up to cpus */
		{ "rec job=1 step=0 pid=5 start=6 uid=0 status=active created=0 cpus=0-1 tasks=0 mem= req=x\n",
		  "garbage: line 3 does not parse" },
		{ "rec job=1 step=0 pid=5 start=6 uid=0 status=running created=0 cpus=0 tasks=0 mem= req=x\n",
		  "garbage: line 3 does not parse" },
		{ "rec job=1 step=0 pid=0 start=6 uid=0 status=active created=0 cpus=0 tasks=0 mem= req=x\n",
		  "garbage: line 3 does not parse" },
		{ "rec job=4294967296 step=0 pid=5 start=6 uid=0 status=active created=0 cpus=0 tasks=0 mem= req=x\n",
		  "garbage: line 3 does not parse" },
		{ "rec step=0 job=1 pid=5 start=6 uid=0 status=active created=0 cpus=0 tasks=0 mem= req=x\n",
		  "garbage: line 3 does not parse" },
		{ "rec job=1 step=0 pid=5 start=6 uid=0 status=active created=0 cpus=0 tasks=0 mem=0:1, req=x\n",
		  "garbage: line 3 does not parse" },
		{ "rec job=1 step=0 pid=5 start=6 uid=0 status=active created=0 cpus=5000 tasks=5000 mem= req=x\n",
		  "garbage: line 3 does not parse" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(body, sizeof(body), "%s%s%s", hdr, bad[i].line, good);
		n = 1;
		ck_assert_int_eq(parse_signed(body, why, sizeof(why), &n), BND_SF_CORRUPT);
		ck_assert_str_eq(why, bad[i].why);
		ck_assert_int_eq(n, 1); /* the good line survives */
	}
	snprintf(body, sizeof(body), "%s%s", hdr, good);
	n = 2;
	ck_assert_int_eq(parse_signed(body, why, sizeof(why), &n), BND_SF_CORRUPT);
	ck_assert_str_eq(why, "record count 2 in end line, 1 records read");
	n = 1;
	ck_assert_int_eq(parse_signed(body, why, sizeof(why), &n), BND_SF_CLEAN);
	ck_assert_int_eq(parse_signed("spank-binding-state 1\n", why, sizeof(why), &(int){ 0 }),
			 BND_SF_CORRUPT);
	ck_assert_str_eq(why, "garbage: no boot line");
	ck_assert_int_eq(parse_signed("spank-binding-state 0\nboot x\n", why, sizeof(why), &(int){ 0 }),
			 BND_SF_CORRUPT);
	ck_assert_str_eq(why, "garbage: bad version in header");
}
END_TEST

START_TEST(newer_version_refused)
{
	struct bnd_state_file g;
	char why[256];
	const char *t2 = "spank-binding-state 5\nanything at all, even garbage\n";
	ck_assert_int_eq(bnd_statefile_parse(t2, strlen(t2), &g, why, sizeof(why)), BND_SF_NEWER);
	ck_assert_str_eq(why, "format version 5 is newer than this code's 4");
	ck_assert_int_eq(g.nrec, 0);
	const char *t3 = "spank-binding-state 999";
	ck_assert_int_eq(bnd_statefile_parse(t3, strlen(t3), &g, why, sizeof(why)), BND_SF_NEWER);
	bnd_statefile_free(&g);
}
END_TEST

START_TEST(records_edit)
{
	struct bnd_state_file f;
	sample(&f);
	bnd_statefile_remove(&f, 1);
	ck_assert_int_eq(f.nrec, 2);
	ck_assert_uint_eq(f.rec[0].job, 12);
	ck_assert_uint_eq(f.rec[1].job, 4294967295u);
	bnd_statefile_remove(&f, 5);
	ck_assert_int_eq(f.nrec, 2);
	enum bnd_state_status s;
	ck_assert_int_eq(bnd_state_status_parse("suspended", &s), BND_OK);
	ck_assert_int_eq(s, BND_ST_SUSPENDED);
	ck_assert_int_eq(bnd_state_status_parse("Active", &s), BND_EINVAL);
	ck_assert_str_eq(bnd_state_status_name(BND_ST_DEFERRED), "deferred");
	bnd_statefile_free(&f);
}
END_TEST

/* The folding path against the table on every alignment, and lengths
 * around the 256-, 64- and 16-byte steps the folding takes (both widths), up to a state's
 * size. */
START_TEST(crc32_folding_matches_the_table)
{
	static unsigned char buf[140000];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	for (size_t off = 0; off < 16; off++)
		for (size_t len = 0; len < 600; len++) {
			uint32_t want = bnd_crc32_table(buf + off, len);
			ck_assert_uint_eq(bnd_crc32(buf + off, len), want);
			ck_assert_uint_eq(bnd_crc32_narrow(buf + off, len), want);
		}
	for (size_t len = 130000; len < 130300; len++) {
		uint32_t want = bnd_crc32_table(buf + 3, len);
		ck_assert_uint_eq(bnd_crc32(buf + 3, len), want);
		ck_assert_uint_eq(bnd_crc32_narrow(buf + 3, len), want);
	}
}
END_TEST

/* A transaction's parse (heads, the rest on demand) reads what the whole
 * parse reads; unchanged records go back as the very bytes read, an
 * edited one is written anew. */
START_TEST(lazy_load_reads_what_the_whole_parse_reads)
{
	struct bnd_state_file f, g, h;
	sample(&f);
	f.rec[0].job_mem_mib = 4096;
	bnd_cpuset_t want;
	bnd_cpuset_parse_list(&want, "100-200", NULL, 0);
	ck_assert_int_eq(bnd_state_record_want(&f.rec[2], &want, 3, 6), BND_OK);
	snprintf(f.node, sizeof(f.node), "node-7");
	f.scan = 2;
	char *text, *again, why[256];
	size_t len = st_format(&f, BOOT, &text), len2;
	ck_assert_ptr_nonnull(strstr(text, "\nnode node-7\nscan 2\n"));
	ck_assert_ptr_nonnull(strstr(text, " groups=3 need=6 want=100-200 tasks="));
	ck_assert_ptr_nonnull(strstr(text, " mem=0:512,3:0 jobmem=4096 mbind=cores:strict gpus="));
	ck_assert_int_eq(bnd_statefile_parse(text, len, &g, why, sizeof(why)), BND_SF_CLEAN);
	char *copy = malloc(len + 1);
	memcpy(copy, text, len + 1);
	ck_assert_int_eq(bnd_statefile_load(copy, len, &h, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_str_eq(h.node, "node-7");
	ck_assert_uint_eq(h.scan, 2);
	ck_assert_int_eq(h.nrec, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(h.rec[i].parsed, BND_REC_HEAD);
		ck_assert_uint_eq(h.rec[i].job, g.rec[i].job);
		ck_assert_int_eq(h.rec[i].status, g.rec[i].status);
		if (h.rec[i].status == BND_ST_ACTIVE)
			ck_assert(bnd_cpuset_equal(&h.rec[i].cpus, &g.rec[i].cpus));
	}
	/* the cold part waits: a deferred record's want, an owner's start */
	ck_assert_ptr_null(h.rec[2].want);
	ck_assert_uint_eq(h.rec[0].owner_start, 0);
	ck_assert_int_eq(bnd_statefile_format(&h, &again, &len2, NULL, 0), BND_OK);
	ck_assert_uint_eq(len2, len);
	ck_assert_mem_eq(again, text, len);
	free(again);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(bnd_statefile_whole(&h, i), BND_OK);
		same_record(&h.rec[i], &g.rec[i]);
	}
	ck_assert_uint_eq(h.rec[0].job_mem_mib, 4096);
	ck_assert_int_eq(h.rec[2].want_groups, 3);
	ck_assert_int_eq(h.rec[2].want_need, 6);
	ck_assert(bnd_cpuset_equal(h.rec[2].want, &want));
	ck_assert_int_eq(bnd_statefile_edit(&h, 1), BND_OK);
	ck_assert_ptr_null(h.rec[1].raw);
	h.rec[1].uid = 4242;
	ck_assert_int_eq(bnd_statefile_format(&h, &again, &len2, NULL, 0), BND_OK);
	ck_assert_ptr_nonnull(strstr(again, "rec job=13 step=4294967291 pid=77 start=5 uid=4242 "));
	free(again);
	free(text);
	bnd_statefile_free(&f);
	bnd_statefile_free(&g);
	bnd_statefile_free(&h);
}
END_TEST

/* Anything that is not a whole file of this version goes through the
 * whole parse: a damaged one is salvaged as before, a version 1 file (no
 * node, since= after mem=) is read and written as version 4. */
START_TEST(lazy_load_falls_back_to_the_whole_parse)
{
	struct bnd_state_file f, g;
	sample(&f);
	char *text, why[256];
	size_t len = st_format(&f, BOOT, &text);
	text[strstr(text, "pid=4242") - text + 4] = '5';
	char *copy = malloc(len + 1);
	memcpy(copy, text, len + 1);
	ck_assert_int_eq(bnd_statefile_load(copy, len, &g, why, sizeof(why)), BND_SF_CORRUPT);
	ck_assert_str_eq(why, "bad checksum");
	ck_assert_int_eq(g.nrec, 3);
	ck_assert_int_eq(g.rec[0].parsed, BND_REC_WHOLE);
	ck_assert_int_eq(g.rec[0].owner_pid, 5242);
	bnd_statefile_free(&g);
	free(text);
	bnd_statefile_free(&f);

	const char *body = "spank-binding-state 1\nboot " BOOT "\n"
			   "rec job=13 step=0 pid=77 start=5 uid=1000 status=suspended created=1 cpus= "
			   "tasks= mem=0:64 since=1700000000123 why=slurm-suspend req=linear:1\n";
	char v1[1024];
	snprintf(v1, sizeof(v1), "%send 1 crc32=%08x\n", body,
		 (unsigned)bnd_crc32(body, strlen(body)));
	copy = strdup(v1);
	ck_assert_int_eq(bnd_statefile_load(copy, strlen(v1), &g, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_int_eq(g.nrec, 1);
	ck_assert_str_eq(g.rec[0].why, "slurm-suspend");
	ck_assert_int_eq(g.rec[0].since_ms, 1700000000123LL);
	ck_assert_int_eq(g.rec[0].mem[0].mib, 64);
	ck_assert_str_eq(g.node, "");
	ck_assert_int_eq(bnd_statefile_format(&g, &text, &len, NULL, 0), BND_OK);
	ck_assert_ptr_nonnull(strstr(text, "spank-binding-state 4\n"));
	ck_assert_ptr_nonnull(strstr(text, "cpus= since=1700000000123 why=slurm-suspend tasks= "
					   "mem=0:64 req=linear:1\n"));
	free(text);
	bnd_statefile_free(&g);
}
END_TEST

/* A whole file of body, one record: its end line and checksum added
 * (malloc'd). */
static char *framed(const char *body)
{
	char *t = malloc(strlen(body) + 64);
	ck_assert_ptr_nonnull(t);
	sprintf(t, "%send 1 crc32=%08x\n", body, (unsigned)bnd_crc32(body, strlen(body)));
	return t;
}

/* framed(body), parsed. */
static int parse_signed_body(const char *body, struct bnd_state_file *g, char *why, size_t len)
{
	char *t = framed(body);
	int rc = bnd_statefile_parse(t, strlen(t), g, why, len);
	free(t);
	return rc;
}

/* numamem (version 4): a record keeps its job's booking (booked=) and how
 * many of its tasks Slurm split (split=), both optional, after version
 * 3's fields, and they come back as written. Malformed ones make the
 * record unreadable, and so do they in a version 3 file, which has
 * neither. */
START_TEST(booked_and_split_round_trip)
{
	struct bnd_state_file g;
	char why[256], *out;
	size_t len;
	const char *body = "spank-binding-state 4\nboot " BOOT "\nscan 0\n"
			   "rec job=13 step=0 pid=77 start=5 uid=1000 status=active created=1 cpus=0 "
			   "tasks=0 mem=0:50,1:350 jobmem=400 mbind=cores:strict hist=1/bound@1=0 "
			   "booked=0:50,1:350 split=1 req=linear:1\n";
	char *t = framed(body);
	ck_assert_int_eq(bnd_statefile_parse(t, strlen(t), &g, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_int_eq(g.nrec, 1);
	ck_assert_int_eq(g.rec[0].nbooked, 2);
	ck_assert_int_eq(g.rec[0].booked[1].node, 1);
	ck_assert_uint_eq(g.rec[0].booked[1].mib, 350);
	ck_assert_int_eq(g.rec[0].split, 1);
	ck_assert_int_eq(g.rec[0].mbind, BND_M_CORES_STRICT);
	ck_assert_str_eq(g.rec[0].hist, "1/bound@1=0");
	ck_assert_int_eq(bnd_statefile_format(&g, &out, &len, NULL, 0), BND_OK);
	ck_assert_str_eq(out, t);
	free(out);
	/* a copy keeps them */
	struct bnd_state_file h;
	bnd_statefile_init(&h);
	ck_assert_int_eq(bnd_statefile_add(&h, &g.rec[0]), BND_OK);
	ck_assert_int_eq(h.rec[0].nbooked, 2);
	ck_assert_ptr_ne(h.rec[0].booked, g.rec[0].booked);
	bnd_statefile_free(&h);
	bnd_statefile_free(&g);
	free(t);
	/* version 4 with a bad one; version 3 with a good one (or with them
	 * ahead of its own fields) */
	static const struct { int version; const char *fields; } bad[] = {
		{ 4, "booked= req=" }, { 4, "booked=0 req=" }, { 4, "booked=0:x req=" },
		{ 4, "split=0 req=" }, { 4, "split=x req=" }, { 4, "booked=0:5 split= req=" },
		{ 4, "booked=0:5 mbind=cores req=" }, { 3, "booked=0:5 req=" },
		{ 3, "split=1 req=" }, { 3, "mbind=cores booked=0:5 req=" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char b[512];
		snprintf(b, sizeof(b), "spank-binding-state %d\nboot " BOOT "\nscan 0\nrec job=1 "
			 "step=0 pid=7 start=5 uid=1000 status=active created=1 cpus=0 tasks=0 mem= %s"
			 "linear:1\n", bad[i].version, bad[i].fields);
		ck_assert_msg(parse_signed_body(b, &g, why, sizeof(why)) == BND_SF_CORRUPT &&
			      g.nrec == 0, "%d: %s", bad[i].version, bad[i].fields);
		bnd_statefile_free(&g);
	}
}
END_TEST


/* Version 3: unbound records, counters (an unknown key is a reset, not
 * damage), and a version 2 file read and written as 4; a version 3 file
 * (no booked=, split=) read and written as 4 with its fields kept. */
START_TEST(version_3_fields)
{
	struct bnd_state_file g;
	char why[256], *text;
	size_t len;
	const char *unbound = "spank-binding-state 3\nboot " BOOT "\nscan 0\n"
			      "count placements.gpu=2 refusals.no_topology=1 placements.future=9\n"
			      "rec job=9 step=1 pid=5 start=6 uid=1000 status=unbound created=7 cpus= "
			      "since=8 why=held_by_other_jobs tasks= mem= "
			      "hist=1/unbound@8:held_by_other_jobs req=linear:1\n";
	ck_assert_int_eq(parse_signed_body(unbound, &g, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_int_eq(g.rec[0].status, BND_ST_UNBOUND);
	ck_assert_str_eq(g.rec[0].why, "held_by_other_jobs");
	ck_assert_uint_eq(g.counts.v[BND_CNT_PLACEMENT + BND_S_GPU], 2);
	ck_assert_uint_eq(g.counts.v[BND_CNT_REFUSAL + BND_R_NO_TOPOLOGY], 1);
	ck_assert_int_eq(bnd_statefile_format(&g, &text, &len, NULL, 0), BND_OK);
	ck_assert_ptr_nonnull(strstr(text, "\ncount placements.gpu=2 refusals.no_topology=1\n"));
	free(text);
	bnd_statefile_free(&g);

	/* a key twice, a value that is no number, a history that is none */
	const char *bad[] = {
		"count placements.gpu=2 placements.gpu=3\n", "count placements.gpu=x\n",
		"count  placements.gpu=1\n",
		"rec job=9 step=1 pid=5 start=6 uid=1000 status=active created=7 cpus=1 tasks=1 "
		"mem= hist=0/bound@1 req=\n",
		"rec job=9 step=1 pid=5 start=6 uid=1000 status=active created=7 cpus=1 tasks=1 "
		"mem= gpus=0;64 req=\n",
		"rec job=9 step=1 pid=5 start=6 uid=1000 status=active created=7 cpus=1 tasks=1 "
		"mem= mbind=none req=\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char body[1024];
		snprintf(body, sizeof(body), "spank-binding-state 3\nboot " BOOT "\n%s", bad[i]);
		ck_assert_msg(parse_signed_body(body, &g, why, sizeof(why)) == BND_SF_CORRUPT, "%s",
			      bad[i]);
		bnd_statefile_free(&g);
	}

	/* version 2 has none of it, and is rewritten as 4 */
	const char *v2 = "spank-binding-state 2\nboot " BOOT "\nnode n1\nscan 0\n"
			 "rec job=13 step=0 pid=77 start=5 uid=1000 status=active created=1 cpus=0 "
			 "tasks=0 mem=0:64 jobmem=128 req=linear:1\n";
	ck_assert_int_eq(parse_signed_body(v2, &g, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_ptr_null(g.rec[0].hist);
	ck_assert_int_eq(bnd_statefile_format(&g, &text, &len, NULL, 0), BND_OK);
	ck_assert_ptr_nonnull(strstr(text, "spank-binding-state 4\n"));
	ck_assert_ptr_nonnull(strstr(text, "mem=0:64 jobmem=128 req=linear:1\n"));
	free(text);
	bnd_statefile_free(&g);

	/* version 3 is rewritten as 4, its own fields as they were */
	const char *v3 = "spank-binding-state 3\nboot " BOOT "\nnode n1\nscan 0\n"
			 "rec job=13 step=0 pid=77 start=5 uid=1000 status=active created=1 cpus=0 "
			 "tasks=0 mem=0:64 jobmem=128 mbind=cores:strict gpus=0 hist=1/bound@1=0 "
			 "req=linear:1\n";
	ck_assert_int_eq(parse_signed_body(v3, &g, why, sizeof(why)), BND_SF_CLEAN);
	ck_assert_int_eq(g.rec[0].nbooked, 0);
	ck_assert_int_eq(g.rec[0].split, 0);
	ck_assert_int_eq(bnd_statefile_format(&g, &text, &len, NULL, 0), BND_OK);
	ck_assert_ptr_nonnull(strstr(text, "spank-binding-state 4\n"));
	ck_assert_ptr_nonnull(strstr(text, "mem=0:64 jobmem=128 mbind=cores:strict gpus=0 "
					   "hist=1/bound@1=0 req=linear:1\n"));
	free(text);
	bnd_statefile_free(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("statefile");
	TCase *tc = tcase_create("statefile");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, crc32_check_value);
	tcase_add_test(tc, step_names);
	tcase_add_test(tc, text_is_readable);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, request_text_stays_on_its_line);
	tcase_add_test(tc, empty_file);
	tcase_add_test(tc, every_truncation);
	tcase_add_test(tc, every_flipped_byte);
	tcase_add_test(tc, garbage);
	tcase_add_test(tc, booked_and_split_round_trip);
	tcase_add_test(tc, invalid_lines_with_good_checksum);
	tcase_add_test(tc, newer_version_refused);
	tcase_add_test(tc, records_edit);
	tcase_add_test(tc, crc32_folding_matches_the_table);
	tcase_add_test(tc, lazy_load_reads_what_the_whole_parse_reads);
	tcase_add_test(tc, lazy_load_falls_back_to_the_whole_parse);
	tcase_add_test(tc, version_3_fields);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
