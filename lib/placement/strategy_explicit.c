/* Grid Engine "explicit": exactly the listed cores, all of them or none. */
#include "binding/util/error.h"
#include "binding/placement/strategy.h"

/* bnd_place() checked that the list shares out evenly among the tasks. */
int bnd_place_explicit(const struct bnd_topology *t, const struct bnd_domain *dom,
		       const struct bnd_request *r, const struct bnd_units *u, struct bnd_pick *out,
		       char *err, size_t errlen)
{
	(void)u;
	for (int i = 0; i < r->nexplicit; i++) {
		const struct bnd_pair *p = &r->explicit_pairs[i];
		int c = bnd_topology_core_at(t, p->socket, p->core);
		if (c < 0)
			return bnd_fail(err, errlen, BND_ENOFIT, "explicit: core %d,%d does not exist",
					p->socket, p->core);
		if (!bnd_core_available(t, dom, c))
			return bnd_fail(err, errlen, BND_ENOFIT, "explicit: core %d,%d is not free",
					p->socket, p->core);
	}
	for (int i = 0; i < r->nexplicit; i++)
		bnd_pick_add_core(out, t, bnd_topology_core_at(t, r->explicit_pairs[i].socket,
								r->explicit_pairs[i].core));
	return BND_OK;
}
