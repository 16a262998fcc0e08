/* Topology cache: exact round trips (synthetic and every XML), refusal of
 * stale, foreign, corrupt, truncated and untrusted files with the reason,
 * robustness against every payload word altered behind a valid checksum,
 * and the load path on this machine with a real directory. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/topology/topocache.h"
#include "binding/topology/topology.h"
#include "binding/topology/topostring.h"
#include "testutil.h"
#include "testtopo.h"

/* File layout of lib/topology/topocache.c (32-bit words), for the corruption tests. */
#define W_VERSION 2
#define W_SUM_LO 90
#define W_SUM_HI 91
#define W_HEADER 92
#define W_HAS_KINDS 87

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/bnd-topocache-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static int entries(void)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void same(const struct bnd_topology *a, const struct bnd_topology *b)
{
	ck_assert_int_eq(a->nunits, b->nunits);
	ck_assert_int_eq(a->nsockets, b->nsockets);
	ck_assert_int_eq(a->ncores, b->ncores);
	ck_assert_int_eq(a->npus, b->npus);
	ck_assert_int_eq(a->nnuma, b->nnuma);
	ck_assert_int_eq(a->nl3, b->nl3);
	ck_assert_int_eq(a->nl2, b->nl2);
	ck_assert_int_eq(a->has_kinds, b->has_kinds);
	ck_assert_str_eq(a->source, b->source);
	for (int i = 0; i < a->nunits; i++) {
		const struct bnd_unit *x = &a->units[i], *y = &b->units[i];
		ck_assert(x->type == y->type && x->kind == y->kind && x->parent == y->parent &&
			  x->depth == y->depth && x->nchildren == y->nchildren &&
			  x->first_child == y->first_child && x->next_sibling == y->next_sibling &&
			  x->index == y->index && x->os_index == y->os_index &&
			  x->pu_first == y->pu_first && x->pu_count == y->pu_count &&
			  x->core_first == y->core_first && x->core_count == y->core_count);
	}
	for (int i = 0; i < a->ncores; i++) {
		const struct bnd_core *x = &a->cores[i], *y = &b->cores[i];
		ck_assert(x->socket == y->socket && x->core == y->core && x->kind == y->kind &&
			  x->unit == y->unit && x->pu_first == y->pu_first && x->npus == y->npus &&
			  x->numa == y->numa && x->l3 == y->l3 && x->l2 == y->l2);
	}
	size_t pu = sizeof(int) * (size_t)a->npus, so = sizeof(int) * (size_t)a->nsockets;
	ck_assert_int_eq(memcmp(a->pu_os, b->pu_os, pu), 0);
	ck_assert_int_eq(memcmp(a->pu_core, b->pu_core, pu), 0);
	ck_assert_int_eq(memcmp(a->socket_first_core, b->socket_first_core, so), 0);
	ck_assert_int_eq(memcmp(a->socket_ncores, b->socket_ncores, so), 0);
	for (int i = 0; i < a->nnuma; i++) {
		ck_assert_int_eq(a->numa_os[i], b->numa_os[i]);
		ck_assert(bnd_cpuset_equal(&a->numa_cpus[i], &b->numa_cpus[i]));
		ck_assert(a->numa_mem[i] == b->numa_mem[i]);
		for (int j = 0; j < a->nnuma; j++)
			ck_assert_int_eq(a->numa_dist[i * a->nnuma + j], b->numa_dist[i * b->nnuma + j]);
	}
	ck_assert_int_eq(a->has_dist, b->has_dist);
	for (int i = 0; i < 4; i++)
		ck_assert(a->cache_size[i] == b->cache_size[i]);
	ck_assert(bnd_cpuset_equal(&a->all_cpus, &b->all_cpus));
	ck_assert_int_eq(a->ngpus, b->ngpus);
	for (int i = 0; i < a->ngpus; i++) {
		const struct bnd_gpu *x = &a->gpus[i], *y = &b->gpus[i];
		ck_assert_str_eq(x->busid, y->busid);
		ck_assert_str_eq(x->names, y->names);
		ck_assert(x->vendor == y->vendor && x->device == y->device &&
			  x->pci_class == y->pci_class && x->compute == y->compute &&
			  x->core_first == y->core_first && x->core_count == y->core_count &&
			  x->mem_numa == y->mem_numa);
		ck_assert(bnd_cpuset_equal(&a->gpu_cpus[i], &b->gpu_cpus[i]));
		ck_assert(bnd_nodeset_equal(&a->gpu_numa[i], &b->gpu_numa[i]));
	}
}

static void round_trip(const char *src, const char *path)
{
	struct bnd_topology *t = tu_topo(src), *r = NULL;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(tu_cache_write(t, path, "test-boot", err, sizeof(err)) == BND_OK,
		      "%s: %s", src, err);
	ck_assert_msg(bnd_topocache_read(&r, path, "test-boot", err, sizeof(err)) == BND_OK,
		      "%s: %s", src, err);
	same(t, r);
	bnd_topology_free(t);
	bnd_topology_free(r);
}

START_TEST(round_trip_synthetic)
{
	make_dir();
	char path[128];
	snprintf(path, sizeof(path), "%s/c", dir);
	const char *srcs[] = { "pack:2 core:2", "pack:2 numa:2 core:4 pu:2",
			       "pack:2 l3:2 l2:2 core:2 pu:2", "core:5 pu:3", NULL };
	for (int i = 0; srcs[i]; i++)
		round_trip(srcs[i], path);
	/* Mode 0644 whatever the umask, and no temporary file left. */
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(entries(), 1);
	remove_dir();
}
END_TEST

START_TEST(round_trip_every_xml)
{
	char **xmls = tu_topology_xmls();
	if (!xmls)
		return;
	make_dir();
	char path[128];
	snprintf(path, sizeof(path), "%s/c", dir);
	int n = 0;
	for (char **p = xmls; *p; p++, n++)
		round_trip(*p, path);
	ck_assert_int_ge(n, 1);
	tu_free_list(xmls);
	remove_dir();
}
END_TEST

static uint32_t *slurp(const char *path, size_t *nwords)
{
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	uint32_t *w = malloc((size_t)st.st_size);
	FILE *fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fread(w, 1, (size_t)st.st_size, fp), (size_t)st.st_size);
	fclose(fp);
	*nwords = (size_t)st.st_size / 4;
	return w;
}

static void spit(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* Same size, rewritten in place: truncating a file on ext4 waits for
 * writeback, which thousands of fuzz rounds cannot afford. */
static void overwrite(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, buf, len, 0), (ssize_t)len);
	close(fd);
}

/* The checksum of lib/topology/topocache.c, recomputed after tampering. */
static void fix_sum(uint32_t *w, size_t n)
{
	uint64_t h[4] = { 0xcbf29ce484222325u, 0x84222325cbf29ce4u, 1, 2 };
	for (size_t i = 0; i < n; i++) {
		uint32_t v = (i == W_SUM_LO || i == W_SUM_HI) ? 0 : w[i];
		h[i & 3] = (h[i & 3] ^ v) * 0x100000001b3u;
	}
	uint64_t x = (h[0] ^ (h[1] << 1) ^ (h[2] << 2) ^ (h[3] << 3)) * 0x100000001b3u + n;
	w[W_SUM_LO] = (uint32_t)x;
	w[W_SUM_HI] = (uint32_t)(x >> 32);
}

static void refused(const char *path, const char *boot, const char *why)
{
	struct bnd_topology *t = (struct bnd_topology *)1;
	char err[BND_ERRLEN] = "";
	int rc = bnd_topocache_read(&t, path, boot, err, sizeof(err));
	ck_assert_msg(rc == BND_ESTATE, "rc %d (%s), expected refusal for %s", rc, err, why);
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, why) != NULL, "\"%s\" does not say \"%s\"", err, why);
}

START_TEST(refusals)
{
	make_dir();
	char path[128], other[128];
	snprintf(path, sizeof(path), "%s/c", dir);
	snprintf(other, sizeof(other), "%s/d", dir);
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:2 pu:2");
	char err[BND_ERRLEN];
	ck_assert_int_eq(tu_cache_write(t, path, "boot-a", err, sizeof(err)), BND_OK);
	refused(path, "boot-b", "boot boot-a, this is boot boot-b");

	size_t n;
	uint32_t *good = slurp(path, &n);
	uint32_t *w = malloc(n * 4);

	memcpy(w, good, n * 4);
	w[W_VERSION] = 99;
	spit(path, w, n * 4);
	refused(path, "boot-a", "format version 99");

	memcpy(w, good, n * 4);
	w[n - 3] ^= 0x100;
	spit(path, w, n * 4);
	refused(path, "boot-a", "checksum mismatch");

	memcpy(w, good, n * 4);
	w[0] = 0x12345678;
	spit(path, w, n * 4);
	refused(path, "boot-a", "not a topology cache");

	/* Truncated anywhere: header, payload, or by a partial word. */
	size_t cuts[] = { 0, 3, 40, W_HEADER * 4, W_HEADER * 4 + 8, n * 4 - 4, n * 4 - 1 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		spit(path, good, cuts[i]);
		refused(path, "boot-a", "truncated");
	}
	/* Grown by a word. */
	memcpy(w, good, n * 4);
	uint32_t *big = calloc(n + 1, 4);
	memcpy(big, good, n * 4);
	spit(path, big, (n + 1) * 4);
	refused(path, "boot-a", "truncated");
	free(big);

	/* Untrusted mode, a directory, a symlink. */
	spit(path, good, n * 4);
	ck_assert_int_eq(chmod(path, 0666), 0);
	refused(path, "boot-a", "refused: writable by group or others");
	ck_assert_int_eq(chmod(path, 0644), 0);
	struct bnd_topology *r = NULL;
	ck_assert_int_eq(bnd_topocache_read(&r, path, "boot-a", err, sizeof(err)), BND_OK);
	same(t, r);
	bnd_topology_free(r);

	ck_assert_int_eq(mkdir(other, 0755), 0);
	refused(other, "boot-a", "not a regular file");
	ck_assert_int_eq(rmdir(other), 0);

	ck_assert_int_eq(symlink(path, other), 0);
	refused(other, "boot-a", "symlink");
	/* Writing over the link replaces the link, not the file it names. */
	struct bnd_topology *small = tu_topo("pack:1 core:1");
	ck_assert_int_eq(tu_cache_write(small, other, "boot-a", err, sizeof(err)), BND_OK);
	struct stat st;
	ck_assert_int_eq(lstat(other, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(bnd_topocache_read(&r, path, "boot-a", err, sizeof(err)), BND_OK);
	same(t, r);
	bnd_topology_free(r);
	ck_assert_int_eq(bnd_topocache_read(&r, other, "boot-a", err, sizeof(err)), BND_OK);
	same(small, r);
	bnd_topology_free(r);
	bnd_topology_free(small);

	/* Missing file: a system error, not a refusal. */
	unlink(other);
	ck_assert_int_eq(bnd_topocache_read(&r, other, "boot-a", err, sizeof(err)), BND_ESYS);
	ck_assert_ptr_null(r);

	free(w);
	free(good);
	bnd_topology_free(t);
	remove_dir();
}
END_TEST

/* Every payload word replaced by hostile values behind a valid checksum:
 * the reader refuses or returns a topology that validates and formats
 * (under ASan this also proves no read goes out of bounds). */
START_TEST(fuzz_payload)
{
	make_dir();
	char path[128];
	snprintf(path, sizeof(path), "%s/c", dir);
	struct bnd_topology *t = tu_topo("pack:2 numa:2 l3:1 core:2 pu:2");
	char err[BND_ERRLEN];
	ck_assert_int_eq(tu_cache_write(t, path, "b", err, sizeof(err)), BND_OK);
	size_t n;
	uint32_t *good = slurp(path, &n);
	uint32_t *w = malloc(n * 4);
	const uint32_t vals[] = { 0, 1, 2, 0xffffffffu, 0x7fffffffu, 0x80000000u, 4096, 7 };
	/* NUMA sizes (2 words each), the distance matrix, has_dist, 4 cache sizes. */
	size_t tail = 2 * (size_t)t->nnuma + (size_t)t->nnuma * (size_t)t->nnuma + 9;
	int refused_n = 0, accepted = 0;
	for (size_t i = 80; i < n; i++) {
		if (i == W_SUM_LO || i == W_SUM_HI)
			continue;
		for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
			if (good[i] == vals[v])
				continue;
			memcpy(w, good, n * 4);
			w[i] = vals[v];
			fix_sum(w, n);
			overwrite(path, w, n * 4);
			struct bnd_topology *r = NULL;
			int rc = bnd_topocache_read(&r, path, "b", err, sizeof(err));
			if (rc != BND_OK) {
				ck_assert_int_eq(rc, BND_ESTATE);
				ck_assert_ptr_null(r);
				refused_n++;
				continue;
			}
			/* Only the has_kinds flag (read as a bool) and the trailing
			 * measurements (NUMA sizes, distances while has_dist is 0,
			 * cache sizes) may take any value: every other word is tied
			 * to the rest by an invariant. */
			ck_assert_msg(i == W_HAS_KINDS || i >= n - tail, "word %zu = %u accepted",
				      i, vals[v]);
			accepted += i == W_HAS_KINDS;
			ck_assert_int_eq(bnd_topology_validate(r, err, sizeof(err)), BND_OK);
			char s[256];
			ck_assert_int_eq(bnd_topostring_format(r, BND_TOPO_OCS, &r->all_cpus, s,
							       sizeof(s)), BND_OK);
			bnd_topology_free(r);
		}
	}
	ck_assert_int_gt(refused_n, 1000);
	ck_assert_int_le(accepted, 8);
	free(w);
	free(good);
	bnd_topology_free(t);
	remove_dir();
}
END_TEST


static struct bnd_topology *load(const char *d, char *note, size_t len)
{
	struct bnd_topology *t = NULL;
	char err[BND_ERRLEN] = "";
	int rc = bnd_topocache_load_note(&t, d, note, len, err, sizeof(err));
	ck_assert_msg(rc == BND_OK && t, "%s", err);
	return t;
}

START_TEST(load_this_machine)
{
	make_dir();
	char note[1024], path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, BND_TOPOCACHE_FILE);
	struct bnd_topology *hw = tu_topo(NULL);

	struct bnd_topology *t = load(dir, note, sizeof(note));
	ck_assert_msg(strstr(note, "cache not used") && strstr(note, "No such file") &&
		      strstr(note, "rewritten"), "%s", note);
	same(hw, t);
	bnd_topology_free(t);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(entries(), 1);

	t = load(dir, note, sizeof(note));
	ck_assert_msg(strncmp(note, "cache hit", 9) == 0, "%s", note);
	same(hw, t);
	bnd_topology_free(t);

	/* The plain entry point takes the same path. */
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_topocache_load(&t, dir, err, sizeof(err)), BND_OK);
	same(hw, t);
	bnd_topology_free(t);

	/* Corrupt: rediscovered, rewritten, then a hit again. */
	size_t n;
	uint32_t *w = slurp(path, &n);
	w[n - 1] ^= 1;
	spit(path, w, n * 4);
	free(w);
	t = load(dir, note, sizeof(note));
	ck_assert_msg(strstr(note, "checksum mismatch") && strstr(note, "rewritten"), "%s", note);
	same(hw, t);
	bnd_topology_free(t);
	t = load(dir, note, sizeof(note));
	ck_assert_msg(strncmp(note, "cache hit", 9) == 0, "%s", note);
	bnd_topology_free(t);

	/* A cache of the format before GPUs (version 2) is refused, named, and
	 * rebuilt in the current format; then it is a hit again. */
	w = slurp(path, &n);
	w[W_VERSION] = 2;
	fix_sum(w, n);
	spit(path, w, n * 4);
	free(w);
	t = load(dir, note, sizeof(note));
	ck_assert_msg(strstr(note, "format version 2, expected 3") && strstr(note, "rewritten"),
		      "%s", note);
	same(hw, t);
	bnd_topology_free(t);
	w = slurp(path, &n);
	ck_assert_uint_eq(w[W_VERSION], BND_TOPOCACHE_VERSION);
	free(w);
	t = load(dir, note, sizeof(note));
	ck_assert_msg(strncmp(note, "cache hit", 9) == 0, "%s", note);
	bnd_topology_free(t);

	/* Written in another boot: not used. */
	ck_assert_int_eq(tu_cache_write(hw, path, "00000000-0000-0000-0000-000000000000",
					     err, sizeof(err)), BND_OK);
	t = load(dir, note, sizeof(note));
	ck_assert_msg(strstr(note, "written in boot 00000000-") && strstr(note, "rewritten"),
		      "%s", note);
	bnd_topology_free(t);
	t = load(dir, note, sizeof(note));
	ck_assert_msg(strncmp(note, "cache hit", 9) == 0, "%s", note);
	bnd_topology_free(t);

	/* A cache of another topology for this boot is trusted as is: the
	 * file, not hwloc, is what a hit returns. */
	struct bnd_topology *other = tu_topo("pack:3 core:1");
	ck_assert_int_eq(tu_cache_write(other, path, NULL, err, sizeof(err)), BND_OK);
	t = load(dir, note, sizeof(note));
	same(other, t);
	bnd_topology_free(t);
	bnd_topology_free(other);
	remove_dir();

	/* No directory: discovery only. */
	t = load(NULL, note, sizeof(note));
	ck_assert_str_eq(note, "no cache directory");
	same(hw, t);
	bnd_topology_free(t);
	t = load("/nonexistent/bnd", note, sizeof(note));
	ck_assert_msg(strstr(note, "not written: /nonexistent/bnd is missing"), "%s", note);
	bnd_topology_free(t);

	/* A directory we may not write (meaningless for root). */
	if (geteuid() != 0) {
		make_dir();
		ck_assert_int_eq(chmod(dir, 0555), 0);
		t = load(dir, note, sizeof(note));
		ck_assert_msg(strstr(note, "not written") && strstr(note, "Permission denied"),
			      "%s", note);
		bnd_topology_free(t);
		chmod(dir, 0755);
		remove_dir();
	} else {
		/* As root, the same through an unprivileged child: a root-owned
		 * 0755 dir is one nobody may write. */
		make_dir();
		ck_assert_int_eq(chmod(dir, 0755), 0);
		pid_t c = fork();
		ck_assert_int_ge(c, 0);
		if (c == 0) {
			struct bnd_topology *u = NULL;
			char why[BND_ERRLEN] = "";
			if (setgid(65534) || setuid(65534))
				_exit(2);
			if (bnd_topocache_load_note(&u, dir, note, sizeof(note), why, sizeof(why)) || !u)
				_exit(3);
			bnd_topology_free(u);
			_exit(strstr(note, "not written") && strstr(note, "Permission denied") ? 0 : 4);
		}
		int status;
		ck_assert_int_eq(waitpid(c, &status, 0), c);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "unprivileged load into a root dir: status %#x", status);
		remove_dir();
	}
	bnd_topology_free(hw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topocache");
	TCase *tc = tcase_create("topocache");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, round_trip_synthetic);
	tcase_add_test(tc, round_trip_every_xml);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, fuzz_payload);
	tcase_add_test(tc, load_this_machine);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
