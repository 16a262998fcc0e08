/* Slurm's per-node GRES detail of a job (slurm_load_job's
 * gres_detail_str, one string per node of the job, read by the glue
 * through slurm_compat.h): which NUMA nodes Slurm booked the job's memory
 * on when the site runs numamem (memory/booking.h). The same text on Slurm
 * 22.05, 24.11 and 26.05:
 *   "numamem:n0(CNT:268435456),numamem:n1(CNT:536870912)"
 *   "gpu:tesla:2(IDX:0,2),numamem:n3(CNT:419430400)"
 * Counts are bytes (gres.conf's Count=450M is 450 x 2^20).
 */
#ifndef BINDING_GRESDETAIL_H
#define BINDING_GRESDETAIL_H

#include <stddef.h>

#include "binding/memory/booking.h"
#include "binding/request/config.h"

/* The entries of GRES `name` in one node's detail text (NULL or "": none)
 * into b (emptied first), in MiB, rounded up. BND_EINVAL naming the entry
 * and the accepted form when one of them has no type n<node> or no count;
 * b then holds nothing. */
int bnd_gres_detail_booking(const char *detail, const char *name, struct bnd_booking *b,
			    char *err, size_t errlen);

#endif
