/* A step's watcher: one thread in slurmstepd that tells its owner when
 * Slurm suspends or resumes the step (verdict.h's rule), and when the
 * node's state file changed (a deferred step's chance to get cpus).
 *
 * Slurm gives no event for a suspension: SPANK has no callback, cgroup v1
 * freezer.state cannot be polled for changes, and a task's stop is only a
 * state in /proc. So the thread samples the tasks' states and the freezer
 * every sample_ms (a few small reads, no RPC), and sleeps in poll() on:
 *   - an eventfd that bnd_watch_stop writes (stop at once, no timeout);
 *   - inotify on the step's own doorbell in the state dir while the
 *     owner asks for state events (a transaction that lets the step in
 *     rings it: state/statewake.h; no other change wakes the thread);
 *   - cgroup v2's cgroup.events (POLLPRI on every freeze/thaw), when the
 *     step has it: then sampling is only a fallback.
 * slurmctld's job state (an RPC, through the owner's callback) is read
 * only when what is sampled changes, and again, backing off, while the
 * tasks stay stopped without being judged suspended (a user's stop that a
 * suspension follows), or stay judged suspended (recheck_ms below).
 */
#ifndef BINDING_SUSPEND_WATCHER_H
#define BINDING_SUSPEND_WATCHER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "binding/suspend/verdict.h"

enum bnd_watch_event {
	BND_WATCH_SUSPENDED = 1, /* Slurm suspended the step */
	BND_WATCH_RESUMED,       /* Slurm resumed it */
	BND_WATCH_STATE,         /* a change lets the step in (or first call: retry) */
	/* Tasks stopped but not suspended (a user's stop: cores kept); once
	 * per stop, for the log. */
	BND_WATCH_USER_STOP,
};

struct bnd_watch_cfg {
	const pid_t *pids;       /* the step's tasks (copied) */
	int npids;
	const char *proc_root;   /* "/proc" */
	const char *freezer;     /* freezer.state / cgroup.events, or NULL */
	int freezer_v2;          /* freezer is a cgroup.events (pollable) */
	const char *state_dir;   /* for BND_WATCH_STATE (inotify) */
	uint32_t job, step;      /* whose doorbell (statewake.h) */
	/* Sampling interval while the step runs (<= 0: 250 ms) and while it
	 * is stopped or suspended (<= 0: 50 ms). Slurm sends SIGTSTP 2 s
	 * before it freezes or SIGSTOPs a step, so the slow one still sees a
	 * suspension before the freeze; the fast one bounds the delay from
	 * the thaw to the rebind. An idle step costs 4 small reads a second. */
	int sample_ms;
	int fast_ms;
	/* The re-read of slurmctld while the tasks stay stopped: after
	 * recheck_ms (<= 0: 2000), then each time twice as long, up to
	 * recheck_max_ms (<= 0: 60000); and on the node as a whole at most
	 * one per node_recheck_ms (<= 0: 1000; pollrate.h, through the state
	 * dir). */
	int recheck_ms;
	int recheck_max_ms;
	int node_recheck_ms;
	/* A deferred step tries again every retry_ms (<= 0: 30000) when no
	 * state change woke it: a holder of its cpus may have died without
	 * any transaction to say so. */
	int retry_ms;
	/* slurmctld's state of the step's job; may be NULL (always UNKNOWN).
	 * Called from the watcher thread. */
	enum bnd_job_state (*job_state)(void *ctx);
	/* Called from the watcher thread for each event, with the time (unix
	 * ms) the change was seen. Returns 1 to get BND_WATCH_STATE events
	 * from now on (the step is deferred), 0 not to. */
	int (*event)(void *ctx, enum bnd_watch_event ev, long long seen_ms);
	void *ctx;
	/* Calls event(BND_WATCH_STATE) once at start (a step that starts
	 * deferred tries at once). */
	int start_deferred;
};

struct bnd_watch;

/* Starts the thread. BND_OK, or BND_ESYS/BND_ENOMEM with err set and
 * nothing left behind. */
int bnd_watch_start(struct bnd_watch **w, const struct bnd_watch_cfg *cfg,
		    char *err, size_t errlen);

/* Stops and joins the thread, closes its fds, frees w. NULL is fine. */
void bnd_watch_stop(struct bnd_watch *w);


/* Wakeups and slurmctld reads so far (bench, tests). */
void bnd_watch_counts(const struct bnd_watch *w, long *wakeups, long *job_reads);

#endif
