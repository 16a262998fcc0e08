/* The binding reaches Slurm's scheduler: from a --binding/--mbind request
 * and the allocation options the user gave (allocopt.h), the Slurm options
 * the binding needs, so that Slurm allocates what the request will bind
 * (or keeps the job pending until it can), or a refusal naming both
 * numbers ("--binding=linear:2 needs 2 cores per task; -c 1 gives 1").
 * Pure: no topology, no Slurm, no I/O. The cli_filter (through `sbind
 * submit`), sbind and the plugin's "too small" reason all call this.
 *
 * Whole cores per task without knowing a node's threads per core:
 * --cpus-per-task=N with --threads-per-core=1 (Slurm then counts a core as
 * one CPU of the task's layout and allocates whole cores; shown on a
 * 2-thread-per-core node under CR_Core and CR_CPU). --hint=nomultithread
 * is silently ignored by srun when --cpu-bind is given, and
 * --ntasks-per-core=1 still counts -c in threads, so neither is used.
 * Whole nodes: --exclusive; the steps of such a job take every CPU of the
 * job on their nodes unless they give -c, --exact or --exclusive.
 */
#ifndef BINDING_SUBMIT_TRANSLATE_H
#define BINDING_SUBMIT_TRANSLATE_H

#include <stddef.h>

#include "binding/request/config.h"
#include "binding/request/request.h"
#include "binding/submit/allocopt.h"
#include "binding/submit/need.h"

#define BND_SUBMIT_MAX_SET 8
#define BND_SUBMIT_MAX_NOTES 4
#define BND_SUBMIT_TEXT 512

struct bnd_submit_opt {
	char name[24];                /* Slurm's long option name */
	char value[256];              /* "2", "1", "exclusive", "numamem:400M" */
	char why[BND_SUBMIT_TEXT];
};

struct bnd_submit {
	char what[BND_SUBMIT_TEXT];   /* the request and what it consumes */
	struct bnd_need need;
	int nset;
	struct bnd_submit_opt set[BND_SUBMIT_MAX_SET];
	int nnotes;
	char notes[BND_SUBMIT_MAX_NOTES][BND_SUBMIT_TEXT];
};

/* mode is the site's switch (plugstack.conf submit=, config.h).
 * r is the parsed --binding ("none" when not given); mbind the --mbind
 * value (nlocal without --binding binds one core per task). BND_OK: out
 * holds the options to add (maybe none) and notes. BND_ENOFIT: refused,
 * err says why, naming the request, what it needs and what the user's
 * option gives. BND_EINVAL: a request the table does not know. */
int bnd_submit_translate(const struct bnd_request *r, enum bnd_mbind mbind,
			 const struct bnd_alloc *a, enum bnd_submit_mode mode,
			 struct bnd_submit *out, char *err, size_t errlen);

/* Adds a note to out->notes; past BND_SUBMIT_MAX_NOTES it is dropped. */
void bnd_submit_note(struct bnd_submit *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "--cpus-per-task=2 --threads-per-core=1" ("--exclusive" for that flag),
 * "" when nothing is set. */
int bnd_submit_options_text(const struct bnd_submit *s, char *buf, size_t buflen);

#endif
