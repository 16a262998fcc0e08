/* The node's binding state for Prometheus, in its text exposition format
 * (version 0.0.4: what node_exporter's textfile collector reads, and what
 * `promtool check metrics` checks), every name with the spank_binding_
 * prefix, units in the names, _total on counters:
 *
 *   gauges, from the records and the topology at the moment of reading:
 *     spank_binding_socket_cores{socket}, _held, _free (and _threads, ...)
 *     spank_binding_numa_cores{numa}, _held, _free (and _threads, ...)
 *     spank_binding_numa_memory_bytes{numa}, _reserved_bytes, _free_bytes
 *     spank_binding_steps{status="bound|deferred|suspended|unbound"}
 *     spank_binding_state_ok            1: the state was read whole
 *   counters, from the state's count line (state/counters.h):
 *     spank_binding_placements_total{strategy}
 *     spank_binding_refusals_total{reason}
 *     spank_binding_fallbacks_total{fallback}
 *     spank_binding_cross_numa_placements_total
 *     spank_binding_gpu_nonlocal_placements_total
 *     spank_binding_rankfiles_written_total
 *   histogram:
 *     spank_binding_state_lock_wait_seconds (_bucket{le}, _sum, _count)
 *
 * Every label value of a counter is written, 0 included, so rate() and
 * increase() work from a node's first scrape. A core is held when one of
 * its threads is in an active record; a core of a suspended, deferred or
 * unbound step is free (others may take it). Memory is the binding's
 * accounting (memory/memreport.h): a node's memory, the records'
 * reservations, and what placement may still give after mem_reserve=.
 *
 * Written for node_exporter's textfile folder atomically (util/textfile.h),
 * by `sbind metrics --output` (the package's timer) or by the plugin after
 * every state change (metrics_file=): bnd_metrics_update orders writers
 * through a lock in the state dir, each reading the state after taking it,
 * so an older state never replaces a newer one in the file.
 */
#ifndef BINDING_REPORT_METRICS_H
#define BINDING_REPORT_METRICS_H

#include <stddef.h>

#include "binding/state/statefile.h"
#include "binding/topology/topology.h"
#include "binding/util/memsize.h"

struct bnd_metrics_in {
	const struct bnd_topology *t;          /* NULL: no socket, NUMA or memory gauges */
	const struct bnd_state_file *f;        /* the records and counters */
	const struct bnd_mem_reserve *reserve; /* mem_reserve= (NULL: none) */
	int state_read; /* f was read (else only spank_binding_state_ok 0 is written) */
	int state_ok;   /* and whole (spank_binding_state_ok) */
};

/* The exposition text (malloc'd, NUL-terminated, *len bytes). BND_OK or
 * BND_ENOMEM. */
int bnd_metrics_format(const struct bnd_metrics_in *in, char **text, size_t *len, char *err,
		       size_t errlen);

/* The lock file in the state dir that orders the writers of a metrics
 * file (0600, state/statelock.h). */
#define BND_METRICS_LOCK_NAME "metrics.lock"

/* Reads the state of state_dir (without its lock) and writes its metrics
 * to path atomically, under the metrics lock (when the caller may take
 * it: root; a user writes without it). t and reserve as above. log (may
 * be NULL) hears why a damaged state was shown as it parsed. BND_OK, or
 * the error of reading the state or writing the file. */
int bnd_metrics_update(const char *state_dir, const char *path, const struct bnd_topology *t,
		       const struct bnd_mem_reserve *reserve, void (*log)(void *, const char *),
		       void *log_ctx, char *err, size_t errlen);

#endif
