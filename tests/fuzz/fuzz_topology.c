/* Topology sources (sbind --topology, test data) flattened by
 * bnd_topology_load: hwloc synthetic descriptions, and with
 * FUZZ_TOPOLOGY_XML=1 in the environment also hwloc XML exports.
 *
 * A synthetic description is skipped unless it has a ':' and no '/' (so it
 * never names a file here), no number is above 256 (see MAX_WIDTH) and its
 * numbers multiply to at most 4096 (hwloc
 * builds whatever size it is asked for). XML is off by default: hwloc
 * 2.9.0's own XML reader crashes on some malformed files (upstream fixes:
 * open-mpi/hwloc pull requests 783 and 787), which no code of ours can
 * prevent; the plugin never reads XML (discovery and the cache only), so
 * these are trusted files. An input starting with '<' is then written to a
 * temporary file and loaded as XML.
 *
 * Whatever hwloc accepts, the flattening must not crash, and a topology it
 * returns must validate, print and parse back as topology strings, survive
 * placement and round-trip through the cache. With FUZZ_VERBOSE set,
 * refusals are printed, to look for shapes hwloc accepts that the
 * flattening refuses.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topocache.h"
#include "binding/topology/topology.h"
#include "binding/topology/topostring.h"
#include "fuzz.h"

#define MAX_PUS 4096
/* hwloc's synthetic loading (hwloc__insert_object_by_cpuset) grows with
 * the square of a level's width: without sanitizers "core:4036" takes
 * 2.3 s, "pack:4 core:1024" 0.62 s, "pack:16 core:256" 0.17 s; under
 * ASan on a busy machine wider levels only find libFuzzer's timeout (a
 * 4036-wide one took 14 s). The plugin loads once per boot (slurmd warms
 * the cache), from discovery, which builds no such level. */
#define MAX_WIDTH 256

/* hwloc 2.9's XML import leaks the objects of a file it refuses; not ours
 * to fix, and LeakSanitizer would stop on it at every such input. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libhwloc.so\n";
}
/* Real XMLs up to this size become seeds. */
#define SEED_XML_MAX 12000

static char xml_path[64], cache_path[80];
static int fd = -1;

static void cleanup(void)
{
	if (fd >= 0) {
		unlink(xml_path);
		unlink(cache_path);
	}
}

static int xml_mode(void)
{
	const char *v = getenv("FUZZ_TOPOLOGY_XML");
	return v && !strcmp(v, "1");
}

static void write_seeds(const char *dir)
{
	static const char *const synth[] = {
		"pack:2 numa:2 l3:1 core:2 pu:2", "pack:1 l3:2 l2:2 l1:1 core:1 pu:2",
		"pack:2 group:1 l3:2 numa:1 core:2 pu:1", "core:4 pu:2", "pack:2 pu:3",
		"numa:2 pack:1 core:2", "pack:2 [numa] [numa] core:2 pu:2",
	};
	for (size_t i = 0; i < sizeof(synth) / sizeof(synth[0]); i++) {
		char name[32];
		snprintf(name, sizeof(name), "gen-synthetic-%zu", i);
		fuzz_write_seed(dir, name, synth[i], strlen(synth[i]));
	}
	const char *top = getenv("BINDING_TOPOLOGIES");
	DIR *d = top && *top && xml_mode() ? opendir(top) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[4096], *buf, name[300];
		if (n < 5 || strcmp(de->d_name + n - 4, ".xml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", top, de->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		buf = malloc(SEED_XML_MAX + 1);
		FUZZ_CHECK(buf, "out of memory");
		size_t len = fread(buf, 1, SEED_XML_MAX + 1, f);
		fclose(f);
		if (len && len <= SEED_XML_MAX) {
			snprintf(name, sizeof(name), "gen-%s", de->d_name);
			fuzz_write_seed(dir, name, buf, len);
		}
		free(buf);
	}
	if (d)
		closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_seed_dir()) {
		write_seeds(fuzz_seed_dir());
		exit(0);
	}
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) >= 32)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(xml_path, sizeof(xml_path), "%s/fuzz-topology-XXXXXX", tmp);
	fd = mkstemp(xml_path);
	FUZZ_CHECK(fd >= 0, "temporary file %s", xml_path);
	snprintf(cache_path, sizeof(cache_path), "%s.cache", xml_path);
	atexit(cleanup);
	/* hwloc loads its plugins (Debian: pci, gl, opencl, libxml) when the
	 * first topology of a process is made and unloads them with the last
	 * one: a topology that lives as long as the fuzzer keeps them loaded,
	 * so an input does not pay a dlopen of each (and a leak scan: the
	 * unbalanced allocations of a dlopen made libFuzzer run one). */
	static hwloc_topology_t keep_plugins;
	FUZZ_CHECK(hwloc_topology_init(&keep_plugins) == 0, "hwloc_topology_init");
	return 0;
}

/* The synthetic description's numbers, multiplied, stay small. */
static int small_enough(const char *s)
{
	unsigned long long prod = 1;
	for (const char *p = s; *p;) {
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		unsigned long long v = 0;
		while (*p >= '0' && *p <= '9' && v <= MAX_PUS)
			v = v * 10 + (unsigned)(*p++ - '0');
		while (*p >= '0' && *p <= '9')
			p++;
		if (v > MAX_WIDTH)
			return 0;
		if (v > 1)
			prod *= v;
		if (prod > MAX_PUS)
			return 0;
	}
	return 1;
}

static void use(const struct bnd_topology *t)
{
	char err[BND_ERRLEN] = "";
	FUZZ_CHECK(bnd_topology_validate(t, err, sizeof(err)) == BND_OK, "%s", err);
	fuzz_use_topology(t);
	struct bnd_topology *back = NULL;
	FUZZ_CHECK(tu_cache_write(t, cache_path, "fuzz", err, sizeof(err)) == BND_OK, "%s", err);
	FUZZ_CHECK(bnd_topocache_read(&back, cache_path, "fuzz", err, sizeof(err)) == BND_OK,
		   "cache of a loaded topology refused: %s", err);
	FUZZ_CHECK(back->nunits == t->nunits && back->ncores == t->ncores && back->npus == t->npus &&
		   !memcmp(back->units, t->units, (size_t)t->nunits * sizeof(*t->units)) &&
		   !memcmp(back->cores, t->cores, (size_t)t->ncores * sizeof(*t->cores)),
		   "cache round trip changed the topology");
	bnd_topology_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	const char *source = text;
	if (size && data[0] == '<') {
		if (!xml_mode()) {
			free(text);
			return 0;
		}
		FUZZ_CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size,
			   "writing %s", xml_path);
		source = xml_path;
	} else if (!strchr(text, ':') || strchr(text, '/') || !small_enough(text)) {
		free(text);
		return 0;
	}
	struct bnd_topology *t = NULL;
	char err[BND_ERRLEN] = "";
	int rc = bnd_topology_load(&t, source, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL || rc == BND_ESYS, "rc %d: %s", rc, err);
	if (rc == BND_OK) {
		use(t);
		bnd_topology_free(t);
	} else {
		fuzz_check_err(err, sizeof(err), "bnd_topology_load");
		if (getenv("FUZZ_VERBOSE"))
			fprintf(stderr, "REFUSED %s\n", err);
	}
	free(text);
	return 0;
}
