#include "binding/suspend/gang.h"
#include "binding/hooks/gang.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/state/state.h"
#include "binding/state/transition.h"
#include "binding/suspend/rebind.h"
#include "binding/suspend/watcher.h"
#include "binding/util/error.h"

struct bnd_gang {
	struct bnd_gang_in in;
	pid_t *pids;
	struct bnd_task_id *ids; /* each task's identity: never acted on by number */
	char proc_root[256];
	/* The step's cgroup: the rebind touches only threads inside it. */
	char cgroup[1024];
	struct bnd_watch *watch;
	int suspends, resumes, deferrals;
	int migrations; /* tasks whose pages followed them to other nodes */
	int checks;     /* state changes that a lock-free check answered (no fit) */
	char last_why[BND_STATE_WHY_LEN];
};

static void glog(const struct bnd_gang *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void glog(const struct bnd_gang *g, const char *fmt, ...)
{
	const struct bnd_step *s = g->in.step;
	char msg[BND_ERRLEN + 512], sid[16];
	va_list ap;
	if (!s->log)
		return;
	int n = snprintf(msg, sizeof(msg), "job %" PRIu32 " step %s: ", s->job,
			 bnd_step_name(s->step, sid, sizeof(sid)));
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	s->log(s->log_ctx, msg);
}

int bnd_gang_wanted(const struct bnd_step *s)
{
	return s && bnd_step_recorded(s) && bnd_step_asks_cores(s) && s->topo;
}

static void cpus_text(const bnd_cpuset_t *c, char *buf, size_t len)
{
	if (bnd_cpuset_format_list(c, buf, len) != BND_OK)
		snprintf(buf, len, "...");
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Slurm suspended the step: its record gives its cpus up. The step is
 * suspended whether or not the transaction could say so (it is Slurm's
 * fact; a record left active is found again by the resume). */
static void on_suspend(struct bnd_gang *g, long long seen)
{
	struct bnd_step *s = g->in.step;
	struct bnd_state_opts o;
	char err[BND_ERRLEN], held[256] = "none";
	int was_placed = s->state == BND_STEP_PLACED;
	if (bnd_step_move(s, was_placed ? BND_STEP_SUSPENDED : BND_STEP_SUSPENDED_WAITING) != BND_OK)
		return;
	bnd_step_state_opts(s, &o);
	if (was_placed)
		cpus_text(&s->pl.all_cpus, held, sizeof(held));
	if (bnd_state_suspend(&o, s->job, s->step, "slurm-suspend", err, sizeof(err)) != BND_OK) {
		glog(g, "suspended by Slurm, but its cpus stay held: %s", err);
		return;
	}
	g->suspends++;
	if (g->in.verbose)
		glog(g, "suspended by Slurm: cpus %s released (%lld ms after the suspension was "
		     "seen)", held, bnd_state_now_ms() - seen);
}

/* Every task (the batch script: its whole tree) onto its cpus. */
static int rebind_all(struct bnd_gang *g, const struct bnd_placement *p, int *threads,
		      char *err, size_t errlen)
{
	const struct bnd_step *s = g->in.step;
	int rc = BND_OK;
	int migrate = bnd_rebind_rule(s->mbind, s->req->instance, s->booking.n > 0) == BND_MOVE_MIGRATE;
	*threads = 0;
	for (int i = 0; i < g->in.npids; i++) {
		bnd_cpuset_t c, old;
		bnd_nodeset_t from, to;
		int n = 0, moved = 0;
		if (!bnd_step_task_cpus(s, p, i, &c))
			continue;
		/* cores (preferred): the pages follow when the nodes change */
		if (migrate && s->pl.ntasks && bnd_step_task_cpus(s, &s->pl, i, &old)) {
			bnd_topology_numa_of_cpus(s->topo, &old, &from);
			bnd_topology_numa_of_cpus(s->topo, &c, &to);
			moved = !bnd_nodeset_empty(&from) && !bnd_nodeset_empty(&to) &&
				!bnd_nodeset_equal(&from, &to);
		}
		struct bnd_rebind_counts rc_;
		int r = bnd_rebind_tree(g->proc_root, &g->ids[i], &c, g->cgroup[0] ? g->cgroup : NULL,
					moved ? &from : NULL, moved ? &to : NULL, &rc_, err, errlen);
		n = rc_.threads;
		g->migrations += moved;
		*threads += n;
		if (rc_.vanished)
			glog(g, "task %d: %d thread(s) ended while being moved (first: tid %d of pid "
			     "%d); an id that ended before its call may have reached another "
			     "process", i, rc_.vanished, (int)rc_.vanished_tid, (int)rc_.vanished_pid);
		/* A task that ended is no failure; keep going with the others. */
		if (r != BND_OK && rc == BND_OK && n > 0)
			rc = r;
	}
	return rc;
}

/* Placed (again): every task moves onto p, which the step keeps. */
static void bound(struct bnd_gang *g, struct bnd_placement *p, enum bnd_resume_result res,
		  long long seen, int slurm_resumed)
{
	struct bnd_step *s = g->in.step;
	char rerr[BND_ERRLEN] = "", cl[256];
	int threads = 0, migrated = g->migrations;
	/* A step that waited for cpus before (deferred at its start, or at a
	 * resume, suspended or not since) is bound, not resumed. */
	int was_deferred = s->state == BND_STEP_DEFERRED ||
			   s->state == BND_STEP_SUSPENDED_WAITING;
	if (s->req->instance == BND_I_SET)
		rebind_all(g, p, &threads, rerr, sizeof(rerr));
	bnd_placement_free(&s->pl);
	s->pl = *p;
	bnd_step_move(s, BND_STEP_PLACED);
	g->last_why[0] = '\0';
	g->resumes++;
	cpus_text(&s->pl.all_cpus, cl, sizeof(cl));
	if (g->in.verbose || rerr[0])
		glog(g, "%s on cpus %s (%s), %d thread%s moved%s, %lld ms after the %s was seen%s%s",
		     was_deferred ? "bound (was deferred)" : "resumed",
		     cl, res == BND_RESUME_SAME ? "its previous cpus" : "a new placement",
		     threads, threads == 1 ? "" : "s",
		     g->migrations > migrated ? ", pages migrated to the new NUMA nodes" : "",
		     bnd_state_now_ms() - seen,
		     slurm_resumed ? "resume" : "state change", rerr[0] ? "; " : "", rerr);
}

/* Others hold the cpus: the record waits. The tasks keep their affinity
 * meanwhile: in the gang case their old cpus are exactly what they get
 * back once the other job's watcher has released them (a wider set would
 * show them on cpus they will not keep). */
static void waits(struct bnd_gang *g, const char *why, long long seen, int slurm_resumed)
{
	struct bnd_step *s = g->in.step;
	if (s->state == BND_STEP_SUSPENDED)
		g->deferrals++;
	if (s->state != BND_STEP_DEFERRED)
		bnd_step_move(s, BND_STEP_DEFERRED);
	if (g->in.verbose && strcmp(g->last_why, why)) {
		glog(g, "%s (%lld ms after the %s was seen)", why, bnd_state_now_ms() - seen,
		     slurm_resumed ? "resume" : "state change");
		snprintf(g->last_why, sizeof(g->last_why), "%.*s", (int)sizeof(g->last_why) - 1, why);
	}
}

/* A resumed or deferred step asks for cpus (its previous ones first).
 * Returns 1 while it waits (wants state events). */
static int on_resume(struct bnd_gang *g, long long seen, int slurm_resumed)
{
	struct bnd_step *s = g->in.step;
	struct bnd_state_opts o;
	struct bnd_alloc_args a;
	bnd_cpuset_t usable;
	char err[BND_ERRLEN] = "";
	bnd_step_state_opts(s, &o);
	bnd_step_usable(s, &usable);
	bnd_step_alloc_args(s, &usable, &a);
	struct bnd_resume_args ra = {
		.a = &a, .prev = s->pl.ntasks ? &s->pl : NULL,
		.prev_only = bnd_rebind_rule(s->mbind, s->req->instance, s->booking.n > 0) == BND_MOVE_KEEP,
	};
	/* A deferred step woken by a change of the state asks first, without
	 * the lock, whether it would fit now: the node's lock is taken only by
	 * the steps a change lets in, never by every waiting one. */
	if (!slurm_resumed && !bnd_state_resume_may_fit(&o, s->topo, s->req, &ra)) {
		g->checks++;
		return 1;
	}
	struct bnd_placement p;
	enum bnd_resume_result res;
	int rc = bnd_state_resume(&o, s->topo, s->req, &ra, &p, &res, err, sizeof(err));
	if (rc == BND_OK && (res == BND_RESUME_SAME || res == BND_RESUME_MOVED)) {
		bound(g, &p, res, seen, slurm_resumed);
		return 0;
	}
	if (rc == BND_OK) { /* already active: the suspension never took its cpus */
		bnd_step_move(s, BND_STEP_PLACED);
		return 0;
	}
	if (rc == BND_ENOFIT && res == BND_RESUME_DEFERRED) {
		waits(g, err, seen, slurm_resumed);
		return 1;
	}
	glog(g, "cannot take cpus back: %s", err);
	/* The record holds no cpus yet: the step waits, and a lock timeout or
	 * I/O error is tried again at the next change. */
	if (s->state != BND_STEP_DEFERRED)
		bnd_step_move(s, BND_STEP_DEFERRED);
	return rc != BND_ENOFIT;
}

static int suspended(const struct bnd_step *s)
{
	return s->state == BND_STEP_SUSPENDED || s->state == BND_STEP_SUSPENDED_WAITING;
}

static int waiting(const struct bnd_step *s)
{
	return s->state == BND_STEP_DEFERRED;
}

int bnd_gang_event(struct bnd_gang *g, int ev, long long seen_ms)
{
	switch (ev) {
	case BND_WATCH_SUSPENDED:
		on_suspend(g, seen_ms);
		return 0;
	case BND_WATCH_RESUMED:
		/* A placed step has nothing to take back. */
		return suspended(g->in.step) || waiting(g->in.step) ? on_resume(g, seen_ms, 1) : 0;
	case BND_WATCH_STATE:
		return waiting(g->in.step) ? on_resume(g, seen_ms, 0) : 0;
	case BND_WATCH_USER_STOP:
		if (g->in.verbose)
			glog(g, "tasks stopped, not by a Slurm suspension (a user's stop): cpus kept");
		return waiting(g->in.step);
	default:
		return 0;
	}
}

static int event_cb(void *ctx, enum bnd_watch_event ev, long long seen_ms)
{
	return bnd_gang_event(ctx, (int)ev, seen_ms);
}

static enum bnd_job_state job_cb(void *ctx)
{
	struct bnd_gang *g = ctx;
	return g->in.job_state(g->in.job_ctx);
}

int bnd_gang_open(struct bnd_gang **out, const struct bnd_gang_in *in, char *err, size_t errlen)
{
	*out = NULL;
	if (!in || !in->step || in->npids < 1 || !in->pids)
		return bnd_fail(err, errlen, BND_EINVAL, "gang: need a step and its task pids");
	struct bnd_gang *g = calloc(1, sizeof(*g));
	if (!g || !(g->pids = malloc((size_t)in->npids * sizeof(*g->pids))) ||
	    !(g->ids = calloc((size_t)in->npids, sizeof(*g->ids)))) {
		if (g)
			free(g->pids);
		free(g);
		return bnd_fail(err, errlen, BND_ENOMEM, "gang: out of memory");
	}
	g->in = *in;
	memcpy(g->pids, in->pids, (size_t)in->npids * sizeof(*g->pids));
	g->in.pids = g->pids;
	g->in.starts = NULL;
	snprintf(g->proc_root, sizeof(g->proc_root), "%s", in->proc_root ? in->proc_root : "/proc");
	/* A task that is gone by now keeps start 0: no process has it. */
	for (int i = 0; i < in->npids; i++) {
		if (in->starts)
			g->ids[i] = (struct bnd_task_id){ in->pids[i], in->starts[i] };
		else
			bnd_task_identify(g->proc_root, in->pids[i], &g->ids[i]);
	}
	bnd_step_cgroup(g->proc_root, g->pids[0], g->cgroup, sizeof(g->cgroup));
	*out = g;
	return BND_OK;
}

int bnd_gang_start(struct bnd_gang **out, const struct bnd_gang_in *in, char *err, size_t errlen)
{
	*out = NULL;
	if (!in || !bnd_gang_wanted(in->step))
		return BND_OK;
	struct bnd_gang *g;
	int rc = bnd_gang_open(&g, in, err, errlen);
	if (rc)
		return rc;
	char freezer[1200] = "";
	int v2 = 0;
	bnd_freezer_find(g->proc_root, in->cgroup_root ? in->cgroup_root : "/sys/fs/cgroup",
			 g->pids[0], freezer, sizeof(freezer), &v2);
	struct bnd_watch_cfg wc = {
		.pids = g->pids, .npids = in->npids, .proc_root = g->proc_root,
		.freezer = freezer, .freezer_v2 = v2, .state_dir = in->step->cfg->state_dir,
		.job = in->step->job, .step = in->step->step,
		.sample_ms = in->sample_ms, .job_state = in->job_state ? job_cb : NULL,
		.event = event_cb, .ctx = g, .start_deferred = waiting(in->step),
	};
	rc = bnd_watch_start(&g->watch, &wc, err, errlen);
	if (rc) {
		free(g->ids);
		free(g->pids);
		free(g);
		return rc;
	}
	if (in->verbose)
		glog(g, "watching %d task%s for suspend/resume (freezer %s)%s", in->npids,
		     in->npids == 1 ? "" : "s", freezer[0] ? freezer : "none: task states",
		     waiting(in->step) ? "; deferred, waiting for cpus" : "");
	*out = g;
	return BND_OK;
}

void bnd_gang_stop(struct bnd_gang *g)
{
	if (!g)
		return;
	if (g->in.verbose) {
		/* What the watcher cost this step: the idle-cost figure of make
		 * bench, per step, for an admin who wonders. */
		long wakeups = 0, reads = 0;
		bnd_watch_counts(g->watch, &wakeups, &reads);
		glog(g, "watcher ended: %ld wakeups, %ld slurmctld reads", wakeups, reads);
	}
	bnd_watch_stop(g->watch);
	free(g->ids);
	free(g->pids);
	free(g);
}

void bnd_gang_counts(const struct bnd_gang *g, int *suspends, int *resumes, int *deferrals)
{
	if (suspends)
		*suspends = g ? g->suspends : 0;
	if (resumes)
		*resumes = g ? g->resumes : 0;
	if (deferrals)
		*deferrals = g ? g->deferrals : 0;
}
