#include "binding/request/implicit.h"

#include <stdio.h>

#include "binding/util/error.h"
#include "binding/util/intmath.h"
#include "binding/topology/unitsort.h"

/* Threads of the wanted kind below unit u. */
static int threads_of_kind(const struct bnd_topology *t, int u, int kind)
{
	const struct bnd_unit *x = &t->units[u];
	int n = 0;
	for (int p = x->pu_first; p < x->pu_first + x->pu_count; p++)
		n += t->cores[t->pu_core[p]].kind == kind;
	return n;
}

int bnd_implicit_amount(const struct bnd_topology *t, const char *unit, int cpus_per_task,
			int *amount, char *err, size_t errlen)
{
	int type, kind, size = 0;
	if (!t || !amount)
		return bnd_fail(err, errlen, BND_EINVAL, "implicit binding: no topology");
	if (bnd_packed_unit(t, unit, &type, &kind) != BND_OK)
		return bnd_fail(err, errlen, BND_EINVAL,
				"implicit binding: default_unit=%s is not a packed unit "
				"(T CT ET C E S CS ES X CX EX Y CY EY N CN EN)", unit ? unit : "");
	for (int u = 0; u < t->nunits; u++) {
		if (t->units[u].type != type)
			continue;
		int n = threads_of_kind(t, u, kind);
		if (n > size)
			size = n;
	}
	if (size < 1)
		return bnd_fail(err, errlen, BND_EINVAL,
				"implicit binding: default_unit=%s: this node has no %s units",
				unit, kind == BND_KIND_EFFICIENCY ? "efficiency" : "power");
	int cpt = cpus_per_task < 1 ? 1 : cpus_per_task;
	*amount = bnd_div_ceil(cpt, size);
	return BND_OK;
}

int bnd_implicit_request(const struct bnd_topology *t, const char *unit, int cpus_per_task,
			 struct bnd_request *r, char *err, size_t errlen)
{
	int amount = 0;
	int rc = bnd_implicit_amount(t, unit, cpus_per_task, &amount, err, errlen);
	if (rc != BND_OK)
		return rc;
	return bnd_request_packed(r, amount, unit, err, errlen);
}
