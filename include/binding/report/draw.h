/* A picture of the node: its hwloc topology annotated with who holds each
 * core, for hwloc's own lstopo to render (PNG, SVG, ...): we add the
 * annotations, lstopo draws. Through hwloc's API only (lstopo(1),
 * "lstopoStyle"; hwloc_topology_insert_misc_object):
 *
 *   - each job gets a colour (the palette below, in the order of the jobs'
 *     ids on the node); a core all of whose threads a bound step holds is
 *     filled with its job's colour (lstopoStyle Background, Text) and holds
 *     a Misc box "job N" in that colour; a thread held alone (unit=T, an
 *     LSF cpu list) is filled instead, the box under it;
 *   - a deferred step: a white box "job N waits" with its job's colour as
 *     text on each core it may use (its want=); a suspended step: a grey
 *     box "job N suspended" on the cores it gave back (its history's last
 *     suspension), on the machine when they are not known;
 *   - a GPU-aware step's GPUs (the record's, by PCI bus id) are filled
 *     with its job's colour and hold a box "job N";
 *   - each NUMA node holds a box "job N: M MiB" per job with memory
 *     reserved there (the largest of its records' shares: a job's steps
 *     share its memory);
 *   - the legend (lstopoLegend lines of the root) names each job's colour,
 *     user and steps, unbound (refused) steps included.
 * The topology is loaded from the same sources as topology.h's
 * (toposource.h), with every PU (also those the caller's cgroup leaves
 * out) and the I/O devices hwloc deems important (GPUs, NICs), as lstopo
 * shows them.
 */
#ifndef BINDING_REPORT_DRAW_H
#define BINDING_REPORT_DRAW_H

#include <stddef.h>

#include "binding/state/statefile.h"
#include "binding/topology/topology.h"

struct bnd_draw_in {
	const char *source;              /* hwloc source; NULL or "": this machine */
	const struct bnd_state_file *f;  /* the node's records */
	/* The flattened topology the records' GPU indices refer to (the
	 * plugin's: the state dir's cache), NULL to leave GPUs unmarked. */
	const struct bnd_topology *t;
};

/* The annotated topology as an hwloc XML export (malloc'd, NUL-terminated,
 * *len bytes), for `lstopo -i FILE`. BND_OK, BND_EINVAL (the source),
 * BND_ESYS (hwloc) or BND_ENOMEM. */
int bnd_draw_xml(const struct bnd_draw_in *in, char **xml, size_t *len, char *err,
		 size_t errlen);

/* The colour of the k-th job (0 up, by job id) on the node: "#rrggbb" and
 * its name ("blue"); the palette repeats past its end. */
const char *bnd_draw_colour(int k, const char **name);

#endif
