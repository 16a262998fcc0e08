/* Why a step got no binding, from what the allocator saw under the lock
 * (state.h, struct bnd_nofit): users need to know whether Slurm's
 * allocation cannot hold the request or other jobs' cores block it. */
#include "binding/step/nofit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/placement/place.h"
#include "binding/step/stepfit.h"
#include "binding/step/stepinfo.h"
#include "binding/submit/translate.h"
#include "binding/util/error.h"

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

static const char *implicit_note(const struct bnd_step *s)
{
	return s->source == BND_SRC_IMPLICIT ? " (the site's implicit binding)" : "";
}

/* What the reasons below repeat: Slurm's cpus and cores here, and the
 * part of them the site keeps (filter=first_core). */
struct given {
	int ncores;
	char dl[BND_CPULIST_TEXT];
	char kept[BND_CPULIST_TEXT + 128];
};

static void list_or_dots(const bnd_cpuset_t *c, char *buf, size_t len)
{
	if (bnd_cpuset_format_list(c, buf, len) != BND_OK)
		snprintf(buf, len, "...");
}

static void given_of(const struct bnd_step *s, struct given *g)
{
	char rl[BND_CPULIST_TEXT] = "";
	memset(g, 0, sizeof(*g));
	g->ncores = bnd_whole_cores_in(s->topo, &s->domain);
	list_or_dots(&s->domain, g->dl, sizeof(g->dl));
	bnd_cpuset_t res = s->reserved;
	bnd_cpuset_and(&res, &s->domain);
	if (bnd_cpuset_empty(&res))
		return;
	list_or_dots(&res, rl, sizeof(rl));
	bnd_format(g->kept, sizeof(g->kept), ", of which the site's filter=first_core keeps "
		 "cpus %s from every job,", rl);
}

/* An OCS packed request whose start letter the node lacks, whose filter
 * does not match its layout, or whose amount exceeds the node: it fails
 * on the whole node too (the site's reserved core aside), and more cpus
 * from Slurm cannot help, so the reason names the node, not the
 * allocation. True when the reason is set. */
static int node_cannot_hold(struct bnd_step *s)
{
	char werr[BND_ERRLEN] = "";
	struct bnd_placement p;
	if (s->req->strategy != BND_S_PACKED)
		return 0;
	bnd_cpuset_t whole = s->topo->all_cpus;
	bnd_cpuset_andnot(&whole, &s->reserved);
	struct bnd_domain dom = { &whole, NULL, s->group_gpus ? &s->near : NULL };
	int ngroups = bnd_share_groups(s->ntasks, s->share);
	int rc = bnd_place(s->topo, &dom, s->req, ngroups, &p, werr, sizeof(werr));
	if (rc == BND_OK)
		bnd_placement_free(&p);
	if (rc != BND_ENOFIT)
		return 0;
	char kept[BND_CPULIST_TEXT + 64] = "", rl[BND_CPULIST_TEXT];
	if (!bnd_cpuset_empty(&s->reserved) &&
	    bnd_cpuset_format_list(&s->reserved, rl, sizeof(rl)) == BND_OK)
		snprintf(kept, sizeof(kept), " (the site's filter=first_core keeps cpus %s from every "
			 "job)", rl);
	bnd_format(s->reason, sizeof(s->reason),
		   "--binding=%s%s cannot be placed on this node for %d task%s%s: %s", s->req->text,
		 implicit_note(s), s->ntasks, plural(s->ntasks),
		 kept, werr);
	return 1;
}

/* A start core fixes the cores: name the ones the step lacks rather than
 * call the allocation too small. True when the reason is set. */
static int start_core_reason(struct bnd_step *s, const struct given *g)
{
	char miss[256] = "", werr[BND_ERRLEN] = "";
	bnd_cpuset_t usable = s->domain;
	bnd_cpuset_andnot(&usable, &s->reserved);
	int mrc = bnd_start_cores_missing(s->topo, &usable, s->req, s->ntasks, miss, sizeof(miss),
					  werr, sizeof(werr));
	if (mrc == BND_ENOFIT) {
		bnd_format(s->reason, sizeof(s->reason),
			   "--binding=%s cannot be placed on this node for %d task%s: %s", s->req->text,
			 s->ntasks, plural(s->ntasks), werr);
		return 1;
	}
	if (mrc != BND_OK || !*miss)
		return 0;
	bnd_format(s->reason, sizeof(s->reason),
		   "--binding=%s needs core%s %s, which %s not among this step's cores: Slurm gave "
		 "it %d core%s (cpus %s)%s for %d task%s", s->req->text, strchr(miss, ':') ? "s" : "",
		 miss, strchr(miss, ':') ? "are" : "is", g->ncores, plural(g->ncores), g->dl, g->kept,
		 s->ntasks, plural(s->ntasks));
	return 1;
}

/* An explicit or LSF cpus: list names its cores or cpus: more cpus would
 * not help. */
static void named_reason(struct bnd_step *s, const struct given *g, const char *perr)
{
	int listed = s->req->nexplicit;
	if (s->req->strategy == BND_S_EXPLICIT && listed % s->ntasks)
		bnd_format(s->reason, sizeof(s->reason),
			   "--binding=%s lists %d core%s, which cannot be shared out evenly among %s "
			 "%d tasks on this node (list a multiple of %d cores)", s->req->text, listed,
			 plural(listed), bnd_step_is_batch(s) ? "the job's" : "this step's", s->ntasks, s->ntasks);
	else
		bnd_format(s->reason, sizeof(s->reason),
			   "--binding=%s names %s this step was not given: Slurm gave it %d core%s "
			 "(cpus %s)%s for %d task%s; %s", s->req->text,
			 s->req->strategy == BND_S_EXPLICIT ? "cores" : "cpus", g->ncores,
			 plural(g->ncores), g->dl, g->kept, s->ntasks, plural(s->ntasks), perr);
}

/* The request fits Slurm's cpus alone: others hold them, or memory is
 * short. */
static void held_reason(struct bnd_step *s, const struct bnd_nofit *n, const char *dl,
			const char *alloc_err)
{
	char hl[BND_CPULIST_TEXT] = "", sl[BND_CPULIST_TEXT] = "";
	bnd_cpuset_t held = n->others, steps = n->siblings;
	bnd_cpuset_and(&held, &s->domain);
	bnd_cpuset_and(&steps, &s->domain);
	list_or_dots(&held, hl, sizeof(hl));
	/* The cores alone fit and nobody holds one: memory is what is short. */
	if (bnd_cpuset_empty(&steps) && bnd_cpuset_empty(&held)) {
		bnd_format(s->reason, sizeof(s->reason),
			   "not enough free memory on the NUMA nodes of this step's cores: Slurm "
			 "gave this step cpus %s, none of them held by another job; %s", dl,
			 alloc_err);
		return;
	}
	if (bnd_cpuset_empty(&steps)) {
		bnd_format(s->reason, sizeof(s->reason),
			   "cores held by other jobs: Slurm gave this step cpus %s, of which other "
			 "jobs hold cpus %s; %s", dl, *hl ? hl : "none", alloc_err);
		return;
	}
	list_or_dots(&steps, sl, sizeof(sl));
	bnd_format(s->reason, sizeof(s->reason),
		   "cores held by this job's other steps%s: Slurm gave this step cpus %s, of which "
		 "the job's other running steps hold cpus %s and other jobs cpus %s; %s",
		 *hl ? " and by other jobs" : "", dl, sl, *hl ? hl : "none", alloc_err);
}

/* What a job should have asked Slurm for (lib/submit, as the site's
 * cli_filter asks when it is installed): "--cpus-per-task=2
 * --threads-per-core=1 would have fitted", or the old advice when the
 * translation has no option to name. */
static void fitting_options(const struct bnd_step *s, char *buf, size_t len)
{
	struct bnd_submit *sub = calloc(1, sizeof(*sub));
	struct bnd_alloc a;
	char opts[BND_SUBMIT_TEXT] = "";
	bnd_alloc_init(&a, BND_CMD_SBATCH);
	if (sub && bnd_submit_translate(s->req, s->mbind, &a, BND_SUBMIT_TRANSLATE, sub, NULL,
					0) == BND_OK)
		bnd_submit_options_text(sub, opts, sizeof(opts));
	free(sub);
	if (*opts)
		snprintf(buf, len, "the job's %s would have fitted; `sbind submit` shows what a "
			 "request needs", opts);
	else
		snprintf(buf, len, "ask for more cpus with -n/-c");
}

void bnd_nofit_explain(struct bnd_step *s, const struct bnd_nofit *n, const char *alloc_err)
{
	char fit[BND_SUBMIT_TEXT + 96];
	struct given g;
	given_of(s, &g);
	if (n->alone_rc != BND_ENOFIT) {
		held_reason(s, n, g.dl, alloc_err);
		return;
	}
	if (s->req->has_start && start_core_reason(s, &g))
		return;
	if (node_cannot_hold(s))
		return;
	if (s->req->strategy == BND_S_EXPLICIT || s->req->strategy == BND_S_LSF_CPUS) {
		named_reason(s, &g, n->alone_err);
		return;
	}
	fitting_options(s, fit, sizeof(fit));
	bnd_format(s->reason, sizeof(s->reason),
		   "the allocation on this node is too small for --binding=%s%s: Slurm gave this "
		 "step %d core%s (cpus %s)%s for %d task%s; %s (%s)",
		 s->req->text, implicit_note(s), g.ncores, plural(g.ncores), g.dl, g.kept, s->ntasks,
		 plural(s->ntasks), n->alone_err, fit);
}
