/* numamem for one step (memory/booking.h): the memory Slurm booked for its
 * job on this node, learned at prepare, and each task's part of it, which
 * its memory policy names. A step whose job has no booking here (numamem
 * off, no --mbind, a job submitted without the filter) keeps the node's
 * own accounting.
 */
#ifndef BINDING_STEPBOOKING_H
#define BINDING_STEPBOOKING_H

#include <stddef.h>

#include "binding/memory/booking.h"
#include "binding/step/step.h"

/* Does the step take its memory from a booking? numamem=yes and a --mbind
 * that places memory by the step's cores or over its nodes (cores,
 * cores:strict, nlocal, round_robin), with a binding. */
int bnd_step_booking_wanted(const struct bnd_step *s);

/* s->booking from the job's GRES detail on this node (in->gres_detail),
 * when wanted; what it learned, or why not, goes to the step's log. */
void bnd_step_booking_learn(struct bnd_step *s, const struct bnd_step_in *in);

/* Local task local_id's part (the batch script: every task's), from the
 * placement and what the booking had left when it was made. 0 when the
 * step was not placed with a booking. */
int bnd_step_booking_task(const struct bnd_step *s, int local_id, struct bnd_booking_task *out);

/* The task's memory policy on its part: bind (cores:strict, nlocal),
 * preferred (cores), interleave over every booked node (round_robin).
 * nodes: the OS node ids ("0-1"). BND_OK or the system's error. */
int bnd_step_booking_policy(const struct bnd_step *s, const struct bnd_booking_task *bt,
			    char *nodes, size_t nlen, char *desc, size_t dlen, char *err,
			    size_t errlen);

/* The slurmd log's line about a placed step with a booking: the booking,
 * each task's part when tasks are few, and which ones Slurm split. */
void bnd_step_booking_report(const struct bnd_step *s, char *buf, size_t len);

#endif
