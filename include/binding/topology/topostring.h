/* Topology strings, printed and parsed back.
 *
 * Grid Engine form: S per socket, C per core, and after a core with more
 * than one thread one T per thread ("SCTTCTT").
 * OCS/GCS form: every unit in document order: N, S, X (L3), Y (L2), C or E,
 * T (only for cores with more than one thread).
 * Lower case marks a taken unit. For printing, a core is lower case when
 * any of its PUs is taken; a T when its PU is taken; N/S/X/Y when every PU
 * below them is taken, in both forms (Grid Engine's example after linear:2
 * on a 2x2 host is "sccSCC"; Grid Engine prints every core as C: the E of
 * efficiency cores is OCS form only).
 * Examples ("pack:2 l3:1 core:4 pu:1", cpus 2-3 taken): GE "SCCccSCCCC",
 * OCS "NSXCCccSXCCCC"; cpus 0-3 taken: "sccccSCCCC", "NsxccccSXCCCC".
 * Since cores are taken whole, parse then print gives back any string in
 * which each core's T letters have the case of the core and N/S/X/Y are
 * lower case exactly when everything below them is.
 */
#ifndef BINDING_TOPOSTRING_H
#define BINDING_TOPOSTRING_H

#include <stddef.h>

#include "binding/util/cpuset.h"
#include "binding/topology/topology.h"

/* OCS_CPU: OCS's string without memory units (S C E T), as OCS prints it
 * for a host that reports no NUMA or cache information; the same string
 * as Grid Engine's except that an efficiency core is E. */
enum bnd_topo_format { BND_TOPO_SGE, BND_TOPO_OCS, BND_TOPO_OCS_CPU };

/* taken may be NULL. Returns BND_OK or BND_EINVAL if buf is too small. */
int bnd_topostring_format(const struct bnd_topology *t, enum bnd_topo_format fmt,
			  const bnd_cpuset_t *taken, char *buf, size_t buflen);

/* Length the string will have (without NUL), for sizing buffers. */
size_t bnd_topostring_length(const struct bnd_topology *t, enum bnd_topo_format fmt);

/* Univa Grid Engine's m_topology_numa form: one bracket per NUMA node
 * (NUMA index order) holding the cores whose local node it is, 'S' where a
 * socket's first core sits, a core lower case when any of its cpus is in
 * taken (may be NULL); a CPU-less node is "[]". 2 sockets x 2 nodes x 2
 * cores: "[SCC][CC][SCC][CC]". BND_EINVAL when buf is too small. */
int bnd_topostring_numa(const struct bnd_topology *t, const bnd_cpuset_t *taken,
			char *buf, size_t buflen);
/* The buffer bnd_topostring_numa needs, the NUL included. */
size_t bnd_topostring_numa_size(const struct bnd_topology *t);

/* Parse a string of any form (auto-detected: OCS when it contains N, X or
 * Y, OCS without memory units when it contains E but none of those, else
 * Grid Engine) against this topology: the letters must match the topology's
 * layout case-insensitively. Lower-case C/E marks all of the core's PUs
 * taken; lower-case T marks that PU taken; lower-case N/S/X/Y marks every PU
 * below them taken. The error names the first position that does not
 * match and what was expected there. */
int bnd_topostring_parse_mask(const struct bnd_topology *t, const char *str,
			      bnd_cpuset_t *taken, char *err, size_t errlen);

#endif
