/* The precedence of a step's request sources (stepsource.h), as one
 * table: each row says whether its source offers a request for this step
 * and how the request is made. The first row that offers wins. */
#include "binding/step/stepsource.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/request/implicit.h"
#include "binding/request/lsfenv.h"
#include "binding/step/step.h"
#include "binding/util/error.h"

struct source_row {
	enum bnd_step_source src;
	const char *name;
	bool needs_topology;
	int (*offered)(const struct bnd_step *s, const struct bnd_step_in *in);
	int (*make)(struct bnd_step *s, const struct bnd_step_in *in, int cpus_per_task);
};

static int option_offered(const struct bnd_step *s, const struct bnd_step_in *in)
{
	(void)s;
	return in->binding && in->binding->text;
}

static int lsf_offered(const struct bnd_step *s, const struct bnd_step_in *in)
{
	(void)s;
	return bnd_lsf_user_wanted(in->lsf_bind_job, in->lsf_cpu_list);
}

static int default_offered(const struct bnd_step *s, const struct bnd_step_in *in)
{
	(void)in;
	return s->cfg->default_spec[0] != '\0';
}

static int implicit_offered(const struct bnd_step *s, const struct bnd_step_in *in)
{
	(void)in;
	return s->cfg->implicit;
}

/* --binding: the option callback's parse (the text crossed from srun;
 * that parse is the one on this side), and its text whole for
 * SLURM_BINDING_REQUEST (req->text is cut short). */
static int option_make(struct bnd_step *s, const struct bnd_step_in *in, int cpt)
{
	const struct bnd_option_value *v = in->binding;
	(void)cpt;
	/* A failed parse too: it holds the text the task reports. */
	s->req = &v->req;
	if (v->rc != BND_OK)
		return bnd_fail(s->reason, sizeof(s->reason), v->rc, "%s", v->err);
	s->req_text = v->text;
	return BND_OK;
}

/* default=: bnd_config_parse's parse of it, taken as it is. */
static int default_make(struct bnd_step *s, const struct bnd_step_in *in, int cpt)
{
	(void)in;
	(void)cpt;
	s->req = s->cfg->default_req;
	s->req_text = s->cfg->default_spec;
	return BND_OK;
}

/* LSF's user variables, turned into a request now that the topology tells
 * how many cores hold a task's CPUs. */
static int lsf_make(struct bnd_step *s, const struct bnd_step_in *in, int cpt)
{
	char text[BND_MAX_REQUEST_TEXT], err[BND_ERRLEN] = "";
	int amount = 1;
	int rc = bnd_implicit_amount(s->topo, "C", cpt, &amount, err, sizeof(err));
	if (rc == BND_OK)
		rc = bnd_lsf_user_request(in->lsf_bind_job, in->lsf_cpu_list, amount, text,
					  sizeof(text), err, sizeof(err));
	if (rc == BND_OK)
		rc = bnd_request_parse(&s->made, text, err, sizeof(err));
	if (rc != BND_OK)
		return bnd_fail(s->reason, sizeof(s->reason), rc, "%s", err);
	s->req = &s->made;
	bnd_format(s->note, sizeof(s->note), " request=%s from LSB_USER_BIND_JOB=%s "
		 "LSB_USER_BIND_CPU_LIST=%s", text, in->lsf_bind_job ? in->lsf_bind_job : "",
		 in->lsf_cpu_list ? in->lsf_cpu_list : "");
	return BND_OK;
}

/* The admin's implicit request, made now that the topology tells the
 * unit's size; what went wrong is the admin's to see too. */
static int implicit_make(struct bnd_step *s, const struct bnd_step_in *in, int cpt)
{
	char err[BND_ERRLEN] = "";
	(void)in;
	int rc = bnd_implicit_request(s->topo, s->cfg->default_unit, cpt, &s->made, err,
				      sizeof(err));
	if (rc == BND_OK) {
		s->req = &s->made;
		return BND_OK;
	}
	bnd_format(s->reason, sizeof(s->reason), "%s", err);
	if (s->log) {
		char msg[BND_ERRLEN + 32];
		snprintf(msg, sizeof(msg), "job %u: %s", s->job, err);
		s->log(s->log_ctx, msg);
	}
	return rc;
}

/* The precedence: first row that offers wins. */
static const struct source_row rows[] = {
	{ BND_SRC_OPTION, "--binding", 0, option_offered, option_make },
	{ BND_SRC_LSF, "LSB_USER_BIND_JOB", 1, lsf_offered, lsf_make },
	{ BND_SRC_DEFAULT, "default=", 0, default_offered, default_make },
	{ BND_SRC_IMPLICIT, "implicit=", 1, implicit_offered, implicit_make },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const struct source_row *row_of(enum bnd_step_source src)
{
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].src == src)
			return &rows[i];
	return NULL;
}

enum bnd_step_source bnd_step_source_pick(struct bnd_step *s, const struct bnd_step_in *in)
{
	s->source = BND_SRC_NONE;
	for (size_t i = 0; i < NROWS && s->source == BND_SRC_NONE; i++)
		if (rows[i].offered(s, in))
			s->source = rows[i].src;
	/* The user set both of their own ways: say which one was ignored. */
	if (s->source == BND_SRC_OPTION && lsf_offered(s, in))
		bnd_format(s->note, sizeof(s->note), " (--binding wins over LSB_USER_BIND_JOB=%s "
			 "LSB_USER_BIND_CPU_LIST=%s)", in->lsf_bind_job ? in->lsf_bind_job : "",
			 in->lsf_cpu_list ? in->lsf_cpu_list : "");
	return s->source;
}

bool bnd_step_source_needs_topology(enum bnd_step_source src)
{
	const struct source_row *r = row_of(src);
	return r && r->needs_topology;
}

int bnd_step_source_make(struct bnd_step *s, const struct bnd_step_in *in, int cpus_per_task)
{
	const struct source_row *r = row_of(s->source);
	return r ? r->make(s, in, cpus_per_task) : BND_OK;
}

const char *bnd_step_source_name(enum bnd_step_source src)
{
	const struct source_row *r = row_of(src);
	return r ? r->name : "none";
}
