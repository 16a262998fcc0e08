#include "binding/suspend/watcher.h"
#include "binding/hooks/watcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "binding/state/statedir.h"
#include "binding/state/statewake.h"
#include "binding/state/transition.h"
#include "binding/suspend/pollrate.h"
#include "binding/util/error.h"
#include "binding/util/fault.h"

#define BND_WATCH_OPEN_MAX 64

struct bnd_watch {
	struct bnd_watch_cfg cfg;
	pid_t *pids;
	int *statfd;          /* /proc/PID/stat of each task, kept open: -1 */
	char *proc_root, *freezer, *state_dir;
	int stopfd, infd, wd;
	int frzfd;            /* the freezer file, kept open: -1 */
	/* frzfd is a cgroup.events to poll. kernfs keeps such a file readable
	 * for POLLPRI from a change until that same open file is read again,
	 * so every wake must read frzfd itself (take_sample does): reading
	 * the path through another fd left it signalled and the watcher
	 * spinning, a CPU per step on cgroup v2. */
	int frz_poll;
	struct bnd_pollrate *rate; /* the node's budget of re-reads, or NULL */
	pthread_t thread;
	atomic_long wakeups, job_reads;
};

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What is seen without asking slurmctld. */
struct sample {
	int stopped;             /* tasks in state T or t */
	enum bnd_freeze freezer;
	int dwait;               /* tasks in state D (a v1 freeze shows so) */
};

/* The state letter of an open /proc/PID/stat, 0 when gone. A read
 * regenerates the file, so an idle sample costs no path lookup. */
static char state_fd(int fd)
{
	char buf[1024];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0; /* ended (ESRCH) */
	buf[n] = '\0';
	return bnd_task_state_parse(buf);
}

static void take_sample(struct bnd_watch *w, struct sample *s)
{
	s->stopped = s->dwait = 0;
	for (int i = 0; i < w->cfg.npids; i++) {
		if (w->statfd[i] < 0) {
			s->stopped += bnd_task_stopped(w->proc_root, w->pids[i]);
			continue;
		}
		char c = state_fd(w->statfd[i]);
		s->stopped += c == 'T' || c == 't';
		s->dwait += c == 'D';
	}
	if (w->frzfd >= 0) {
		char buf[512];
		ssize_t n = pread(w->frzfd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		s->freezer = n > 0 ? bnd_freezer_parse(buf) : BND_FREEZE_NONE;
		/* A removed cgroup's file fails every read and polls ready
		 * for good: sample by time from then on. */
		if (n <= 0)
			w->frz_poll = 0;
	} else {
		s->freezer = bnd_freezer_read(w->freezer);
	}
}

/* A waiting step listens to its own doorbell (statewake.h): a
 * transaction rings it when it lets this step in, and no other change
 * wakes the thread. Made before the owner checks the state (call, below),
 * so a change after that check always rings it. */
static void want_state(struct bnd_watch *w, int on)
{
	char path[1200], err[BND_ERRLEN];
	if (w->infd < 0 || on == (w->wd >= 0))
		return;
	if (on) {
		if (bnd_state_wake_make(w->state_dir, w->cfg.job, w->cfg.step, path, sizeof(path), err,
					sizeof(err)) == BND_OK)
			w->wd = inotify_add_watch(w->infd, path, IN_CLOSE_WRITE);
	} else {
		inotify_rm_watch(w->infd, w->wd);
		w->wd = -1;
		bnd_state_wake_remove(w->state_dir, w->cfg.job, w->cfg.step);
	}
}

/* The watch goes in before the owner tries (a deferred step's cpus may
 * free up between its failed try and a watch added after it: that wakeup
 * would be lost), and stays only if the owner still wants it. */
static void call(struct bnd_watch *w, enum bnd_watch_event ev, long long seen)
{
	if (ev != BND_WATCH_SUSPENDED)
		want_state(w, 1);
	want_state(w, w->cfg.event(w->cfg.ctx, ev, seen));
}

int bnd_watch_rung(const void *buf, size_t len)
{
	const char *p = buf;
	while (len >= sizeof(struct inotify_event)) {
		struct inotify_event ev;
		memcpy(&ev, p, sizeof(ev));
		size_t one = sizeof(ev) + ev.len;
		if (ev.mask & (IN_Q_OVERFLOW | IN_CLOSE_WRITE))
			return 1;
		if (one > len)
			break;
		p += one;
		len -= one;
	}
	return 0;
}

/* Empties the inotify queue; 1 when the doorbell rang. */
static int drain(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	int rung = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		rung |= bnd_watch_rung(buf, (size_t)n);
	return rung;
}

/* Is a re-read of slurmctld due, with nothing changed? Every recheck_cur
 * ms while the tasks stay unsettled, the interval doubling after each
 * read up to recheck_max_ms (judge): a step stopped for hours costs
 * slurmctld a few reads an hour. */
static int recheck_due(long long now, long long last_ask, long long recheck_cur)
{
	return now - last_ask >= recheck_cur;
}

/* May this step ask slurmctld now? Every read, for a change or a
 * re-read, goes through the node's one budget (pollrate.h): stopped-state
 * changes a user makes at will (SIGSTOP, SIGCONT) cost slurmctld at most
 * one read per node_recheck_ms from the whole node, and these reads come
 * from root, past slurmctld's own per-user limit. */
static int budget_allows(struct bnd_watch *w, long long now)
{
	const long long node_ms = w->cfg.node_recheck_ms > 0 ? w->cfg.node_recheck_ms : 1000;
	return bnd_pollrate_take(w->rate, now, node_ms);
}

/* What the thread carries from one pass to the next. */
struct pass {
	struct sample last;
	int suspended;
	/* From a resume until the tasks are seen running: a stop then is
	 * Slurm's SIGTSTP waiting for its SIGCONT, which follows the thaw. */
	int resuming;
	int unsettled;  /* stopped, suspended or freezing: sample fast */
	long long last_ask, last_try, recheck_cur;
	int sample_ms, fast_ms, recheck_ms, retry_ms;
};

static void pass_init(const struct bnd_watch *w, struct pass *p)
{
	memset(p, 0, sizeof(*p));
	p->last = (struct sample){ -1, BND_FREEZE_NONE, 0 };
	p->last_try = mono_ms();
	p->sample_ms = w->cfg.sample_ms > 0 ? w->cfg.sample_ms : 250;
	p->fast_ms = w->cfg.fast_ms > 0 ? w->cfg.fast_ms : 50;
	p->recheck_ms = w->cfg.recheck_ms > 0 ? w->cfg.recheck_ms : 2000;
	p->retry_ms = w->cfg.retry_ms > 0 ? w->cfg.retry_ms : 30000;
	p->recheck_cur = p->recheck_ms;
}

/* Sleeps until something may have changed: 0 when the thread is to stop,
 * else *state_changed says whether the state file was replaced. */
static int wait_wake(struct bnd_watch *w, const struct pass *p, int *state_changed)
{
	struct pollfd fds[3] = {
		{ w->stopfd, POLLIN, 0 },
		{ w->infd, POLLIN, 0 },
		{ w->frz_poll ? w->frzfd : -1, POLLPRI, 0 },
	};
	/* With cgroup.events the kernel wakes us; sampling then only guards
	 * against a missed event. */
	int timeout = p->unsettled ? p->fast_ms : p->sample_ms;
	if (w->frz_poll)
		timeout *= 10;
	int n = poll(fds, 3, timeout);
	atomic_fetch_add(&w->wakeups, 1);
	if ((n < 0 && errno != EINTR) || fds[0].revents)
		return 0;
	*state_changed = (fds[1].revents & POLLIN) ? drain(w->infd) : 0;
	return 1;
}

/* Asks slurmctld, counted; after a re-read (nothing changed) the next
 * one waits twice as long. */
static enum bnd_job_state ask(struct bnd_watch *w, struct pass *p, int changed, long long now)
{
	const long long max_ms = w->cfg.recheck_max_ms > 0 ? w->cfg.recheck_max_ms : 60000;
	BND_PROBE("watch.job_read", w);
	atomic_fetch_add(&w->job_reads, 1);
	p->last_ask = now;
	if (!changed)
		p->recheck_cur = p->recheck_cur * 2 < max_ms ? p->recheck_cur * 2 : max_ms;
	return w->cfg.job_state(w->cfg.ctx);
}

/* What changed, judged (verdict.h) and told to the owner: a suspension,
 * a resume or a user's stop. 1 when a suspension or resume was told; -1
 * when it needs slurmctld's word and the node's budget says not now: then
 * nothing is judged, and the change is judged at a later pass. */
static int judge(struct bnd_watch *w, struct pass *p, const struct sample *s, int changed,
		 long long seen, long long now)
{
	const struct sample *last = &p->last;
	struct bnd_suspend_obs o = { s->freezer, BND_JOB_UNKNOWN, s->stopped, 0 };
	/* from FREEZING too: a v1 freezer can stay there a while with tasks
	 * that SIGTSTP had stopped */
	o.thawed = p->suspended && s->freezer == BND_FREEZE_THAWED &&
		   (last->freezer == BND_FREEZE_FROZEN || last->freezer == BND_FREEZE_FREEZING);
	/* Asking costs an RPC: only when something may have changed. */
	if (w->cfg.job_state && (p->unsettled || p->suspended) && !o.thawed) {
		if (!budget_allows(w, now))
			return -1;
		o.job = ask(w, p, changed, now);
	}
	int v = bnd_suspend_verdict(&o);
	/* proctrack/cgroup turns scancel -s STOP into a freeze */
	int frozen = s->freezer == BND_FREEZE_FROZEN || s->freezer == BND_FREEZE_FREEZING;
	int was = last->freezer == BND_FREEZE_FROZEN || last->freezer == BND_FREEZE_FREEZING;
	/* A thaw of a Slurm suspension can find the tasks still stopped by
	 * its SIGTSTP (SIGCONT follows the thaw), in the pass that ends the
	 * suspension or after it (a frozen task shows D, and T once thawed):
	 * that is the resume, not a user's stop. */
	if (!v && !p->suspended && !p->resuming && changed && !o.thawed &&
	    ((s->stopped > 0 && s->stopped > last->stopped) || (frozen && !was)))
		call(w, BND_WATCH_USER_STOP, seen);
	if (v == p->suspended)
		return 0;
	p->suspended = v;
	p->resuming = !v;
	call(w, v ? BND_WATCH_SUSPENDED : BND_WATCH_RESUMED, seen);
	return 1;
}

static void *run(void *arg)
{
	struct bnd_watch *w = arg;
	struct pass p;
	int state_changed = 0;
	pass_init(w, &p);
	if (w->cfg.start_deferred)
		call(w, BND_WATCH_STATE, bnd_state_now_ms());
	while (wait_wake(w, &p, &state_changed)) {
		long long seen = bnd_state_now_ms();
		struct sample s;
		take_sample(w, &s);
		long long now = mono_ms();
		int changed = s.stopped != p.last.stopped || s.freezer != p.last.freezer;
		p.unsettled = s.stopped || p.suspended ||
			      (s.freezer != BND_FREEZE_NONE && s.freezer != BND_FREEZE_THAWED);
		if (changed)
			p.recheck_cur = p.recheck_ms;
		if (changed || (p.unsettled && recheck_due(now, p.last_ask, p.recheck_cur))) {
			int told = judge(w, &p, &s, changed, seen, now);
			if (told > 0)
				state_changed = 0;
			/* Not judged: p.last stays, so the change is seen again. */
			if (told >= 0)
				p.last = s;
		}
		if (p.resuming && !s.stopped && !s.dwait &&
		    (s.freezer == BND_FREEZE_NONE || s.freezer == BND_FREEZE_THAWED))
			p.resuming = 0;
		/* A deferred step also tries now and then with no change seen:
		 * a holder of its cpus may have died without a transaction. */
		if (!state_changed && !p.suspended && w->wd >= 0 && now - p.last_try >= p.retry_ms)
			state_changed = 1;
		if (state_changed && !p.suspended) {
			p.last_try = now;
			call(w, BND_WATCH_STATE, seen);
		}
	}
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

static void destroy(struct bnd_watch *w)
{
	if (w->wd >= 0 && w->state_dir)
		bnd_state_wake_remove(w->state_dir, w->cfg.job, w->cfg.step);
	if (w->stopfd >= 0)
		close(w->stopfd);
	if (w->infd >= 0)
		close(w->infd);
	if (w->frzfd >= 0)
		close(w->frzfd);
	for (int i = 0; w->statfd && i < w->cfg.npids; i++)
		if (w->statfd[i] >= 0)
			close(w->statfd[i]);
	free(w->statfd);
	bnd_pollrate_close(w->rate);
	free(w->pids);
	free(w->proc_root);
	free(w->freezer);
	free(w->state_dir);
	free(w);
}

/* Each task's /proc/PID/stat, kept open for the first tasks only: a wide
 * step must not cost slurmstepd hundreds of fds. */
static int open_stats(struct bnd_watch *w)
{
	w->statfd = malloc((size_t)(w->cfg.npids ? w->cfg.npids : 1) * sizeof(*w->statfd));
	if (!w->statfd)
		return BND_ENOMEM;
	for (int i = 0; i < w->cfg.npids; i++) {
		char path[1100];
		snprintf(path, sizeof(path), "%s/%d/stat", w->proc_root, (int)w->pids[i]);
		w->statfd[i] = i < BND_WATCH_OPEN_MAX ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	}
	return BND_OK;
}

int bnd_watch_start(struct bnd_watch **out, const struct bnd_watch_cfg *cfg,
		    char *err, size_t errlen)
{
	*out = NULL;
	if (!cfg || !cfg->event || cfg->npids < 0 || (cfg->npids && !cfg->pids))
		return bnd_fail(err, errlen, BND_EINVAL, "watcher: bad arguments");
	struct bnd_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return bnd_fail(err, errlen, BND_ENOMEM, "watcher: out of memory");
	w->cfg = *cfg;
	w->stopfd = w->infd = w->wd = w->frzfd = -1;
	w->pids = malloc((size_t)(cfg->npids ? cfg->npids : 1) * sizeof(*w->pids));
	w->proc_root = strdup(cfg->proc_root ? cfg->proc_root : "/proc");
	w->freezer = dup_or_null(cfg->freezer);
	w->state_dir = dup_or_null(cfg->state_dir);
	if (!w->pids || !w->proc_root || (cfg->freezer && *cfg->freezer && !w->freezer) ||
	    (cfg->state_dir && *cfg->state_dir && !w->state_dir)) {
		destroy(w);
		return bnd_fail(err, errlen, BND_ENOMEM, "watcher: out of memory");
	}
	if (cfg->npids)
		memcpy(w->pids, cfg->pids, (size_t)cfg->npids * sizeof(*w->pids));
	if (open_stats(w) != BND_OK) {
		destroy(w);
		return bnd_fail(err, errlen, BND_ENOMEM, "watcher: out of memory");
	}
	w->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stopfd < 0) {
		int e = errno;
		destroy(w);
		return bnd_fail(err, errlen, BND_ESYS, "watcher: eventfd: %s", strerror(e));
	}
	if (w->state_dir) {
		w->infd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		if (w->infd < 0) {
			int e = errno;
			destroy(w);
			return bnd_fail(err, errlen, BND_ESYS, "watcher: inotify: %s", strerror(e));
		}
	}
	if (w->freezer) {
		w->frzfd = open(w->freezer, O_RDONLY | O_CLOEXEC); /* best effort */
		w->frz_poll = w->frzfd >= 0 && cfg->freezer_v2;
	}
	/* Best effort too: without it the step still backs off on its own. */
	char rerr[BND_ERRLEN];
	if (w->state_dir && cfg->job_state)
		bnd_pollrate_open(w->state_dir, &w->rate, rerr, sizeof(rerr));
	int rc = pthread_create(&w->thread, NULL, run, w);
	if (rc) {
		destroy(w);
		return bnd_fail(err, errlen, BND_ESYS, "watcher: thread: %s", strerror(rc));
	}
	*out = w;
	return BND_OK;
}

void bnd_watch_stop(struct bnd_watch *w)
{
	if (!w)
		return;
	uint64_t one = 1;
	if (write(w->stopfd, &one, sizeof(one)) < 0) {
		/* an eventfd write fails only on overflow: it is readable anyway */
	}
	pthread_join(w->thread, NULL);
	destroy(w);
}

void bnd_watch_counts(const struct bnd_watch *w, long *wakeups, long *job_reads)
{
	if (wakeups)
		*wakeups = w ? atomic_load(&w->wakeups) : 0;
	if (job_reads)
		*job_reads = w ? atomic_load(&w->job_reads) : 0;
}
