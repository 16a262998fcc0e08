/* The unit letters of the OCS / Grid Engine topology strings, in one table.
 *
 * N (NUMA node), S (socket), X (L3), Y (L2), C (power core), E (efficiency
 * core), T (hardware thread); lower case marks a taken unit. The request
 * grammar (sort=, start=, stop=, filter=, unit=), the plugstack
 * default_unit=, the printed strings and the packed walk all read this
 * table, so a letter means the same everywhere.
 */
#ifndef BINDING_UNITLETTER_H
#define BINDING_UNITLETTER_H

#include <stdbool.h>
#include <stddef.h>

/* kind value meaning "power or efficiency" */
#define BND_KIND_ANY (-1)

/* The letters in topology-string order, upper case. */
#define BND_UNIT_LETTERS "NSXYCET"
/* The same, spaced, for messages and help. */
#define BND_UNIT_LETTER_LIST "N S X Y C E T"

/* Is ch a unit letter, either case? */
bool bnd_is_unit_letter(char ch);

/* The unit type (enum bnd_unit_type) and core kind (enum bnd_core_kind,
 * or BND_KIND_ANY) a letter names, either case, without mapping levels a
 * node lacks (unitsort.h does that). false for any other character. */
bool bnd_unit_letter_type(char ch, int *type, int *kind);

/* The upper-case letter of a unit type and core kind, or 0 for a type
 * without one (the machine). */
char bnd_unit_type_letter(int type, int kind);

/* Is the letter printed in the OCS form only (N, X, Y, E), not in Grid
 * Engine's (S, C, T)? Either case. */
bool bnd_unit_letter_ocs_only(char ch);

/* Is unit a packed unit= name: one upper-case letter, or C/E followed by
 * a letter of a level above the core (S, X, Y, N) or by T ("CT", "ES")? */
bool bnd_packed_unit_name(const char *unit);

/* The accepted unit= names for messages, separated by sep, smallest unit
 * first ("T CT ET C E S CS ES ..."); truncated to buflen (64 holds all). */
void bnd_packed_unit_names(char sep, char *buf, size_t buflen);

#endif
