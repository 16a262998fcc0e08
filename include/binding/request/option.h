/* The user's options, checked where they are typed (srun, sbatch, salloc)
 * so a bad one stops the submission, and the help text for each. */
#ifndef BINDING_OPTION_H
#define BINDING_OPTION_H

#include <stddef.h>

#include "binding/request/request.h"
#include "binding/util/error.h"

/* The plugin's two options (the index of their values). */
enum bnd_option { BND_OPT_BINDING = 0, BND_OPT_MBIND, BND_OPT_COUNT };

/* BND_OK or BND_EINVAL with the parser's message naming the bad token.
 * BND_OK with a non-empty err is a warning to show. */
int bnd_option_check(enum bnd_option which, const char *text, char *err, size_t errlen);

/* An option's value where it is used (slurmstepd's option callback): the
 * text whole, as it crossed from srun in the launch message or the
 * environment, and the one parse of it on this side. The step takes both
 * (step.h, bnd_step_in), by pointer: the value outlives the step. */
struct bnd_option_value {
	char *text;             /* malloc'd, whole; NULL: not given */
	int rc;                 /* the parse: BND_OK, else err says why */
	struct bnd_request req; /* --binding, when rc is BND_OK */
	enum bnd_mbind mbind;   /* --mbind, when rc is BND_OK */
	char err[BND_ERRLEN];
};

/* Keeps a copy of text and its parse in v (what was there is freed: v
 * starts all zero, or as set before): BND_OK (whether or not the text
 * parsed: v->rc says), or BND_ENOMEM with v left empty. An empty text is
 * parsed as it is (the parser names it). */
int bnd_option_value_set(struct bnd_option_value *v, enum bnd_option which, const char *text);

/* Frees the text; v is empty (not given) again. */
void bnd_option_value_clear(struct bnd_option_value *v);

/* The grammar printed for --binding=help / --mbind=help. */
const char *bnd_option_help(enum bnd_option which);

#endif
