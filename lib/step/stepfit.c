#include "binding/step/stepfit.h"

#include <stdio.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/util/intmath.h"
#include "binding/placement/place.h"
#include "binding/step/stepinfo.h"

static int fits(const struct bnd_topology *t, const bnd_cpuset_t *usable,
		const struct bnd_request *r, int ntasks)
{
	struct bnd_domain d = { usable, NULL, NULL };
	struct bnd_placement p;
	if (bnd_place(t, &d, r, ntasks, &p, NULL, 0) != BND_OK)
		return 0;
	bnd_placement_free(&p);
	return 1;
}

int bnd_share_groups(int ntasks, int k)
{
	return k < 1 ? ntasks : bnd_div_ceil(ntasks, k);
}

int bnd_share_group_of(int task, int k)
{
	return k < 1 ? task : task / k;
}

int bnd_step_share(const struct bnd_topology *t, const bnd_cpuset_t *domain,
		   const bnd_cpuset_t *usable, const struct bnd_request *r, int ntasks)
{
	/* Slurm's own packing decides, not what the site keeps: a step given
	 * a core per task never shares because filter=first_core took one. */
	int cores = bnd_whole_cores_in(t, domain);
	if (ntasks <= 1 || cores < 1 || ntasks <= cores || fits(t, usable, r, ntasks))
		return 1;
	int k = bnd_div_ceil(ntasks, cores);
	return fits(t, usable, r, bnd_share_groups(ntasks, k)) ? k : 1;
}

int bnd_start_cores_missing(const struct bnd_topology *t, const bnd_cpuset_t *usable,
			    const struct bnd_request *r, int ntasks, char *missing,
			    size_t missinglen, char *err, size_t errlen)
{
	struct bnd_domain all = { NULL, NULL, NULL };
	struct bnd_placement p;
	size_t used = 0;
	if (!r->has_start)
		return bnd_fail(err, errlen, BND_EINVAL, "the request names no start core");
	/* The strategy itself says which cores the start means: on the whole,
	 * empty node its pick is exactly the cores the request insists on. */
	int rc = bnd_place(t, &all, r, ntasks, &p, err, errlen);
	if (rc != BND_OK)
		return rc;
	if (missinglen)
		missing[0] = '\0';
	for (int i = 0; i < p.ntasks; i++)
		for (int j = 0; j < p.tasks[i].ncores; j++) {
			int c = p.tasks[i].cores[j];
			bnd_cpuset_t one;
			bnd_topology_core_cpus(t, c, &one);
			if (bnd_cpuset_subset(&one, usable))
				continue;
			int n = snprintf(missing + used, missinglen - used, "%s%d,%d",
					 used ? ":" : "", t->cores[c].socket, t->cores[c].core);
			if (n < 0 || (size_t)n >= missinglen - used) {
				bnd_placement_free(&p);
				return bnd_fail(err, errlen, BND_ENOMEM, "core list too long");
			}
			used += (size_t)n;
		}
	bnd_placement_free(&p);
	return BND_OK;
}
