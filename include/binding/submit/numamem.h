/* numamem at submission (plugstack numamem=yes, docs/memory.md): the
 * memory a --mbind needs, asked of Slurm as the GRES numamem that each
 * node offers per NUMA node (types n0, n1, ...: `sbind gres-conf`), so
 * that Slurm books it per NUMA node and keeps a job pending until its NUMA
 * nodes have the memory (UGE 8.1's m_mem_free_n<N>).
 *
 * What Slurm can be asked (measured on 22.05, 24.11 and 26.05, docs):
 *   --gres=numamem:<MiB>M        per node, untyped: Slurm picks the types
 *                                and may split it over them, but refuses
 *                                at submission one that is larger than
 *                                every single type ("Requested node
 *                                configuration is not available")
 *   --gres=numamem:n0:<MiB>M,... typed: exactly those NUMA nodes, which
 *                                the job then waits for
 *   --tres-per-task=gres/numamem (24.11, 26.05; 22.05 has no such option)
 *                                books nothing per type (the job's detail
 *                                shows numamem:n0:0) and every step of the
 *                                job is refused ("Invalid generic resource
 *                                (gres) specification"): not used.
 * So: a node's memory that fits one NUMA node is asked untyped; more than
 * that, with each task's share fitting one, is asked typed per task (task
 * i on the i-th type, the types every numamem node has); round_robin asks
 * typed, evenly over those types; a task larger than every NUMA node is
 * refused with both numbers.
 */
#ifndef BINDING_SUBMIT_NUMAMEM_H
#define BINDING_SUBMIT_NUMAMEM_H

#include <stddef.h>
#include <stdint.h>

#include "binding/request/config.h"
#include "binding/request/request.h"
#include "binding/submit/allocopt.h"

#define BND_NUMAMEM_TYPES 64
#define BND_NUMAMEM_TYPE_LEN 16

/* What the submit host knows of the cluster's numamem: the plugstack
 * switch, and the node lines of slurm.conf (Gres=numamem:n0:497M,...). */
struct bnd_numamem_site {
	int on;                 /* numamem=yes */
	int nnodes;             /* node lines offering numamem */
	uint64_t largest_mib;   /* the largest type of any of them; 0: unknown */
	char largest[BND_NUMAMEM_TYPE_LEN];    /* that type's name */
	/* The types every such node line offers, with their smallest size. */
	int ntypes;
	char type[BND_NUMAMEM_TYPES][BND_NUMAMEM_TYPE_LEN];
	uint64_t type_mib[BND_NUMAMEM_TYPES];
};

/* Adds the numamem types of one node line's Gres= value ("gpu:2,
 * numamem:n0:497M,numamem:n1:1G"; counts as Slurm's: K, M, G, T = 2^10..,
 * a plain number is bytes) to the site's figures. Entries of other GRES
 * are skipped; a numamem entry without a type or count is ignored. */
void bnd_numamem_site_add(struct bnd_numamem_site *site, const char *gres);

/* One slurm.conf line: a NodeName line's numamem types into site (dflt,
 * of dlen bytes, carries NodeName=DEFAULT's Gres= from line to line, and
 * from file to file as slurmd reads Include lines inline). */
void bnd_numamem_site_line(struct bnd_numamem_site *site, const char *line, char *dflt,
			   size_t dlen);

/* Scans slurm.conf text for NodeName lines (NodeName=DEFAULT's Gres=
 * applies to the lines after it that give none) into site; include lines
 * ("Include PATH") are handed to include(ctx, path) in order. */
void bnd_numamem_site_scan(struct bnd_numamem_site *site, const char *text,
			   void (*include)(void *ctx, const char *path), void *ctx);

struct bnd_submit;

/* Adds to out the numamem request the binding needs (or a note why none),
 * given the options translate.h already set: BND_OK, or BND_ENOFIT with
 * err naming what cannot be had and both numbers. mode refuse: a request
 * that is needed and not given is refused, naming it. */
int bnd_submit_numamem(const struct bnd_request *r, enum bnd_mbind mbind,
		       const struct bnd_alloc *a, const struct bnd_numamem_site *site,
		       enum bnd_submit_mode mode, struct bnd_submit *out, char *err, size_t errlen);

#endif
