/* --binding and --mbind values straight from a user's command line.
 *
 * Every request that parses is also placed, empty and half taken, for one
 * to three tasks, on a small NUMA topology and (from $BINDING_TOPOLOGIES)
 * a hybrid one with C and E cores: the strategies trust what the parser
 * accepted, so a value it lets through must not crash them either.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "fuzz.h"

static struct bnd_topology *topos[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_seed_dir())
		exit(0);
	topos[0] = fuzz_topology("pack:2 numa:2 l3:1 core:2 pu:2");
	topos[1] = fuzz_hybrid_topology();
	return 0;
}

static void place(const struct bnd_topology *topo, const struct bnd_request *r, int ntasks,
		  int half)
{
	bnd_cpuset_t taken;
	bnd_cpuset_zero(&taken);
	for (int c = bnd_cpuset_next(&topo->all_cpus, -1), i = 0; c >= 0;
	     c = bnd_cpuset_next(&topo->all_cpus, c), i++)
		if (half && i % 4 < 2)
			bnd_cpuset_set(&taken, c);
	struct bnd_domain dom = { NULL, &taken, NULL };
	struct bnd_placement p;
	char err[BND_ERRLEN] = "";
	int rc = bnd_place(topo, &dom, r, ntasks, &p, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_ENOFIT || rc == BND_EINVAL, "bnd_place: rc %d", rc);
	if (rc != BND_OK) {
		fuzz_check_err(err, sizeof(err), "bnd_place");
		return;
	}
	FUZZ_CHECK(p.ntasks == ntasks, "%d tasks placed, %d asked", p.ntasks, ntasks);
	bnd_cpuset_t all;
	bnd_cpuset_zero(&all);
	for (int i = 0; i < p.ntasks; i++) {
		FUZZ_CHECK(bnd_cpuset_subset(&p.tasks[i].cpus, &topo->all_cpus),
			   "task %d bound to cpus the node does not have", i);
		for (int k = 0; k < p.tasks[i].ncores; k++)
			FUZZ_CHECK(p.tasks[i].cores[k] >= 0 && p.tasks[i].cores[k] < topo->ncores,
				   "task %d: core %d out of range", i, p.tasks[i].cores[k]);
		bnd_cpuset_or(&all, &p.tasks[i].cpus);
	}
	FUZZ_CHECK(bnd_cpuset_equal(&all, &p.all_cpus), "all_cpus is not the union of the tasks");
	bnd_placement_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct bnd_request *r = malloc(sizeof(*r));
	char err[BND_ERRLEN] = "";
	FUZZ_CHECK(r, "out of memory");

	int rc = bnd_request_parse(r, text, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL, "bnd_request_parse: rc %d", rc);
	FUZZ_CHECK(strncmp(r->text, text, sizeof(r->text) - 1) == 0, "request text not kept");
	if (rc != BND_OK) {
		fuzz_check_err(err, sizeof(err), "bnd_request_parse");
	} else {
		FUZZ_CHECK(strcmp(bnd_strategy_name(r->strategy), "unknown") != 0, "strategy %d",
			   r->strategy);
		FUZZ_CHECK(r->nexplicit >= 0 && r->nexplicit <= BND_MAX_EXPLICIT, "%d pairs",
			   r->nexplicit);
		FUZZ_CHECK((!r->filter || strlen(r->filter) <= BND_MAX_FILTER) &&
			   memchr(r->sort, '\0', sizeof(r->sort)) &&
			   memchr(r->unit, '\0', sizeof(r->unit)), "unterminated field");
		int ntasks = 1 + (int)(size % 3);
		for (int k = 0; k < 2; k++)
			if (topos[k]) {
				place(topos[k], r, ntasks, 0);
				place(topos[k], r, ntasks, 1);
			}
	}

	enum bnd_mbind m;
	err[0] = '\0';
	rc = bnd_mbind_parse(&m, text, err, sizeof(err));
	FUZZ_CHECK(rc == BND_OK || rc == BND_EINVAL, "bnd_mbind_parse: rc %d", rc);
	if (rc == BND_OK)
		FUZZ_CHECK(strcmp(bnd_mbind_name(m), text) == 0, "mbind \"%s\" read as %s", text,
			   bnd_mbind_name(m));
	else
		fuzz_check_err(err, sizeof(err), "bnd_mbind_parse");

	bnd_request_clear(r);
	free(r);
	free(text);
	return 0;
}
