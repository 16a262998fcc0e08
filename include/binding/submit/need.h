/* What one binding request consumes, in terms Slurm's allocation can be
 * asked for at submission: hardware threads (Slurm's CPUs), whole cores,
 * or whole sockets (and the units Slurm cannot see, which hold at least a
 * socket's share), per task or per node; and whether the request names
 * physical cores, which only the whole node can guarantee.
 *
 * One row per strategy (bnd_need_rows): adding a strategy is one row.
 */
#ifndef BINDING_SUBMIT_NEED_H
#define BINDING_SUBMIT_NEED_H

#include "binding/request/request.h"

enum bnd_need_unit {
	BND_NEED_NONE = 0,  /* binds nothing: nothing to ask for */
	BND_NEED_THREAD,    /* hardware threads: Slurm's CPUs */
	BND_NEED_CORE,      /* whole cores, all their threads */
	/* Whole sockets, L3s, NUMA nodes or L2s. Slurm counts sockets only;
	 * a socket nearly always holds at least one of the others, so a node
	 * with enough sockets holds enough of them too (not for a NUMA node
	 * spanning sockets: docs/submit.md). */
	BND_NEED_SOCKET,
};

/* Per task (the default), or for all of a node's tasks together
 * (packed type=node, explicit lists, cpus: lists). */
enum bnd_need_scope { BND_NEED_PER_TASK = 0, BND_NEED_PER_NODE };

/* When a strategy names physical cores (or cpus): always, only when the
 * request gives a start core, or never. */
enum bnd_named { BND_NAMED_NEVER = 0, BND_NAMED_WITH_START, BND_NAMED_ALWAYS };

struct bnd_need {
	enum bnd_need_unit unit;
	enum bnd_need_scope scope;
	int amount;          /* units per task, or per node (scope) */
	/* Cores a task's picks stretch over (striding: amount x step,
	 * INT_MAX when the product is larger); amount otherwise. Only whole
	 * nodes hold a spread pattern. */
	int span;
	int named;           /* names cores or cpus: the whole node, or refused */
	int spread;          /* picks fixed positions (striding): the whole node */
	/* explicit: the cores listed, shared out evenly among a node's
	 * tasks (their count must divide it); 0 otherwise. */
	int shared_out;
	/* The named core furthest out (its socket and core number + 1): the
	 * node must have it. 0 when nothing is named by socket and core. */
	int min_sockets, min_cores_per_socket;
	const char *unit_name;   /* "core", "thread", "socket", "NUMA node", ... */
	const char *unit_names;  /* the plural */
};

struct bnd_need_row {
	enum bnd_strategy strategy;
	enum bnd_named named;
	const char *consumes;    /* for docs: what one task consumes */
	void (*fill)(const struct bnd_request *r, struct bnd_need *n);
};

/* The table, ending with a row whose fill is NULL. */
extern const struct bnd_need_row bnd_need_rows[];

/* The row of a strategy, or NULL. */
const struct bnd_need_row *bnd_need_row_of(enum bnd_strategy s);

/* What r consumes. BND_EINVAL for a strategy without a row. */
int bnd_need_of(const struct bnd_request *r, struct bnd_need *n, char *err, size_t errlen);

/* Does the need hold only on a whole node (named, spread, socket units)? */
int bnd_need_whole_node(const struct bnd_need *n);

#endif
