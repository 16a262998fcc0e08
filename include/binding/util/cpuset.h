/* A fixed-capacity set of OS processor numbers.
 *
 * Fixed size (no allocation) so placements and state records can be copied,
 * compared and stored without ownership rules. 4096 CPUs covers every node
 * Slurm runs on today; larger OS ids are rejected at parse time.
 */
#ifndef BINDING_CPUSET_H
#define BINDING_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BND_MAX_CPUS 4096
/* Room for a cpu list in a message; a longer list shows as "...". */
#define BND_CPULIST_TEXT 512

typedef struct {
	uint64_t w[BND_MAX_CPUS / 64];
} bnd_cpuset_t;

void bnd_cpuset_zero(bnd_cpuset_t *s);
void bnd_cpuset_set(bnd_cpuset_t *s, int cpu);   /* ignores cpu out of range */
bool bnd_cpuset_isset(const bnd_cpuset_t *s, int cpu);
int bnd_cpuset_count(const bnd_cpuset_t *s);
bool bnd_cpuset_empty(const bnd_cpuset_t *s);
bool bnd_cpuset_intersects(const bnd_cpuset_t *a, const bnd_cpuset_t *b);
bool bnd_cpuset_equal(const bnd_cpuset_t *a, const bnd_cpuset_t *b);
bool bnd_cpuset_subset(const bnd_cpuset_t *sub, const bnd_cpuset_t *super);
void bnd_cpuset_or(bnd_cpuset_t *dst, const bnd_cpuset_t *src);
void bnd_cpuset_andnot(bnd_cpuset_t *dst, const bnd_cpuset_t *src);
void bnd_cpuset_and(bnd_cpuset_t *dst, const bnd_cpuset_t *src);
/* Next set cpu > prev (start with prev = -1); -1 when none. */
int bnd_cpuset_next(const bnd_cpuset_t *s, int prev);

/* "0-3,8,10-11" (Linux cpulist form, as in Cpus_allowed_list). Returns
 * BND_OK or BND_EINVAL with a message naming the bad token. Empty string
 * gives an empty set. */
int bnd_cpuset_parse_list(bnd_cpuset_t *s, const char *text, char *err, size_t errlen);
/* The same for len bytes of text (no NUL needed). */
int bnd_cpuset_parse_span(bnd_cpuset_t *s, const char *text, size_t len, char *err,
			  size_t errlen);
/* Writes the compact list form; returns BND_OK or BND_EINVAL if buf is too small. */
int bnd_cpuset_format_list(const bnd_cpuset_t *s, char *buf, size_t buflen);
/* Space-separated ids ("0 2 5"), the SLURM_BINDING/SGE_BINDING form. */
int bnd_cpuset_format_spaced(const bnd_cpuset_t *s, char *buf, size_t buflen);
/* As hwloc prints a cpuset (OCS's SGE_BINDING_CPUSET, the task's mask in
 * slurmd's log): 32-bit words from the highest non-zero one, each
 * "0x%08x", a zero word empty but the lowest ("0x0"), joined by ','; the
 * empty set "0x0". BND_EINVAL when buflen is short: 11 bytes a word, and
 * the NUL, are always enough. */
int bnd_cpuset_format_hwloc(const bnd_cpuset_t *s, char *buf, size_t buflen);

#endif
