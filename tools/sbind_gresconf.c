/* sbind gres-conf: this node's NUMA memory as Slurm's GRES numamem
 * (numamem=yes, docs/memory.md): one gres.conf line per NUMA node with
 * cpus, its memory (hwloc) less mem_reserve= (the plugin's own rule,
 * memory/memacct.h, so Slurm never books more than the plugin accounts),
 * with its cores as Slurm numbers them (core L#, as the plugin reads
 * Slurm's core lists); and the node line's Gres= part from the same
 * figures. The same lines for every Slurm release the project supports. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/memory/memacct.h"
#include "binding/request/config.h"
#include "binding/submit/siteconf.h"
#include "binding/util/error.h"
#include "sbind.h"
#include "sbind_opts.h"

struct gc_opts {
	const char *source, *state, *node, *format, *slurm_conf;
	int reserve_given;
	struct bnd_mem_reserve reserve;
	char reserve_from[BND_ERRLEN + 32];
};

static int gc_set(void *ctx, int id, const char *arg)
{
	struct gc_opts *o = ctx;
	switch (id) {
	case 't': o->source = arg; break;
	case 'S': o->state = arg; break;
	case 'n': o->node = arg; break;
	case 'c': o->slurm_conf = arg; break;
	case 'f': o->format = arg; break;
	case 'R':
		o->reserve_given = 1;
		snprintf(o->reserve_from, sizeof(o->reserve_from), "--mem-reserve %s", arg);
		return sbind_parse_reserve("gres-conf", arg, &o->reserve);
	}
	return 0;
}

static int parse(int argc, char **argv, struct gc_opts *o)
{
	*o = (struct gc_opts){ .format = "gres" };
	return sbind_getopt("gres-conf", argc, argv, NULL, NULL, gc_set, o, NULL);
}

/* mem_reserve= of the plugin's plugstack line when not given. */
static void site_reserve(struct gc_opts *o)
{
	struct bnd_config cfg;
	char why[BND_ERRLEN];
	if (o->reserve_given)
		return;
	int found = bnd_siteconf_config(o->slurm_conf, &cfg, why, sizeof(why));
	o->reserve = cfg.mem_reserve;
	bnd_config_clear(&cfg);
	snprintf(o->reserve_from, sizeof(o->reserve_from), "mem_reserve= of %s", found ? why
		 : "the defaults (no plugin line found)");
}

/* The node line's part: Gres=numamem:n0:458M,... */
static void node_line(const struct bnd_topology *t, const uint64_t *cap, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "Gres=");
	for (int k = 0; k < t->nnuma && used < len; k++) {
		if (bnd_cpuset_empty(&t->numa_cpus[k]))
			continue;
		int w = snprintf(buf + used, len - used, "%s%s:n%d:%" PRIu64 "M",
				 buf[used - 1] == '=' ? "" : ",", BND_NUMAMEM_GRES, t->numa_os[k], cap[k]);
		used += w > 0 ? (size_t)w : 0;
	}
}

/* The cores of NUMA index k as Slurm numbers them ("0-1"). */
static void numa_cores(const struct bnd_topology *t, int k, char *buf, size_t len)
{
	bnd_cpuset_t cores;
	bnd_cpuset_zero(&cores);
	for (int c = 0; c < t->ncores; c++)
		if (t->cores[c].numa == k)
			bnd_cpuset_set(&cores, c);
	if (bnd_cpuset_format_list(&cores, buf, len) != BND_OK)
		snprintf(buf, len, "?");
}

static void print_gres(const struct bnd_topology *t, const struct gc_opts *o, const uint64_t *cap,
		       const char *line)
{
	char cores[BND_CPULIST_TEXT], prefix[320] = "";
	int cpuless = 0;
	if (o->node)
		snprintf(prefix, sizeof(prefix), "NodeName=%s ", o->node);
	printf("# spank-binding numamem (docs/memory.md): each NUMA node's memory (hwloc) less\n"
	       "# %s, with its cores as Slurm numbers them.\n"
	       "# slurm.conf: GresTypes=numamem (beside any other GRES types), and on this\n"
	       "# node's line: %s\n", o->reserve_from, line);
	for (int k = 0; k < t->nnuma; k++) {
		if (bnd_cpuset_empty(&t->numa_cpus[k])) {
			cpuless++;
			continue;
		}
		numa_cores(t, k, cores, sizeof(cores));
		printf("%sName=%s Type=n%d Count=%" PRIu64 "M Cores=%s\n", prefix, BND_NUMAMEM_GRES,
		       t->numa_os[k], cap[k], cores);
	}
	if (cpuless)
		printf("# %d NUMA node(s) without cpus left out: no task's memory is placed there\n",
		       cpuless);
}

int sbind_cmd_gres_conf(int argc, char **argv)
{
	struct gc_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? SBIND_EXIT_OK : rc;
	site_reserve(&o);
	struct bnd_topology *t = sbind_load_topology(o.source, sbind_state_dir(o.state));
	if (!t)
		return SBIND_EXIT_ERROR;
	uint64_t *cap = calloc((size_t)t->nnuma + 1, sizeof(*cap));
	char *line = malloc(64 * (size_t)(t->nnuma + 1));
	if (!cap || !line) {
		fprintf(stderr, "sbind gres-conf: out of memory\n");
		rc = SBIND_EXIT_ERROR;
	} else {
		bnd_mem_capacity(t, &o.reserve, cap);
		node_line(t, cap, line, 64 * (size_t)(t->nnuma + 1));
		if (!strcmp(o.format, "node-line"))
			printf("%s\n", line);
		else
			print_gres(t, &o, cap, line);
	}
	free(cap);
	free(line);
	bnd_topology_free(t);
	return rc;
}
