/* The user's allocation options by Slurm's names. Values arrive as a
 * cli_filter sees them: numbers as text, flags as "set", --mem converted
 * to MB by Slurm ("4096") but --mem-per-cpu as typed ("1G"). */
#include "binding/submit/allocopt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/util/memsize.h"

/* A whole number 1..BND_ALLOC_MAX_COUNT; for the node range also "N-M" (Slurm's
 * min-max), where a max of 0 means none. */
static int count(const char *name, const char *v, int *out, char *err, size_t errlen)
{
	char *end = NULL;
	long n = v && *v >= '0' && *v <= '9' ? strtol(v, &end, 10) : -1;
	if (n < 1 || n > BND_ALLOC_MAX_COUNT || !end || *end)
		return bnd_fail(err, errlen, BND_EINVAL, "--%s=%s: expected a whole number from 1 "
				"to %d", name, v ? v : "", BND_ALLOC_MAX_COUNT);
	*out = (int)n;
	return BND_OK;
}

static int set_ntasks(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	return count("ntasks", v, &a->ntasks, err, errlen);
}

static int set_nodes(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	char lo[16] = "";
	const char *dash = v ? strchr(v, '-') : NULL;
	if (!dash)
		return count("nodes", v, &a->nodes_min, err, errlen) ? BND_EINVAL
			: (a->nodes_max = a->nodes_min, BND_OK);
	if ((size_t)(dash - v) >= sizeof(lo))
		return bnd_fail(err, errlen, BND_EINVAL, "--nodes=%s: expected N or N-M", v);
	memcpy(lo, v, (size_t)(dash - v));
	if (count("nodes", lo, &a->nodes_min, err, errlen))
		return BND_EINVAL;
	a->nodes_max = 0;
	if (!strcmp(dash + 1, "0") || !dash[1])
		return BND_OK;
	if (count("nodes", dash + 1, &a->nodes_max, err, errlen) || a->nodes_max < a->nodes_min)
		return bnd_fail(err, errlen, BND_EINVAL, "--nodes=%s: expected N or N-M with "
				"M >= N", v);
	return BND_OK;
}

#define COUNT_SETTER(fn, key, field) \
	static int fn(struct bnd_alloc *a, const char *v, char *err, size_t errlen) \
	{ \
		return count(key, v, &a->field, err, errlen); \
	}
COUNT_SETTER(set_cpt, "cpus-per-task", cpus_per_task)
COUNT_SETTER(set_tpn, "ntasks-per-node", ntasks_per_node)
COUNT_SETTER(set_tps, "ntasks-per-socket", ntasks_per_socket)
COUNT_SETTER(set_tpc_tasks, "ntasks-per-core", ntasks_per_core)
COUNT_SETTER(set_threads, "threads-per-core", threads_per_core)
COUNT_SETTER(set_sockets, "sockets-per-node", sockets_per_node)
COUNT_SETTER(set_cores, "cores-per-socket", cores_per_socket)

/* -B S[:C[:T]], each a number or "*" (any). */
static int set_extra(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	int *fields[3] = { &a->sockets_per_node, &a->cores_per_socket, &a->threads_per_core };
	char buf[64];
	a->extra_node_info = 1;
	if (!v || strlen(v) >= sizeof(buf))
		return bnd_fail(err, errlen, BND_EINVAL, "--extra-node-info: expected S[:C[:T]]");
	snprintf(buf, sizeof(buf), "%s", v);
	char *save = NULL, *tok = strtok_r(buf, ":", &save);
	for (int i = 0; i < 3 && tok; i++, tok = strtok_r(NULL, ":", &save))
		if (strcmp(tok, "*") && count("extra-node-info", tok, fields[i], err, errlen))
			return bnd_fail(err, errlen, BND_EINVAL, "--extra-node-info=%s: expected "
					"S[:C[:T]], each a number or *", v);
	return tok ? bnd_fail(err, errlen, BND_EINVAL, "--extra-node-info=%s: expected S[:C[:T]]", v)
		   : BND_OK;
}

static int set_hint(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	static const char *const known[] = { "compute_bound", "memory_bound", "multithread",
					     "nomultithread", NULL };
	for (int i = 0; known[i]; i++)
		if (v && !strcmp(v, known[i])) {
			snprintf(a->hint, sizeof(a->hint), "%s", v);
			return BND_OK;
		}
	return bnd_fail(err, errlen, BND_EINVAL, "--hint=%s: expected compute_bound, "
			"memory_bound, multithread or nomultithread", v ? v : "");
}

/* Only whether it binds: verbose and quiet alone leave --hint in force. */
static int set_cpu_bind(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	if (!v || !*v)
		return bnd_fail(err, errlen, BND_EINVAL, "--cpu-bind: expected Slurm's --cpu-bind "
				"value");
	size_t n = strlen(v);
	for (const char *p = v; p < v + n; p += strcspn(p, ",") + 1) {
		size_t k = strcspn(p, ",");
		if (!(k == 7 && !strncmp(p, "verbose", 7)) && !(k == 1 && (*p == 'v' || *p == 'q')) &&
		    !(k == 5 && !strncmp(p, "quiet", 5)))
			a->cpu_bind = 1;
	}
	return BND_OK;
}

static int set_exclusive(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	if (!v || !*v || !strcmp(v, "set") || !strcmp(v, "exclusive"))
		a->exclusive = BND_EXCL_NODE;
	else if (!strcmp(v, "user"))
		a->exclusive = BND_EXCL_USER;
	else if (!strcmp(v, "mcs"))
		a->exclusive = BND_EXCL_MCS;
	else if (!strcmp(v, "oversubscribe"))
		a->exclusive = BND_EXCL_SHARED;
	else
		return bnd_fail(err, errlen, BND_EINVAL, "--exclusive=%s: expected --exclusive, "
				"--exclusive=user or --exclusive=mcs", v);
	return BND_OK;
}

static int set_oversubscribe(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	a->exclusive = BND_EXCL_SHARED;
	return BND_OK;
}

static int set_exact(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	a->exact = 1;
	return BND_OK;
}

static int set_overcommit(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	a->overcommit = 1;
	return BND_OK;
}

/* A size option (--mem, --mem-per-cpu): its MiB, and that it was given. */
static int set_size(const char *opt, uint64_t *mib, int *given, const char *v, char *err,
		    size_t errlen)
{
	char perr[BND_ERRLEN] = "";
	if (!v || bnd_mem_parse_size(v, mib, perr, sizeof(perr)) != BND_OK)
		return bnd_fail(err, errlen, BND_EINVAL, "--%s: %s", opt, perr);
	*given = 1;
	return BND_OK;
}

static int set_mem(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	return set_size("mem", &a->mem_mib, &a->has_mem, v, err, errlen);
}

static int set_mem_per_cpu(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	return set_size("mem-per-cpu", &a->mem_per_cpu_mib, &a->has_mem_per_cpu, v, err, errlen);
}

static int set_mem_bind(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	if (!v || !*v || strlen(v) >= sizeof(a->mem_bind))
		return bnd_fail(err, errlen, BND_EINVAL, "--mem-bind: expected Slurm's "
				"--mem-bind value, shorter than %zu characters", sizeof(a->mem_bind));
	snprintf(a->mem_bind, sizeof(a->mem_bind), "%s", v);
	return BND_OK;
}

/* --gres as a cli_filter shows it: each entry prefixed "gres:" (22.05) or
 * "gres/" (24.11, 26.05), which Slurm does not take back: kept without. */
static int set_gres(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	size_t used = 0;
	a->gres[0] = '\0';
	for (const char *p = v ? v : ""; *p;) {
		size_t n = strcspn(p, ",");
		if (n > 5 && (!strncmp(p, "gres:", 5) || !strncmp(p, "gres/", 5)))
			p += 5, n -= 5;
		if (n && used + n + 2 > sizeof(a->gres))
			return bnd_fail(err, errlen, BND_EINVAL, "--gres=%s: longer than %zu "
					"characters", v, sizeof(a->gres) - 1);
		if (n) {
			snprintf(a->gres + used, sizeof(a->gres) - used, "%s%.*s", used ? "," : "",
				 (int)n, p);
			used = strlen(a->gres);
		}
		p += n;
		p += *p == ',';
	}
	return BND_OK;
}

/* srun inside an allocation reads the job's id from SLURM_JOB_ID: it
 * then asks for a step of that job. (sbatch and salloc submit a new job
 * whatever --jobid says.) */
static int set_jobid(struct bnd_alloc *a, const char *v, char *err, size_t errlen)
{
	if (!v || !*v || strspn(v, "0123456789") != strlen(v))
		return bnd_fail(err, errlen, BND_EINVAL, "--jobid=%s: expected a job id", v ? v : "");
	a->in_job = a->cmd == BND_CMD_SRUN;
	return BND_OK;
}

const struct bnd_alloc_key bnd_alloc_keys[] = {
	{ "ntasks", 'n', BND_ARG_REQUIRED, "N", set_ntasks },
	{ "nodes", 'N', BND_ARG_REQUIRED, "N[-M]", set_nodes },
	{ "cpus-per-task", 'c', BND_ARG_REQUIRED, "N", set_cpt },
	{ "ntasks-per-node", 0, BND_ARG_REQUIRED, "N", set_tpn },
	{ "ntasks-per-socket", 0, BND_ARG_REQUIRED, "N", set_tps },
	{ "ntasks-per-core", 0, BND_ARG_REQUIRED, "N", set_tpc_tasks },
	{ "threads-per-core", 0, BND_ARG_REQUIRED, "N", set_threads },
	{ "sockets-per-node", 0, BND_ARG_REQUIRED, "N", set_sockets },
	{ "cores-per-socket", 0, BND_ARG_REQUIRED, "N", set_cores },
	{ "extra-node-info", 'B', BND_ARG_REQUIRED, "S[:C[:T]]", set_extra },
	{ "hint", 0, BND_ARG_REQUIRED, "compute_bound|memory_bound|multithread|nomultithread", set_hint },
	{ "cpu-bind", 0, BND_ARG_REQUIRED, "TYPE", set_cpu_bind },
	{ "exclusive", 0, BND_ARG_OPTIONAL, "user|mcs", set_exclusive },
	{ "oversubscribe", 's', BND_ARG_NONE, NULL, set_oversubscribe },
	{ "overcommit", 'O', BND_ARG_NONE, NULL, set_overcommit },
	{ "exact", 0, BND_ARG_NONE, NULL, set_exact },
	{ "mem", 0, BND_ARG_REQUIRED, "SIZE", set_mem },
	{ "mem-per-cpu", 0, BND_ARG_REQUIRED, "SIZE", set_mem_per_cpu },
	{ "mem-bind", 0, BND_ARG_REQUIRED, "TYPE", set_mem_bind },
	{ "gres", 0, BND_ARG_REQUIRED, "LIST", set_gres },
	{ "jobid", 0, BND_ARG_REQUIRED, "JOB", set_jobid },
	{ NULL, 0, BND_ARG_NONE, NULL, NULL },
};

void bnd_alloc_init(struct bnd_alloc *a, enum bnd_submit_cmd cmd)
{
	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
}

int bnd_alloc_set(struct bnd_alloc *a, const char *name, const char *value, char *err,
		  size_t errlen)
{
	for (const struct bnd_alloc_key *k = bnd_alloc_keys; k->name; k++)
		if (name && !strcmp(name, k->name))
			return k->set(a, value, err, errlen);
	return bnd_fail(err, errlen, BND_EINVAL, "--%s: not an allocation option the binding "
			"reads", name ? name : "");
}

const char *bnd_submit_cmd_name(enum bnd_submit_cmd c)
{
	return c == BND_CMD_SBATCH ? "sbatch" : c == BND_CMD_SALLOC ? "salloc" : "srun";
}

int bnd_submit_cmd_parse(const char *s, enum bnd_submit_cmd *c, char *err, size_t errlen)
{
	for (int i = BND_CMD_SRUN; i <= BND_CMD_SALLOC; i++)
		if (s && !strcmp(s, bnd_submit_cmd_name((enum bnd_submit_cmd)i))) {
			*c = (enum bnd_submit_cmd)i;
			return BND_OK;
		}
	return bnd_fail(err, errlen, BND_EINVAL, "command \"%s\": expected srun, sbatch or salloc",
			s ? s : "");
}
