/* Memory that Slurm booked per NUMA node (numamem=yes, docs/memory.md).
 *
 * A site that turns numamem on gives each node one GRES type per NUMA node
 * (numamem:n<os node>, `sbind gres-conf`), and the cli_filter asks for the
 * memory a --mbind needs as that GRES (submit/numamem.h). Slurm then books
 * a job's memory on this node per NUMA node (its per-node GRES detail,
 * step/gresdetail.h), and that booking, not the node's own accounting,
 * says where the job's memory goes: Slurm only starts a job whose booking
 * it holds. Slurm may split one request across NUMA nodes; a task whose
 * memory Slurm split gets every node its memory is on.
 *
 * Each task's memory comes out of what the booking has left, in task
 * order: first from the nodes local to its cores, then from the other
 * booked nodes, nearest first (round_robin: evenly from every booked
 * node, interleaved). Pure: the allocator runs it under the lock to record
 * the step's memory, and each task runs it again with the same numbers to
 * learn its own part (the same answer: no state in between).
 */
#ifndef BINDING_BOOKING_H
#define BINDING_BOOKING_H

#include <stddef.h>
#include <stdint.h>

#include "binding/memory/memacct.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topology.h"

/* NUMA nodes a booking (and what it has left, per NUMA index) can name:
 * as many as a state record's memory shares. */
#define BND_BOOKING_MAX 64

/* The job's memory booked on this node: MiB per OS NUMA node, ascending
 * node id, nodes with 0 left out. */
struct bnd_booking {
	int n;
	struct bnd_mem_share s[BND_BOOKING_MAX];
};

/* One task's part of the booking. */
struct bnd_booking_task {
	int n;                                   /* nodes it takes memory from */
	struct bnd_mem_share s[BND_BOOKING_MAX]; /* OS node ids, MiB */
	uint64_t short_mib;  /* its share the booking could not cover */
	int split;           /* its memory is on more than one node */
	int remote;          /* some of it on a node its cores are not local to */
};

/* Adds mib on OS node `node` (0: nothing). BND_EINVAL when the booking is
 * full or node is negative. */
int bnd_booking_add(struct bnd_booking *b, int node, uint64_t mib);

/* The booking as the state file writes it: "0:400,1:400" ("" when empty). */
void bnd_booking_text(const struct bnd_booking *b, char *buf, size_t len);

/* Per NUMA index of t, the MiB of b on it (nodes t lacks are left out):
 * left[t->nnuma]. The sum of what was left out is returned. */
uint64_t bnd_booking_per_index(const struct bnd_topology *t, const struct bnd_booking *b,
			       uint64_t *left);

/* Task `task` of p (its share: step_mib / p->ntasks, rounded up) takes its
 * part, after tasks 0..task-1 took theirs, from avail[t->nnuma] (what the
 * booking has left for the step, per NUMA index). out is that task's part;
 * BND_EINVAL when t has more NUMA nodes than a booking can name. */
int bnd_booking_task_part(const struct bnd_topology *t, const struct bnd_placement *p,
			  enum bnd_mbind m, const uint64_t *avail, uint64_t step_mib, int task,
			  struct bnd_booking_task *out);

/* Every task's part at once: demand[t->nnuma] (what the step takes per
 * NUMA index), and how many tasks' memory is split or remote. */
int bnd_booking_plan(const struct bnd_topology *t, const struct bnd_placement *p,
		     enum bnd_mbind m, const uint64_t *avail, uint64_t step_mib, uint64_t *demand,
		     int *nsplit, int *nremote);

/* "0:112,1:288" for a task's part. */
void bnd_booking_task_text(const struct bnd_booking_task *bt, char *buf, size_t len);

#endif
