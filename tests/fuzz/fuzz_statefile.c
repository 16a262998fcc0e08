/* The state file: whatever is on disk, truncated, damaged or hostile.
 *
 * Properties: parsing never fails but for memory; a newer version yields no
 * records; whatever records were salvaged format to a file that parses
 * clean to the same records, and formatting that again gives the same
 * bytes. And a transaction's parse (bnd_statefile_load: heads, the rest on
 * demand, trusted once the checksum holds) agrees with the whole parse on
 * the input given a valid end line: a clean file loads clean to the same
 * records, written back it reads the same, and when the load takes a file
 * the whole parse finds damaged, some record's tail refuses to parse when
 * asked.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/state/statefile.h"
#include "fuzz.h"

/* Files this code wrote, so the fuzzer starts past the checksum. */
static void write_seeds(const char *dir)
{
	static const char *const cpus[] = { "0-3", "8,10,12", "100-4095", "5" };
	static const char *const tasks[] = { "0-1;2-3", "8;10;12", "100-4095", "5" };
	static const char *const reqs[] = { "linear:2", "packed:4:sort=Cc:filter=a b", "", "cpus:5" };
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	snprintf(f.boot_id, sizeof(f.boot_id), "0f0e0d0c-0b0a-0908-0706-050403020100");
	for (int i = 0; i < 4; i++) {
		struct bnd_state_record r;
		char err[BND_ERRLEN], *text, name[32];
		size_t len;
		memset(&r, 0, sizeof(r));
		r.job = 12u + (uint32_t)i * 1000000000u;
		r.step = i == 1 ? BND_STEP_BATCH : (uint32_t)i;
		r.owner_pid = 4242 + i;
		r.owner_start = 981234ull << (i * 8);
		r.uid = 1000;
		r.status = (enum bnd_state_status)i; /* active, suspended, deferred, unbound */
		r.created = 1700000000 + i;
		FUZZ_CHECK(bnd_cpuset_parse_list(&r.cpus, cpus[i], err, sizeof(err)) == BND_OK, "%s", err);
		r.ntasks = 1;
		for (const char *c = tasks[i]; *c; c++)
			r.ntasks += *c == ';';
		r.tasks = calloc((size_t)r.ntasks, sizeof(*r.tasks));
		FUZZ_CHECK(r.tasks, "out of memory");
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", tasks[i]);
		char *save = NULL, *tok = strtok_r(buf, ";", &save);
		for (int k = 0; tok; k++, tok = strtok_r(NULL, ";", &save))
			FUZZ_CHECK(bnd_cpuset_parse_list(&r.tasks[k], tok, err, sizeof(err)) == BND_OK,
				   "%s", err);
		FUZZ_CHECK(bnd_state_record_mem(&r, i) == BND_OK, "out of memory");
		for (int k = 0; k < r.nmem; k++) {
			r.mem[k].node = k * 3;
			r.mem[k].mib = 512u << k;
		}
		snprintf(r.request, sizeof(r.request), "%s", reqs[i]);
		if (i == 0) {
			/* version 3's fields and the counters */
			const uint64_t gpus[2] = { 1, 6 };
			r.mbind = BND_M_CORES_STRICT;
			FUZZ_CHECK(bnd_state_record_gpus(&r, gpus, 2) == BND_OK, "out of memory");
			r.hist = strdup("3/bound@1700000000000=0-3/suspended@1700000000001=0-3:slurm-suspend/"
					"rebound@1700000000002=0-3");
			f.counts.v[BND_CNT_PLACEMENT + BND_S_LINEAR] = 3;
			f.counts.v[BND_CNT_LOCKWAIT_COUNT] = 4;
			/* version 4's: a numamem booking, one task split */
			FUZZ_CHECK(bnd_state_record_booked(&r, 2) == BND_OK, "out of memory");
			r.booked[0] = (struct bnd_state_mem){ .node = 0, .mib = 58 };
			r.booked[1] = (struct bnd_state_mem){ .node = 1, .mib = 304 };
			r.split = 1;
		}
		FUZZ_CHECK(bnd_statefile_add(&f, &r) == BND_OK, "out of memory");
		bnd_state_record_free(&r);
		FUZZ_CHECK(bnd_statefile_format(&f, &text, &len, err, sizeof(err)) == BND_OK, "%s", err);
		snprintf(name, sizeof(name), "gen-%d", i);
		fuzz_write_seed(dir, name, text, len);
		free(text);
	}
	bnd_statefile_free(&f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_seed_dir()) {
		write_seeds(fuzz_seed_dir());
		exit(0);
	}
	return 0;
}

static void same_record(const struct bnd_state_record *x, const struct bnd_state_record *y, int i)
{
	FUZZ_CHECK(x->job == y->job && x->step == y->step && x->owner_pid == y->owner_pid &&
		   x->owner_start == y->owner_start && x->uid == y->uid &&
		   x->status == y->status && x->created == y->created,
		   "record %d: numbers differ after a round trip", i);
	FUZZ_CHECK(bnd_cpuset_equal(&x->cpus, &y->cpus), "record %d: cpus differ", i);
	FUZZ_CHECK(x->ntasks == y->ntasks, "record %d: %d tasks, then %d", i, x->ntasks, y->ntasks);
	for (int k = 0; k < x->ntasks; k++)
		FUZZ_CHECK(bnd_cpuset_equal(&x->tasks[k], &y->tasks[k]), "record %d: task %d differs",
			   i, k);
	FUZZ_CHECK(x->nmem == y->nmem, "record %d: %d mem, then %d", i, x->nmem, y->nmem);
	for (int k = 0; k < x->nmem; k++)
		FUZZ_CHECK(x->mem[k].node == y->mem[k].node && x->mem[k].mib == y->mem[k].mib,
			   "record %d: mem %d differs", i, k);
	FUZZ_CHECK(strcmp(x->request, y->request) == 0, "record %d: request \"%s\", then \"%s\"",
		   i, x->request, y->request);
	FUZZ_CHECK(x->mbind == y->mbind && x->ngpus == y->ngpus, "record %d: mbind or gpus differ",
		   i);
	for (int k = 0; k < x->ngpus; k++)
		FUZZ_CHECK(x->gpus[k] == y->gpus[k], "record %d: gpus of group %d differ", i, k);
	FUZZ_CHECK(strcmp(x->hist ? x->hist : "", y->hist ? y->hist : "") == 0,
		   "record %d: history differs", i);
}

/* The input with an end line that makes it whole (count and checksum of
 * its lines), as a damaged-but-signed file could be. */
static void lazy_agrees(const uint8_t *data, size_t size)
{
	int recs = 0;
	for (size_t i = 0; i + 4 <= size; i++)
		recs += (i == 0 || data[i - 1] == '\n') && !memcmp(data + i, "rec ", 4);
	size_t body = size && data[size - 1] != '\n' ? size + 1 : size;
	char *text = malloc(body + 64);
	FUZZ_CHECK(text, "out of memory");
	memcpy(text, data, size);
	if (body > size)
		text[size] = '\n';
	size_t len = body + (size_t)snprintf(text + body, 64, "end %d crc32=%08x\n", recs,
					     (unsigned)bnd_crc32(text, body));
	struct bnd_state_file whole, lazy;
	char why[BND_ERRLEN];
	int vw = bnd_statefile_parse(text, len, &whole, why, sizeof(why));
	char *copy = malloc(len + 1);
	FUZZ_CHECK(copy, "out of memory");
	memcpy(copy, text, len + 1);
	int vl = bnd_statefile_load(copy, len, &lazy, why, sizeof(why));
	FUZZ_CHECK(vw != BND_SF_CLEAN || vl == BND_SF_CLEAN, "clean file loads %d", vl);
	int refused = 0;
	if (vl == BND_SF_CLEAN) {
		/* Written back (unchanged records as their bytes), it reads as the
		 * whole parse read the input. */
		char *out = NULL, err[BND_ERRLEN];
		size_t outlen = 0;
		FUZZ_CHECK(bnd_statefile_format(&lazy, &out, &outlen, err, sizeof(err)) == BND_OK,
			   "a loaded state does not format: %s", err);
		struct bnd_state_file back;
		int vb = bnd_statefile_parse(out, outlen, &back, why, sizeof(why));
		FUZZ_CHECK(vw != BND_SF_CLEAN || (vb == BND_SF_CLEAN && back.nrec == whole.nrec),
			   "a clean file loads and writes back as %d (%s)", vb, why);
		for (int i = 0; vw == BND_SF_CLEAN && i < back.nrec; i++)
			same_record(&back.rec[i], &whole.rec[i], i);
		bnd_statefile_free(&back);
		free(out);
		for (int i = 0; i < lazy.nrec; i++) {
			if (bnd_statefile_whole(&lazy, i) != BND_OK)
				refused++;
			else if (vw == BND_SF_CLEAN)
				same_record(&lazy.rec[i], &whole.rec[i], i);
		}
		FUZZ_CHECK(vw != BND_SF_CLEAN || (!refused && lazy.nrec == whole.nrec),
			   "a clean file loads to %d records, %d refused", lazy.nrec, refused);
	}
	FUZZ_CHECK(vl != BND_SF_CLEAN || vw == BND_SF_CLEAN || refused,
		   "the load took a damaged file whole (%s)", why);
	bnd_statefile_free(&whole);
	bnd_statefile_free(&lazy);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lazy_agrees(data, size);
	struct bnd_state_file f, g;
	char why[BND_ERRLEN] = "";
	int v = bnd_statefile_parse((const char *)data, size, &f, why, sizeof(why));
	FUZZ_CHECK(v == BND_SF_CLEAN || v == BND_SF_CORRUPT || v == BND_SF_NEWER, "verdict %d", v);
	FUZZ_CHECK(strnlen(why, sizeof(why)) < sizeof(why), "why not terminated");
	FUZZ_CHECK(v == BND_SF_CLEAN ? !why[0] : why[0] != '\0', "verdict %d, why \"%s\"", v, why);
	FUZZ_CHECK(f.nrec >= 0 && f.nrec <= f.cap, "nrec %d cap %d", f.nrec, f.cap);
	FUZZ_CHECK(memchr(f.boot_id, '\0', sizeof(f.boot_id)), "boot id not terminated");
	if (v == BND_SF_NEWER)
		FUZZ_CHECK(f.nrec == 0, "a newer file gave %d records", f.nrec);
	for (int i = 0; i < f.nrec; i++) {
		char *line = bnd_state_record_text(&f.rec[i]);
		FUZZ_CHECK(line && !strchr(line, '\n'), "record %d text", i);
		free(line);
	}

	char *out = NULL, err[BND_ERRLEN] = "";
	size_t outlen = 0;
	FUZZ_CHECK(bnd_statefile_format(&f, &out, &outlen, err, sizeof(err)) == BND_OK,
		   "records read back do not format: %s", err);
	int v2 = bnd_statefile_parse(out, outlen, &g, why, sizeof(why));
	FUZZ_CHECK(v2 == BND_SF_CLEAN, "own output is %d: %s\n%.*s", v2, why, (int)outlen, out);
	FUZZ_CHECK(g.nrec == f.nrec, "%d records, then %d", f.nrec, g.nrec);
	for (int i = 0; i < f.nrec; i++)
		same_record(&f.rec[i], &g.rec[i], i);
	FUZZ_CHECK(!memcmp(&f.counts, &g.counts, sizeof(f.counts)), "counters differ");
	FUZZ_CHECK(strcmp(g.boot_id, f.boot_id[0] ? f.boot_id : "unknown") == 0,
		   "boot \"%s\", then \"%s\"", f.boot_id, g.boot_id);

	char *out2 = NULL;
	size_t outlen2 = 0;
	FUZZ_CHECK(bnd_statefile_format(&g, &out2, &outlen2, err, sizeof(err)) == BND_OK, "%s",
		   err);
	FUZZ_CHECK(outlen2 == outlen && memcmp(out, out2, outlen) == 0,
		   "formatting is not stable");
	free(out);
	free(out2);
	bnd_statefile_free(&f);
	bnd_statefile_free(&g);
	return 0;
}
