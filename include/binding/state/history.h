/* A state record's history: when its step was bound, deferred, suspended,
 * bound again or refused, on which cpus and why (sbind status --job shows
 * it, report/receipt.h). Kept in the record as text (hist=, statefile.h):
 *
 *   hist=4/bound@1795306228123=0-3/suspended@1795306230000=0-3:slurm-suspend/rebound@1795306235000=0-3
 *
 * the number of events the step has had, then its events, oldest first,
 * each <kind>@<unix ms>[=<cpus>][:<why>]. A step suspended and resumed by
 * the gang scheduler for hours would grow without bound: the first event
 * (how the step started) and the last BND_HIST_KEEP - 1 are kept, and the
 * count says how many there were. A cpu list longer than
 * BND_HIST_CPUS_MAX characters is left out of its event (the record's
 * cpus= has it).
 */
#ifndef BINDING_STATE_HISTORY_H
#define BINDING_STATE_HISTORY_H

#include <stddef.h>

#include "binding/util/cpuset.h"

#define BND_HIST_KEEP 8
#define BND_HIST_CPUS_MAX 64
#define BND_HIST_WHY_LEN 128 /* = BND_STATE_WHY_LEN: an event's why is the record's */

enum bnd_hist_kind {
	BND_H_BOUND = 0,  /* got cores at its start, or first after waiting */
	BND_H_DEFERRED,   /* waits for cores others hold */
	BND_H_SUSPENDED,  /* Slurm suspended it: its cores released */
	BND_H_REBOUND,    /* bound again after a suspension or a wait */
	BND_H_UNBOUND,    /* refused: runs unbound (or its tasks fail) */
	BND_H_COUNT
};

struct bnd_hist_event {
	enum bnd_hist_kind kind;
	long long ms;
	char cpus[BND_HIST_CPUS_MAX + 1]; /* "" when none or left out */
	char why[BND_HIST_WHY_LEN];       /* "" when none */
};

const char *bnd_hist_kind_name(enum bnd_hist_kind k);

/* Unix time in ms, as since= and the history hold it. */
long long bnd_state_now_ms(void);

/* Adds an event to *hist (malloc'd text, NULL when the record has none
 * yet; replaced). cpus may be NULL, why NULL or "" (characters outside the
 * state's why alphabet become '-'). BND_OK or BND_ENOMEM (*hist kept). */
int bnd_hist_append(char **hist, enum bnd_hist_kind kind, long long ms, const bnd_cpuset_t *cpus,
		    const char *why);

/* Is the n bytes at text a history as above? 0, or -1. */
int bnd_hist_check(const char *text, size_t n);

/* How many events the step has had (the events kept may be fewer). */
unsigned long long bnd_hist_total(const char *hist);

/* The events in order: *pos starts at 0; 1 with *ev filled, 0 after the
 * last (or on text that is no history). */
int bnd_hist_next(const char *hist, size_t *pos, struct bnd_hist_event *ev);

#endif
