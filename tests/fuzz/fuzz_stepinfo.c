/* What Slurm hands a step in its environment: SLURM_TASKS_PER_NODE,
 * SLURM_NTASKS, SLURM_CPUS_PER_TASK, the step's host list, this node's
 * name and its allocated core list.
 *
 * The first input byte picks the node index (its value mod 16, so '0' to
 * '9' in text seeds) and, with bit 0x40 ('@' and letters), an 8-byte host
 * name buffer; the rest is the text. Properties: no crash or undefined behaviour for any
 * text and index, answers within their buffers, cores mapped to cpus the
 * node has.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/step/stepinfo.h"
#include "fuzz.h"

static struct bnd_topology *topo;

/* The node-th name of one walk (bnd_hostlist_each), as bnd_hostlist_nth
 * names it. */
struct nth_walk {
	int left;
	char name[1100];
	int found;
};

static int take(void *ctx, const char *name)
{
	struct nth_walk *w = ctx;
	if (w->left--)
		return 0;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->found = 1;
	return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_seed_dir())
		exit(0);
	topo = fuzz_topology("pack:2 core:4 pu:2");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	int node = data[0] % 16;
	char *text = fuzz_cstr(data + 1, size - 1);
	char err[BND_ERRLEN] = "";

	int count = -1;
	int rc = bnd_tasks_per_node_at(text, node, &count, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL, "tasks per node: rc %d", rc);
	if (rc == BND_OK)
		FUZZ_CHECK(count >= 0, "count %d", count);
	else
		fuzz_check_err(err, sizeof(err), "bnd_tasks_per_node_at");

	/* The same text as SLURM_TASKS_PER_NODE and as SLURM_NTASKS. */
	FUZZ_CHECK(bnd_batch_tasks(text, text) >= 1, "batch tasks below 1");
	FUZZ_CHECK(bnd_batch_tasks(NULL, text) >= 1, "batch tasks below 1");
	FUZZ_CHECK(bnd_batch_cpus_per_task(text) >= 1, "cpus per task below 1");

	/* A valid host name can go into a file line by line. */
	int valid = bnd_hostname_valid(text);
	FUZZ_CHECK(valid == 0 || valid == 1, "hostname_valid %d", valid);
	if (valid)
		for (const char *c = text; *c; c++)
			FUZZ_CHECK((unsigned char)*c > ' ' && *c != '=' && *c != 0x7f,
				   "host name \"%s\" has byte 0x%02x", text, (unsigned char)*c);

	size_t outlen = data[0] & 0x40 ? 8 : 256;
	char *out = malloc(outlen);
	FUZZ_CHECK(out, "out of memory");
	err[0] = '\0';
	rc = bnd_hostlist_nth(text, node, out, outlen, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL, "host list: rc %d", rc);
	if (rc == BND_OK)
		FUZZ_CHECK(strnlen(out, outlen) < outlen, "host name not terminated");
	else
		fuzz_check_err(err, sizeof(err), "bnd_hostlist_nth");
	/* One walk names the same entry (bounded: a list may name millions). */
	struct nth_walk wk = { .left = node };
	char big[256];
	int each = bnd_hostlist_each(text, 4096, take, &wk, NULL, 0);
	FUZZ_CHECK(each == BND_OK || each == BND_EINVAL, "host list walk: rc %d", each);
	if (wk.found) {
		FUZZ_CHECK(bnd_hostlist_nth(text, node, big, sizeof(big), NULL, 0) == BND_OK &&
			   !strncmp(big, wk.name, sizeof(big) - 1),
			   "entry %d: the walk says %s, nth disagrees", node, wk.name);
	}
	free(out);

	bnd_cpuset_t cpus;
	err[0] = '\0';
	rc = bnd_slurm_cores_to_cpus(topo, text, &cpus, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL, "core list: rc %d", rc);
	if (rc == BND_OK)
		FUZZ_CHECK(bnd_cpuset_subset(&cpus, &topo->all_cpus), "cpus beyond the node");
	else
		fuzz_check_err(err, sizeof(err), "bnd_slurm_cores_to_cpus");
	free(text);
	return 0;
}
