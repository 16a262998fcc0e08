/* Entry points of gang.c that only tests, fuzzers and benches call: the
 * plugin and sbind never include binding/hooks/ (tests/cli/t_ship.sh). */
#ifndef BINDING_HOOKS_GANG_H
#define BINDING_HOOKS_GANG_H

#include "binding/suspend/gang.h"

/* The transitions without the thread, for tests: what the watcher calls
 * on each event (watcher.h's event callback). */
int bnd_gang_event(struct bnd_gang *g, int ev, long long seen_ms);
/* A controller without a thread (tests drive bnd_gang_event). */
int bnd_gang_open(struct bnd_gang **g, const struct bnd_gang_in *in, char *err, size_t errlen);

#endif
