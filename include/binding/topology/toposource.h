/* Where an hwloc topology comes from (topology.h's source forms): this
 * machine, a synthetic description ("pack:2 core:4 pu:2", " pu:1" added
 * when the last level is not pu) or an XML export (CRLF line ends
 * accepted). The one reading of a source: topology.c flattens what it
 * loads, report/draw.c annotates it for lstopo. */
#ifndef BINDING_TOPOLOGY_TOPOSOURCE_H
#define BINDING_TOPOLOGY_TOPOSOURCE_H

#include <hwloc.h>
#include <stddef.h>

/* Sets topo (initialised, not loaded) to read source (NULL or "": this
 * machine). An XML file is read into *xml (NULL otherwise), which must
 * outlive hwloc_topology_load: the caller frees it. BND_OK, BND_EINVAL
 * naming the source and the accepted forms, or BND_ENOMEM. */
int bnd_toposource_set(hwloc_topology_t topo, const char *source, char **xml, char *err,
		       size_t errlen);

#endif
