/* The node-wide rate of a stopped step's re-reads of slurmctld.
 *
 * A step whose tasks stay stopped without being judged suspended (a
 * user's kill -STOP, a debugger), or that stays judged suspended, asks
 * slurmctld again now and then: a suspension may follow a user's stop.
 * Each step backs off on its own (watcher.c), but a node with many such
 * steps would still send many RPCs, from root, to one controller. So the
 * re-reads of all steps of a node share one budget: at most one per
 * interval, taken with a compare-and-swap on a word in a root-only file of
 * the state dir (no lock: a watcher killed at any point holds nothing).
 */
#ifndef BINDING_SUSPEND_POLLRATE_H
#define BINDING_SUSPEND_POLLRATE_H

#include <stddef.h>

#define BND_POLLRATE_FILE_NAME "pollrate"

struct bnd_pollrate;

/* Opens (creating, root:root 0600) the budget in state_dir. BND_OK, or
 * BND_ESTATE/BND_ESYS with err set (the caller then has no node-wide
 * bound, only its own back-off). */
int bnd_pollrate_open(const char *state_dir, struct bnd_pollrate **out, char *err,
		      size_t errlen);

/* May this step ask now (monotonic ms)? 1 and the next re-read of the
 * node is due interval_ms later, or 0: another step asked less than
 * interval_ms ago. A NULL budget always says 1. */
int bnd_pollrate_take(struct bnd_pollrate *p, long long now_ms, long long interval_ms);

void bnd_pollrate_close(struct bnd_pollrate *p);

#endif
