/* Which request a step runs. Four sources may offer one; the first in
 * this order that does wins (one table, stepsource.c):
 *
 *   1. --binding        the user's option (--binding=none included: it
 *                       opts the step out of everything below)
 *   2. LSF variables    LSB_USER_BIND_JOB / LSB_USER_BIND_CPU_LIST in the
 *                       step's environment (the user's too, so before the
 *                       site's)
 *   3. default=         the site's request for jobs that name none
 *   4. implicit=yes     the site's packed request, cpus per task in units
 *                       (config.c clears it when default= is set)
 *
 * None: only --mbind (if given) applies. The source shows where users
 * look: SLURM_BINDING_REQUEST holds the winning request, the -v line
 * names LSF's variables (and that --binding won over them), a no-fit
 * reason says "the site's implicit binding".
 */
#ifndef BINDING_STEPSOURCE_H
#define BINDING_STEPSOURCE_H

#include <stdbool.h>

enum bnd_step_source {
	BND_SRC_NONE = 0,
	BND_SRC_OPTION,   /* --binding */
	BND_SRC_LSF,      /* LSB_USER_BIND_JOB / LSB_USER_BIND_CPU_LIST */
	BND_SRC_DEFAULT,  /* plugstack default= */
	BND_SRC_IMPLICIT, /* plugstack implicit=yes */
};

struct bnd_step;
struct bnd_step_in;

/* Resolves s's request by the precedence table: sets s->source to the
 * first source that offers one (NONE when none does) and the -v line's
 * note. Nothing is parsed yet. */
enum bnd_step_source bnd_step_source_pick(struct bnd_step *s, const struct bnd_step_in *in);

/* Whether s->source's request is made from the node's topology (LSF's
 * amount in cores, implicit's unit): then bnd_step_source_make is called
 * once the topology is loaded, else before. */
bool bnd_step_source_needs_topology(enum bnd_step_source src);

/* s->req (and s->req_text, the text whole) from s->source: the option
 * callback's parse, default='s, or s->made from LSF's variables or
 * implicit= (cpus_per_task: Slurm's, for those two). BND_OK, else
 * s->reason says why. */
int bnd_step_source_make(struct bnd_step *s, const struct bnd_step_in *in, int cpus_per_task);

/* "--binding", "LSB_USER_BIND_JOB", "default=", "implicit=", "none". */
const char *bnd_step_source_name(enum bnd_step_source src);

#endif
