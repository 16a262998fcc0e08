/* Grid Engine "linear", as the job-to-core binding spec (1.9.3, 4.3) has it.
 *
 * Without a start core: fill wholly free sockets first (so a job does not
 * share a socket's caches and memory bandwidth with another when it need
 * not), then the sockets with the most free cores. With a start core:
 * `need` free successive cores from there, spilling into the next socket. */
#include <stdlib.h>

#include "binding/util/error.h"
#include "binding/placement/strategy.h"

static int free_on_socket(const struct bnd_topology *t, const struct bnd_domain *dom,
			  const char *used, int s)
{
	int n = 0;
	for (int c = t->socket_first_core[s]; c < t->socket_first_core[s] + t->socket_ncores[s]; c++)
		n += !used[c] && bnd_core_available(t, dom, c);
	return n;
}

static void take_on_socket(const struct bnd_topology *t, const struct bnd_domain *dom,
			   char *used, int s, int *left, struct bnd_pick *out)
{
	for (int c = t->socket_first_core[s];
	     *left > 0 && c < t->socket_first_core[s] + t->socket_ncores[s]; c++) {
		if (used[c] || !bnd_core_available(t, dom, c))
			continue;
		used[c] = 1;
		bnd_pick_add_core(out, t, c);
		(*left)--;
	}
}

static int linear_auto(const struct bnd_topology *t, const struct bnd_domain *dom, int need,
		       struct bnd_pick *out, char *err, size_t errlen)
{
	char *used = calloc((size_t)t->ncores + 1, 1);
	if (!used)
		return bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	int left = need;
	/* Pass 1: sockets with nothing taken on them, in order. */
	for (int s = 0; s < t->nsockets && left > 0; s++)
		if (free_on_socket(t, dom, used, s) == t->socket_ncores[s])
			take_on_socket(t, dom, used, s, &left, out);
	/* Pass 2: the socket with the most free cores, again and again. */
	while (left > 0) {
		int best = -1, best_free = 0;
		for (int s = 0; s < t->nsockets; s++) {
			int f = free_on_socket(t, dom, used, s);
			if (f > best_free) {
				best = s;
				best_free = f;
			}
		}
		if (best < 0)
			break;
		take_on_socket(t, dom, used, best, &left, out);
	}
	free(used);
	if (left > 0)
		return bnd_fail(err, errlen, BND_ENOFIT,
				"linear: %d cores needed, only %d free", need, need - left);
	return BND_OK;
}

int bnd_place_linear(const struct bnd_topology *t, const struct bnd_domain *dom,
		     const struct bnd_request *r, const struct bnd_units *u, struct bnd_pick *out,
		     char *err, size_t errlen)
{
	int need = u->need;
	if (!r->has_start)
		return linear_auto(t, dom, need, out, err, errlen);
	int first = bnd_topology_core_at(t, r->start.socket, r->start.core);
	if (first < 0)
		return bnd_fail(err, errlen, BND_ENOFIT, "linear: start core %d,%d does not exist "
				"(expected %s)", r->start.socket, r->start.core,
				bnd_strategy_def(BND_S_LINEAR)->form);
	if (first + need > t->ncores)
		return bnd_fail(err, errlen, BND_ENOFIT,
				"linear: %d successive cores from %d,%d run past the last core",
				need, r->start.socket, r->start.core);
	for (int c = first; c < first + need; c++)
		if (!bnd_core_available(t, dom, c))
			return bnd_fail(err, errlen, BND_ENOFIT,
					"linear: core %d,%d is not free", t->cores[c].socket, t->cores[c].core);
	for (int c = first; c < first + need; c++)
		bnd_pick_add_core(out, t, c);
	return BND_OK;
}
