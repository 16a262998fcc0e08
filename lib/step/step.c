#include "binding/step/step.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/task/apply.h"
#include "binding/util/error.h"
#include "binding/request/implicit.h"
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

/* snprintf that may cut long messages short (gcc cannot see the limit
 * through vsnprintf, and cutting a long reason is what we want). */
static void put_text(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_text(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

/* Why a request that Slurm's allocation cannot hold, or that other jobs'
 * cores block, got no binding: users need to know which of the two. */
static void explain_nofit(struct bnd_step *s, const char *alloc_err)
{
	struct bnd_domain d = { &s->domain, &s->reserved };
	struct bnd_placement tmp;
	char perr[BND_ERRLEN] = "", dl[512] = "", hl[512] = "", rl[512] = "", kept[640] = "";
	int ncores = bnd_whole_cores_in(s->topo, &s->domain);

	if (bnd_cpuset_format_list(&s->domain, dl, sizeof(dl)) != BND_OK)
		snprintf(dl, sizeof(dl), "...");
	bnd_cpuset_t res = s->reserved;
	bnd_cpuset_and(&res, &s->domain);
	if (!bnd_cpuset_empty(&res)) {
		if (bnd_cpuset_format_list(&res, rl, sizeof(rl)) != BND_OK)
			snprintf(rl, sizeof(rl), "...");
		put_text(kept, sizeof(kept), ", of which the site's filter=first_core keeps cpus %s "
			 "from every job,", rl);
	}
	int rc = bnd_place(s->topo, &d, &s->req, s->ntasks, &tmp, perr, sizeof(perr));
	if (rc == BND_OK)
		bnd_placement_free(&tmp);
	/* An explicit or LSF cpus: list names its cores or cpus: more cpus
	 * would not help. */
	int named = s->req.strategy == BND_S_EXPLICIT || s->req.strategy == BND_S_LSF_CPUS;
	if (rc == BND_ENOFIT && named) {
		int n = s->req.nexplicit;
		if (s->req.strategy == BND_S_EXPLICIT && n % s->ntasks)
			put_text(s->reason, sizeof(s->reason),
				 "--binding=%s lists %d core%s, which cannot be shared out evenly "
				 "among %s %d tasks on this node (list a multiple of %d cores)",
				 s->req.text, n, plural(n), s->is_batch ? "the job's" : "this step's",
				 s->ntasks, s->ntasks);
		else
			put_text(s->reason, sizeof(s->reason),
				 "--binding=%s names %s this step was not given: Slurm gave it "
				 "%d core%s (cpus %s)%s for %d task%s; %s",
				 s->req.text, s->req.strategy == BND_S_EXPLICIT ? "cores" : "cpus", ncores, plural(ncores), dl, kept, s->ntasks,
				 plural(s->ntasks), perr);
		return;
	}
	if (rc == BND_ENOFIT) {
		put_text(s->reason, sizeof(s->reason),
			 "the allocation on this node is too small for --binding=%s%s: Slurm gave "
			 "this step %d core%s (cpus %s)%s for %d task%s; %s (ask for more cpus "
			 "with -n/-c)",
			 s->req.text, s->implicit ? " (the site's implicit binding)" : "",
			 ncores, plural(ncores), dl, kept, s->ntasks, plural(s->ntasks), perr);
		return;
	}
	struct bnd_state_opts o;
	struct bnd_state_file f;
	char lerr[BND_ERRLEN], sl[512] = "";
	bnd_cpuset_t held, steps;
	bnd_cpuset_zero(&held);
	bnd_cpuset_zero(&steps);
	state_opts(s, &o);
	o.log = NULL;
	if (bnd_state_list(&o, &f, lerr, sizeof(lerr)) == BND_OK) {
		bnd_state_held(&f, s->job, &held);
		/* the job's other steps never share cores either (state.h) */
		for (int i = 0; i < f.nrec; i++) {
			const struct bnd_state_record *r = &f.rec[i];
			if (r->job == s->job && r->step != s->step && r->step != BND_STEP_BATCH &&
			    r->status == BND_ST_ACTIVE)
				bnd_cpuset_or(&steps, &r->cpus);
		}
		bnd_statefile_free(&f);
	}
	bnd_cpuset_and(&held, &s->domain);
	bnd_cpuset_and(&steps, &s->domain);
	if (bnd_cpuset_format_list(&held, hl, sizeof(hl)) != BND_OK)
		snprintf(hl, sizeof(hl), "...");
	if (bnd_cpuset_empty(&steps)) {
		put_text(s->reason, sizeof(s->reason),
			 "cores held by other jobs: Slurm gave this step cpus %s, of which other "
			 "jobs hold cpus %s; %s", dl, *hl ? hl : "none", alloc_err);
		return;
	}
	if (bnd_cpuset_format_list(&steps, sl, sizeof(sl)) != BND_OK)
		snprintf(sl, sizeof(sl), "...");
	put_text(s->reason, sizeof(s->reason),
		 "cores held by this job's other steps%s: Slurm gave this step cpus %s, of which "
		 "the job's other running steps hold cpus %s and other jobs cpus %s; %s",
		 *hl ? " and by other jobs" : "", dl, sl, *hl ? hl : "none", alloc_err);
}

/* A fresh file root creates in the trusted state dir (the same checks as
 * the state's). Whatever already has the name was not written for this
 * step (the name is unique per job, step and node): a symlink, a hard link
 * to another file or a file someone else owns is never opened, only its
 * name removed, with a log line. Tasks only read the rankfile. */
static int create_rankfile(struct bnd_step *s, const char *text, char *err, size_t errlen)
{
	int dfd, rc = bnd_statedir_open(s->cfg.state_dir, 0, &dfd, err, errlen);
	if (rc == BND_OK && dfd < 0)
		rc = bnd_fail(err, errlen, BND_ESTATE, "state dir %s is missing", s->cfg.state_dir);
	if (rc != BND_OK)
		return rc;
	const char *name = strrchr(s->rankfile, '/') + 1;
	struct stat st;
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		step_log(s, "job %u: %s was already there (%s, owner %u, mode %04o, %u links), "
			 "not written for this step: removed, never opened", s->job, s->rankfile,
			 S_ISLNK(st.st_mode) ? "a symlink" : S_ISREG(st.st_mode) ? "a file" : "not a file",
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)st.st_nlink);
		if (unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) && errno != ENOENT) {
			rc = bnd_fail(err, errlen, BND_ESTATE, "rankfile %s: cannot remove what is "
				      "there: %s", s->rankfile, strerror(errno));
			close(dfd);
			return rc;
		}
	}
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			0644);
	close(dfd);
	size_t len = strlen(text);
	if (fd < 0 || fchmod(fd, 0644) || write(fd, text, len) != (ssize_t)len) {
		rc = bnd_fail(err, errlen, BND_ESYS, "rankfile %s: %s", s->rankfile, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(s->rankfile);
		}
		return rc;
	}
	close(fd);
	return BND_OK;
}

static int write_rankfile(struct bnd_step *s, const struct bnd_step_in *in,
			  char *err, size_t errlen)
{
	char sid[16], *text = NULL;
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
	if (rc != BND_OK)
		goto out;
	put_text(s->rankfile, sizeof(s->rankfile), "%s/" BND_RANKFILE_PREFIX "%u.%s.%u",
		 s->cfg.state_dir, s->job, bnd_step_name(s->step, sid, sizeof(sid)), s->nodeid);
	rc = create_rankfile(s, text, err, errlen);
	if (rc != BND_OK)
		s->rankfile[0] = '\0';
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
		put_text(s->reason, sizeof(s->reason), "%s", err);
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
		put_text(s->reason, sizeof(s->reason), "%s", err);
		return BND_OK;
	}
	if (text && bnd_request_parse(&s->req, text, err, sizeof(err)) != BND_OK) {
		put_text(s->reason, sizeof(s->reason), "%s", err);
		return BND_OK;
	}
	if (text && !(s->req_text = strdup(text))) {
		put_text(s->reason, sizeof(s->reason), "out of memory");
		return BND_OK;
	}
	s->have_request = s->implicit || (text && s->req.strategy != BND_S_NONE);

	/* The cache lives in the state dir: make sure it exists so the first
	 * step's discovery is the last one this boot. A dir refused as
	 * untrusted gets no cache written into it, nor read from it: hwloc
	 * then, read-only (the state transaction will fail with the reason). */
	int dfd = -1, dir_ok = 0;
	if (bnd_statedir_open(s->cfg.state_dir, 1, &dfd, err, sizeof(err)) == BND_OK && dfd >= 0) {
		close(dfd);
		dir_ok = 1;
	} else if (*err) {
		step_log(s, "state dir: %s", err);
	}
	err[0] = '\0';
	char note[2 * BND_ERRLEN] = "";
	if (bnd_topocache_load_note(&s->topo, dir_ok ? s->cfg.state_dir : NULL, note,
				    sizeof(note), err, sizeof(err)) != BND_OK) {
		put_text(s->reason, sizeof(s->reason), "topology: %s", err);
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
		put_text(s->reason, sizeof(s->reason), "%s", err);
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
	state_opts(s, &o);
	struct bnd_alloc_args a = {
		.job = s->job, .step = s->step, .ntasks = s->ntasks,
		.owner_pid = in->owner, .uid = in->uid, .allowed = &usable,
		/* steps of a batch job go inside the cores the script holds */
		.inherit_job = !s->is_batch,
	};
	rc = bnd_state_allocate(&o, s->topo, &s->req, &a, &s->pl, err, sizeof(err));
	if (rc == BND_ENOFIT) {
		explain_nofit(s, err);
		return BND_OK;
	}
	if (rc != BND_OK) {
		put_text(s->reason, sizeof(s->reason), "state (%s): %s", s->cfg.state_dir, err);
		step_log(s, "job %u: %s", s->job, s->reason);
		return BND_OK;
	}
	s->placed = 1;
	s->recorded = 1;
	if (s->req.instance == BND_I_PE && write_rankfile(s, in, err, sizeof(err)) != BND_OK)
		step_log(s, "job %u: %s (SLURM_BINDING_RANKFILE left empty)", s->job, err);
	return BND_OK;
}

static void affinity_now(bnd_cpuset_t *out)
{
	cpu_set_t set;
	bnd_cpuset_zero(out);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			bnd_cpuset_set(out, c);
}

static void verbose_line(const struct bnd_step *s, int global_id, const bnd_cpuset_t *cpus,
			 int bound, struct bnd_task_result *out)
{
	char pairs[512] = "-", list[512] = "", pol[64] = "?", perr[BND_ERRLEN];
	bnd_cpuset_t now;

	if (bound && s->topo && bnd_pe_pairs(s->topo, cpus, pairs, sizeof(pairs)) == BND_OK) {
		for (char *p = pairs; *p; p++)
			if (*p == ':')
				*p = ' ';
	} else {
		snprintf(pairs, sizeof(pairs), "-");
	}
	/* What the task really has now, not what was planned. */
	affinity_now(&now);
	if (bnd_cpuset_format_list(&now, list, sizeof(list)) != BND_OK)
		snprintf(list, sizeof(list), "...");
	bnd_mempolicy_describe(pol, sizeof(pol), perr, sizeof(perr));
	put_text(out->verbose, sizeof(out->verbose),
		 "spank-binding: host=%s task=%d cores=%s cpus=%s mempolicy=%s%s",
		 s->host, global_id, pairs, list, pol, bound ? "" : " (unbound)");
}

int bnd_step_task(struct bnd_step *s, int local_id, int global_id, int verbose,
		  bnd_getenv_fn getenv_fn, void *getenv_ctx,
		  const char *cgroup_root, const char *cpuset_file,
		  struct bnd_task_result *out)
{
	char why_buf[BND_ERRLEN + 512] = "", merr[BND_ERRLEN] = "", mdesc[64] = "";
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
			put_text(why_buf, sizeof(why_buf), "no cpus were placed for local task %d",
				 local_id);
			why = why_buf;
		}
	}
	/* Never outside the allocation: the cpuset Slurm put the task in is
	 * the last word, whatever the core list said. */
	if (!why && s->placed && cgroup_root && cpuset_file) {
		bnd_cpuset_t cg;
		char cl[512] = "", pl[512] = "";
		if (bnd_cgroup_cpuset(cgroup_root, cpuset_file, &cg, NULL, 0) == BND_OK &&
		    !bnd_cpuset_subset(&cpus, &cg)) {
			bnd_cpuset_format_list(&cpus, pl, sizeof(pl));
			bnd_cpuset_format_list(&cg, cl, sizeof(cl));
			put_text(why_buf, sizeof(why_buf),
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
			put_text(merr, sizeof(merr), "--mbind=%s not applied: %s",
				 bnd_mbind_name(s->mbind),
				 s->have_request ? "the task is not bound" : "it needs a --binding");
		}
	}

	if (why || mfail) {
		/* nlocal is a known gap, not the user's failure. */
		int fail = s->cfg.on_failure == BND_ONFAIL_FAIL &&
			   (why || s->mbind != BND_M_NLOCAL);
		put_text(out->message, sizeof(out->message), "spank-binding: %s task %d: %s%s%s%s%s",
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
	if (getenv_fn) {
		ein.omp_places = getenv_fn(getenv_ctx, "OMP_PLACES");
		ein.omp_proc_bind = getenv_fn(getenv_ctx, "OMP_PROC_BIND");
		ein.our_omp_places = getenv_fn(getenv_ctx, "SLURM_BINDING_OMP_PLACES");
		ein.our_omp_proc_bind = getenv_fn(getenv_ctx, "SLURM_BINDING_OMP_PROC_BIND");
	}
	int rc = bnd_taskenv_build(&out->env, &ein, merr, sizeof(merr));
	if (rc != BND_OK && !out->message[0])
		put_text(out->message, sizeof(out->message), "spank-binding: %s task %d: %s",
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
	if (s->rankfile[0]) {
		unlink(s->rankfile);
		s->rankfile[0] = '\0';
	}
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

int bnd_option_check(enum bnd_option which, const char *text, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!text || !*text)
		return bnd_fail(err, errlen, BND_EINVAL, "--%s: a value is required (--%s=help)",
				which == BND_OPT_MBIND ? "mbind" : "binding",
				which == BND_OPT_MBIND ? "mbind" : "binding");
	if (which == BND_OPT_MBIND) {
		enum bnd_mbind m;
		int rc = bnd_mbind_parse(&m, text, err, errlen);
		/* Accepted (Grid Engine scripts carry it), but the user hears now
		 * that it will not do anything yet. */
		if (rc == BND_OK && m == BND_M_NLOCAL)
			bnd_fail(err, errlen, BND_OK, "--mbind=nlocal: not supported yet, the memory "
				 "policy stays the default (use cores, cores:strict or round_robin)");
		return rc;
	}
	struct bnd_request *r = calloc(1, sizeof(*r));
	if (!r)
		return bnd_fail(err, errlen, BND_ENOMEM, "out of memory");
	int rc = bnd_request_parse(r, text, err, errlen);
	free(r);
	return rc;
}

const char *bnd_option_help(enum bnd_option which)
{
	return which == BND_OPT_MBIND ? bnd_mbind_help() : bnd_request_help();
}

int bnd_node_warmup(const struct bnd_config *c, char *err, size_t errlen)
{
	struct bnd_topology *t = NULL;
	int dfd = -1;
	if (!c->enabled)
		return BND_OK;
	int rc = bnd_statedir_open(c->state_dir, 1, &dfd, err, errlen);
	if (rc != BND_OK)
		return rc;
	if (dfd >= 0)
		close(dfd);
	rc = bnd_topocache_load(&t, c->state_dir, err, errlen);
	bnd_topology_free(t);
	return rc;
}
