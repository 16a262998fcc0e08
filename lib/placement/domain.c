#include "binding/placement/domain.h"

int bnd_pu_available(const struct bnd_topology *t, const struct bnd_domain *dom, int pu)
{
	int os = t->pu_os[pu];
	if (dom && dom->allowed && !bnd_cpuset_isset(dom->allowed, os))
		return 0;
	if (dom && dom->taken && bnd_cpuset_isset(dom->taken, os))
		return 0;
	return 1;
}

int bnd_core_available(const struct bnd_topology *t, const struct bnd_domain *dom, int core)
{
	if (core < 0 || core >= t->ncores)
		return 0;
	const struct bnd_core *c = &t->cores[core];
	for (int pu = c->pu_first; pu < c->pu_first + c->npus; pu++)
		if (!bnd_pu_available(t, dom, pu))
			return 0;
	return 1;
}

void bnd_pick_add_core(struct bnd_pick *p, const struct bnd_topology *t, int core)
{
	const struct bnd_core *c = &t->cores[core];
	int at = p->off[p->ngroups];
	for (int i = 0; i < c->npus; i++)
		p->pus[at + i] = c->pu_first + i;
	p->ngroups++;
	p->off[p->ngroups] = at + c->npus;
}
