/* The step's states and the moves between them: one table, so prepare,
 * place, the task, the watcher and finish cannot disagree on what a step may
 * become (stepstate.h draws it). */
#include "binding/step/stepstate.h"

#include "binding/request/request.h"
#include "binding/step/step.h"
#include "binding/step/stepsource.h"
#include "binding/util/error.h"

#define TO(st) (1u << (st))

/* allowed[from]: the states a step may move to from `from`. */
static const unsigned allowed[BND_STEP_NSTATES] = {
	[BND_STEP_NEW] = TO(BND_STEP_IDLE) | TO(BND_STEP_UNBOUND) | TO(BND_STEP_FAILED) |
			 TO(BND_STEP_NO_TOPOLOGY) | TO(BND_STEP_READY),
	[BND_STEP_READY] = TO(BND_STEP_PLACED) | TO(BND_STEP_DEFERRED) | TO(BND_STEP_FAILED),
	[BND_STEP_PLACED] = TO(BND_STEP_SUSPENDED) | TO(BND_STEP_RELEASED),
	[BND_STEP_DEFERRED] = TO(BND_STEP_PLACED) | TO(BND_STEP_SUSPENDED_WAITING) |
			      TO(BND_STEP_RELEASED),
	[BND_STEP_SUSPENDED] = TO(BND_STEP_PLACED) | TO(BND_STEP_DEFERRED) | TO(BND_STEP_RELEASED),
	[BND_STEP_SUSPENDED_WAITING] = TO(BND_STEP_PLACED) | TO(BND_STEP_DEFERRED) |
				       TO(BND_STEP_RELEASED),
};

static const char *const names[BND_STEP_NSTATES] = {
	[BND_STEP_NEW] = "new",
	[BND_STEP_READY] = "ready",
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

static bool valid(enum bnd_step_state st)
{
	return (unsigned)st < BND_STEP_NSTATES;
}

bool bnd_step_may_move(enum bnd_step_state from, enum bnd_step_state to)
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

bool bnd_step_active(const struct bnd_step *s)
{
	return s->state != BND_STEP_NEW && s->state != BND_STEP_READY &&
	       s->state != BND_STEP_IDLE;
}

bool bnd_step_recorded(const struct bnd_step *s)
{
	return s->state == BND_STEP_PLACED || s->state == BND_STEP_DEFERRED ||
	       s->state == BND_STEP_SUSPENDED || s->state == BND_STEP_SUSPENDED_WAITING;
}

bool bnd_step_is_batch(const struct bnd_step *s)
{
	return s->step == BND_STEP_BATCH;
}

/* A source that makes its request from the topology asks for cores before
 * the request exists (stepsource.h). */
bool bnd_step_asks_cores(const struct bnd_step *s)
{
	return bnd_step_source_needs_topology(s->source) ||
	       bnd_request_places(s->source != BND_SRC_NONE ? s->req : NULL, s->mbind);
}

bool bnd_step_gpu_aware(const struct bnd_step *s)
{
	return (s->req && s->req->near_gpu) || s->mbind == BND_M_GPU;
}
