/* A step's life on this node, as one explicit state and the moves it
 * allows (the table in stepstate.c is the only place they are written):
 *
 *   NEW --prepare--> IDLE          nothing asked: tasks untouched
 *                    UNBOUND       no cores asked (--binding=none, --mbind
 *                                  alone): the tasks get their policy and
 *                                  variables, no affinity
 *                    FAILED        a request not honoured: reason says why,
 *                                  on_failure= decides in the task
 *                    NO_TOPOLOGY   this node's topology is NONE: on_any_host=
 *                                  decides in the task
 *                    READY         asks for cores it may have: to be placed
 *   READY --place--> PLACED        bound; its record holds cpus
 *                    DEFERRED      its record waits for cpus (on_failure=defer)
 *                    FAILED        nothing fits, or the state failed it
 *
 *   PLACED   --Slurm suspends-->   SUSPENDED          record holds no cpus
 *   DEFERRED --Slurm suspends-->   SUSPENDED_WAITING  (it held none)
 *   DEFERRED --cpus free up-->     PLACED
 *   SUSPENDED, SUSPENDED_WAITING --Slurm resumes--> PLACED, or DEFERRED
 *                                  (its cpus are taken, or the transaction
 *                                  failed: tried again at the next change)
 *   PLACED, DEFERRED, SUSPENDED*   --finish--> RELEASED
 *
 * The states with a record (PLACED, DEFERRED, SUSPENDED*) are the ones the
 * watcher (lib/suspend) moves between, from its thread, through
 * bnd_step_move only; prepare moves out of NEW, place out of READY
 * (READY is no step's last state: nothing is decided for its tasks yet),
 * finish into RELEASED.
 * The two suspended states differ in what a resume reports: a step that
 * waited before it was suspended is "bound (was deferred)".
 */
#ifndef BINDING_STEPSTATE_H
#define BINDING_STEPSTATE_H

#include <stdbool.h>

enum bnd_step_state {
	BND_STEP_NEW = 0,          /* not prepared (zeroed, or freed) */
	BND_STEP_READY,            /* prepared, not yet placed */
	BND_STEP_IDLE,
	BND_STEP_UNBOUND,
	BND_STEP_FAILED,
	BND_STEP_NO_TOPOLOGY,
	BND_STEP_PLACED,
	BND_STEP_DEFERRED,
	BND_STEP_SUSPENDED,
	BND_STEP_SUSPENDED_WAITING,
	BND_STEP_RELEASED,
	BND_STEP_NSTATES
};

struct bnd_step;

/* Moves s to `to` when the table allows it from s's state: BND_OK, else
 * BND_EINVAL and s unchanged (a move to the state s is in is refused too:
 * callers that may stay test for it). */
int bnd_step_move(struct bnd_step *s, enum bnd_step_state to);

/* Does the table allow from -> to? */
bool bnd_step_may_move(enum bnd_step_state from, enum bnd_step_state to);

/* The state's name for messages and tests ("placed", "deferred", ...). */
const char *bnd_step_state_name(enum bnd_step_state st);

/* Something to tell the tasks (every state place leaves but IDLE). */
bool bnd_step_active(const struct bnd_step *s);

/* The step has a state record to release (PLACED, DEFERRED, SUSPENDED*). */
bool bnd_step_recorded(const struct bnd_step *s);

/* What follows from a step's fields, asked rather than kept beside them:
 *   is_batch     the batch script's step: its tasks are the job's here,
 *                its cpus the script's whole share
 *   asks_cores   its request binds cores (or is made from the topology:
 *                LSF's variables, implicit=), or --mbind=nlocal brings
 *                a binding; else it is UNBOUND or IDLE
 *   gpu_aware    it learns its tasks' GPUs: gpu:<n>, near=gpu or
 *                --mbind=gpu */
bool bnd_step_is_batch(const struct bnd_step *s);
bool bnd_step_asks_cores(const struct bnd_step *s);
bool bnd_step_gpu_aware(const struct bnd_step *s);

#endif
