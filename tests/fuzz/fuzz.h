/* Helpers shared by the libFuzzer targets. Header-only (static) so each
 * target is one file linked against the instrumented library.
 *
 * A target aborts (FUZZ_CHECK) when a property fails, not only when a
 * sanitizer fires: a round trip that loses data is a finding too.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topogpu.h"
#include "binding/topology/topology.h"
#include "binding/topology/topostring.h"
#include "../unit/testtopo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                   \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			abort();                                                \
		}                                                               \
	} while (0)

/* The input as a C string in a buffer of exactly size + 1 bytes, so an
 * over-read by one is caught by ASan. An embedded NUL ends the string
 * early, as it would in argv or the environment. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	FUZZ_CHECK(s, "out of memory");
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An error message must be set, terminated, and inside its buffer. */
static inline void fuzz_check_err(const char *err, size_t errlen, const char *what)
{
	FUZZ_CHECK(strnlen(err, errlen) < errlen, "%s: error message not terminated", what);
	FUZZ_CHECK(err[0], "%s: failed without a message", what);
}

static inline struct bnd_topology *fuzz_topology(const char *source)
{
	struct bnd_topology *t = NULL;
	char err[BND_ERRLEN] = "";
	FUZZ_CHECK(bnd_topology_load(&t, source, err, sizeof(err)) == BND_OK,
		   "loading %s: %s", source, err);
	return t;
}

/* Hybrid (C and E cores) real machine from $BINDING_TOPOLOGIES, or NULL:
 * synthetic descriptions cannot express core kinds. */
static inline struct bnd_topology *fuzz_hybrid_topology(void)
{
	const char *dir = getenv("BINDING_TOPOLOGIES");
	char path[4096];
	struct stat st;
	if (!dir || !*dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/Intel-Core-RaptorLake-1pa6co2t+2ca4co1t-hybrid.xml", dir);
	if (stat(path, &st) != 0)
		return NULL;
	return fuzz_topology(path);
}

/* run.sh asks each target for generated seeds with FUZZ_SEED_DIR set;
 * a target that has none just exits. Writes one seed file. */
static inline void fuzz_write_seed(const char *dir, const char *name, const void *data,
				   size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f, "cannot write seed %s", path);
	FUZZ_CHECK(fwrite(data, 1, len, f) == len && fclose(f) == 0, "writing seed %s", path);
}

static inline const char *fuzz_seed_dir(void)
{
	const char *d = getenv("FUZZ_SEED_DIR");
	return d && *d ? d : NULL;
}

/* The initializer of a target that sets nothing up and writes no seeds of
 * its own: a seed run (FUZZ_SEED_DIR) ends at once. */
#define FUZZ_INITIALIZE_NOTHING                                \
	int LLVMFuzzerInitialize(int *argc, char ***argv)      \
	{                                                      \
		(void)argc;                                    \
		(void)argv;                                    \
		if (fuzz_seed_dir())                           \
			exit(0);                               \
		return 0;                                      \
	}

/* Everything a job step or sbind does with a node's topology, on one that
 * loaded: strings round trip, lookups stay in range, placements stay on
 * the node. */
static inline void fuzz_use_topology(const struct bnd_topology *t)
{
	char err[BND_ERRLEN] = "";
	/* every form, OCS's without memory units too */
	static const enum bnd_topo_format fmts[] = { BND_TOPO_SGE, BND_TOPO_OCS, BND_TOPO_OCS_CPU };
	for (int f = 0; f < 3; f++) {
		enum bnd_topo_format fmt = fmts[f];
		size_t len = bnd_topostring_length(t, fmt) + 1;
		char *s = malloc(len);
		bnd_cpuset_t m;
		FUZZ_CHECK(s && bnd_topostring_format(t, fmt, &t->all_cpus, s, len) == BND_OK,
			   "format");
		FUZZ_CHECK(bnd_topostring_parse_mask(t, s, &m, err, sizeof(err)) == BND_OK,
			   "own string \"%s\": %s", s, err);
		FUZZ_CHECK(bnd_cpuset_equal(&m, &t->all_cpus), "all taken, read back differently");
		free(s);
	}
	for (int s = -1; s <= t->nsockets; s++)
		for (int c = -1; c <= t->ncores; c++) {
			int k = bnd_topology_core_at(t, s, c);
			FUZZ_CHECK(k >= -1 && k < t->ncores, "core_at %d,%d = %d", s, c, k);
		}
	for (int u = 0; u < t->nunits; u++) {
		bnd_cpuset_t m;
		tu_unit_cpus(t, u, &m);
		FUZZ_CHECK(bnd_cpuset_subset(&m, &t->all_cpus), "unit %d cpus", u);
	}
	for (int p = 0; p < t->npus; p++) {
		int k = bnd_topology_core_of_cpu(t, t->pu_os[p]);
		FUZZ_CHECK(k == t->pu_core[p], "cpu %d in core %d, not %d", t->pu_os[p], k,
			   t->pu_core[p]);
	}
	bnd_nodeset_t nodes;
	bnd_topology_numa_of_cpus(t, &t->all_cpus, &nodes);
	static const char *const reqs[] = { "linear:1", "linear:2", "striding:1:2", "explicit:0,0",
					    "packed:1:unit=T:sort=nSc", "packed:1:unit=N",
					    "packed:1:unit=EY:type=node", "balance:1:level=socket",
					    "pack:2:level=thread", "any:3", "cpus:0-7" };
	struct bnd_request *r = malloc(sizeof(*r));
	FUZZ_CHECK(r, "out of memory");
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		struct bnd_domain dom = { NULL, NULL, NULL };
		struct bnd_placement pl;
		FUZZ_CHECK(bnd_request_parse(r, reqs[i], err, sizeof(err)) == BND_OK, "%s", err);
		int rc = bnd_place(t, &dom, r, 2, &pl, err, sizeof(err));
		FUZZ_CHECK(rc == BND_OK || rc == BND_ENOFIT, "%s: rc %d: %s", reqs[i], rc, err);
		if (rc == BND_OK) {
			FUZZ_CHECK(bnd_cpuset_subset(&pl.all_cpus, &t->all_cpus), "%s: foreign cpus",
				   reqs[i]);
			bnd_placement_free(&pl);
		}
		bnd_request_clear(r);
	}
	/* Each GPU: found by its own bus id, and a step of two tasks next to
	 * it placed on the node's cpus only. */
	for (int g = 0; g < t->ngpus; g++) {
		char label[BND_GPU_LABEL_LEN];
		bnd_gpu_label(t, g, label, sizeof(label));
		FUZZ_CHECK(strnlen(label, sizeof(label)) < sizeof(label), "label");
		if (t->gpus[g].busid[0])
			FUZZ_CHECK(bnd_gpu_find(t, t->gpus[g].busid) >= 0, "GPU %d not found", g);
		uint64_t m[2] = { 1ull << g, 1ull << g };
		struct bnd_near near = { 2, m };
		struct bnd_domain dom = { NULL, NULL, &near };
		static const char *const greqs[] = { "gpu:1", "packed:1:near=gpu" };
		for (size_t i = 0; i < 2; i++) {
			struct bnd_placement pl;
			FUZZ_CHECK(bnd_request_parse(r, greqs[i], err, sizeof(err)) == BND_OK, "%s", err);
			int rc = bnd_place(t, &dom, r, 2, &pl, err, sizeof(err));
			FUZZ_CHECK(rc == BND_OK || rc == BND_ENOFIT, "%s: rc %d: %s", greqs[i], rc, err);
			if (rc == BND_OK) {
				FUZZ_CHECK(bnd_cpuset_subset(&pl.all_cpus, &t->all_cpus), "foreign cpus");
				bnd_placement_free(&pl);
			}
		}
	}
	free(r);
}

#endif
