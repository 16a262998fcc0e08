#include "binding/topology/topocache.h"
#include "binding/hooks/topocache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/proc.h"
#include "binding/util/safefile.h"

/* Room for the boot id in the header, in 32-bit words. */
#define CACHE_BOOT_WORDS 12

/* The file is an array of 32-bit words in host byte order (the cache never
 * leaves the node): a fixed header, then the primary arrays field by field.
 * Derived sets (numa_cpus, all_cpus) are recomputed on reading. */
enum {
	H_MAGIC0, H_MAGIC1, H_VERSION, H_ENDIAN,
	H_BOOT,
	H_SOURCE = H_BOOT + CACHE_BOOT_WORDS,
	H_COUNTS = H_SOURCE + 256 / 4,
	H_PAYLOAD = H_COUNTS + 9,
	H_SUM_LO, H_SUM_HI,
	H_WORDS
};
enum { C_UNITS, C_SOCKETS, C_CORES, C_PUS, C_NUMA, C_L3, C_L2, C_KINDS, C_GPUS, C_COUNT };
#define MAGIC0 0x544e4442u /* "BDNT" */
#define MAGIC1 0x31504f54u /* "TOP1" */
#define ENDIAN 0x01020304u
#define UNIT_WORDS 13
#define CORE_WORDS 9
/* busid, names, then vendor device class compute core_first core_count
 * mem_numa. */
#define GPU_BUSID_WORDS (BND_GPU_BUSID_LEN / 4)
#define GPU_NAMES_WORDS (BND_GPU_NAMES_LEN / 4)
#define GPU_WORDS (GPU_BUSID_WORDS + GPU_NAMES_WORDS + 7)
/* has_dist, then cache_size[4] as two words each. */
#define EXTRA_WORDS 9
/* Far above any real node, low enough that sizes cannot overflow. */
#define MAX_ITEMS (1 << 20)

/* FNV-1a style over 32-bit words in four interleaved lanes (the multiply
 * chains run in parallel), checksum words counted as zero. It detects
 * damage, not forgery: trust comes from the file's owner and mode. */
uint64_t bnd_topocache_checksum(const uint32_t *w, size_t n)
{
	uint64_t h[4] = { 0xcbf29ce484222325u, 0x84222325cbf29ce4u, 1, 2 };
	for (size_t i = 0; i < n; i++) {
		uint32_t v = (i == H_SUM_LO || i == H_SUM_HI) ? 0 : w[i];
		h[i & 3] = (h[i & 3] ^ v) * 0x100000001b3u;
	}
	return (h[0] ^ (h[1] << 1) ^ (h[2] << 2) ^ (h[3] << 3)) * 0x100000001b3u + n;
}

static size_t payload_words(const int32_t *c)
{
	return (size_t)c[C_UNITS] * UNIT_WORDS + (size_t)c[C_CORES] * CORE_WORDS +
	       2 * (size_t)c[C_PUS] + 2 * (size_t)c[C_SOCKETS] + 3 * (size_t)c[C_NUMA] +
	       (size_t)c[C_NUMA] * (size_t)c[C_NUMA] + EXTRA_WORDS + (size_t)c[C_GPUS] * GPU_WORDS;
}

static void put_str(uint32_t *w, size_t words, const char *s)
{
	char tmp[256] = "";
	snprintf(tmp, sizeof(tmp) < words * 4 ? sizeof(tmp) : words * 4, "%s", s);
	memcpy(w, tmp, words * 4);
}

static void get_str(char *dst, size_t len, const uint32_t *w, size_t words)
{
	size_t n = words * 4 < len ? words * 4 : len;
	memcpy(dst, w, n);
	dst[n - 1] = '\0';
}

static uint32_t *put_gpu(uint32_t *p, const struct bnd_gpu *g)
{
	put_str(p, GPU_BUSID_WORDS, g->busid);
	p += GPU_BUSID_WORDS;
	put_str(p, GPU_NAMES_WORDS, g->names);
	p += GPU_NAMES_WORDS;
	int32_t f[7] = { g->vendor, g->device, g->pci_class, g->compute, g->core_first,
			 g->core_count, g->mem_numa };
	memcpy(p, f, sizeof(f));
	return p + 7;
}

/* Strings come back terminated; values out of range fail validation. */
static const uint32_t *get_gpu(const uint32_t *p, struct bnd_gpu *g)
{
	get_str(g->busid, sizeof(g->busid), p, GPU_BUSID_WORDS);
	p += GPU_BUSID_WORDS;
	get_str(g->names, sizeof(g->names), p, GPU_NAMES_WORDS);
	p += GPU_NAMES_WORDS;
	int32_t f[7];
	memcpy(f, p, sizeof(f));
	g->vendor = f[0];
	g->device = f[1];
	g->pci_class = f[2];
	g->compute = f[3];
	g->core_first = f[4];
	g->core_count = f[5];
	g->mem_numa = f[6];
	return p + 7;
}

static uint32_t *serialize(const struct bnd_topology *t, const char *boot, size_t *nwords)
{
	int32_t c[C_COUNT] = { t->nunits, t->nsockets, t->ncores, t->npus,
			       t->nnuma, t->nl3, t->nl2, t->has_kinds, t->ngpus };
	size_t n = H_WORDS + payload_words(c);
	uint32_t *w = calloc(n, sizeof(*w));
	if (!w)
		return NULL;
	w[H_MAGIC0] = MAGIC0;
	w[H_MAGIC1] = MAGIC1;
	w[H_VERSION] = BND_TOPOCACHE_VERSION;
	w[H_ENDIAN] = ENDIAN;
	put_str(w + H_BOOT, CACHE_BOOT_WORDS, boot);
	put_str(w + H_SOURCE, 256 / 4, t->source);
	memcpy(w + H_COUNTS, c, sizeof(c));
	w[H_PAYLOAD] = (uint32_t)(n - H_WORDS);
	uint32_t *p = w + H_WORDS;
	for (int i = 0; i < t->nunits; i++) {
		const struct bnd_unit *u = &t->units[i];
		int32_t f[UNIT_WORDS] = { u->type, u->kind, u->parent, u->depth, u->nchildren,
					  u->first_child, u->next_sibling, u->index, u->os_index,
					  u->pu_first, u->pu_count, u->core_first, u->core_count };
		memcpy(p, f, sizeof(f));
		p += UNIT_WORDS;
	}
	for (int i = 0; i < t->ncores; i++) {
		const struct bnd_core *k = &t->cores[i];
		int32_t f[CORE_WORDS] = { k->socket, k->core, k->kind, k->unit, k->pu_first,
					  k->npus, k->numa, k->l3, k->l2 };
		memcpy(p, f, sizeof(f));
		p += CORE_WORDS;
	}
#define PUT(arr, cnt) do { memcpy(p, (arr), (size_t)(cnt) * 4); p += (cnt); } while (0)
	PUT(t->pu_os, t->npus);
	PUT(t->pu_core, t->npus);
	PUT(t->socket_first_core, t->nsockets);
	PUT(t->socket_ncores, t->nsockets);
	if (t->nnuma) {
		PUT(t->numa_os, t->nnuma);
		for (int i = 0; i < t->nnuma; i++) {
			*p++ = (uint32_t)t->numa_mem[i];
			*p++ = (uint32_t)(t->numa_mem[i] >> 32);
		}
		PUT(t->numa_dist, t->nnuma * t->nnuma);
	}
#undef PUT
	*p++ = (uint32_t)t->has_dist;
	for (int i = 0; i < 4; i++) {
		*p++ = (uint32_t)t->cache_size[i];
		*p++ = (uint32_t)(t->cache_size[i] >> 32);
	}
	for (int i = 0; i < t->ngpus; i++)
		p = put_gpu(p, &t->gpus[i]);
	uint64_t h = bnd_topocache_checksum(w, n);
	w[H_SUM_LO] = (uint32_t)h;
	w[H_SUM_HI] = (uint32_t)(h >> 32);
	*nwords = n;
	return w;
}

/* The directory part of path, opened for the *_at calls; *base points at
 * the file name inside path. */
static int open_parent(const char *path, const char **base, int *dfd, char *err,
		       size_t errlen)
{
	const char *slash = strrchr(path, '/');
	*base = slash ? slash + 1 : path;
	char dir[4096];
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return bnd_fail(err, errlen, BND_EINVAL, "topology cache %s: path too long", path);
	*dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dfd < 0)
		return bnd_fail(err, errlen, BND_ESYS, "topology cache %s: %s", path, strerror(errno));
	return BND_OK;
}

static int boot_or_this(const char **boot_id, char *boot, size_t len, char *err, size_t errlen)
{
	if (*boot_id)
		return BND_OK;
	int rc = bnd_proc_boot_id(boot, len, err, errlen);
	*boot_id = boot;
	return rc;
}

int bnd_topocache_write_at(const struct bnd_topology *t, int dirfd, const char *name,
			   const char *boot_id, char *err, size_t errlen)
{
	char boot[BND_BOOT_ID_LEN];
	int rc = boot_or_this(&boot_id, boot, sizeof(boot), err, errlen);
	if (rc != BND_OK)
		return rc;
	size_t n;
	uint32_t *w = serialize(t, boot_id, &n);
	if (!w)
		return bnd_fail(err, errlen, BND_ENOMEM, "topology cache: out of memory");
	char why[BND_ERRLEN];
	rc = bnd_safefile_replace(dirfd, name, (const char *)w, n * sizeof(*w), why, sizeof(why));
	free(w);
	if (rc != BND_OK)
		return bnd_fail(err, errlen, rc, "topology cache: %s", why);
	return BND_OK;
}

static int check_header(const uint32_t *w, size_t n, const char *path, const char *boot,
			char *err, size_t errlen)
{
	if (w[H_MAGIC0] != MAGIC0 || w[H_MAGIC1] != MAGIC1 || w[H_ENDIAN] != ENDIAN)
		return bnd_fail(err, errlen, BND_ESTATE, "topology cache %s: not a topology cache",
				path);
	if (w[H_VERSION] != BND_TOPOCACHE_VERSION)
		return bnd_fail(err, errlen, BND_ESTATE,
				"topology cache %s: format version %u, expected %d", path,
				w[H_VERSION], BND_TOPOCACHE_VERSION);
	char file_boot[BND_BOOT_ID_LEN];
	get_str(file_boot, sizeof(file_boot), w + H_BOOT, CACHE_BOOT_WORDS);
	if (strcmp(file_boot, boot))
		return bnd_fail(err, errlen, BND_ESTATE,
				"topology cache %s: written in boot %s, this is boot %s", path,
				file_boot, boot);
	int32_t c[C_COUNT];
	memcpy(c, w + H_COUNTS, sizeof(c));
	for (int i = 0; i < C_COUNT; i++)
		if (c[i] < 0 || c[i] > MAX_ITEMS)
			return bnd_fail(err, errlen, BND_ESTATE, "topology cache %s: bad counts", path);
	if (w[H_PAYLOAD] != n - H_WORDS || payload_words(c) != n - H_WORDS)
		return bnd_fail(err, errlen, BND_ESTATE,
				"topology cache %s: truncated or extended (%zu payload words, expected %zu)",
				path, n - H_WORDS, payload_words(c));
	uint64_t h = bnd_topocache_checksum(w, n);
	if (w[H_SUM_LO] != (uint32_t)h || w[H_SUM_HI] != (uint32_t)(h >> 32))
		return bnd_fail(err, errlen, BND_ESTATE, "topology cache %s: checksum mismatch",
				path);
	return BND_OK;
}

static int *take_ints(const uint32_t **p, int n)
{
	int *a = malloc((size_t)(n ? n : 1) * sizeof(int));
	if (a && n)
		memcpy(a, *p, (size_t)n * 4);
	*p += n;
	return a;
}

/* Out-of-range types and kinds fail validation, not the cast. */
static uint8_t byte_or_bad(int32_t v)
{
	return (uint8_t)(v < 0 || v > 255 ? 255 : v);
}

static const uint32_t *get_unit(const uint32_t *p, struct bnd_unit *u)
{
	int32_t f[UNIT_WORDS];
	memcpy(f, p, sizeof(f));
	u->type = byte_or_bad(f[0]);
	u->kind = byte_or_bad(f[1]);
	u->parent = f[2];
	u->depth = f[3];
	u->nchildren = f[4];
	u->first_child = f[5];
	u->next_sibling = f[6];
	u->index = f[7];
	u->os_index = f[8];
	u->pu_first = f[9];
	u->pu_count = f[10];
	u->core_first = f[11];
	u->core_count = f[12];
	return p + UNIT_WORDS;
}

static const uint32_t *get_core(const uint32_t *p, struct bnd_core *k)
{
	int32_t f[CORE_WORDS];
	memcpy(f, p, sizeof(f));
	k->socket = f[0];
	k->core = f[1];
	k->kind = byte_or_bad(f[2]);
	k->unit = f[3];
	k->pu_first = f[4];
	k->npus = f[5];
	k->numa = f[6];
	k->l3 = f[7];
	k->l2 = f[8];
	return p + CORE_WORDS;
}

static void get_counts(struct bnd_topology *t, const uint32_t *w)
{
	int32_t c[C_COUNT];
	memcpy(c, w + H_COUNTS, sizeof(c));
	t->nunits = c[C_UNITS];
	t->nsockets = c[C_SOCKETS];
	t->ncores = c[C_CORES];
	t->npus = c[C_PUS];
	t->nnuma = c[C_NUMA];
	t->nl3 = c[C_L3];
	t->nl2 = c[C_L2];
	t->has_kinds = c[C_KINDS] != 0;
	t->ngpus = c[C_GPUS];
}

/* The arrays after units and cores; NULL members mean out of memory. */
static const uint32_t *get_arrays(struct bnd_topology *t, const uint32_t *p)
{
	t->pu_os = take_ints(&p, t->npus);
	t->pu_core = take_ints(&p, t->npus);
	t->socket_first_core = take_ints(&p, t->nsockets);
	t->socket_ncores = take_ints(&p, t->nsockets);
	t->numa_os = take_ints(&p, t->nnuma);
	t->numa_mem = calloc((size_t)(t->nnuma ? t->nnuma : 1), sizeof(*t->numa_mem));
	for (int i = 0; t->numa_mem && i < t->nnuma; i++, p += 2)
		t->numa_mem[i] = (uint64_t)p[0] | (uint64_t)p[1] << 32;
	t->numa_dist = take_ints(&p, t->nnuma * t->nnuma);
	/* Out-of-range values fail validation. */
	t->has_dist = (int)*p++;
	for (int i = 0; i < 4; i++, p += 2)
		t->cache_size[i] = (uint64_t)p[0] | (uint64_t)p[1] << 32;
	return p;
}

static struct bnd_topology *deserialize(const uint32_t *w)
{
	struct bnd_topology *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	get_counts(t, w);
	get_str(t->source, sizeof(t->source), w + H_SOURCE, 256 / 4);
	t->units = calloc((size_t)(t->nunits ? t->nunits : 1), sizeof(*t->units));
	t->cores = calloc((size_t)(t->ncores ? t->ncores : 1), sizeof(*t->cores));
	if (!t->units || !t->cores) {
		bnd_topology_free(t);
		return NULL;
	}
	const uint32_t *p = w + H_WORDS;
	for (int i = 0; i < t->nunits; i++)
		p = get_unit(p, &t->units[i]);
	for (int i = 0; i < t->ncores; i++)
		p = get_core(p, &t->cores[i]);
	p = get_arrays(t, p);
	if (t->ngpus && !(t->gpus = calloc((size_t)t->ngpus, sizeof(*t->gpus)))) {
		bnd_topology_free(t);
		return NULL;
	}
	for (int i = 0; i < t->ngpus; i++)
		p = get_gpu(p, &t->gpus[i]);
	if (!t->pu_os || !t->pu_core || !t->socket_first_core || !t->socket_ncores ||
	    !t->numa_os || !t->numa_mem || !t->numa_dist) {
		bnd_topology_free(t);
		return NULL;
	}
	return t;
}

static int read_at(struct bnd_topology **out, int dirfd, const char *name,
		   const char *boot_id, char *err, size_t errlen)
{
	*out = NULL;
	char boot[BND_BOOT_ID_LEN];
	int rc = boot_or_this(&boot_id, boot, sizeof(boot), err, errlen);
	if (rc != BND_OK)
		return rc;
	char *text = NULL;
	size_t len = 0;
	char label[BND_SAFEFILE_NAME_MAX + 20];
	snprintf(label, sizeof(label), "topology cache %s", name);
	rc = bnd_safefile_read(dirfd, name, label, (H_WORDS + 64 * (size_t)MAX_ITEMS) * 4, &text,
			       &len, err, errlen);
	if (rc != BND_OK)
		return rc;
	if (!text)
		return bnd_fail(err, errlen, BND_ESYS, "%s: %s", label, strerror(ENOENT));
	const uint32_t *w = (const uint32_t *)(void *)text;
	size_t n = len / 4;
	if (len < H_WORDS * 4 || len % 4)
		rc = bnd_fail(err, errlen, BND_ESTATE, "%s: truncated (%zu bytes)", label, len);
	else
		rc = check_header(w, n, name, boot_id, err, errlen);
	struct bnd_topology *t = NULL;
	if (rc == BND_OK) {
		t = deserialize(w);
		if (!t)
			rc = bnd_fail(err, errlen, BND_ENOMEM, "topology cache: out of memory");
	}
	free(text);
	if (rc == BND_OK) {
		char why[BND_ERRLEN];
		if (bnd_topology_validate(t, why, sizeof(why)) != BND_OK)
			rc = bnd_fail(err, errlen, BND_ESTATE, "%s: %s", label, why);
		else if (bnd_topology_fill_cpusets(t) != BND_OK)
			rc = bnd_fail(err, errlen, BND_ENOMEM, "topology cache: out of memory");
	}
	if (rc != BND_OK) {
		bnd_topology_free(t);
		return rc;
	}
	*out = t;
	return BND_OK;
}

int bnd_topocache_read(struct bnd_topology **out, const char *path,
		       const char *boot_id, char *err, size_t errlen)
{
	*out = NULL;
	const char *base;
	int dfd;
	int rc = open_parent(path, &base, &dfd, err, errlen);
	if (rc != BND_OK)
		return rc;
	rc = read_at(out, dfd, base, boot_id, err, errlen);
	close(dfd);
	return rc;
}

int bnd_topocache_read_at(struct bnd_topology **out, int dirfd, char *err, size_t errlen)
{
	return read_at(out, dirfd, BND_TOPOCACHE_FILE, NULL, err, errlen);
}

/* A cache read for `source` (topocache.h): NULL takes any; else it must
 * have been loaded from the same source, so a site's topology= and
 * discovery never stand in for each other. */
static int cache_of_source(struct bnd_topology *t, const char *source, char *why, size_t len)
{
	const char *want = source && *source ? source : "this machine";
	if (!source || !strcmp(t->source, want))
		return BND_OK;
	return bnd_fail(why, len, BND_ESTATE, "it holds the topology of %s, not of %s", t->source,
			want);
}

int bnd_topocache_load_source(struct bnd_topology **out, const char *dir, const char *source,
			      char *note, size_t notelen, char *err, size_t errlen)
{
	*out = NULL;
	if (note && notelen)
		note[0] = '\0';
	const char *load = source && *source ? source : NULL;
	if (!dir || !*dir) {
		if (note)
			snprintf(note, notelen, "no cache directory");
		return bnd_topology_load(out, load, err, errlen);
	}
	char why[BND_ERRLEN] = "", boot[BND_BOOT_ID_LEN];
	int have_boot = bnd_proc_boot_id(boot, sizeof(boot), why, sizeof(why)) == BND_OK;
	/* The dir is trusted before anything in it is (util/safefile.h). */
	int dfd = -1;
	char dirwhy[BND_ERRLEN] = "";
	if (bnd_safedir_open(dir, 0, &dfd, dirwhy, sizeof(dirwhy)) == BND_OK && dfd < 0)
		snprintf(dirwhy, sizeof(dirwhy), "%s is missing", dir);
	if (dfd < 0 && have_boot)
		snprintf(why, sizeof(why), "%s", dirwhy);
	if (dfd >= 0 && have_boot &&
	    read_at(out, dfd, BND_TOPOCACHE_FILE, boot, why, sizeof(why)) == BND_OK) {
		if (cache_of_source(*out, source, why, sizeof(why)) == BND_OK) {
			close(dfd);
			if (note)
				snprintf(note, notelen, "cache hit: %s/%s", dir, BND_TOPOCACHE_FILE);
			return BND_OK;
		}
		bnd_topology_free(*out);
		*out = NULL;
	}
	int rc = bnd_topology_load(out, load, err, errlen);
	if (rc != BND_OK) {
		if (dfd >= 0)
			close(dfd);
		return rc;
	}
	char wrote[2 * BND_ERRLEN] = "rewritten", why2[BND_ERRLEN];
	if (!have_boot)
		snprintf(wrote, sizeof(wrote), "not written");
	else if (dfd < 0)
		snprintf(wrote, sizeof(wrote), "not written: %s", dirwhy);
	else if (bnd_topocache_write_at(*out, dfd, BND_TOPOCACHE_FILE, boot, why2, sizeof(why2)) !=
		 BND_OK)
		snprintf(wrote, sizeof(wrote), "not written: %s", why2);
	if (dfd >= 0)
		close(dfd);
	if (note)
		snprintf(note, notelen, "cache not used (%s); %s", why, wrote);
	return BND_OK;
}

int bnd_topocache_load_note(struct bnd_topology **out, const char *dir,
			    char *note, size_t notelen, char *err, size_t errlen)
{
	return bnd_topocache_load_source(out, dir, NULL, note, notelen, err, errlen);
}

int bnd_topocache_load(struct bnd_topology **out, const char *dir,
		       char *err, size_t errlen)
{
	return bnd_topocache_load_note(out, dir, NULL, 0, err, errlen);
}

int bnd_topocache_warmup(const char *dir, const char *source, char *err, size_t errlen)
{
	struct bnd_topology *t = NULL;
	int dfd = -1;
	int rc = bnd_safedir_open(dir, 1, &dfd, err, errlen);
	if (rc != BND_OK)
		return rc;
	if (dfd >= 0)
		close(dfd);
	rc = bnd_topocache_load_source(&t, dir, source ? source : "", NULL, 0, err, errlen);
	bnd_topology_free(t);
	return rc;
}
