/* cpu lists: Cpus_allowed_list, cgroup cpuset files, Slurm's core lists,
 * the cpus= and tasks= fields of the state file.
 *
 * Properties: a list that parses formats (list and spaced forms) and parses
 * back to the same set; formatting into a buffer of any size never writes
 * past it and either fits or says BND_EINVAL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/cpuset.h"
#include "binding/util/error.h"
#include "fuzz.h"

/* "4095," per cpu at most. */
#define BIG (BND_MAX_CPUS * 6 + 1)

FUZZ_INITIALIZE_NOTHING

/* Formats into a heap buffer of exactly len bytes. */
static void format_small(const bnd_cpuset_t *s, const char *full, size_t len, int spaced)
{
	char *b = malloc(len ? len : 1);
	FUZZ_CHECK(b, "out of memory");
	int rc = spaced ? bnd_cpuset_format_spaced(s, b, len) : bnd_cpuset_format_list(s, b, len);
	if (strlen(full) < len)
		FUZZ_CHECK(rc == BND_OK && strcmp(b, full) == 0, "fits in %zu but gave rc %d", len,
			   rc);
	else
		FUZZ_CHECK(rc == BND_EINVAL, "\"%s\" does not fit in %zu, rc %d", full, len, rc);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char err[BND_ERRLEN] = "";
	bnd_cpuset_t s, t;
	int rc = bnd_cpuset_parse_list(&s, text, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL, "rc %d", rc);
	if (rc != BND_OK) {
		fuzz_check_err(err, sizeof(err), "bnd_cpuset_parse_list");
		free(text);
		return 0;
	}
	char *list = malloc(BIG), *spaced = malloc(BIG);
	FUZZ_CHECK(list && spaced, "out of memory");
	FUZZ_CHECK(bnd_cpuset_format_list(&s, list, BIG) == BND_OK, "format_list");
	FUZZ_CHECK(bnd_cpuset_format_spaced(&s, spaced, BIG) == BND_OK, "format_spaced");
	FUZZ_CHECK(bnd_cpuset_parse_list(&t, list, err, sizeof(err)) == BND_OK,
		   "own list \"%s\": %s", list, err);
	FUZZ_CHECK(bnd_cpuset_equal(&s, &t), "\"%s\" -> \"%s\" is another set", text, list);

	int n = 0;
	for (int c = bnd_cpuset_next(&s, -1); c >= 0; c = bnd_cpuset_next(&s, c)) {
		FUZZ_CHECK(bnd_cpuset_isset(&s, c), "next gave %d, not set", c);
		n++;
	}
	FUZZ_CHECK(n == bnd_cpuset_count(&s), "%d walked, count %d", n, bnd_cpuset_count(&s));

	size_t len = size ? data[0] % 48 : 0;
	format_small(&s, list, len, 0);
	format_small(&s, spaced, len, 1);
	free(list);
	free(spaced);
	free(text);
	return 0;
}
