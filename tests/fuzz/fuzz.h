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

#include "binding/error.h"
#include "binding/topology.h"

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

#endif
