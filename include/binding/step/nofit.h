/* The reason a step prints when its request did not fit: formatting only,
 * from the sets the allocator computed under the lock. */
#ifndef BINDING_NOFIT_H
#define BINDING_NOFIT_H

#include "binding/state/state.h"
#include "binding/step/step.h"

/* Fills s->reason; alloc_err is bnd_state_allocate's message. */
void bnd_nofit_explain(struct bnd_step *s, const struct bnd_nofit *n, const char *alloc_err);

#endif
