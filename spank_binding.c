/* spank_binding.so: Grid Engine / OCS / LSF style core and NUMA binding
 * for Slurm. Glue only: Slurm's callbacks and items in, lib/ calls out
 * (step.h holds the logic). Measured callback order and contexts:
 * docs/plugin.md.
 */
#include <slurm/slurm.h>
#include <slurm/spank.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/request/config.h"
#include "binding/request/option.h"
#include "binding/util/error.h"
#include "binding/request/request.h"
#include "binding/step/step.h"
#include "binding/suspend/gang.h"
#include "binding/suspend/rebind.h"
#include "binding/task/taskenv.h"
#include "slurm_compat.h"

SPANK_PLUGIN(binding, 1);

#define TAG "spank-binding"

static struct bnd_config cfg;
/* The options' values, whole (heap: a request has no length limit), and
 * their one parse in slurmstepd (the text crossed from srun; the step
 * takes the parse). In slurmstepd, Slurm 22.05 calls the option callback
 * once per source: first with the value of srun's launch message, then
 * with _SLURM_SPANK_OPTION_binding_<name> from the step's environment (the
 * batch step has only the latter). srun writes the same value into both,
 * but the environment is the user's and can differ (srun --export=NAME=...,
 * a launcher other than srun). The first value wins: it is the one srun
 * validated, and newer Slurm skips the environment once the launch message
 * had the option. A value that does not parse here can only leave the
 * step unbound, with the parser's reason. */
static struct bnd_option_value opt[BND_OPT_COUNT];
static struct bnd_step step;
/* slurmstepd: the tasks' pids (task_post_fork), then the step's watcher
 * (lib/suspend), started once every task exists, joined in exit. */
static pid_t *task_pids;
/* Each task's start time, read here: the watcher never acts on a number
 * whose process may have ended (rebind.h). */
static unsigned long long *task_starts;
static uint32_t task_count, tasks_seen;
static bool step_verbose;
static struct bnd_gang *gang;

static int opt_cb(int val, const char *optarg, int remote);

/* Registered in init (not through the spank_options symbol): sbatch and
 * salloc only know options registered that way. The usage lines come
 * from the tables of strategies and policies (set in init). */
static struct spank_option options[] = {
	{ "binding", "SPEC", NULL, 1, BND_OPT_BINDING, opt_cb },
	{ "mbind", "SPEC", NULL, 1, BND_OPT_MBIND, opt_cb },
	SPANK_OPTIONS_TABLE_END
};

static int opt_cb(int val, const char *optarg, int remote)
{
	char err[BND_ERRLEN];
	const char *v = optarg ? optarg : "";
	if (val < 0 || val >= BND_OPT_COUNT)
		return -1;
	if (!remote) {
		if (!strcmp(v, "help")) {
			fputs(bnd_option_help((enum bnd_option)val), stdout);
			fflush(stdout);
			exit(0);
		}
		int rc = bnd_option_check((enum bnd_option)val, v, err, sizeof(err));
		if (rc != BND_OK) {
			slurm_error("%s", err);
			return -1;
		}
		if (err[0])
			slurm_info("%s", err);
		return 0; /* srun's parse; slurmstepd parses what it receives */
	}
	if (opt[val].text)
		return 0;
	if (bnd_option_value_set(&opt[val], (enum bnd_option)val, v) != BND_OK) {
		slurm_error(TAG ": --%s: out of memory", val == BND_OPT_MBIND ? "mbind" : "binding");
		return -1;
	}
	return 0;
}

static void log_admin(void *ctx, const char *msg)
{
	(void)ctx;
	slurm_info(TAG ": %s", msg);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	char err[4096];
	bnd_config_defaults(&cfg);
	if (bnd_config_parse(&cfg, ac, av, err, sizeof(err)) != BND_OK)
		slurm_error(TAG ": plugstack.conf: %s; those settings keep their defaults", err);

	spank_context_t ctx = spank_context();
	if (ctx == S_CTX_SLURMD) {
		/* Once per slurmd start: what the node will do, for the admin. */
		char desc[1024];
		if (bnd_config_describe(&cfg, desc, sizeof(desc)) == BND_OK)
			slurm_info(TAG ": settings: %s (built for Slurm %s)", desc, bnd_slurm_built_for());
		if (cfg.enabled && bnd_step_node_start(&cfg, err, sizeof(err)) != BND_OK)
			slurm_error(TAG ": preparing the state dir and topology cache: %s", err);
		return 0;
	}
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	/* Slurm only reads the usage text. */
	options[0].usage = (char *)bnd_request_usage();
	options[1].usage = (char *)bnd_mbind_usage();
	for (int i = 0; options[i].name; i++)
		if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS)
			slurm_error(TAG ": cannot register --%s", options[i].name);
	return 0;
}

/* Longer than any value execve() takes (128 KiB): a bigger one is not
 * worth reading. */
#define ENV_MAX (1 << 20)

/* A variable of the step's environment, whole, in a buffer grown until it
 * fits: malloc'd, NULL when unset. *cut (may be NULL) is set when it exists
 * but could not be read whole; callers must then not take it as unset. */
static char *env_get(spank_t sp, const char *name, int *cut)
{
	if (cut)
		*cut = 0;
	for (size_t len = 256; len <= ENV_MAX; len *= 4) {
		char *buf = malloc(len);
		if (!buf)
			break;
		spank_err_t rc = spank_getenv(sp, name, buf, (int)len);
		if (rc == ESPANK_SUCCESS)
			return buf;
		free(buf);
		if (rc != ESPANK_NOSPACE)
			return NULL;
	}
	if (cut)
		*cut = 1;
	return NULL;
}

/* The step's environment variables prepare reads, each into its field of
 * bnd_step_in (a second name: read when the first is unset). Unset or
 * unreadable: NULL, and the lib falls back (SLURM_NTASKS, 1 cpu per task,
 * gethostname). Not SLURMD_NODENAME: here it is whatever srun sent. GPUs
 * (stepgpu.h): SPANK has no GPU item, the step's environment is the only
 * source; the batch step has its job's GPUs. */
#define IN(field) offsetof(struct bnd_step_in, field)
static const struct {
	const char *name, *second;
	size_t field; /* a const char * of struct bnd_step_in */
} step_env[] = {
	{ "SLURM_TASKS_PER_NODE", NULL, IN(tasks_per_node) },
	{ "SLURM_NTASKS", NULL, IN(ntasks_env) },
	{ "SLURM_CPUS_PER_TASK", NULL, IN(cpus_per_task_env) },
	{ "SLURM_STEP_NODELIST", NULL, IN(step_nodelist) },
	{ "SLURM_JOB_NODELIST", NULL, IN(job_nodelist) },
	{ "LSB_USER_BIND_JOB", NULL, IN(lsf_bind_job) },
	{ "LSB_USER_BIND_CPU_LIST", NULL, IN(lsf_cpu_list) },
	{ "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", IN(gpu.step_gpus) },
	{ "SLURM_GPU_BIND", NULL, IN(gpu.gpu_bind) },
	{ "SLURM_GPUS_PER_TASK", NULL, IN(gpu.gpus_per_task) },
	{ "SLURM_NTASKS_PER_GPU", NULL, IN(gpu.ntasks_per_gpu) },
};
#define NSTEP_ENV (sizeof(step_env) / sizeof(step_env[0]))

/* Fills in's fields from step_env; vals (NSTEP_ENV) holds them for
 * free_values. */
static void read_step_env(spank_t sp, struct bnd_step_in *in, char **vals)
{
	for (size_t i = 0; i < NSTEP_ENV; i++) {
		vals[i] = env_get(sp, step_env[i].name, NULL);
		if (!vals[i] && step_env[i].second)
			vals[i] = env_get(sp, step_env[i].second, NULL);
		*(const char **)((char *)in + step_env[i].field) = vals[i];
	}
}

static void free_values(char **vals, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(vals[i]);
}

/* Slurm's items of the step: ids, core lists, tasks, memory on this node
 * (the step's MB; the job's when the step has none). */
static void read_step_items(spank_t sp, struct bnd_step_in *in)
{
	uint32_t ntasks = 0, cpt = 0;
	uid_t uid = 0;
	char *step_cores = NULL, *job_cores = NULL;
	spank_get_item(sp, S_JOB_ID, &in->job);
	spank_get_item(sp, S_JOB_STEPID, &in->step);
	spank_get_item(sp, S_JOB_UID, &uid);
	spank_get_item(sp, S_JOB_NODEID, &in->nodeid);
	spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntasks);
	spank_get_item(sp, S_STEP_CPUS_PER_TASK, &cpt);
	spank_get_item(sp, S_STEP_ALLOC_CORES, &step_cores);
	spank_get_item(sp, S_JOB_ALLOC_CORES, &job_cores);
	spank_get_item(sp, S_JOB_ALLOC_MEM, &in->job_mem_mib);
	if (spank_get_item(sp, S_STEP_ALLOC_MEM, &in->mem_mib) != ESPANK_SUCCESS || !in->mem_mib)
		in->mem_mib = in->job_mem_mib;
	in->uid = (uint32_t)uid;
	in->ntasks = (int)ntasks;
	in->cpus_per_task = (int)cpt;
	in->step_cores = step_cores;
	in->job_cores = job_cores;
}

/* Each local task's global rank (malloc'd; NULL: 0..n-1). */
static int *global_ids(spank_t sp, int ntasks)
{
	int *gids = calloc(ntasks > 0 ? (size_t)ntasks : 1, sizeof(*gids));
	for (int i = 0; gids && i < ntasks; i++) {
		uint32_t g = (uint32_t)i;
		spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, (uint32_t)i, &g);
		gids[i] = (int)g;
	}
	return gids;
}

/* The verbose line: the plugin's verbose, or srun -v (which raises
 * SRUN_DEBUG above its default of 3, info). */
static bool verbose_of(spank_t sp)
{
	char *dbg = env_get(sp, "SRUN_DEBUG", NULL);
	bool v = cfg.verbose || (dbg && atoi(dbg) > 3);
	free(dbg);
	return v;
}

/* numamem (step.h's gres_detail): the job's GRES detail on this node,
 * from slurmctld, asked only by steps that bind memory at a numamem site. */
static char *job_gres(void *ctx, const char *host, char *err, size_t errlen)
{
	return bnd_slurm_job_node_gres(*(uint32_t *)ctx, host, err, errlen);
}

/* Never fails: a failure here would drain the node for a batch step. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	char *vals[NSTEP_ENV];
	struct bnd_step_in in = {
		.cfg = &cfg, .binding = &opt[BND_OPT_BINDING], .mbind = &opt[BND_OPT_MBIND],
		.slurm_conf = getenv("SLURM_CONF"), .owner = getpid(), .log = log_admin,
	};
	read_step_items(sp, &in);
	read_step_env(sp, &in, vals);
	in.gres_detail = cfg.numamem ? job_gres : NULL;
	in.gres_ctx = &in.job;
	int *gids = global_ids(sp, in.ntasks);
	in.global_ids = gids;
	bnd_step_prepare(&step, &in);
	bnd_step_place(&step, &in);
	task_count = (uint32_t)in.ntasks;
	step_verbose = verbose_of(sp);
	free(gids);
	free_values(vals, NSTEP_ENV);
	if (step.reason[0])
		slurm_info(TAG ": job %u step %u: no binding: %s", in.job, in.step, step.reason);
	return 0;
}

/* A value too long (or memory too short) to read is not "unset": that
 * would let the plugin overwrite a user's OMP_PLACES. It reads as a text
 * no variable can hold and no other name's reads as (the bare prefix
 * when even that cannot be allocated; free with task_var_free). */
static char unreadable[] = "\001unreadable ";

static char *task_var(spank_t sp, const char *name)
{
	int cut;
	char *v = env_get(sp, name, &cut);
	if (v || !cut)
		return v;
	size_t n = sizeof(unreadable) + strlen(name);
	if (!(v = malloc(n)))
		return unreadable;
	snprintf(v, n, "%s%s", unreadable, name);
	return v;
}

static void task_var_free(char *v)
{
	if (v != unreadable)
		free(v);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !bnd_step_active(&step))
		return 0;

	int local = 0;
	uint32_t global = 0;
	struct bnd_task_result res;
	spank_get_item(sp, S_TASK_ID, &local);
	spank_get_item(sp, S_TASK_GLOBAL_ID, &global);

	char *places = task_var(sp, "OMP_PLACES"), *bind = task_var(sp, "OMP_PROC_BIND");
	char *our_places = task_var(sp, "SLURM_BINDING_OMP_PLACES");
	char *our_bind = task_var(sp, "SLURM_BINDING_OMP_PROC_BIND");
	struct bnd_task_vars vars = { places, bind, our_places, our_bind, { NULL } };
	/* The task-level values gres/gpu set (gpuenv.h). */
	for (int i = 0; i < BND_GPU_ENV_VARS; i++)
		vars.gpu_env[i] = task_var(sp, bnd_gpuenv_names[i]);
	bnd_step_task(&step, local, (int)global, step_verbose, &vars, "/sys/fs/cgroup",
		      "/proc/self/cpuset", &res);
	task_var_free(places);
	task_var_free(bind);
	task_var_free(our_places);
	task_var_free(our_bind);
	for (int i = 0; i < BND_GPU_ENV_VARS; i++)
		task_var_free((char *)vars.gpu_env[i]);
	for (int i = 0; i < res.env.n; i++) {
		if (res.env.v[i].value)
			spank_setenv(sp, res.env.v[i].name, res.env.v[i].value, 1);
		else
			spank_unsetenv(sp, res.env.v[i].name);
	}
	bnd_taskenv_free(&res.env);
	/* slurm_error in the task reaches its stderr too: one line, not two. */
	if (res.failed)
		slurm_error("%s", res.message);
	else if (res.message[0])
		fprintf(stderr, "%s\n", res.message);
	if (res.verbose[0])
		fprintf(stderr, "%s\n", res.verbose);
	/* Where slurmstepd's log cannot reach a user's srun (24.11), say where
	 * the step's suspend/resume moves can be read instead. */
	if (step_verbose && local == 0 && bnd_gang_wanted(&step) && !bnd_slurm_user_sees_stepd_log())
		fprintf(stderr, TAG ": job %u step %u: suspend and resume moves go to slurmd's log and "
			"`sbind status --job %u`; Slurm %s keeps --slurmd-debug for root and SlurmUser\n",
			step.job, step.step, step.job, bnd_slurm_built_for());
	fflush(stderr);
	if (res.log[0])
		slurm_info(TAG ": %s", res.log);
	return res.failed ? -1 : 0;
}

/* slurmctld's word on the job, for the suspend rule (verdict.h). The
 * watcher thread calls it only when the tasks' states change. */
static enum bnd_job_state job_state(void *ctx)
{
	uint32_t job = *(uint32_t *)ctx;
	job_info_msg_t *m = NULL;
	enum bnd_job_state st = BND_JOB_UNKNOWN;
	if (bnd_slurm_load_job(&m, job, SHOW_ALL) != SLURM_SUCCESS || !m)
		return BND_JOB_UNKNOWN;
	if (m->record_count >= 1) {
		uint32_t base = m->job_array[0].job_state & JOB_STATE_BASE;
		st = base == JOB_SUSPENDED ? BND_JOB_SUSPENDED
		     : base == JOB_RUNNING ? BND_JOB_RUNNING : BND_JOB_OTHER;
	}
	slurm_free_job_info_msg(m);
	return st;
}

/* In slurmstepd, once per task: the watcher starts with the last one. */
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !bnd_gang_wanted(&step) || gang || !task_count)
		return 0;
	int local = -1;
	pid_t pid = 0;
	if (!task_pids && !(task_pids = calloc(task_count, sizeof(*task_pids))))
		return 0;
	if (!task_starts && !(task_starts = calloc(task_count, sizeof(*task_starts))))
		return 0;
	if (spank_get_item(sp, S_TASK_ID, &local) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS || local < 0 ||
	    (uint32_t)local >= task_count || task_pids[local])
		return 0;
	task_pids[local] = pid;
	struct bnd_task_id id;
	bnd_task_identify("/proc", pid, &id); /* gone already: start 0, never matched */
	task_starts[local] = id.start;
	if (++tasks_seen < task_count)
		return 0;
	char err[BND_ERRLEN];
	struct bnd_gang_in gi = {
		.step = &step, .pids = task_pids, .starts = task_starts, .npids = (int)task_count,
		.proc_root = "/proc",
		.cgroup_root = "/sys/fs/cgroup", .job_state = job_state, .job_ctx = &step.job,
		.verbose = step_verbose,
	};
	if (bnd_gang_start(&gang, &gi, err, sizeof(err)) != BND_OK)
		slurm_error(TAG ": job %u: no suspend/resume watcher (cores stay held while "
			    "suspended): %s", step.job, err);
	return 0;
}

/* slurmstepd at the end: the watcher stopped, the record released. */
static void step_exit(void)
{
	int suspends = 0, resumes = 0, deferrals = 0;
	bnd_gang_counts(gang, &suspends, &resumes, &deferrals);
	if (suspends || deferrals)
		slurm_info(TAG ": job %u: step ends after %d suspension(s), %d resume(s), %d "
			   "deferral(s)", step.job, suspends, resumes, deferrals);
	bnd_gang_stop(gang);
	gang = NULL;
	free(task_pids);
	task_pids = NULL;
	free(task_starts);
	task_starts = NULL;
	bnd_step_finish(&step);
	bnd_step_free(&step);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_remote(sp))
		step_exit();
	/* The step pointed at the options' parse and the settings: freed last. */
	for (int i = 0; i < BND_OPT_COUNT; i++)
		bnd_option_value_clear(&opt[i]);
	bnd_config_clear(&cfg);
	return 0;
}
