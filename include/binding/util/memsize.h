/* Memory sizes as Slurm writes them (--mem, plugstack.conf mem_reserve=),
 * in MiB. No I/O. */
#ifndef BINDING_MEMSIZE_H
#define BINDING_MEMSIZE_H

#include <stddef.h>
#include <stdint.h>

/* mem_reserve=: either an absolute MiB per node or a percentage. */
struct bnd_mem_reserve {
	uint64_t mib;
	int percent;   /* 0..99; used when > 0 */
};

/* Slurm's size syntax: a plain number is MiB; suffixes K, M, G, T (binary,
 * case-insensitive, an optional trailing B or iB). Fractions are not
 * accepted (Slurm takes none either). BND_EINVAL names the token and the
 * accepted form. */
int bnd_mem_parse_size(const char *text, uint64_t *mib, char *err, size_t errlen);
/* "2G", "512" (MiB), "5%"; BND_EINVAL otherwise. */
int bnd_mem_parse_reserve(const char *text, struct bnd_mem_reserve *r, char *err,
			  size_t errlen);

/* "5%" or "2G" as given, for logs. */
void bnd_mem_reserve_text(const struct bnd_mem_reserve *r, char *buf, size_t len);

#endif
