#include "binding/step/step.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/task/apply.h"
#include "binding/task/rankfile.h"
#include "binding/util/error.h"
#include "binding/util/safefile.h"
#include "binding/placement/near.h"
#include "binding/report/metrics.h"
#include "binding/step/nofit.h"
#include "binding/step/stepbooking.h"
#include "binding/step/slurmconf.h"
#include "binding/step/stepfit.h"
#include "binding/step/stepinfo.h"
#include "binding/topology/topocache.h"
#include "binding/state/state.h"
#include "binding/state/transition.h"

static void step_log(const struct bnd_step *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void step_log(const struct bnd_step *s, const char *fmt, ...)
{
	char msg[BND_ERRLEN + 256];
	va_list ap;
	if (!s->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->log(s->log_ctx, msg);
}

/* metrics_file=: the node's metrics after each change of its state. */
static void write_metrics(void *ctx)
{
	const struct bnd_step *s = ctx;
	char err[BND_ERRLEN] = "";
	if (bnd_metrics_update(s->cfg->state_dir, s->cfg->metrics_file, s->topo, &s->cfg->mem_reserve,
			       s->log, s->log_ctx, err, sizeof(err)) != BND_OK)
		step_log(s, "job %u: metrics_file=%s: %s", s->job, s->cfg->metrics_file, err);
}

static void state_opts(const struct bnd_step *s, struct bnd_state_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->dir = s->cfg->state_dir;
	o->lock_timeout_ms = s->cfg->lock_timeout_ms;
	o->log = s->log;
	o->log_ctx = s->log_ctx;
	o->topo = s->topo;
	/* const: the pending counts are the step's, zeroed once written */
	o->pending = (struct bnd_counts *)&s->pending;
	if (s->cfg->metrics_file[0]) {
		o->committed = write_metrics;
		o->committed_ctx = (void *)s;
	}
}

/* The rankfile's text from the placement, written through the state
 * dir's safe-file layer (task/rankfile.h). */
static int write_rankfile(struct bnd_step *s, const struct bnd_step_in *in,
			  char *err, size_t errlen)
{
	char sid[16], note[BND_ERRLEN + BND_CONFIG_PATH_MAX] = "", *text = NULL;
	int *ids = calloc((size_t)s->ntasks, sizeof(*ids));
	bnd_cpuset_t *cpus = calloc((size_t)s->ntasks, sizeof(*cpus));
	int rc = BND_ENOMEM;

	if (!ids || !cpus)
		goto out;
	for (int i = 0; i < s->ntasks && bnd_share_group_of(i, s->share) < s->pl.ntasks; i++) {
		ids[i] = (!bnd_step_is_batch(s) && in->global_ids) ? in->global_ids[i] : i;
		cpus[i] = s->pl.tasks[bnd_share_group_of(i, s->share)].cpus;
	}
	rc = bnd_rankfile_format(s->topo, s->host, s->ntasks, ids, cpus, &text, err, errlen);
	if (rc == BND_OK)
		rc = bnd_rankfile_write(s->cfg->state_dir, s->job,
					bnd_step_name(s->step, sid, sizeof(sid)), s->nodeid, s->uid, text,
					s->rankfile, sizeof(s->rankfile), note, sizeof(note), err,
					errlen);
	/* written after its transaction: counted by the step's next one */
	if (rc == BND_OK)
		bnd_counts_inc(&s->pending, BND_CNT_RANKFILE);
	if (note[0])
		step_log(s, "job %u: %s", s->job, note);
out:
	free(text);
	free(ids);
	free(cpus);
	return rc;
}

/* Grid Engine's 0,0: the core a site keeps for the system's daemons. */
static void first_core_cpus(const struct bnd_topology *t, bnd_cpuset_t *out)
{
	int core = bnd_topology_core_at(t, 0, 0);
	bnd_cpuset_zero(out);
	if (core < 0 && t->ncores > 0)
		core = 0;
	if (core >= 0)
		bnd_topology_core_cpus(t, core, out);
}

/* Grid Engine reports such a node's topology as NONE; OCS's on_any_host
 * says whether jobs with a binding request run there (unbound) at all. */
static void no_topology(struct bnd_step *s, const char *err)
{
	s->topo = NULL;
	s->refusal = BND_R_NO_TOPOLOGY;
	bnd_format(s->reason, sizeof(s->reason), "this node's topology is NONE: %s (%s)", err,
		 s->cfg->on_any_host ? "on_any_host=yes: runs unbound"
				    : "on_any_host=no: a binding request fails here");
	step_log(s, "job %u: %s", s->job, s->reason);
}

/* Entry nodeid of a host list, when it is a valid host name. */
static int name_from_list(const char *list, uint32_t nodeid, char *out, size_t outlen)
{
	if (!list || !*list ||
	    bnd_hostlist_nth(list, (int)nodeid, out, outlen, NULL, 0) != BND_OK)
		return 0;
	return bnd_hostname_valid(out);
}

/* This node's name for the rankfile root writes and for messages. The
 * lists come from the step's environment, which the user controls, so a
 * name must pass bnd_hostname_valid (a newline would add lines to the
 * rankfile). A batch step's SLURM_STEP_NODELIST can only be what the
 * submitting shell carried: the job's list names the batch host. */
static void node_name(struct bnd_step *s, const struct bnd_step_in *in)
{
	const char *first = bnd_step_is_batch(s) ? in->job_nodelist : in->step_nodelist;
	if (name_from_list(first, in->nodeid, s->host, sizeof(s->host)) ||
	    (!bnd_step_is_batch(s) &&
	     name_from_list(in->job_nodelist, in->nodeid, s->host, sizeof(s->host))))
		return;
	memset(s->host, 0, sizeof(s->host));
	if (gethostname(s->host, sizeof(s->host) - 1) == 0 && bnd_hostname_valid(s->host))
		return;
	snprintf(s->host, sizeof(s->host), "localhost");
}

/* gres.conf's path, and cgroup.conf's beside it. */
static void conf_paths(const struct bnd_step *s, const struct bnd_step_in *in, char *gres,
		       char *cgroup, size_t len)
{
	char dir[BND_CONFIG_PATH_MAX];
	if (s->cfg->gres_conf[0]) {
		snprintf(gres, len, "%s", s->cfg->gres_conf);
		bnd_slurmconf_dir(s->cfg->gres_conf, dir, sizeof(dir));
	} else {
		bnd_slurmconf_dir(in->slurm_conf, dir, sizeof(dir));
		snprintf(gres, len, "%s/gres.conf", dir);
	}
	snprintf(cgroup, len, "%s/cgroup.conf", dir);
}

/* Each task's GPUs (stepgpu.h), for ntasks tasks here. Whatever cannot be
 * learned leaves those GPUs without locality and is logged. */
static void learn_gpus(struct bnd_step *s, const struct bnd_step_in *in, int ntasks)
{
	char gres_path[BND_CONFIG_PATH_MAX + 16], cg_path[BND_CONFIG_PATH_MAX + 16];
	char err[BND_ERRLEN] = "";
	struct bnd_gres_gpus *gres = calloc(1, sizeof(*gres));
	if (!gres) {
		step_log(s, "job %u: GPUs: out of memory", s->job);
		return;
	}
	conf_paths(s, in, gres_path, cg_path, sizeof(gres_path));
	if (bnd_gresconf_read(gres_path, s->host, gres, err, sizeof(err)) != BND_OK)
		step_log(s, "job %u: %s: %s", s->job, gres_path, err);
	struct bnd_step_gpu_ctx ctx = {
		.t = s->topo, .gres = gres, .map = &s->cfg->gpu_devices, .roots = in->gpu_roots,
		.constrain_devices = bnd_cgroupconf_constrain_devices(cg_path),
		.may_split = bnd_step_gpu_aware(s),
	};
	if (bnd_step_gpus_learn(&in->gpu, &ctx, ntasks, &s->gpus) != BND_OK)
		step_log(s, "job %u: GPUs: out of memory", s->job);
	else if (s->gpus.problem[0])
		step_log(s, "job %u: %s", s->job, s->gpus.problem);
	free(gres);
}

/* Each placement group's GPUs (tasks sharing a core share their GPUs too). */
static void near_groups(struct bnd_step *s)
{
	int groups = bnd_share_groups(s->ntasks, s->share);
	s->group_gpus = calloc((size_t)groups, sizeof(*s->group_gpus));
	if (!s->group_gpus)
		return;
	for (int i = 0; i < s->ntasks && i < s->gpus.ntasks && s->gpus.task; i++)
		s->group_gpus[bnd_share_group_of(i, s->share)] |=
			bnd_step_gpus_mask(&s->gpus, s->gpus.task[i]);
	s->near = (struct bnd_near){ groups, s->group_gpus };
}

/* The step's identity, copied before anything can go wrong. */
static void step_init(struct bnd_step *s, const struct bnd_step_in *in)
{
	memset(s, 0, sizeof(*s));
	s->cfg = in->cfg;
	s->req = &s->made;
	s->job = in->job;
	s->step = in->step;
	s->nodeid = in->nodeid;
	s->log = in->log;
	s->log_ctx = in->log_ctx;
	s->uid = in->uid;
	s->owner = in->owner;
	s->mem_mib = in->mem_mib;
	s->job_mem_mib = in->job_mem_mib;
	node_name(s, in);
}

/* --mbind (the callback's parse), then a request that needs no topology.
 * BND_OK, else the reason is set. */
static int parse_options(struct bnd_step *s, const struct bnd_step_in *in)
{
	const struct bnd_option_value *mv = in->mbind;
	if (mv && mv->text && mv->rc != BND_OK)
		return bnd_fail(s->reason, sizeof(s->reason), mv->rc, "%s", mv->err);
	if (mv && mv->text)
		s->mbind = mv->mbind;
	if (!bnd_step_source_needs_topology(s->source) &&
	    bnd_step_source_make(s, in, 0) != BND_OK)
		return BND_EINVAL;
	return BND_OK;
}

/* The topology from the state dir's cache. The cache lives in the state
 * dir: make sure it exists so the first step's discovery is the last one
 * this boot. A dir refused as untrusted gets no cache written into it, nor
 * read from it: hwloc then, read-only (the state transaction will fail
 * with the reason). BND_OK, else the node's topology is NONE. */
static int load_topology(struct bnd_step *s)
{
	char err[BND_ERRLEN] = "", note[2 * BND_ERRLEN] = "";
	int dfd = -1;
	bool dir_ok = false;
	if (bnd_safedir_open(s->cfg->state_dir, 1, &dfd, err, sizeof(err)) == BND_OK && dfd >= 0) {
		if (bnd_safedir_set_private(dfd, s->cfg->private_files, err, sizeof(err)) != BND_OK)
			step_log(s, "%s", err);
		close(dfd);
		dir_ok = true;
	} else if (*err) {
		step_log(s, "state dir: %s", err);
	}
	err[0] = '\0';
	if (bnd_topocache_load_source(&s->topo, dir_ok ? s->cfg->state_dir : NULL, s->cfg->topology,
				      note, sizeof(note), err, sizeof(err)) != BND_OK) {
		no_topology(s, err);
		return BND_ESYS;
	}
	/* A miss rewrites the cache, so this is logged about once a boot; a
	 * planted or damaged cache is named here. */
	if (dir_ok && strncmp(note, "cache hit", 9))
		step_log(s, "topology %s", note);
	return BND_OK;
}

static int local_tasks(const struct bnd_step *s, const struct bnd_step_in *in)
{
	return bnd_step_is_batch(s) ? bnd_batch_tasks(in->tasks_per_node, in->ntasks_env)
			   : (in->ntasks >= 1 ? in->ntasks : 1);
}

/* What Slurm gave the step here, how many tasks share it, and each
 * group's GPUs. BND_OK, else the reason is set. */
static int step_domain(struct bnd_step *s, const struct bnd_step_in *in)
{
	char err[BND_ERRLEN] = "";
	bnd_cpuset_t usable;
	const char *cores = in->step_cores && *in->step_cores ? in->step_cores : in->job_cores;
	if (bnd_slurm_cores_to_cpus(s->topo, cores, &s->domain, err, sizeof(err)) != BND_OK)
		return bnd_fail(s->reason, sizeof(s->reason), BND_EINVAL, "%s", err);
	s->ntasks = local_tasks(s, in);
	if (s->ntasks > BND_MAX_TASKS)
		return bnd_fail(s->reason, sizeof(s->reason), BND_EINVAL,
				"%d tasks on this node: more than Slurm allows (%d)", s->ntasks,
				BND_MAX_TASKS);
	/* The reserved core counts as taken for every request, on top of a
	 * packed request's own filter=. */
	if (s->cfg->filter == BND_FILTER_FIRST_CORE)
		first_core_cpus(s->topo, &s->reserved);
	bnd_step_usable(s, &usable);
	s->share = bnd_step_share(s->topo, &s->domain, &usable, s->req, s->ntasks);
	if (bnd_step_gpu_aware(s)) {
		learn_gpus(s, in, s->ntasks);
		near_groups(s);
	}
	return BND_OK;
}

/* The no-fit reason between what happens instead and its cause. */
static void nofit_reason(struct bnd_step *s, const struct bnd_nofit *n, const char *alloc_err,
			 const char *head, const char *tail)
{
	char why[sizeof(s->reason)];
	bnd_nofit_explain(s, n, alloc_err);
	memcpy(why, s->reason, sizeof(why));
	bnd_format(s->reason, sizeof(s->reason), "%s%s%s", head, why, tail);
}

/* on_failure=defer: one transaction places the step after all if cores
 * freed meanwhile, else records it deferred, or never (the allocation is
 * too small). Only for set bindings without --mbind: a task's memory
 * policy is set at its start, one bound later from outside would have
 * none. BND_OK: placed after all; BND_ENOFIT: deferred (*deferred set) or
 * not (the reason set); else err says why. */
static int try_defer(struct bnd_step *s, const struct bnd_state_opts *o,
		     const struct bnd_alloc_args *a, const struct bnd_nofit *n, bool *deferred,
		     char *err, size_t errlen)
{
	enum bnd_resume_result res;
	struct bnd_resume_args ra = { a, NULL, 0, s->cfg->defer_max, s->refusal };
	char derr[BND_ERRLEN];
	int rc = bnd_state_resume(o, s->topo, s->req, &ra, &s->pl, &res, derr, sizeof(derr));
	*deferred = rc == BND_ENOFIT && res == BND_RESUME_DEFERRED;
	if (*deferred) {
		nofit_reason(s, n, err, "deferred, bound as soon as a placement frees up "
			     "(on_failure=defer): ", "");
	} else if (rc == BND_ENOFIT && res == BND_RESUME_CAPPED) {
		char tail[BND_ERRLEN + 32];
		snprintf(tail, sizeof(tail), "; not deferred: %s", derr);
		nofit_reason(s, n, err, "", tail);
	} else if (rc == BND_ENOFIT)
		bnd_nofit_explain(s, n, err);
	else if (rc != BND_OK)
		snprintf(err, errlen, "%s", derr);
	return rc;
}

static bool may_defer(const struct bnd_step *s)
{
	return s->cfg->on_failure == BND_ONFAIL_DEFER && s->req->instance == BND_I_SET &&
	       s->mbind == BND_M_NONE;
}

/* One state transaction for all local tasks: placed, deferred, or not
 * bound with the reason. */
static enum bnd_step_state place(struct bnd_step *s, const struct bnd_step_in *in,
				 const bnd_cpuset_t *usable)
{
	char err[BND_ERRLEN] = "";
	struct bnd_state_opts o;
	struct bnd_nofit nofit = { .alone_rc = BND_OK };
	struct bnd_alloc_args a;
	bool deferred = false;
	state_opts(s, &o);
	bnd_step_alloc_args(s, usable, &a);
	a.nofit = &nofit;
	int rc = bnd_state_allocate(&o, s->topo, s->req, &a, &s->pl, err, sizeof(err));
	if (rc == BND_ENOFIT)
		s->refusal = bnd_state_refusal_of(&nofit, usable);
	if (rc == BND_ENOFIT && may_defer(s))
		rc = try_defer(s, &o, &a, &nofit, &deferred, err, sizeof(err));
	else if (rc == BND_ENOFIT)
		bnd_nofit_explain(s, &nofit, err);
	if (deferred)
		return BND_STEP_DEFERRED;
	if (rc == BND_ENOFIT)
		return BND_STEP_FAILED;
	if (rc != BND_OK) {
		s->refusal = rc == BND_ETIMEOUT ? BND_R_LOCK_TIMEOUT : BND_R_STATE_ERROR;
		bnd_format(s->reason, sizeof(s->reason), "state (%s): %s", s->cfg->state_dir, err);
		step_log(s, "job %u: %s", s->job, s->reason);
		return BND_STEP_FAILED;
	}
	if (s->req->instance == BND_I_PE && write_rankfile(s, in, err, sizeof(err)) != BND_OK)
		step_log(s, "job %u: %s (SLURM_BINDING_RANKFILE left empty)", s->job, err);
	if (s->mem.booked) {
		char report[BND_ERRLEN];
		bnd_step_booking_report(s, report, sizeof(report));
		step_log(s, "job %u step %u: %s", s->job, s->step, report);
	}
	return BND_STEP_PLACED;
}

/* Where an active step stands before its placement: each stage either
 * hands on or names the state the step stops in (a request that does not
 * parse, or names what this node or the step's cpus lack); a step that
 * gets through all of them is READY, and bnd_step_place says the rest. */
static enum bnd_step_state decide(struct bnd_step *s, const struct bnd_step_in *in)
{
	s->refusal = BND_R_INVALID_REQUEST;
	if (parse_options(s, in) != BND_OK)
		return BND_STEP_FAILED;
	if (load_topology(s) != BND_OK)
		return BND_STEP_NO_TOPOLOGY;
	if (!bnd_step_asks_cores(s)) {
		/* --mbind=gpu alone: no cores, memory by the GPUs. */
		if (bnd_step_gpu_aware(s))
			learn_gpus(s, in, local_tasks(s, in));
		return BND_STEP_UNBOUND;
	}
	/* For the batch step Slurm's cpus per task is the script's whole
	 * share of the node; the job's -c is in its environment. */
	int cpt = bnd_step_is_batch(s) ? bnd_batch_cpus_per_task(in->cpus_per_task_env) : in->cpus_per_task;
	if (bnd_step_source_needs_topology(s->source) && bnd_step_source_make(s, in, cpt) != BND_OK)
		return BND_STEP_FAILED;
	if (step_domain(s, in) != BND_OK)
		return BND_STEP_FAILED;
	bnd_step_booking_learn(s, in);
	return BND_STEP_READY;
}

/* A step with a request that runs unbound (or whose tasks fail): in the
 * state as an unbound record, counted with its reason. */
static int refused(const struct bnd_step *s)
{
	return s->state == BND_STEP_FAILED || (s->state == BND_STEP_NO_TOPOLOGY && bnd_step_asks_cores(s));
}

static enum bnd_fallback fallback_of(const struct bnd_step *s)
{
	int fail = s->state == BND_STEP_NO_TOPOLOGY ? !s->cfg->on_any_host
		   : s->cfg->on_failure == BND_ONFAIL_FAIL;
	return fail ? BND_FB_FAILED : BND_FB_UNBOUND;
}

/* The refused step's record and counts, in one transaction; when the
 * state itself failed it (a lock timeout, a refused state) they wait in
 * the step's pending counts for its release (bnd_step_finish). */
static void record_refusal(struct bnd_step *s)
{
	char err[BND_ERRLEN] = "";
	struct bnd_state_opts o;
	if (s->refusal == BND_R_LOCK_TIMEOUT || s->refusal == BND_R_STATE_ERROR) {
		bnd_counts_inc(&s->pending, (enum bnd_counter)(BND_CNT_REFUSAL + s->refusal));
		bnd_counts_inc(&s->pending, (enum bnd_counter)(BND_CNT_FALLBACK + fallback_of(s)));
		return;
	}
	state_opts(s, &o);
	/* A numamem booking stays: Slurm holds it for the job whatever became
	 * of this step, so the node's accounting counts it (occupancy.c). */
	struct bnd_alloc_args a = {
		.job = s->job, .step = s->step, .ntasks = 1, .owner_pid = s->owner, .uid = s->uid,
		.mbind = s->mbind, .job_mem_mib = s->job_mem_mib,
		.booked = s->booking.n ? &s->booking : NULL,
	};
	struct bnd_state_refusal rf = {
		&a, s->req_text ? s->req_text : s->req->text, s->refusal, fallback_of(s),
		bnd_refusal_name(s->refusal),
	};
	if (bnd_state_refuse(&o, &rf, err, sizeof(err)) != BND_OK)
		step_log(s, "job %u: recording the unbound step: %s", s->job, err);
}

int bnd_step_prepare(struct bnd_step *s, const struct bnd_step_in *in)
{
	if (!s || !in || !in->cfg)
		return BND_EINVAL;
	step_init(s, in);
	enum bnd_step_source src = bnd_step_source_pick(s, in);
	bool mbind = in->mbind && in->mbind->text;
	/* Nothing asked and no default: the step costs nothing. The extern
	 * step runs no user task worth binding. */
	if (!s->cfg->enabled || in->step == BND_STEP_EXTERN || (src == BND_SRC_NONE && !mbind))
		return bnd_step_move(s, BND_STEP_IDLE);
	bnd_step_move(s, decide(s, in));
	return BND_OK;
}

/* The cpus the step may use are computed again here (bnd_step_usable),
 * not kept from prepare: they are its domain less the reserved cpus, both
 * fields of the step, and the watcher's resume computes them the same
 * way; a third field could only disagree with the two. */
int bnd_step_place(struct bnd_step *s, const struct bnd_step_in *in)
{
	if (!s || !in || !in->cfg)
		return BND_EINVAL;
	if (s->state == BND_STEP_READY) {
		bnd_cpuset_t usable;
		bnd_step_usable(s, &usable);
		bnd_step_move(s, place(s, in, &usable));
	}
	/* refused here or already in prepare: recorded either way */
	if (refused(s))
		record_refusal(s);
	return BND_OK;
}

/* What a task of a GPU-aware step gets: its GPUs (the device cgroup
 * having the last word), their bus ids, how near its cores are. */
struct task_gpus {
	uint64_t positions;
	char list[1024];
	char locality[BND_NEAR_NOTE_LEN + 512];
	char warn[BND_ERRLEN];
};

/* SLURM_BINDING_GPU_LOCALITY of placement group grp (-1: the batch
 * script, all of them). */
static void locality_text(const struct bnd_step *s, int grp, char *buf, size_t len)
{
	int local = 0, cores = 0;
	bool known = false;
	uint64_t gpus = 0;
	for (int i = 0; i < s->pl.ntasks; i++) {
		const struct bnd_task_place *tp = &s->pl.tasks[i];
		if ((grp >= 0 && i != grp) || tp->nlocal < 0)
			continue;
		known = true;
		local += tp->nlocal;
		cores += tp->ncores;
		gpus |= tp->gpus;
	}
	if (!known) {
		snprintf(buf, len, "none: %s", s->gpus.n ? "no GPU of this task has a known place "
			 "(SLURM_BINDING_GPUS, the slurmd log)" : "the step has no GPUs");
		return;
	}
	if (local == cores) {
		snprintf(buf, len, "local");
		return;
	}
	char labels[256], mine[16];
	bnd_near_labels(s->topo, gpus, labels, sizeof(labels));
	snprintf(mine, sizeof(mine), "task %d: ", grp);
	bool noted = grp < 0 || !strncmp(s->pl.near_note, mine, strlen(mine));
	snprintf(buf, len, "nearest: %d of %d cores next to %s%s%s", local, cores, labels,
		 noted && s->pl.near_note[0] ? "; " : "", noted ? s->pl.near_note : "");
}

static void task_gpus(const struct bnd_step *s, int local_id, bool bound, struct task_gpus *g)
{
	memset(g, 0, sizeof(*g));
	if (!bnd_step_gpu_aware(s) || !s->topo)
		return;
	g->positions = bnd_step_gpus_of_task(&s->gpus, local_id, bnd_step_is_batch(s));
	if (s->gpus.n && !bnd_step_is_batch(s))
		bnd_step_gpus_check(&s->gpus, &g->positions, g->warn, sizeof(g->warn));
	bnd_step_gpus_list(&s->gpus, s->topo, g->positions, g->list, sizeof(g->list));
	if (bound && s->req->near_gpu)
		locality_text(s, bnd_step_is_batch(s) ? -1 : bnd_share_group_of(local_id, s->share),
			      g->locality, sizeof(g->locality));
}

/* --mbind=gpu: preferred on the host nodes next to the task's GPUs (the
 * nodes of its cores when it has none), bound or not. */
static int gpu_memory(const struct bnd_step *s, uint64_t positions, bool bound,
		      const bnd_cpuset_t *cpus, char *nodes, size_t nlen, char *desc, size_t dlen,
		      char *err, size_t errlen)
{
	bnd_nodeset_t idx, os;
	uint64_t m = s->topo ? bnd_step_gpus_mask(&s->gpus, positions) : 0;
	bnd_nodeset_zero(&os);
	if (m) {
		bnd_near_host_numa(s->topo, m, &idx);
		for (int k = bnd_nodeset_next(&idx, -1); k >= 0; k = bnd_nodeset_next(&idx, k))
			bnd_nodeset_set(&os, s->topo->numa_os[k]);
	} else if (bound) {
		bnd_topology_numa_of_cpus(s->topo, cpus, &os);
	}
	if (bnd_nodeset_empty(&os))
		return bnd_fail(err, errlen, BND_EINVAL, "--mbind=gpu not applied: the task has no GPU "
				"whose place is known%s", bound ? "" : ", and it is not bound");
	bnd_nodeset_format_list(&os, nodes, nlen);
	return bnd_apply_mempolicy_nodes(&os, 0, desc, dlen, err, errlen);
}

static void verbose_line(const struct bnd_step *s, int global_id, const bnd_cpuset_t *cpus,
			 bool bound, const struct task_gpus *g, struct bnd_task_result *out)
{
	char pairs[BND_CPULIST_TEXT] = "-", list[BND_CPULIST_TEXT] = "", pol[BND_MEMPOLICY_TEXT] = "?";
	char perr[BND_ERRLEN];
	bnd_cpuset_t now;

	if (bound && s->topo && bnd_pe_pairs(s->topo, cpus, pairs, sizeof(pairs)) == BND_OK) {
		for (char *p = pairs; *p; p++)
			if (*p == ':')
				*p = ' ';
	} else {
		snprintf(pairs, sizeof(pairs), "-");
	}
	/* What the task really has now, not what was planned. */
	if (bnd_affinity_get(0, &now, perr, sizeof(perr)) != BND_OK ||
	    bnd_cpuset_format_list(&now, list, sizeof(list)) != BND_OK)
		snprintf(list, sizeof(list), "...");
	bnd_mempolicy_describe(pol, sizeof(pol), perr, sizeof(perr));
	char gpus[sizeof(g->list) + 8] = "";
	if (bnd_step_gpu_aware(s))
		snprintf(gpus, sizeof(gpus), " gpus=%s", g->list[0] ? g->list : "-");
	bnd_format(out->verbose, sizeof(out->verbose),
		   "spank-binding: host=%s task=%d cores=%s cpus=%s mempolicy=%s%s%s%s",
		 s->host, global_id, pairs, list, pol, gpus, bound ? "" : " (unbound)", s->note);
}

/* The task's cpus, when it is bound: NULL, else why not (in buf). Never
 * outside the allocation: the cpuset Slurm put the task in is the last
 * word, whatever the core list said. */
static const char *task_bind(const struct bnd_step *s, int local_id, const char *cgroup_root,
			     const char *cpuset_file, bnd_cpuset_t *cpus, char *buf, size_t len)
{
	bnd_cpuset_t cg;
	char cl[BND_CPULIST_TEXT] = "", pl[BND_CPULIST_TEXT] = "";
	bnd_cpuset_zero(cpus);
	if (s->reason[0])
		return s->reason;
	if (s->state != BND_STEP_PLACED)
		return NULL;
	if (!bnd_step_task_cpus(s, &s->pl, local_id, cpus)) {
		bnd_format(buf, len, "no cpus were placed for local task %d", local_id);
		return buf;
	}
	if (cgroup_root && cpuset_file &&
	    bnd_cgroup_cpuset(cgroup_root, cpuset_file, &cg, NULL, 0) == BND_OK &&
	    !bnd_cpuset_subset(cpus, &cg)) {
		bnd_cpuset_format_list(cpus, pl, sizeof(pl));
		bnd_cpuset_format_list(&cg, cl, sizeof(cl));
		bnd_format(buf, len, "placed cpus %s are outside the task's cpuset %s", pl, cl);
		return buf;
	}
	if (s->req->instance == BND_I_SET && bnd_apply_affinity(0, cpus, buf, len) != BND_OK)
		return buf;
	return NULL;
}

/* What the task's memory policy came to. */
struct task_mem {
	bool failed;
	char nodes[256];                 /* SLURM_MBIND_NODES */
	char desc[BND_MEMPOLICY_TEXT];
	char err[BND_ERRLEN];
	struct bnd_booking_task part;    /* numamem: its part of the booking */
	char booked[256];                /* SLURM_BINDING_NUMAMEM, "" without */
};

/* The task's memory policy (--mbind), bound or not. Memory Slurm booked
 * goes where it was booked, whatever became of the cores. */
static void task_memory(const struct bnd_step *s, const struct task_gpus *g, bool bound,
			const char *why, const bnd_cpuset_t *cpus, int local_id, struct task_mem *m)
{
	memset(m, 0, sizeof(*m));
	if (bnd_step_booking_task(s, local_id, &m->part)) {
		bnd_booking_task_text(&m->part, m->booked, sizeof(m->booked));
		m->failed = bnd_step_booking_policy(s, &m->part, m->nodes, sizeof(m->nodes), m->desc,
						    sizeof(m->desc), m->err, sizeof(m->err)) != BND_OK;
		return;
	}
	if (s->mbind == BND_M_GPU) {
		m->failed = gpu_memory(s, g->positions, bound, cpus, m->nodes, sizeof(m->nodes),
				       m->desc, sizeof(m->desc), m->err, sizeof(m->err)) != BND_OK;
	} else if (s->mbind == BND_M_NLOCAL && bound) {
		bnd_nodeset_t os;
		bnd_mem_os_nodes(s->topo, &s->mem, &os);
		bnd_nodeset_format_list(&os, m->nodes, sizeof(m->nodes));
		m->failed = bnd_apply_mempolicy_nodes(&os, s->mem.bind, m->desc, sizeof(m->desc),
						      m->err, sizeof(m->err)) != BND_OK;
	} else if (s->mbind != BND_M_NONE) {
		/* without cores of its own: the rule sbind place says too */
		bool asks = bnd_step_asks_cores(s);
		if (!bound && bnd_mbind_unbound(s->mbind, asks, m->err, sizeof(m->err)) != BND_OK)
			m->failed = asks || !why;
		else
			m->failed = bnd_apply_mempolicy(s->topo, s->mbind, bound ? cpus : NULL, m->desc,
							sizeof(m->desc), m->err, sizeof(m->err)) != BND_OK;
	}
	/* The nodes the policy names, as the kernel was told. */
	if (!m->failed && !m->nodes[0] && bound &&
	    (s->mbind == BND_M_CORES || s->mbind == BND_M_CORES_STRICT)) {
		bnd_nodeset_t os;
		bnd_topology_numa_of_cpus(s->topo, cpus, &os);
		bnd_nodeset_format_list(&os, m->nodes, sizeof(m->nodes));
	}
}

/* The task's stderr line, and whether the task fails. Without a topology
 * on_any_host= decides, not on_failure=. */
static void task_message(const struct bnd_step *s, int global_id, const char *why,
			 const struct task_mem *m, const struct task_gpus *g,
			 struct bnd_task_result *out)
{
	bool nt = s->state == BND_STEP_NO_TOPOLOGY;
	if (!why && !m->failed) {
		if (g->warn[0])
			bnd_format(out->message, sizeof(out->message),
				   "spank-binding: %s task %d: %s", s->host, global_id, g->warn);
		return;
	}
	bool fail = nt ? bnd_step_asks_cores(s) && !s->cfg->on_any_host
		      : s->cfg->on_failure == BND_ONFAIL_FAIL;
	const char *head = !fail ? "" : nt ? "binding failed (on_any_host=no): "
					   : "binding failed (on_failure=fail): ";
	bnd_format(out->message, sizeof(out->message), "spank-binding: %s task %d: %s%s%s%s%s",
		 s->host, global_id, head, why ? (fail ? "" : "not bound: ") : "", why ? why : "",
		 why && m->failed ? "; " : "", m->failed ? m->err : "");
	out->failed = fail;
}

/* The task's environment (taskenv.h). */
static int task_env(const struct bnd_step *s, const bnd_cpuset_t *cpus, const char *why,
		    const struct task_mem *m, const struct task_gpus *g,
		    const struct bnd_task_vars *vars, struct bnd_taskenv *env, char *err,
		    size_t errlen)
{
	struct bnd_taskenv_in ein = {
		.topo = s->topo,
		.request = s->req_text ? s->req_text : s->req->text[0] ? s->req->text : "none",
		.instance = s->req->instance, .strategy = s->req->strategy, .mbind = s->mbind,
		.cpus = cpus, .reason = why,
		.rankfile = s->rankfile[0] ? s->rankfile : NULL,
		.mbind_nodes = m->nodes, .gpus = g->list, .gpu_locality = g->locality,
		.numamem = m->booked[0] ? m->booked : NULL, .numamem_split = m->part.split,
		.gpu_narrow = s->gpus.split == BND_SPLIT_PLUGIN && s->req->visible == BND_VIS_TASK &&
			      !bnd_step_is_batch(s),
		.gpu_nstep = s->gpus.n, .gpu_positions = g->positions,
		.gpu_env = vars ? vars->gpu_env : NULL,
	};
	if (vars) {
		ein.omp_places = vars->omp_places;
		ein.omp_proc_bind = vars->omp_proc_bind;
		ein.our_omp_places = vars->our_omp_places;
		ein.our_omp_proc_bind = vars->our_omp_proc_bind;
	}
	return bnd_taskenv_build(env, &ein, err, errlen);
}

/* slurmd's log line of a bound task, in the spirit of task/affinity's
 * verbose one: its mask in hex (as hwloc prints it) and as a list read
 * back from the kernel, its cores, memory nodes and policy, GPUs. */
static void log_line(const struct bnd_step *s, int global_id, const struct task_mem *m,
		     const struct task_gpus *g, struct bnd_task_result *out)
{
	char mask[BND_CPULIST_TEXT] = "?", list[BND_CPULIST_TEXT] = "?", pol[BND_MEMPOLICY_TEXT] = "?";
	char pairs[BND_CPULIST_TEXT] = "-", perr[BND_ERRLEN], step[16];
	bnd_cpuset_t now;
	if (bnd_affinity_get(0, &now, perr, sizeof(perr)) == BND_OK) {
		bnd_cpuset_format_hwloc(&now, mask, sizeof(mask));
		if (bnd_cpuset_format_list(&now, list, sizeof(list)) != BND_OK)
			snprintf(list, sizeof(list), "...");
		if (s->topo && bnd_pe_pairs(s->topo, &now, pairs, sizeof(pairs)) == BND_OK)
			for (char *p = pairs; *p; p++)
				*p = *p == ':' ? ' ' : *p;
	}
	bnd_mempolicy_describe(pol, sizeof(pol), perr, sizeof(perr));
	bnd_format(out->log, sizeof(out->log),
		   "job %u step %s task %d [%d] on %s: %s, mask %s cpus %s cores %s, mems %s "
		   "mempolicy %s, gpus %s", s->job, bnd_step_name(s->step, step, sizeof(step)),
		   global_id, (int)getpid(), s->host,
		   s->req->instance == BND_I_SET ? "bound" : s->req->instance == BND_I_PE
		   ? "placed (pe: affinity untouched)" : "placed (env: affinity untouched)",
		   mask, list, pairs, m->nodes[0] ? m->nodes : "-", pol, g->list[0] ? g->list : "-");
}

int bnd_step_task(struct bnd_step *s, int local_id, int global_id, bool verbose,
		  const struct bnd_task_vars *vars, const char *cgroup_root, const char *cpuset_file,
		  struct bnd_task_result *out)
{
	char why_buf[BND_REASON_MAX] = "", err[BND_ERRLEN] = "";
	bnd_cpuset_t cpus;
	struct task_gpus gt;
	struct task_mem mem;

	memset(out, 0, sizeof(*out));
	if (!bnd_step_active(s))
		return BND_OK;
	const char *why = task_bind(s, local_id, cgroup_root, cpuset_file, &cpus, why_buf,
				    sizeof(why_buf));
	bool bound = !why && s->state == BND_STEP_PLACED;
	task_gpus(s, local_id, bound, &gt);
	task_memory(s, &gt, bound, why, &cpus, local_id, &mem);
	task_message(s, global_id, why, &mem, &gt, out);
	if (task_env(s, bound ? &cpus : NULL, why, &mem, &gt, vars, &out->env, err,
		     sizeof(err)) != BND_OK && !out->message[0])
		bnd_format(out->message, sizeof(out->message), "spank-binding: %s task %d: %s",
			 s->host, global_id, err);
	if (verbose)
		verbose_line(s, global_id, &cpus, bound, &gt, out);
	if (bound)
		log_line(s, global_id, &mem, &gt, out);
	return BND_OK;
}

void bnd_step_state_opts(const struct bnd_step *s, struct bnd_state_opts *o)
{
	state_opts(s, o);
}

void bnd_step_usable(const struct bnd_step *s, bnd_cpuset_t *out)
{
	*out = s->domain;
	bnd_cpuset_andnot(out, &s->reserved);
}

void bnd_step_alloc_args(struct bnd_step *s, const bnd_cpuset_t *usable,
			 struct bnd_alloc_args *a)
{
	*a = (struct bnd_alloc_args){
		.job = s->job, .step = s->step, .ntasks = bnd_share_groups(s->ntasks, s->share),
		.owner_pid = s->owner, .uid = s->uid, .allowed = usable,
		/* steps of a batch job go inside the cores the script holds */
		.inherit_job = !bnd_step_is_batch(s),
		.mem_mib = s->mem_mib, .job_mem_mib = s->job_mem_mib, .mbind = s->mbind,
		.mem_reserve = &s->cfg->mem_reserve, .mem_out = &s->mem,
		.near = s->group_gpus ? &s->near : NULL,
		.booked = s->booking.n ? &s->booking : NULL,
	};
}

bool bnd_step_task_cpus(const struct bnd_step *s, const struct bnd_placement *p, int local_id,
			bnd_cpuset_t *out)
{
	bnd_cpuset_zero(out);
	if (bnd_step_is_batch(s))
		*out = p->all_cpus;
	else if (local_id >= 0 && bnd_share_group_of(local_id, s->share) < p->ntasks)
		*out = p->tasks[bnd_share_group_of(local_id, s->share)].cpus;
	return !bnd_cpuset_empty(out);
}

int bnd_step_finish(struct bnd_step *s)
{
	char err[BND_ERRLEN] = "";
	int rc = BND_OK;
	if (bnd_step_recorded(s) || refused(s)) {
		struct bnd_state_opts o;
		int n = 0;
		state_opts(s, &o);
		/* A refused step only drops its unbound record and writes its
		 * counts: not worth waiting long for a lock that timed out. */
		if (refused(s) && (o.lock_timeout_ms <= 0 || o.lock_timeout_ms > 1000))
			o.lock_timeout_ms = 1000;
		rc = bnd_state_release(&o, s->job, s->step, &n, err, sizeof(err));
		if (rc != BND_OK)
			step_log(s, "job %u: release: %s (reclaimed as stale later)", s->job, err);
		if (bnd_step_recorded(s))
			bnd_step_move(s, BND_STEP_RELEASED);
	}
	bnd_rankfile_remove(s->rankfile);
	s->rankfile[0] = '\0';
	return rc;
}

int bnd_step_node_start(const struct bnd_config *cfg, char *err, size_t errlen)
{
	int dfd = -1;
	int rc = bnd_safedir_open(cfg->state_dir, 1, &dfd, err, errlen);
	if (rc == BND_OK && dfd >= 0) {
		rc = bnd_safedir_set_private(dfd, cfg->private_files, err, errlen);
		close(dfd);
	}
	return rc != BND_OK ? rc : bnd_topocache_warmup(cfg->state_dir, cfg->topology, err, errlen);
}

void bnd_step_free(struct bnd_step *s)
{
	bnd_placement_free(&s->pl);
	bnd_topology_free(s->topo);
	s->topo = NULL;
	bnd_request_clear(&s->made);
	s->req = &s->made;
	s->req_text = NULL;
	bnd_step_gpus_free(&s->gpus);
	free(s->group_gpus);
	s->group_gpus = NULL;
	/* Freed: nothing to tell the tasks, nothing to release (not a move:
	 * the struct is reset, whatever state it was in). */
	s->state = BND_STEP_NEW;
}
