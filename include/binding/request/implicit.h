/* The admin's implicit binding (plugstack implicit=yes): a step that asks
 * for no binding gets OCS packed units enough for the CPUs Slurm gave each
 * of its tasks, so a site coming from OCS/GCS keeps its "every job is
 * bound" behaviour without users changing their scripts.
 */
#ifndef BINDING_IMPLICIT_H
#define BINDING_IMPLICIT_H

#include <stddef.h>

#include "binding/topology/topology.h"
#include "binding/request/request.h"

/* How many `unit` units (a packed unit= value: T, CT, C, E, S, CX, ...)
 * hold cpus_per_task CPUs on t: cpus_per_task divided by the unit's size,
 * rounded up, at least 1. A unit's size is the number of threads of its
 * kind (power for C/T/S/X/Y/N and their C forms, efficiency for the E
 * forms) below it; where units of one level differ (hybrid sockets), the
 * largest counts, so the request never asks for more units than the CPUs
 * need. cpus_per_task < 1 counts as 1 (Slurm's default).
 * BND_EINVAL when unit is not a packed unit or the node has no unit of
 * that kind (E on a node without efficiency cores). */
int bnd_implicit_amount(const struct bnd_topology *t, const char *unit, int cpus_per_task,
			int *amount, char *err, size_t errlen);

/* The request for the above, built as data: what "packed:<amount>:unit=<unit>"
 * parses to (r->text holds that text for messages). */
int bnd_implicit_request(const struct bnd_topology *t, const char *unit, int cpus_per_task,
			 struct bnd_request *r, char *err, size_t errlen);

#endif
