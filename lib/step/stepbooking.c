/* numamem for one step (stepbooking.h). */
#include "binding/step/stepbooking.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/step/gresdetail.h"
#include "binding/step/stepfit.h"
#include "binding/step/stepstate.h"
#include "binding/task/apply.h"
#include "binding/util/error.h"

int bnd_step_booking_wanted(const struct bnd_step *s)
{
	return s->cfg->numamem && bnd_step_asks_cores(s) &&
	       (s->mbind == BND_M_CORES || s->mbind == BND_M_CORES_STRICT ||
		s->mbind == BND_M_NLOCAL || s->mbind == BND_M_ROUND_ROBIN);
}

static void booking_log(const struct bnd_step *s, const char *fmt, const char *what)
{
	char msg[BND_ERRLEN + 256];
	if (!s->log)
		return;
	snprintf(msg, sizeof(msg), fmt, s->job, what);
	s->log(s->log_ctx, msg);
}

void bnd_step_booking_learn(struct bnd_step *s, const struct bnd_step_in *in)
{
	char err[BND_ERRLEN] = "";
	memset(&s->booking, 0, sizeof(s->booking));
	if (!bnd_step_booking_wanted(s) || !in->gres_detail)
		return;
	char *detail = in->gres_detail(in->gres_ctx, s->host, err, sizeof(err));
	if (!detail) {
		booking_log(s, "job %u: numamem: the job's booking is unknown (%s): the node's own "
			    "accounting holds", err);
		return;
	}
	if (bnd_gres_detail_booking(detail, BND_NUMAMEM_GRES, &s->booking, err, sizeof(err)))
		booking_log(s, "job %u: numamem: %s: the node's own accounting holds", err);
	else if (!s->booking.n)
		booking_log(s, "job %u: numamem: the job has no %s booked on this node (submitted "
			    "without the cli_filter?): the node's own accounting holds",
			    BND_NUMAMEM_GRES);
	free(detail);
}

/* One placement group's part, or (group -1) every group's together. */
static void group_part(const struct bnd_step *s, int group, struct bnd_booking_task *out)
{
	struct bnd_booking_task one;
	struct bnd_booking all = { 0 };
	memset(out, 0, sizeof(*out));
	for (int g = group < 0 ? 0 : group; g < s->pl.ntasks && (group < 0 || g == group); g++) {
		if (bnd_booking_task_part(s->topo, &s->pl, s->mbind, s->mem.left, s->mem.booked_mib,
					  g, &one) != BND_OK)
			return;
		for (int i = 0; i < one.n; i++)
			bnd_booking_add(&all, one.s[i].node, one.s[i].mib);
		out->short_mib += one.short_mib;
		out->split |= one.split;
		out->remote |= one.remote;
	}
	out->n = all.n;
	memcpy(out->s, all.s, sizeof(all.s));
}

int bnd_step_booking_task(const struct bnd_step *s, int local_id, struct bnd_booking_task *out)
{
	memset(out, 0, sizeof(*out));
	if (!s->mem.booked || !s->topo || s->pl.ntasks < 1)
		return 0;
	group_part(s, bnd_step_is_batch(s) ? -1 : bnd_share_group_of(local_id, s->share), out);
	return out->n > 0;
}

int bnd_step_booking_policy(const struct bnd_step *s, const struct bnd_booking_task *bt,
			    char *nodes, size_t nlen, char *desc, size_t dlen, char *err,
			    size_t errlen)
{
	bnd_nodeset_t os;
	bnd_nodeset_zero(&os);
	if (s->mbind == BND_M_ROUND_ROBIN) {
		for (int i = 0; i < s->booking.n; i++)
			bnd_nodeset_set(&os, s->booking.s[i].node);
	} else {
		for (int i = 0; i < bt->n; i++)
			bnd_nodeset_set(&os, bt->s[i].node);
	}
	bnd_nodeset_format_list(&os, nodes, nlen);
	if (s->mbind == BND_M_ROUND_ROBIN)
		return bnd_apply_mempolicy_interleave(&os, desc, dlen, err, errlen);
	return bnd_apply_mempolicy_nodes(&os, s->mbind != BND_M_CORES, desc, dlen, err, errlen);
}

/* "; task 1: 0:112,1:288 (split)" for each group whose part is split,
 * remote or short. */
static void odd_groups(const struct bnd_step *s, char *buf, size_t len)
{
	size_t used = strlen(buf);
	for (int g = 0; g < s->pl.ntasks && used + 64 < len; g++) {
		struct bnd_booking_task bt;
		char part[256];
		group_part(s, g, &bt);
		if (!bt.split && !bt.remote && !bt.short_mib)
			continue;
		bnd_booking_task_text(&bt, part, sizeof(part));
		int w = snprintf(buf + used, len - used, "; task %d: %s MiB%s%s", g, part,
				 bt.split ? " (Slurm split it: the task gets both nodes)" : "",
				 bt.remote ? " (not all local to its cores)" : "");
		used += w > 0 ? (size_t)w : 0;
		if (bt.short_mib && used + 64 < len)
			used += (size_t)snprintf(buf + used, len - used, ", %" PRIu64 " MiB beyond "
						 "the booking", bt.short_mib);
	}
}

void bnd_step_booking_report(const struct bnd_step *s, char *buf, size_t len)
{
	char booked[512], placed[512];
	struct bnd_booking b = { 0 };
	for (int i = 0; i < s->mem.nshares; i++)
		bnd_booking_add(&b, s->mem.shares[i].node, s->mem.shares[i].mib);
	bnd_booking_text(&s->booking, booked, sizeof(booked));
	bnd_booking_text(&b, placed, sizeof(placed));
	snprintf(buf, len, "numamem: Slurm booked %s MiB (node:MiB) for the job here; this step "
		 "takes %s; %d task(s) split over nodes, %d not all local to their cores", booked,
		 placed[0] ? placed : "nothing", s->mem.nsplit, s->mem.nremote);
	odd_groups(s, buf, len);
}
