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
#include "binding/request/implicit.h"
#include "binding/step/nofit.h"
#include "binding/step/stepinfo.h"
#include "binding/topology/topocache.h"
#include "binding/state/state.h"

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

static void state_opts(const struct bnd_step *s, struct bnd_state_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->dir = s->cfg.state_dir;
	o->lock_timeout_ms = s->cfg.lock_timeout_ms;
	o->log = s->log;
	o->log_ctx = s->log_ctx;
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
	for (int i = 0; i < s->ntasks && i < s->pl.ntasks; i++) {
		ids[i] = (!s->is_batch && in->global_ids) ? in->global_ids[i] : i;
		cpus[i] = s->pl.tasks[i].cpus;
	}
	rc = bnd_rankfile_format(s->topo, s->host, s->ntasks, ids, cpus, &text, err, errlen);
	if (rc == BND_OK)
		rc = bnd_rankfile_write(s->cfg.state_dir, s->job,
					bnd_step_name(s->step, sid, sizeof(sid)), s->nodeid, text,
					s->rankfile, sizeof(s->rankfile), note, sizeof(note), err,
					errlen);
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

/* The admin's implicit request, made now that the topology tells the
 * unit's size. Sets the reason and returns non-OK when it cannot be. */
static int implicit_request(struct bnd_step *s, int cpus_per_task)
{
	char text[BND_MAX_REQUEST_TEXT], err[BND_ERRLEN] = "";
	int rc = bnd_implicit_request(s->topo, s->cfg.default_unit, cpus_per_task, text,
				      sizeof(text), err, sizeof(err));
	if (rc == BND_OK)
		rc = bnd_request_parse(&s->req, text, err, sizeof(err));
	if (rc != BND_OK) {
		bnd_fail(s->reason, sizeof(s->reason), BND_OK, "%s", err);
		step_log(s, "job %u: %s", s->job, err);
	}
	return rc;
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
	const char *first = s->is_batch ? in->job_nodelist : in->step_nodelist;
	if (name_from_list(first, in->nodeid, s->host, sizeof(s->host)) ||
	    (!s->is_batch &&
	     name_from_list(in->job_nodelist, in->nodeid, s->host, sizeof(s->host))))
		return;
	memset(s->host, 0, sizeof(s->host));
	if (gethostname(s->host, sizeof(s->host) - 1) == 0 && bnd_hostname_valid(s->host))
		return;
	snprintf(s->host, sizeof(s->host), "localhost");
}

int bnd_step_prepare(struct bnd_step *s, const struct bnd_step_in *in)
{
	char err[BND_ERRLEN] = "";
	int rc;

	if (!s || !in || !in->cfg)
		return BND_EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *in->cfg;
	s->job = in->job;
	s->step = in->step;
	s->nodeid = in->nodeid;
	s->log = in->log;
	s->log_ctx = in->log_ctx;
	s->is_batch = in->step == BND_STEP_BATCH;
	node_name(s, in);

	const char *text = in->binding;
	if (!text && *s->cfg.default_spec)
		text = s->cfg.default_spec;
	/* default= wins over implicit= (bnd_config_parse already cleared
	 * implicit then); --binding=none opts a job out of both. */
	s->implicit = !text && s->cfg.implicit;
	/* Nothing asked and no default: the step costs nothing. The extern
	 * step runs no user task worth binding. */
	if (!s->cfg.enabled || in->step == BND_STEP_EXTERN ||
	    (!text && !s->implicit && !in->mbind))
		return BND_OK;
	s->active = 1;

	if (in->mbind && bnd_mbind_parse(&s->mbind, in->mbind, err, sizeof(err)) != BND_OK) {
		bnd_fail(s->reason, sizeof(s->reason), BND_OK, "%s", err);
		return BND_OK;
	}
	if (text && bnd_request_parse(&s->req, text, err, sizeof(err)) != BND_OK) {
		bnd_fail(s->reason, sizeof(s->reason), BND_OK, "%s", err);
		return BND_OK;
	}
	if (text && !(s->req_text = strdup(text))) {
		bnd_fail(s->reason, sizeof(s->reason), BND_OK, "out of memory");
		return BND_OK;
	}
	s->have_request = s->implicit || (text && s->req.strategy != BND_S_NONE);

	/* The cache lives in the state dir: make sure it exists so the first
	 * step's discovery is the last one this boot. A dir refused as
	 * untrusted gets no cache written into it, nor read from it: hwloc
	 * then, read-only (the state transaction will fail with the reason). */
	int dfd = -1, dir_ok = 0;
	if (bnd_safedir_open(s->cfg.state_dir, 1, &dfd, err, sizeof(err)) == BND_OK && dfd >= 0) {
		close(dfd);
		dir_ok = 1;
	} else if (*err) {
		step_log(s, "state dir: %s", err);
	}
	err[0] = '\0';
	char note[2 * BND_ERRLEN] = "";
	if (bnd_topocache_load_note(&s->topo, dir_ok ? s->cfg.state_dir : NULL, note,
				    sizeof(note), err, sizeof(err)) != BND_OK) {
		bnd_fail(s->reason, sizeof(s->reason), BND_OK, "topology: %s", err);
		s->topo = NULL;
		return BND_OK;
	}
	/* A miss rewrites the cache, so this is logged about once a boot; a
	 * planted or damaged cache is named here. */
	if (dir_ok && strncmp(note, "cache hit", 9))
		step_log(s, "topology %s", note);
	if (!s->have_request)
		return BND_OK;
	/* For the batch step Slurm's cpus per task is the script's whole
	 * share of the node; the job's -c is in its environment. */
	int cpt = s->is_batch ? bnd_batch_cpus_per_task(in->cpus_per_task_env)
			      : in->cpus_per_task;
	if (s->implicit && implicit_request(s, cpt) != BND_OK)
		return BND_OK;

	const char *cores = in->step_cores && *in->step_cores ? in->step_cores : in->job_cores;
	if (bnd_slurm_cores_to_cpus(s->topo, cores, &s->domain, err, sizeof(err)) != BND_OK) {
		bnd_fail(s->reason, sizeof(s->reason), BND_OK, "%s", err);
		return BND_OK;
	}
	s->ntasks = s->is_batch ? bnd_batch_tasks(in->tasks_per_node, in->ntasks_env)
				: (in->ntasks >= 1 ? in->ntasks : 1);

	/* The reserved core counts as taken for every request, on top of a
	 * packed request's own filter=. */
	bnd_cpuset_t usable = s->domain;
	if (s->cfg.filter_first_core)
		first_core_cpus(s->topo, &s->reserved);
	bnd_cpuset_andnot(&usable, &s->reserved);

	struct bnd_state_opts o;
	struct bnd_nofit nofit = { .alone_rc = BND_OK };
	state_opts(s, &o);
	struct bnd_alloc_args a = {
		.job = s->job, .step = s->step, .ntasks = s->ntasks,
		.owner_pid = in->owner, .uid = in->uid, .allowed = &usable,
		/* steps of a batch job go inside the cores the script holds */
		.inherit_job = !s->is_batch,
		.nofit = &nofit,
	};
	rc = bnd_state_allocate(&o, s->topo, &s->req, &a, &s->pl, err, sizeof(err));
	if (rc == BND_ENOFIT) {
		bnd_nofit_explain(s, &nofit, err);
		return BND_OK;
	}
	if (rc != BND_OK) {
		bnd_fail(s->reason, sizeof(s->reason), BND_OK, "state (%s): %s", s->cfg.state_dir, err);
		step_log(s, "job %u: %s", s->job, s->reason);
		return BND_OK;
	}
	s->placed = 1;
	s->recorded = 1;
	if (s->req.instance == BND_I_PE && write_rankfile(s, in, err, sizeof(err)) != BND_OK)
		step_log(s, "job %u: %s (SLURM_BINDING_RANKFILE left empty)", s->job, err);
	return BND_OK;
}

static void verbose_line(const struct bnd_step *s, int global_id, const bnd_cpuset_t *cpus,
			 int bound, struct bnd_task_result *out)
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
	bnd_fail(out->verbose, sizeof(out->verbose), BND_OK,
		 "spank-binding: host=%s task=%d cores=%s cpus=%s mempolicy=%s%s",
		 s->host, global_id, pairs, list, pol, bound ? "" : " (unbound)");
}

int bnd_step_task(struct bnd_step *s, int local_id, int global_id, int verbose,
		  const struct bnd_task_vars *vars, const char *cgroup_root, const char *cpuset_file,
		  struct bnd_task_result *out)
{
	char why_buf[BND_REASON_MAX] = "", merr[BND_ERRLEN] = "", mdesc[BND_MEMPOLICY_TEXT] = "";
	const char *why = s->reason[0] ? s->reason : NULL;
	bnd_cpuset_t cpus;

	memset(out, 0, sizeof(*out));
	if (!s->active)
		return BND_OK;
	bnd_cpuset_zero(&cpus);

	if (!why && s->placed) {
		if (s->is_batch)
			cpus = s->pl.all_cpus;
		else if (local_id >= 0 && local_id < s->pl.ntasks)
			cpus = s->pl.tasks[local_id].cpus;
		if (bnd_cpuset_empty(&cpus)) {
			bnd_fail(why_buf, sizeof(why_buf), BND_OK, "no cpus were placed for local task %d",
				 local_id);
			why = why_buf;
		}
	}
	/* Never outside the allocation: the cpuset Slurm put the task in is
	 * the last word, whatever the core list said. */
	if (!why && s->placed && cgroup_root && cpuset_file) {
		bnd_cpuset_t cg;
		char cl[BND_CPULIST_TEXT] = "", pl[BND_CPULIST_TEXT] = "";
		if (bnd_cgroup_cpuset(cgroup_root, cpuset_file, &cg, NULL, 0) == BND_OK &&
		    !bnd_cpuset_subset(&cpus, &cg)) {
			bnd_cpuset_format_list(&cpus, pl, sizeof(pl));
			bnd_cpuset_format_list(&cg, cl, sizeof(cl));
			bnd_fail(why_buf, sizeof(why_buf), BND_OK,
				 "placed cpus %s are outside the task's cpuset %s", pl, cl);
			why = why_buf;
		}
	}
	if (!why && s->placed && s->req.instance == BND_I_SET &&
	    bnd_apply_affinity(0, &cpus, why_buf, sizeof(why_buf)) != BND_OK)
		why = why_buf;
	int bound = !why && s->placed;

	int mfail = 0;
	if (s->mbind != BND_M_NONE) {
		if (bound || s->mbind == BND_M_ROUND_ROBIN || s->mbind == BND_M_NLOCAL)
			mfail = bnd_apply_mempolicy(s->topo, s->mbind, bound ? &cpus : NULL, mdesc,
						    sizeof(mdesc), merr, sizeof(merr)) != BND_OK;
		else if (s->have_request || !why) {
			mfail = 1;
			bnd_fail(merr, sizeof(merr), BND_OK, "--mbind=%s not applied: %s",
				 bnd_mbind_name(s->mbind),
				 s->have_request ? "the task is not bound" : "it needs a --binding");
		}
	}

	if (why || mfail) {
		/* nlocal is a known gap, not the user's failure. */
		int fail = s->cfg.on_failure == BND_ONFAIL_FAIL &&
			   (why || s->mbind != BND_M_NLOCAL);
		bnd_fail(out->message, sizeof(out->message), BND_OK, "spank-binding: %s task %d: %s%s%s%s%s",
			 s->host, global_id, fail ? "binding failed (on_failure=fail): " : "",
			 why ? (fail ? "" : "not bound: ") : "", why ? why : "",
			 why && mfail ? "; " : "", mfail ? merr : "");
		out->failed = fail;
	}

	struct bnd_taskenv_in ein = {
		.topo = s->topo,
		.request = s->req_text ? s->req_text : s->req.text[0] ? s->req.text : "none",
		.instance = s->req.instance,
		.mbind = s->mbind,
		.cpus = bound ? &cpus : NULL,
		.reason = why,
		.rankfile = s->rankfile[0] ? s->rankfile : NULL,
	};
	if (vars) {
		ein.omp_places = vars->omp_places;
		ein.omp_proc_bind = vars->omp_proc_bind;
		ein.our_omp_places = vars->our_omp_places;
		ein.our_omp_proc_bind = vars->our_omp_proc_bind;
	}
	int rc = bnd_taskenv_build(&out->env, &ein, merr, sizeof(merr));
	if (rc != BND_OK && !out->message[0])
		bnd_fail(out->message, sizeof(out->message), BND_OK, "spank-binding: %s task %d: %s",
			 s->host, global_id, merr);
	if (verbose)
		verbose_line(s, global_id, &cpus, bound, out);
	return BND_OK;
}

int bnd_step_finish(struct bnd_step *s)
{
	char err[BND_ERRLEN] = "";
	int rc = BND_OK;
	if (s->recorded) {
		struct bnd_state_opts o;
		int n = 0;
		state_opts(s, &o);
		rc = bnd_state_release(&o, s->job, s->step, &n, err, sizeof(err));
		if (rc != BND_OK)
			step_log(s, "job %u: release: %s (reclaimed as stale later)", s->job, err);
		s->recorded = 0;
	}
	bnd_rankfile_remove(s->rankfile);
	s->rankfile[0] = '\0';
	return rc;
}

void bnd_step_free(struct bnd_step *s)
{
	if (s->placed)
		bnd_placement_free(&s->pl);
	s->placed = 0;
	bnd_topology_free(s->topo);
	s->topo = NULL;
	free(s->req_text);
	s->req_text = NULL;
	s->active = 0;
}
