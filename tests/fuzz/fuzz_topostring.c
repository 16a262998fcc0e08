/* Topology strings (filter=, the mask of sbind place) parsed against fixed
 * topologies; the first input byte picks the topology ('0' to '4').
 *
 * Properties: a parsed mask holds only the topology's cpus; formatting it
 * in both forms and parsing that back gives the mask widened to whole cores
 * (a lower-case core letter means all its PUs), and a second round changes
 * nothing more.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/topology/topostring.h"
#include "fuzz.h"

#define NTOPO 5

static const char *const sources[NTOPO - 1] = {
	"pack:2 core:2 pu:2",
	"pack:2 numa:2 l3:1 core:2 pu:2",
	"pack:1 l3:2 l2:2 core:1 pu:3",
	"core:3 pu:1",
};
/* Slot NTOPO - 1 is the hybrid machine, or slot 0 again without it. */
static struct bnd_topology *topos[NTOPO];

static void write_seeds(const char *dir)
{
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int k = 0; k < NTOPO; k++)
		for (int n = 0; n < 4; n++) {
			const struct bnd_topology *t = topos[k];
			bnd_cpuset_t taken;
			bnd_cpuset_zero(&taken);
			for (int p = 0; p < t->npus; p++) {
				x = x * 6364136223846793005u + 1442695040888963407u;
				if (n && (x >> 33) % 3 == 0)
					bnd_cpuset_set(&taken, t->pu_os[p]);
			}
			enum bnd_topo_format fmt = n % 3 == 1 ? BND_TOPO_OCS
						   : n % 3 == 2 ? BND_TOPO_OCS_CPU : BND_TOPO_SGE;
			size_t len = bnd_topostring_length(t, fmt) + 1;
			char *buf = malloc(len + 1), name[32];
			FUZZ_CHECK(buf, "out of memory");
			buf[0] = (char)('0' + k);
			FUZZ_CHECK(bnd_topostring_format(t, fmt, &taken, buf + 1, len) == BND_OK,
				   "format");
			snprintf(name, sizeof(name), "gen-%d-%d", k, n);
			fuzz_write_seed(dir, name, buf, strlen(buf + 1) + 1);
			free(buf);
		}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	for (int k = 0; k < NTOPO - 1; k++)
		topos[k] = fuzz_topology(sources[k]);
	topos[NTOPO - 1] = fuzz_hybrid_topology();
	if (!topos[NTOPO - 1])
		topos[NTOPO - 1] = topos[0];
	if (fuzz_seed_dir()) {
		write_seeds(fuzz_seed_dir());
		exit(0);
	}
	return 0;
}

/* The mask with every core that has a taken PU taken whole. */
static void whole_cores(const struct bnd_topology *t, const bnd_cpuset_t *in, bnd_cpuset_t *out)
{
	bnd_cpuset_zero(out);
	for (int c = 0; c < t->ncores; c++) {
		bnd_cpuset_t core;
		bnd_topology_core_cpus(t, c, &core);
		if (bnd_cpuset_intersects(&core, in))
			bnd_cpuset_or(out, &core);
	}
}

static char *format(const struct bnd_topology *t, enum bnd_topo_format fmt,
		    const bnd_cpuset_t *taken)
{
	size_t len = bnd_topostring_length(t, fmt) + 1;
	char *buf = malloc(len);
	FUZZ_CHECK(buf, "out of memory");
	FUZZ_CHECK(bnd_topostring_format(t, fmt, taken, buf, len) == BND_OK, "format");
	FUZZ_CHECK(strlen(buf) == len - 1, "format gave %zu letters, length said %zu",
		   strlen(buf), len - 1);
	/* One byte short must be refused, not overrun. */
	char *small = malloc(len - 1 ? len - 1 : 1);
	FUZZ_CHECK(small, "out of memory");
	FUZZ_CHECK(bnd_topostring_format(t, fmt, taken, small, len - 1) == BND_EINVAL,
		   "format into a short buffer");
	free(small);
	return buf;
}

static void reparse(const struct bnd_topology *t, const char *s, bnd_cpuset_t *out)
{
	char err[BND_ERRLEN] = "";
	FUZZ_CHECK(bnd_topostring_parse_mask(t, s, out, err, sizeof(err)) == BND_OK,
		   "own output \"%s\" does not parse: %s", s, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	const struct bnd_topology *t = topos[(uint8_t)(data[0] - '0') % NTOPO];
	char *str = fuzz_cstr(data + 1, size - 1);
	char err[BND_ERRLEN] = "";
	bnd_cpuset_t taken;

	int rc = bnd_topostring_parse_mask(t, str, &taken, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL, "rc %d", rc);
	if (rc != BND_OK) {
		fuzz_check_err(err, sizeof(err), "bnd_topostring_parse_mask");
		free(str);
		return 0;
	}
	FUZZ_CHECK(bnd_cpuset_subset(&taken, &t->all_cpus), "mask beyond the topology");
	bnd_cpuset_t whole;
	whole_cores(t, &taken, &whole);
	/* every form, OCS's without memory units too */
	static const enum bnd_topo_format fmts[] = { BND_TOPO_SGE, BND_TOPO_OCS, BND_TOPO_OCS_CPU };
	for (int f = 0; f < 3; f++) {
		enum bnd_topo_format fmt = fmts[f];
		char *s1 = format(t, fmt, &taken);
		bnd_cpuset_t m2, m3;
		reparse(t, s1, &m2);
		FUZZ_CHECK(bnd_cpuset_equal(&m2, &whole), "\"%s\" -> \"%s\" is not the mask in "
			   "whole cores", str, s1);
		char *s2 = format(t, fmt, &m2);
		reparse(t, s2, &m3);
		FUZZ_CHECK(bnd_cpuset_equal(&m2, &m3), "second round changed the mask");
		char *s3 = format(t, fmt, &m3);
		FUZZ_CHECK(strcmp(s2, s3) == 0, "\"%s\" then \"%s\"", s2, s3);
		free(s1);
		free(s2);
		free(s3);
	}
	free(str);
	return 0;
}
