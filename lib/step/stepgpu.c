/* Each task's GPUs from the step's environment and Slurm's rules
 * (stepgpu.h). */
#include "binding/step/stepgpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binding/task/gpuenv.h"
#include "binding/topology/topogpu.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"

void bnd_step_gpus_free(struct bnd_step_gpus *g)
{
	free(g->task);
	g->task = NULL;
	g->ntasks = 0;
}

uint64_t bnd_step_gpus_mask(const struct bnd_step_gpus *g, uint64_t positions)
{
	uint64_t m = 0;
	for (int j = 0; j < g->n; j++)
		if ((positions >> j) & 1 && g->topo[j] >= 0)
			m |= 1ull << g->topo[j];
	return m;
}

static uint64_t all_of(int n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* "0,2" (or ranges): the step's GRES indices, ascending. */
static int read_indices(const char *s, struct bnd_step_gpus *g)
{
	bnd_cpuset_t set;
	if (!s || !*s || bnd_cpuset_parse_list(&set, s, NULL, 0) != BND_OK)
		return 0;
	for (int i = bnd_cpuset_next(&set, -1); i >= 0 && g->n < BND_MAX_GPUS;
	     i = bnd_cpuset_next(&set, i))
		g->gres[g->n++] = i;
	return g->n;
}

/* A positive count at the end of "2" or "a100:2"; 0 when none. */
static int trailing_count(const char *s)
{
	const char *c = s ? strrchr(s, ':') : NULL;
	const char *p = c ? c + 1 : s;
	char *end;
	if (!p || !*p)
		return 0;
	errno = 0;
	long v = strtol(p, &end, 10);
	return errno || *end || v < 1 || v > BND_MAX_GPUS ? 0 : (int)v;
}

/* The position of a map/mask value among the step's GPUs, -1 if none. */
static int position_of(const struct bnd_step_gpus *g, long value, int local)
{
	if (local)
		return value >= 0 && value < g->n ? (int)value : -1;
	for (int j = 0; j < g->n; j++)
		if (g->gres[j] == value)
			return j;
	return -1;
}

/* Bits lo .. hi-1 of a 64-bit mask (empty when lo >= hi). */
static uint64_t range_bits(int lo, int hi)
{
	if (hi > 64)
		hi = 64;
	if (lo >= hi)
		return 0;
	return all_of(hi) & ~all_of(lo);
}

/* map_gpu:0,1*2 / mask_gpu:0x3,0xc: the entry of local task p with repeat
 * counts; Slurm's _get_usable_gres_map_or_mask walks the list again from
 * its start (offsets still counting) when it has fewer entries than tasks,
 * so task p takes entry p modulo the list's span. */
static uint64_t map_or_mask(const struct bnd_step_gpus *g, const char *list, int p, int is_map,
			    int local)
{
	long vals[BND_MAX_GPUS];
	long mults[BND_MAX_GPUS], span = 0;
	int n = 0;
	for (const char *s = list; s && *s && n < BND_MAX_GPUS;) {
		char *end;
		vals[n] = strtol(s, &end, 0);
		mults[n] = 1;
		if (end == s)
			return 0;
		if (*end == '*')
			mults[n] = strtol(end + 1, &end, 10);
		if (mults[n] < 1 || mults[n] > 1000000)
			mults[n] = 1;
		span += mults[n++];
		if (*end && *end != ',')
			return 0;
		s = *end ? end + 1 : end;
	}
	if (!span)
		return 0;
	long q = p % span;
	int i = 0;
	while (q >= mults[i])
		q -= mults[i++];
	uint64_t bits = 0;
	for (int b = 0; b < 64; b++) {
		int j = is_map ? (b ? -1 : position_of(g, vals[i], local))
			       : ((vals[i] >> b) & 1 ? position_of(g, b, local) : -1);
		if (j >= 0)
			bits |= 1ull << j;
	}
	return bits;
}

/* Slurm's own split, when the step's options ask for one. */
static int slurm_split(const struct bnd_step_gpu_in *in, const struct bnd_step_gpu_ctx *ctx,
		       struct bnd_step_gpus *g)
{
	char bind[128];
	int n;
	if (in->gpu_bind && *in->gpu_bind)
		snprintf(bind, sizeof(bind), "%s", in->gpu_bind);
	else if ((n = trailing_count(in->gpus_per_task)))
		snprintf(bind, sizeof(bind), "per_task:%d", n);
	else if ((n = trailing_count(in->ntasks_per_gpu)))
		snprintf(bind, sizeof(bind), "single:%d", n);
	else
		return 0;
	const char *b = bind;
	if (!strncasecmp(b, "verbose,", 8))
		b += 8;
	snprintf(g->how, sizeof(g->how), "Slurm's --gpu-bind=%s", b);
	if (!strncasecmp(b, "per_task:", 9) && (n = trailing_count(b + 9))) {
		for (int p = 0; p < g->ntasks; p++)
			g->task[p] = (long)p * n >= g->n ? 0 : range_bits(p * n, p * n + n) & all_of(g->n);
		return 1;
	}
	int is_map = !strncasecmp(b, "map_gpu:", 8), is_mask = !strncasecmp(b, "mask_gpu:", 9);
	if (is_map || is_mask) {
		for (int p = 0; p < g->ntasks; p++)
			g->task[p] = map_or_mask(g, b + (is_map ? 8 : 9), p, is_map,
						 ctx->constrain_devices);
		return 1;
	}
	/* closest, single:K: Slurm decides from cpus it does not have yet;
	 * none: every task keeps every GPU. */
	snprintf(g->how + strlen(g->how), sizeof(g->how) - strlen(g->how), "%s",
		 !strncasecmp(b, "none", 4) ? ": not split, every task has all"
		 : ": its per-task choice is not known before the task starts, placed near all");
	return -1;
}

/* Rule 3: as --gpus-per-task or --ntasks-per-gpu would, when one divides. */
static void plugin_split(struct bnd_step_gpus *g)
{
	if (g->n >= g->ntasks && g->n % g->ntasks == 0) {
		int per = g->n / g->ntasks;
		for (int p = 0; p < g->ntasks; p++)
			g->task[p] = range_bits(p * per, p * per + per);
		snprintf(g->how, sizeof(g->how), "split by the plugin as --gpus-per-task=%d", per);
		g->split = BND_SPLIT_PLUGIN;
	} else if (g->n < g->ntasks && g->ntasks % g->n == 0) {
		int k = g->ntasks / g->n;
		for (int p = 0; p < g->ntasks; p++)
			g->task[p] = 1ull << (p / k);
		snprintf(g->how, sizeof(g->how), "split by the plugin as --ntasks-per-gpu=%d", k);
		g->split = BND_SPLIT_PLUGIN;
	} else {
		snprintf(g->how, sizeof(g->how), "%d GPUs for %d tasks: not split, every task has all",
			 g->n, g->ntasks);
	}
}

/* The vendor whose GPUs AutoDetect= enumerates, in bus order. */
static int autodetect_vendor(const char *a)
{
	return !strcasecmp(a, "nvml") ? 0x10de : !strcasecmp(a, "rsmi") ? 0x1002
	       : !strcasecmp(a, "oneapi") ? 0x8086 : -1;
}

static void note(struct bnd_step_gpus *g, const char *fmt, const char *a, const char *b)
{
	if (!g->problem[0])
		snprintf(g->problem, sizeof(g->problem), fmt, a, b);
}

/* Rule 4 for the step's j-th GPU. */
static void locate(const struct bnd_step_gpu_ctx *ctx, struct bnd_step_gpus *g, int j)
{
	const struct bnd_topology *t = ctx->t;
	int idx = g->gres[j];
	char what[32], bus[BND_GPU_BUSID_LEN], why[400];
	snprintf(what, sizeof(what), "GPU %d", idx);
	g->topo[j] = -1;
	if (ctx->topo_of_gres) {
		if (idx < ctx->ntopo_of_gres)
			g->topo[j] = ctx->topo_of_gres[idx];
		return;
	}
	if (ctx->gres && idx < ctx->gres->n) {
		snprintf(g->file[j], sizeof(g->file[j]), "%s", ctx->gres->file[idx]);
		if (bnd_gpudev_busid(ctx->map, ctx->roots, g->file[j], bus, NULL, why, sizeof(why)))
			note(g, "%s: %s", what, why);
		else if ((g->topo[j] = bnd_gpu_find(t, bus)) < 0)
			note(g, "%s: bus id %s is not a device of this node's topology", what, bus);
		return;
	}
	int vendor = ctx->gres && !ctx->gres->n ? autodetect_vendor(ctx->gres->autodetect) : -1;
	for (int k = 0, seen = 0; vendor >= 0 && k < t->ngpus; k++)
		if (t->gpus[k].vendor == vendor && t->gpus[k].compute && seen++ == idx)
			g->topo[j] = k;
	if (g->topo[j] < 0)
		note(g, "%s: %s", what, vendor >= 0 ? "beyond the GPUs AutoDetect finds in the "
		     "topology" : "no gres.conf File= names its device (gres_conf= in plugstack.conf)");
}

int bnd_step_gpus_learn(const struct bnd_step_gpu_in *in, const struct bnd_step_gpu_ctx *ctx,
			int ntasks, struct bnd_step_gpus *out)
{
	memset(out, 0, sizeof(*out));
	out->ntasks = ntasks < 1 ? 1 : ntasks;
	if (!read_indices(in->step_gpus, out))
		return BND_OK;
	out->task = calloc((size_t)out->ntasks, sizeof(*out->task));
	if (!out->task)
		return BND_ENOMEM;
	for (int j = 0; j < out->n; j++)
		locate(ctx, out, j);
	int s = slurm_split(in, ctx, out);
	if (s > 0)
		out->split = BND_SPLIT_SLURM;
	else if (s == 0 && ctx->may_split)
		plugin_split(out);
	else if (s == 0)
		snprintf(out->how, sizeof(out->how), "not split: every task has all");
	if (out->split == BND_SPLIT_NONE)
		for (int p = 0; p < out->ntasks; p++)
			out->task[p] = all_of(out->n);
	return BND_OK;
}

uint64_t bnd_step_gpus_of_task(const struct bnd_step_gpus *g, int local_id, int is_batch)
{
	if (!g->n)
		return 0;
	if (is_batch)
		return all_of(g->n);
	return local_id >= 0 && local_id < g->ntasks && g->task ? g->task[local_id] : 0;
}

static void list_positions(const struct bnd_step_gpus *g, uint64_t m, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int j = 0; j < g->n && used < len; j++)
		if ((m >> j) & 1) {
			int k = snprintf(buf + used, len - used, "%s%d", used ? "," : "", g->gres[j]);
			used += k > 0 ? (size_t)k : 0;
		}
	if (!buf[0])
		snprintf(buf, len, "none");
}

void bnd_step_gpus_check(const struct bnd_step_gpus *g, uint64_t *positions, char *why,
			 size_t len)
{
	const char *files[BND_MAX_GPUS];
	uint64_t known;
	if (len)
		why[0] = '\0';
	for (int j = 0; j < g->n; j++)
		files[j] = g->file[j];
	uint64_t denied = bnd_gpuenv_denied(files, g->n, &known);
	if (!denied)
		return;
	uint64_t allowed = known & ~denied;
	if ((*positions & known) != allowed) {
		char rule[128], cg[128];
		list_positions(g, *positions, rule, sizeof(rule));
		list_positions(g, allowed, cg, sizeof(cg));
		snprintf(why, len, "the device cgroup lets this task open GPU %s, %s gave it %s", cg,
			 g->how, rule);
	}
	*positions = allowed | (*positions & ~known);
}

void bnd_step_gpus_list(const struct bnd_step_gpus *g, const struct bnd_topology *t,
			uint64_t positions, char *buf, size_t len)
{
	size_t used = 0;
	if (!len)
		return;
	buf[0] = '\0';
	for (int j = 0; j < g->n; j++) {
		if (!((positions >> j) & 1))
			continue;
		const char *name = g->topo[j] >= 0 ? t->gpus[g->topo[j]].busid : g->file[j];
		int k = snprintf(buf + used, len - used, "%s%s", used ? "," : "", name);
		if (k < 0 || (size_t)k >= len - used)
			return;
		used += (size_t)k;
	}
}
