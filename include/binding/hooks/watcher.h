/* Entry points of watcher.c that only tests, fuzzers and benches call: the
 * plugin and sbind never include binding/hooks/ (tests/cli/t_ship.sh). */
#ifndef BINDING_HOOKS_WATCHER_H
#define BINDING_HOOKS_WATCHER_H

#include "binding/suspend/watcher.h"

/* Does this read of the inotify fd hold a ring of the step's doorbell (a
 * close after a write open, statewake.h), or a queue overflow, which may
 * have hidden one? Removing a watch queues an IN_IGNORED event: taken for
 * a ring, it made every step that stopped wanting state events wake itself
 * in a loop. */
int bnd_watch_rung(const void *buf, size_t len);

#endif
