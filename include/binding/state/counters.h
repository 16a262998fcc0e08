/* The node's counters, as sbind metrics exports them for Prometheus
 * (report/metrics.h): placements by strategy, refusals and fallbacks by
 * reason, cross-NUMA and non-local-GPU placements, the wait for the state
 * lock (a histogram), rankfiles written.
 *
 * They live in the state file itself (its count line, statefile.h) and
 * change only inside a state transaction: a counter moves exactly when the
 * change it counts is committed (a writer killed before the exchange
 * counts nothing, one killed after it counts once), it survives slurmd
 * restarts with the state, no user can touch it, and counting costs a
 * launch no file or system call of its own. What happens outside any
 * transaction (a lock timeout, a rankfile written after the placement)
 * waits in the step's pending counts for its next transaction
 * (bnd_state_opts.pending).
 *
 * This table is the one place a counter is named: its key in the state
 * file ("placements.linear") and its metric (report/metrics.c) both come
 * from the enum below.
 */
#ifndef BINDING_STATE_COUNTERS_H
#define BINDING_STATE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "binding/request/request.h"

/* Why a step with a request got no binding. The first four are the
 * allocator's (bnd_refusal_of_nofit): its cores are held by other jobs,
 * by its own job's other steps, the memory of their NUMA nodes is short,
 * or Slurm's cpus for the step cannot hold the request at all; the rest
 * are the step's (the request does not parse or names what the node
 * lacks, the node's topology is NONE, the state cannot be used, its lock
 * timed out). */
enum bnd_refusal {
	BND_R_HELD_BY_OTHER_JOBS = 0,
	BND_R_HELD_BY_OWN_STEPS,
	BND_R_MEMORY_SHORT,
	BND_R_ALLOCATION_TOO_SMALL,
	BND_R_INVALID_REQUEST,
	BND_R_NO_TOPOLOGY,
	BND_R_STATE_ERROR,
	BND_R_LOCK_TIMEOUT,
	BND_R_COUNT
};

/* What a step got instead of the binding it asked for: it waits for its
 * cores (on_failure=defer), runs unbound, or its tasks fail
 * (on_failure=fail, on_any_host=no); or it is bound but its nlocal memory
 * is only preferred there (the node's free memory was short). */
enum bnd_fallback {
	BND_FB_DEFERRED = 0,
	BND_FB_UNBOUND,
	BND_FB_FAILED,
	BND_FB_MEMORY_PREFERRED,
	BND_FB_COUNT
};

/* The lock wait histogram's buckets (upper bounds, microseconds); a wait
 * beyond the last one counts only in the total. */
#define BND_LOCKWAIT_BUCKETS 7
extern const uint64_t bnd_lockwait_bounds_us[BND_LOCKWAIT_BUCKETS];

enum bnd_counter {
	BND_CNT_PLACEMENT = 0,                                /* + enum bnd_strategy */
	BND_CNT_REFUSAL = BND_CNT_PLACEMENT + BND_S_COUNT,    /* + enum bnd_refusal */
	BND_CNT_FALLBACK = BND_CNT_REFUSAL + BND_R_COUNT,     /* + enum bnd_fallback */
	BND_CNT_CROSS_NUMA = BND_CNT_FALLBACK + BND_FB_COUNT, /* a task's cores on 2+ NUMA nodes */
	BND_CNT_GPU_NONLOCAL,   /* a GPU-aware step with cores away from a task's GPUs */
	BND_CNT_RANKFILE,       /* pe rankfiles written */
	BND_CNT_LOCKWAIT_BUCKET,                              /* + bucket (not cumulative) */
	BND_CNT_LOCKWAIT_SUM_NS = BND_CNT_LOCKWAIT_BUCKET + BND_LOCKWAIT_BUCKETS,
	BND_CNT_LOCKWAIT_COUNT,
	BND_CNT_COUNT
};

struct bnd_counts {
	uint64_t v[BND_CNT_COUNT];
};

/* The key of counter c in the state file ("placements.linear",
 * "refusals.held_by_other_jobs", "lock_wait.100us": waits of 10 to 100 us), written into buf
 * (returned); "" for a value that is no counter. */
const char *bnd_counter_key(enum bnd_counter c, char *buf, size_t len);
/* The counter whose key is the n bytes at key, -1 for none. */
int bnd_counter_by_key(const char *key, size_t n);

const char *bnd_refusal_name(enum bnd_refusal r);
const char *bnd_fallback_name(enum bnd_fallback f);

/* to += d, saturating (a counter never wraps back to a small number). */
void bnd_counts_add(struct bnd_counts *to, const struct bnd_counts *d);
void bnd_counts_inc(struct bnd_counts *c, enum bnd_counter k);
int bnd_counts_empty(const struct bnd_counts *c);
/* One wait for the state lock, in nanoseconds, into the histogram. */
void bnd_counts_lockwait(struct bnd_counts *c, uint64_t ns);

#endif
