/* The step's states and the moves between them: one table, so prepare,
 * the task, the watcher and finish cannot disagree on what a step may
 * become (stepstate.h draws it). */
#include "binding/step/stepstate.h"

#include "binding/step/step.h"
#include "binding/util/error.h"

#define TO(st) (1u << (st))

/* allowed[from]: the states a step may move to from `from`. */
static const unsigned allowed[BND_STEP_NSTATES] = {
	[BND_STEP_NEW] = TO(BND_STEP_IDLE) | TO(BND_STEP_UNBOUND) | TO(BND_STEP_FAILED) |
			 TO(BND_STEP_NO_TOPOLOGY) | TO(BND_STEP_PLACED) | TO(BND_STEP_DEFERRED),
	[BND_STEP_PLACED] = TO(BND_STEP_SUSPENDED) | TO(BND_STEP_RELEASED),
	[BND_STEP_DEFERRED] = TO(BND_STEP_PLACED) | TO(BND_STEP_SUSPENDED_WAITING) |
			      TO(BND_STEP_RELEASED),
	[BND_STEP_SUSPENDED] = TO(BND_STEP_PLACED) | TO(BND_STEP_DEFERRED) | TO(BND_STEP_RELEASED),
	[BND_STEP_SUSPENDED_WAITING] = TO(BND_STEP_PLACED) | TO(BND_STEP_DEFERRED) |
				       TO(BND_STEP_RELEASED),
};

static const char *const names[BND_STEP_NSTATES] = {
	[BND_STEP_NEW] = "new",
	[BND_STEP_IDLE] = "idle",
	[BND_STEP_UNBOUND] = "unbound",
	[BND_STEP_FAILED] = "failed",
	[BND_STEP_NO_TOPOLOGY] = "no-topology",
	[BND_STEP_PLACED] = "placed",
	[BND_STEP_DEFERRED] = "deferred",
	[BND_STEP_SUSPENDED] = "suspended",
	[BND_STEP_SUSPENDED_WAITING] = "suspended-waiting",
	[BND_STEP_RELEASED] = "released",
};

static int valid(enum bnd_step_state st)
{
	return (unsigned)st < BND_STEP_NSTATES;
}

int bnd_step_may_move(enum bnd_step_state from, enum bnd_step_state to)
{
	return valid(from) && valid(to) && (allowed[from] & TO(to));
}

int bnd_step_move(struct bnd_step *s, enum bnd_step_state to)
{
	if (!s || !bnd_step_may_move(s->state, to))
		return BND_EINVAL;
	s->state = to;
	return BND_OK;
}

const char *bnd_step_state_name(enum bnd_step_state st)
{
	return valid(st) ? names[st] : "?";
}

int bnd_step_active(const struct bnd_step *s)
{
	return s->state != BND_STEP_NEW && s->state != BND_STEP_IDLE;
}

int bnd_step_recorded(const struct bnd_step *s)
{
	return s->state == BND_STEP_PLACED || s->state == BND_STEP_DEFERRED ||
	       s->state == BND_STEP_SUSPENDED || s->state == BND_STEP_SUSPENDED_WAITING;
}
