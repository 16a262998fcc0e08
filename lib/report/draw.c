#include "binding/report/draw.h"

#include <errno.h>
#include <hwloc.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/state/history.h"
#include "binding/topology/toposource.h"
#include "binding/util/error.h"

/* Okabe and Ito's colours (told apart with the common colour blindnesses),
 * then a few more; text in white on the dark ones. */
static const struct {
	const char *name, *rgb, *text;
} palette[] = {
	{ "blue", "#0072b2", "#ffffff" },   { "orange", "#e69f00", "#000000" },
	{ "green", "#009e73", "#ffffff" },  { "vermillion", "#d55e00", "#ffffff" },
	{ "purple", "#cc79a7", "#000000" }, { "sky", "#56b4e9", "#000000" },
	{ "yellow", "#f0e442", "#000000" }, { "brown", "#8c510a", "#ffffff" },
	{ "teal", "#35978f", "#ffffff" },   { "olive", "#7f7f00", "#ffffff" },
};
#define NCOLOURS (int)(sizeof(palette) / sizeof(palette[0]))

const char *bnd_draw_colour(int k, const char **name)
{
	k = k < 0 ? 0 : k % NCOLOURS;
	if (name)
		*name = palette[k].name;
	return palette[k].rgb;
}

struct draw {
	hwloc_topology_t topo;
	const struct bnd_state_file *f;
	const struct bnd_topology *t;  /* the records' GPU indices, or NULL */
	uint32_t *jobs;   /* the jobs on the node, by id: index = colour */
	int njobs;
};

static int job_index(const struct draw *d, uint32_t job)
{
	for (int k = 0; k < d->njobs; k++)
		if (d->jobs[k] == job)
			return k;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int collect_jobs(struct draw *d)
{
	d->jobs = calloc((size_t)d->f->nrec + 1, sizeof(*d->jobs));
	if (!d->jobs)
		return BND_ENOMEM;
	for (int i = 0; i < d->f->nrec; i++) {
		int seen = 0;
		for (int k = 0; k < d->njobs; k++)
			seen |= d->jobs[k] == d->f->rec[i].job;
		if (!seen)
			d->jobs[d->njobs++] = d->f->rec[i].job;
	}
	qsort(d->jobs, (size_t)d->njobs, sizeof(*d->jobs), by_id);
	return BND_OK;
}

/* lstopoStyle: the job's colour filled (mark 0), or its colour as text on
 * white (waits) or grey (suspended). */
enum mark { M_HOLDS, M_WAITS, M_SUSPENDED };

static void style(hwloc_obj_t o, int k, enum mark m)
{
	char s[96];
	k %= NCOLOURS;
	if (m == M_HOLDS)
		snprintf(s, sizeof(s), "Background=%s;Text=%s", palette[k].rgb, palette[k].text);
	else
		snprintf(s, sizeof(s), "Background=%s;Text=%s", m == M_WAITS ? "#ffffff" : "#d9d9d9",
			 palette[k].rgb);
	hwloc_obj_add_info(o, "lstopoStyle", s);
}

/* A box named name under parent, once (a job's script and its steps
 * hold the same cores). */
static int misc(struct draw *d, hwloc_obj_t parent, const char *name, int k, enum mark m)
{
	for (hwloc_obj_t c = parent->misc_first_child; c; c = c->next_sibling)
		if (c->name && !strcmp(c->name, name))
			return BND_OK;
	hwloc_obj_t o = hwloc_topology_insert_misc_object(d->topo, parent, name);
	if (!o)
		return BND_ESYS;
	style(o, k, m);
	return BND_OK;
}

/* The cpus as hwloc's bitmap (OS ids). */
static hwloc_bitmap_t bitmap_of(const bnd_cpuset_t *cpus)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	for (int c = bnd_cpuset_next(cpus, -1); b && c >= 0; c = bnd_cpuset_next(cpus, c))
		hwloc_bitmap_set(b, (unsigned)c);
	return b;
}

/* Every core with a thread in cpus gets the mark: the core itself when
 * cpus hold all of its threads, else each of its threads in cpus. Filled
 * (M_HOLDS) or only boxed. */
static int mark_cpus(struct draw *d, const bnd_cpuset_t *cpus, int k, enum mark m,
		     const char *label)
{
	hwloc_bitmap_t b = bitmap_of(cpus);
	if (!b)
		return BND_ENOMEM;
	int rc = BND_OK;
	hwloc_obj_t core = NULL;
	while (!rc && (core = hwloc_get_next_obj_covering_cpuset_by_type(d->topo, b,
									    HWLOC_OBJ_CORE, core))) {
		int whole = hwloc_bitmap_isincluded(core->cpuset, b);
		for (hwloc_obj_t pu = whole ? core : NULL; !whole && !rc &&
		     (pu = hwloc_get_next_obj_inside_cpuset_by_type(d->topo, core->cpuset,
								     HWLOC_OBJ_PU, pu));) {
			if (!hwloc_bitmap_isset(b, pu->os_index))
				continue;
			if (m == M_HOLDS)
				style(pu, k, m);
			rc = misc(d, pu, label, k, m);
		}
		if (whole && m == M_HOLDS)
			style(core, k, m);
		if (whole)
			rc = misc(d, core, label, k, m);
	}
	hwloc_bitmap_free(b);
	return rc;
}

/* The cpus a suspended record gave back: its last suspension's. */
static int suspended_cpus(const struct bnd_state_record *r, bnd_cpuset_t *out)
{
	struct bnd_hist_event ev;
	size_t pos = 0;
	int found = 0;
	bnd_cpuset_zero(out);
	while (bnd_hist_next(r->hist, &pos, &ev))
		if (ev.kind == BND_H_SUSPENDED)
			found = ev.cpus[0] && bnd_cpuset_parse_list(out, ev.cpus, NULL, 0) == BND_OK;
	return found;
}

/* The GPUs of a GPU-aware step: its job's colour on each PCI device
 * (found by bus id) and a box naming the job. */
static int mark_gpus(struct draw *d, const struct bnd_state_record *r, int k, const char *label)
{
	uint64_t all = 0;
	for (int i = 0; i < r->ngpus; i++)
		all |= r->gpus[i];
	for (int g = 0; d->t && g < d->t->ngpus && g < 64; g++) {
		hwloc_obj_t dev = all >> g & 1 && d->t->gpus[g].busid[0]
				  ? hwloc_get_pcidev_by_busidstring(d->topo, d->t->gpus[g].busid) : NULL;
		if (!dev)
			continue;
		style(dev, k, M_HOLDS);
		int rc = misc(d, dev, label, k, M_HOLDS);
		if (rc)
			return rc;
	}
	return BND_OK;
}

static int mark_record(struct draw *d, const struct bnd_state_record *r)
{
	int k = job_index(d, r->job), rc;
	char label[64];
	bnd_cpuset_t back;
	switch (r->status) {
	case BND_ST_ACTIVE:
		snprintf(label, sizeof(label), "job %" PRIu32, r->job);
		rc = mark_cpus(d, &r->cpus, k, M_HOLDS, label);
		return rc ? rc : mark_gpus(d, r, k, label);
	case BND_ST_DEFERRED:
		snprintf(label, sizeof(label), "job %" PRIu32 " waits", r->job);
		return r->want ? mark_cpus(d, r->want, k, M_WAITS, label) : BND_OK;
	case BND_ST_SUSPENDED:
		snprintf(label, sizeof(label), "job %" PRIu32 " suspended", r->job);
		return suspended_cpus(r, &back) ? mark_cpus(d, &back, k, M_SUSPENDED, label)
						: misc(d, hwloc_get_root_obj(d->topo), label, k,
						       M_SUSPENDED);
	default:
		return BND_OK; /* unbound: holds nothing, the legend names it */
	}
}

/* Each NUMA node: a box per job with memory there (the largest share of
 * its records: its steps share the job's memory). */
static int mark_memory(struct draw *d)
{
	int rc = BND_OK;
	hwloc_obj_t node = NULL;
	while (!rc && (node = hwloc_get_next_obj_by_type(d->topo, HWLOC_OBJ_NUMANODE, node))) {
		for (int k = 0; !rc && k < d->njobs; k++) {
			uint64_t mib = 0;
			for (int i = 0; i < d->f->nrec; i++)
				for (int m = 0; d->f->rec[i].job == d->jobs[k] && m < d->f->rec[i].nmem; m++)
					if ((unsigned)d->f->rec[i].mem[m].node == node->os_index &&
					    d->f->rec[i].mem[m].mib > mib)
						mib = d->f->rec[i].mem[m].mib;
			char label[64];
			snprintf(label, sizeof(label), "job %" PRIu32 ": %" PRIu64 " MiB", d->jobs[k], mib);
			if (mib)
				rc = misc(d, node, label, k, M_HOLDS);
		}
	}
	return rc;
}

/* "job 12 (blue, uid 1001): step 0 active set linear:1; step batch ..." */
static int legend(struct draw *d)
{
	hwloc_obj_t root = hwloc_get_root_obj(d->topo);
	for (int k = 0; k < d->njobs; k++) {
		char line[512];
		size_t n = 0;
		const char *name;
		bnd_draw_colour(k, &name);
		for (int i = 0; i < d->f->nrec && n < sizeof(line); i++) {
			const struct bnd_state_record *r = &d->f->rec[i];
			char step[16];
			if (r->job != d->jobs[k])
				continue;
			if (!n)
				n += (size_t)snprintf(line, sizeof(line), "job %" PRIu32 " (%s, uid %" PRIu32
						      "):", r->job, name, r->uid);
			if (n < sizeof(line))
				n += (size_t)snprintf(line + n, sizeof(line) - n, "%s step %s %s%s%s %s",
						      n > 0 && line[n - 1] != ':' ? ";" : "",
						      bnd_step_name(r->step, step, sizeof(step)),
						      bnd_state_status_name(r->status), r->why[0] ? " " : "",
						      r->why, r->request[0] ? r->request : "none");
		}
		if (hwloc_obj_add_info(root, "lstopoLegend", line) < 0)
			return BND_ENOMEM;
	}
	return BND_OK;
}

static int load(hwloc_topology_t *topo, const char *source, char **xml, char *err,
		size_t errlen)
{
	if (hwloc_topology_init(topo) < 0)
		return bnd_fail(err, errlen, BND_ESYS, "hwloc_topology_init: %s", strerror(errno));
	hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	hwloc_topology_set_type_filter(*topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_ALL);
	hwloc_topology_set_flags(*topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	int rc = bnd_toposource_set(*topo, source, xml, err, errlen);
	if (!rc && hwloc_topology_load(*topo) < 0)
		rc = bnd_fail(err, errlen, BND_ESYS, "topology %s: hwloc cannot load it: %s",
			      source && *source ? source : "of this machine", strerror(errno));
	if (rc)
		hwloc_topology_destroy(*topo);
	return rc;
}

static int export_xml(hwloc_topology_t topo, char **xml, size_t *len, char *err, size_t errlen)
{
	char *buf = NULL;
	int n = 0;
	if (hwloc_topology_export_xmlbuffer(topo, &buf, &n, 0) < 0 || n < 1)
		return bnd_fail(err, errlen, BND_ESYS, "exporting the topology: %s", strerror(errno));
	*xml = malloc((size_t)n);
	if (*xml) {
		memcpy(*xml, buf, (size_t)n);
		*len = strlen(*xml);
	}
	hwloc_free_xmlbuffer(topo, buf);
	return *xml ? BND_OK : bnd_fail(err, errlen, BND_ENOMEM, "draw: out of memory");
}

int bnd_draw_xml(const struct bnd_draw_in *in, char **xml, size_t *len, char *err,
		 size_t errlen)
{
	struct draw d = { .f = in->f, .t = in->t };
	char *src_xml = NULL;
	*xml = NULL;
	*len = 0;
	int rc = load(&d.topo, in->source, &src_xml, err, errlen);
	if (rc) {
		free(src_xml);
		return rc;
	}
	rc = collect_jobs(&d);
	for (int i = 0; !rc && i < in->f->nrec; i++)
		rc = mark_record(&d, &in->f->rec[i]);
	if (!rc)
		rc = mark_memory(&d);
	if (!rc)
		rc = legend(&d);
	if (rc && err && errlen && !*err)
		bnd_fail(err, errlen, rc, "draw: hwloc refused an annotation");
	if (!rc)
		rc = export_xml(d.topo, xml, len, err, errlen);
	hwloc_topology_destroy(d.topo);
	free(src_xml);
	free(d.jobs);
	return rc;
}
