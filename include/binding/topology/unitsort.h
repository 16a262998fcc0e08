/* OCS/GCS unit letters and the utilisation-sorted unit order used by the
 * packed strategy (sort=, start=, stop=).
 *
 * The letters are those of the OCS topology string (N S X Y C E T). Sorting
 * reorders the unit tree, level by level, so that the topology string read
 * in the new order is what start=/stop= search and what the packed walk
 * follows. Kept apart from the strategy so it can be tested on its own.
 */
#ifndef BINDING_UNITSORT_H
#define BINDING_UNITSORT_H

#include <stdbool.h>
#include <stddef.h>

#include "binding/topology/topology.h"
#include "binding/topology/unitletter.h"


/* What one letter (case-insensitive) denotes on this topology: a unit type
 * and, for cores and threads, a kind. C and T are power, E is efficiency.
 * Levels the node lacks are mapped as OCS does: N and X to S, Y to the core
 * level. BND_EINVAL for a letter that is not a unit letter. */
int bnd_unit_letter(const struct bnd_topology *t, char letter, int *type, int *kind,
		    char *err, size_t errlen);

/* A packed unit= value ("T", "CT", "ET", "C", "E", "S", "CS", "ES", "X",
 * "CX", "EX", "Y", "CY", "EY", "N", "CN", "EN"; upper case only): the
 * unit type picked as one group and the core kind it must be, power or
 * efficiency (an E prefix or a lone E is efficiency). Levels the node
 * lacks are mapped as bnd_unit_letter does. BND_EINVAL for anything
 * else; callers word the message. */
int bnd_packed_unit(const struct bnd_topology *t, const char *unit, int *type, int *kind);


/* Is unit u printed in the OCS string under this letter's type/kind? (T
 * units exist for every PU but are printed only for cores with several.) */
bool bnd_unit_matches(const struct bnd_topology *t, int u, int type, int kind);

struct bnd_unitorder {
	int n;        /* t->nunits */
	int *order;   /* order[k]: unit at position k of the sorted string */
	int *pos;     /* pos[u]: position of unit u */
	int *end;     /* end[u]: position just past u's subtree */
};

/* Builds the unit order for `sort` (NULL or "" keeps document order).
 * pu_used[i] (PU index) marks threads that count as used for utilisation.
 * Per letter: the units of that level are stably sorted among their
 * siblings by the share of used threads in their subtree, upper case least
 * used first, lower case most used first. Where single-child units wrap
 * the sorted ones (an N around each S), the wrappers move with them. The
 * first letter is the primary key when two letters sort the same siblings.
 * A letter naming a unit the node lacks (E without efficiency cores, X
 * without an L3) is ignored, as OCS does. Where the sorted siblings are
 * NUMA nodes (or each holds exactly one), only the first is chosen by
 * load: the others follow by hwloc's distance from it, nearest first,
 * equal distances in document order (OCS's latency order); without a
 * matrix, or one giving every other node the same distance, load decides.
 * Returns BND_OK, BND_EINVAL (bad letter), BND_ENOMEM. */
int bnd_unitorder_build(struct bnd_unitorder *o, const struct bnd_topology *t,
			const bool *pu_used, const char *sort, char *err, size_t errlen);
void bnd_unitorder_free(struct bnd_unitorder *o);

/* Number of used threads in unit u's subtree (pu_used as above). */
int bnd_unit_used(const struct bnd_topology *t, int u, const bool *pu_used);

#endif
