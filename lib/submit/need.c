/* What each strategy consumes, as Slurm can be asked for it: one row per
 * strategy. Slurm allocates threads (its CPUs), cores and sockets; it
 * knows nothing of L3s or NUMA nodes, and nothing of which core a task
 * will get, so a request that names cores or spreads over the node is
 * only guaranteed by the whole node. */
#include "binding/submit/need.h"

#include <limits.h>
#include <string.h>

#include "binding/util/cpuset.h"
#include "binding/util/error.h"

static void set_unit(struct bnd_need *n, enum bnd_need_unit u, const char *one, const char *many)
{
	n->unit = u;
	n->unit_name = one;
	n->unit_names = many;
}

static void cores(struct bnd_need *n, int amount)
{
	set_unit(n, BND_NEED_CORE, "core", "cores");
	n->amount = amount;
	n->span = amount;
}

static void start_core(const struct bnd_request *r, struct bnd_need *n)
{
	if (!r->has_start)
		return;
	n->min_sockets = r->start.socket + 1;
	n->min_cores_per_socket = r->start.core + 1;
}

static void fill_none(const struct bnd_request *r, struct bnd_need *n)
{
	(void)r;
	set_unit(n, BND_NEED_NONE, "unit", "units");
}

static void fill_linear(const struct bnd_request *r, struct bnd_need *n)
{
	cores(n, r->amount);
	start_core(r, n);
}

/* striding:<a>:<s> takes every s-th core of the node in one sweep for all
 * of its tasks: t tasks stretch over (t*a - 1)*s + 1 cores, never more
 * than t*a*s, so a*s cores per task hold the pattern. a and s may each be
 * a million: the product saturates (need.h), and the translation refuses
 * it. */
static void fill_striding(const struct bnd_request *r, struct bnd_need *n)
{
	long long span = (long long)r->amount * r->step;
	cores(n, r->amount);
	n->span = span > INT_MAX ? INT_MAX : (int)span;
	n->spread = 1;
	start_core(r, n);
}

static void fill_explicit(const struct bnd_request *r, struct bnd_need *n)
{
	cores(n, r->nexplicit);
	n->scope = BND_NEED_PER_NODE;
	n->shared_out = r->nexplicit;
	for (int i = 0; i < r->nexplicit; i++) {
		if (r->explicit_pairs[i].socket + 1 > n->min_sockets)
			n->min_sockets = r->explicit_pairs[i].socket + 1;
		if (r->explicit_pairs[i].core + 1 > n->min_cores_per_socket)
			n->min_cores_per_socket = r->explicit_pairs[i].core + 1;
	}
}

/* A container unit by its level letter (the last letter of unit=). */
static void container(struct bnd_need *n, char level)
{
	switch (level) {
	case 'N': set_unit(n, BND_NEED_SOCKET, "NUMA node", "NUMA nodes"); break;
	case 'X': set_unit(n, BND_NEED_SOCKET, "L3 cache", "L3 caches"); break;
	case 'Y': set_unit(n, BND_NEED_SOCKET, "L2 cache", "L2 caches"); break;
	default: set_unit(n, BND_NEED_SOCKET, "socket", "sockets"); break;
	}
}

static void fill_packed(const struct bnd_request *r, struct bnd_need *n)
{
	char level = r->unit[0] ? r->unit[strlen(r->unit) - 1] : 'C';
	if (level == 'T')
		set_unit(n, BND_NEED_THREAD, "thread", "threads");
	else if (level == 'C' || level == 'E')
		set_unit(n, BND_NEED_CORE, "core", "cores");
	else
		container(n, level);
	n->amount = r->amount;
	n->span = r->amount;
	n->scope = r->ptype == BND_PT_NODE ? BND_NEED_PER_NODE : BND_NEED_PER_TASK;
	if (!r->amount)
		fill_none(r, n);
}

static void fill_lsf(const struct bnd_request *r, struct bnd_need *n)
{
	if (r->level == BND_L_THREAD)
		set_unit(n, BND_NEED_THREAD, "thread", "threads");
	else if (r->level == BND_L_SOCKET)
		container(n, 'S');
	else
		set_unit(n, BND_NEED_CORE, "core", "cores");
	n->amount = r->amount;
	n->span = r->amount;
}

/* gpu:<n>: n whole cores per task, next to the task's GPUs when free;
 * the GPUs are the user's own --gpus/--gres (Slurm picks the cores). */
static void fill_gpu(const struct bnd_request *r, struct bnd_need *n)
{
	cores(n, r->amount);
}

/* cpus:<list>: every task of the node gets the whole list. */
static void fill_cpus(const struct bnd_request *r, struct bnd_need *n)
{
	set_unit(n, BND_NEED_THREAD, "cpu", "cpus");
	n->amount = bnd_cpuset_count(&r->cpus);
	n->span = n->amount;
	n->scope = BND_NEED_PER_NODE;
}

const struct bnd_need_row bnd_need_rows[] = {
	{ BND_S_NONE, BND_NAMED_NEVER, "nothing", fill_none },
	{ BND_S_LINEAR, BND_NAMED_WITH_START, "<amount> whole cores per task", fill_linear },
	{ BND_S_STRIDING, BND_NAMED_WITH_START,
	  "<amount> whole cores per task, every <step>-th core of the node", fill_striding },
	{ BND_S_EXPLICIT, BND_NAMED_ALWAYS,
	  "the listed cores, shared out evenly among the node's tasks", fill_explicit },
	{ BND_S_PACKED, BND_NAMED_NEVER,
	  "<amount> units per task (unit=: threads, cores, sockets, L3s, L2s, NUMA nodes), "
	  "or per node (type=node)", fill_packed },
	{ BND_S_LSF_BALANCE, BND_NAMED_NEVER, "<n> units per task at level= (core by default)",
	  fill_lsf },
	{ BND_S_LSF_PACK, BND_NAMED_NEVER, "<n> units per task at level= (core by default)",
	  fill_lsf },
	{ BND_S_LSF_ANY, BND_NAMED_NEVER, "<n> units per task at level= (core by default)",
	  fill_lsf },
	{ BND_S_LSF_CPUS, BND_NAMED_ALWAYS, "the listed cpus, for every task of the node",
	  fill_cpus },
	{ BND_S_GPU, BND_NAMED_NEVER, "<amount> whole cores per task (next to its GPUs when free)",
	  fill_gpu },
	{ BND_S_NONE, BND_NAMED_NEVER, NULL, NULL },
};

const struct bnd_need_row *bnd_need_row_of(enum bnd_strategy s)
{
	for (const struct bnd_need_row *row = bnd_need_rows; row->fill; row++)
		if (row->strategy == s)
			return row;
	return NULL;
}

int bnd_need_of(const struct bnd_request *r, struct bnd_need *n, char *err, size_t errlen)
{
	memset(n, 0, sizeof(*n));
	const struct bnd_need_row *row = bnd_need_row_of(r->strategy);
	if (!row)
		return bnd_fail(err, errlen, BND_EINVAL, "--binding=%s: strategy %s has no row in "
				"the submit table", r->text, bnd_strategy_name(r->strategy));
	row->fill(r, n);
	n->named = row->named == BND_NAMED_ALWAYS ||
		   (row->named == BND_NAMED_WITH_START && r->has_start);
	return BND_OK;
}

int bnd_need_whole_node(const struct bnd_need *n)
{
	return n->unit != BND_NEED_NONE && (n->named || n->spread || n->unit == BND_NEED_SOCKET);
}
