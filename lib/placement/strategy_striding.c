/* Grid Engine "striding": every step-th core in global core order. Without
 * a start core the first start that works wins, 0,0 first. */
#include "binding/util/error.h"
#include "binding/placement/strategy.h"

static bool stride_fits(const struct bnd_topology *t, const struct bnd_domain *dom, int first,
			int step, int need)
{
	for (int i = 0; i < need; i++) {
		long c = first + (long)i * step;
		if (c >= t->ncores || !bnd_core_available(t, dom, (int)c))
			return false;
	}
	return true;
}

int bnd_place_striding(const struct bnd_topology *t, const struct bnd_domain *dom,
		       const struct bnd_request *r, const struct bnd_units *u, struct bnd_pick *out,
		       char *err, size_t errlen)
{
	int first = -1, need = u->need;
	if (r->has_start) {
		int c = bnd_topology_core_at(t, r->start.socket, r->start.core);
		if (c < 0)
			return bnd_fail(err, errlen, BND_ENOFIT,
					"striding: start core %d,%d does not exist",
					r->start.socket, r->start.core);
		if (!stride_fits(t, dom, c, r->step, need))
			return bnd_fail(err, errlen, BND_ENOFIT,
					"striding: %d cores with step %d from %d,%d are not all present and free",
					need, r->step, r->start.socket, r->start.core);
		first = c;
	} else {
		for (int c = 0; c < t->ncores && first < 0; c++)
			if (stride_fits(t, dom, c, r->step, need))
				first = c;
		if (first < 0)
			return bnd_fail(err, errlen, BND_ENOFIT,
					"striding: no start core gives %d free cores with step %d",
					need, r->step);
	}
	for (int i = 0; i < need; i++)
		bnd_pick_add_core(out, t, first + i * r->step);
	return BND_OK;
}
