/* The topology cache file read back (bnd_topocache_read): any bytes.
 *
 * The first input byte picks a mode; the rest is the file. Odd: the bytes
 * as they are, which mostly tests the header checks. Even: the harness
 * first repairs what a fuzzer can hardly guess (magic, version, boot id,
 * payload length, checksum), so the arrays behind them reach
 * bnd_topology_validate. The repair re-implements the header layout and
 * checksum of lib/topology/topocache.c; LLVMFuzzerInitialize checks that against a
 * file the library wrote and stops when they drift apart.
 *
 * Properties: a read that succeeds gives a topology that passes
 * bnd_topology_validate, can be used by the consumers (topology strings,
 * lookups, placement) without a sanitizer firing, and writes and reads
 * back unchanged.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/hooks/topocache.h"
#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topocache.h"
#include "binding/topology/topostring.h"
#include "fuzz.h"

#define BOOT "fuzz-boot"

/* lib/topology/topocache.c's layout, in 32-bit words. */
enum {
	H_MAGIC0, H_MAGIC1, H_VERSION, H_ENDIAN,
	H_BOOT,
	H_SOURCE = H_BOOT + 12,
	H_COUNTS = H_SOURCE + 256 / 4,
	H_PAYLOAD = H_COUNTS + 9,
	H_SUM_LO, H_SUM_HI,
	H_WORDS
};
#define MAGIC0 0x544e4442u
#define MAGIC1 0x31504f54u
#define ENDIAN 0x01020304u
#define MAX_ITEMS (1 << 20)
#define N_COUNTS 9
/* A GPU: bus id, OS device names, then 7 words. */
#define GPU_WORDS (BND_GPU_BUSID_LEN / 4 + BND_GPU_NAMES_LEN / 4 + 7)
/* Largest payload the repair pads a short input to. */
#define MAX_REPAIR_WORDS (1 << 16)

static char path[64];
static int fd = -1;

static size_t payload_words(const int32_t *c)
{
	/* ... + NUMA os ids, sizes (2 words) and distances, then has_dist and
	 * four 2-word cache sizes, then the GPUs. */
	return (size_t)c[0] * 13 + (size_t)c[2] * 9 + 2 * (size_t)c[3] + 2 * (size_t)c[1] +
	       3 * (size_t)c[4] + (size_t)c[4] * (size_t)c[4] + 9 + (size_t)c[8] * GPU_WORDS;
}

/* A repaired, malloc'd copy of the file: *n words. Counts within the
 * reader's limits also fix the length (zero padding or cut). */
static uint32_t *repair(const uint8_t *data, size_t size, size_t *n)
{
	size_t words = size / 4 < H_WORDS ? H_WORDS : size / 4;
	uint32_t *w = calloc(words, 4);
	FUZZ_CHECK(w, "out of memory");
	memcpy(w, data, size / 4 * 4);
	int32_t c[N_COUNTS];
	memcpy(c, w + H_COUNTS, sizeof(c));
	int ok = 1;
	for (int i = 0; i < N_COUNTS; i++)
		ok &= c[i] >= 0 && c[i] <= MAX_ITEMS;
	if (ok && payload_words(c) <= MAX_REPAIR_WORDS) {
		size_t want = H_WORDS + payload_words(c);
		uint32_t *grown = realloc(w, want * 4);
		FUZZ_CHECK(grown, "out of memory");
		w = grown;
		if (want > words)
			memset(w + words, 0, (want - words) * 4);
		words = want;
	}
	w[H_MAGIC0] = MAGIC0;
	w[H_MAGIC1] = MAGIC1;
	w[H_VERSION] = BND_TOPOCACHE_VERSION;
	w[H_ENDIAN] = ENDIAN;
	char boot[12 * 4] = BOOT;
	memcpy(w + H_BOOT, boot, sizeof(boot));
	w[H_PAYLOAD] = (uint32_t)(words - H_WORDS);
	uint64_t h = bnd_topocache_checksum(w, words);
	w[H_SUM_LO] = (uint32_t)h;
	w[H_SUM_HI] = (uint32_t)(h >> 32);
	*n = words;
	return w;
}

static void put_file(const void *buf, size_t len)
{
	FUZZ_CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, buf, len, 0) == (ssize_t)len,
		   "writing %s", path);
}

static void *get_file(size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	FUZZ_CHECK(end >= 0, "size of %s", path);
	char *buf = malloc((size_t)end + 1);
	FUZZ_CHECK(buf && pread(fd, buf, (size_t)end, 0) == (ssize_t)end, "reading %s", path);
	*len = (size_t)end;
	return buf;
}

static void cleanup(void)
{
	if (fd >= 0)
		unlink(path);
}

/* The harness's repair must leave a file the library wrote unchanged. */
static void check_layout(const struct bnd_topology *t)
{
	char err[BND_ERRLEN] = "";
	size_t len, n;
	FUZZ_CHECK(tu_cache_write(t, path, BOOT, err, sizeof(err)) == BND_OK, "%s", err);
	close(fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0, "reopening %s", path);
	uint8_t *file = get_file(&len);
	uint32_t *w = repair(file, len, &n);
	FUZZ_CHECK(n * 4 == len && memcmp(w, file, len) == 0,
		   "tests/fuzz/fuzz_topocache.c no longer matches lib/topology/topocache.c's file layout");
	free(w);
	free(file);
}

static void write_seeds(const char *dir)
{
	static const char *const src[] = { "pack:2 numa:2 l3:1 core:2 pu:2", "pack:1 core:1",
					   "pack:3 l2:1 core:1 pu:3", "core:2" };
	char err[BND_ERRLEN] = "";
	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		struct bnd_topology *t = fuzz_topology(src[i]);
		FUZZ_CHECK(tu_cache_write(t, path, BOOT, err, sizeof(err)) == BND_OK, "%s", err);
		close(fd);
		fd = open(path, O_RDWR | O_CLOEXEC);
		FUZZ_CHECK(fd >= 0, "reopening %s", path);
		size_t len;
		uint8_t *file = get_file(&len);
		for (int mode = 0; mode < 2; mode++) {
			char name[32];
			uint8_t *seed = malloc(len + 1);
			FUZZ_CHECK(seed, "out of memory");
			seed[0] = (uint8_t)mode;
			memcpy(seed + 1, file, len);
			snprintf(name, sizeof(name), "gen-%zu-%s", i, mode ? "raw" : "repair");
			fuzz_write_seed(dir, name, seed, len + 1);
			free(seed);
		}
		free(file);
		bnd_topology_free(t);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Every input is a file write and read: on tmpfs that is many times
	 * faster than on a disk. */
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) >= 32)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(path, sizeof(path), "%s/fuzz-topocache-XXXXXX", tmp);
	fd = mkstemp(path);
	FUZZ_CHECK(fd >= 0, "temporary file %s", path);
	atexit(cleanup);
	struct bnd_topology *t = fuzz_topology("pack:2 numa:2 l3:1 core:2 pu:2");
	check_layout(t);
	bnd_topology_free(t);
	if (fuzz_seed_dir()) {
		write_seeds(fuzz_seed_dir());
		exit(0);
	}
	return 0;
}

static void same_topology(const struct bnd_topology *a, const struct bnd_topology *b)
{
	FUZZ_CHECK(a->nunits == b->nunits && a->nsockets == b->nsockets && a->ncores == b->ncores &&
		   a->npus == b->npus && a->nnuma == b->nnuma && a->nl3 == b->nl3 &&
		   a->nl2 == b->nl2 && a->has_kinds == b->has_kinds &&
		   !strcmp(a->source, b->source), "counts differ after a rewrite");
	FUZZ_CHECK(!memcmp(a->units, b->units, (size_t)a->nunits * sizeof(*a->units)) &&
		   !memcmp(a->cores, b->cores, (size_t)a->ncores * sizeof(*a->cores)) &&
		   !memcmp(a->pu_os, b->pu_os, (size_t)a->npus * sizeof(int)) &&
		   !memcmp(a->pu_core, b->pu_core, (size_t)a->npus * sizeof(int)) &&
		   !memcmp(a->socket_first_core, b->socket_first_core,
			   (size_t)a->nsockets * sizeof(int)) &&
		   !memcmp(a->socket_ncores, b->socket_ncores, (size_t)a->nsockets * sizeof(int)) &&
		   !memcmp(a->numa_os, b->numa_os, (size_t)a->nnuma * sizeof(int)) &&
		   !memcmp(a->numa_cpus, b->numa_cpus, (size_t)a->nnuma * sizeof(bnd_cpuset_t)) &&
		   !memcmp(a->numa_mem, b->numa_mem, (size_t)a->nnuma * sizeof(uint64_t)) &&
		   !memcmp(a->numa_dist, b->numa_dist,
			   (size_t)a->nnuma * (size_t)a->nnuma * sizeof(int)) &&
		   a->has_dist == b->has_dist &&
		   !memcmp(a->cache_size, b->cache_size, sizeof(a->cache_size)) &&
		   bnd_cpuset_equal(&a->all_cpus, &b->all_cpus), "arrays differ after a rewrite");
}

static void use(const struct bnd_topology *t)
{
	fuzz_use_topology(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1) {
		put_file(data + 1, size - 1);
	} else {
		size_t n;
		uint32_t *w = repair(data + 1, size - 1, &n);
		put_file(w, n * 4);
		free(w);
	}
	struct bnd_topology *t = NULL, *again = NULL;
	char err[BND_ERRLEN] = "";
	int rc = bnd_topocache_read(&t, path, BOOT, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_ESTATE, "rc %d: %s", rc, err);
	if (rc != BND_OK) {
		FUZZ_CHECK(!t, "a refused file still gave a topology");
		fuzz_check_err(err, sizeof(err), "bnd_topocache_read");
		return 0;
	}
	FUZZ_CHECK(bnd_topology_validate(t, err, sizeof(err)) == BND_OK,
		   "a topology read from the cache does not validate: %s", err);
	use(t);
	FUZZ_CHECK(tu_cache_write(t, path, BOOT, err, sizeof(err)) == BND_OK, "%s", err);
	close(fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0, "reopening %s", path);
	FUZZ_CHECK(bnd_topocache_read(&again, path, BOOT, err, sizeof(err)) == BND_OK,
		   "rewritten cache refused: %s", err);
	same_topology(t, again);
	bnd_topology_free(again);
	bnd_topology_free(t);
	return 0;
}
