/* The plugin's logic without Slurm: a step prepared against a real state
 * dir and this machine's topology, its tasks bound in this very process
 * (Check forks every test), read back from the kernel. */
#include <check.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/step/step.h"
#include "binding/topology/topocache.h"
#include "binding/topology/topostring.h"
#include "testutil.h"
#include "testtopo.h"

static char dir[64], state[96];
static struct bnd_config cfg;
static struct bnd_topology *here;

static void setup(void)
{
	char err[BND_ERRLEN];
	snprintf(dir, sizeof(dir), "/tmp/test_step.XXXXXX");
	ck_assert(mkdtemp(dir));
	snprintf(state, sizeof(state), "%s/state", dir);
	bnd_config_defaults(&cfg);
	snprintf(cfg.state_dir, sizeof(cfg.state_dir), "%s", state);
	cfg.lock_timeout_ms = 2000;
	ck_assert_msg(bnd_topology_load(&here, NULL, err, sizeof(err)) == BND_OK, "%s", err);
}

static void teardown(void)
{
	char cmd[128];
	tu_options_free();
	bnd_config_clear(&cfg);
	bnd_topology_free(here);
	here = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static int need_cores(int n)
{
	if (here->ncores >= n)
		return 1;
	printf("# SKIP needs %d cores, this machine has %d\n", n, here->ncores);
	return 0;
}

/* default= as bnd_config_parse leaves it: the text and its parse (set
 * directly, without the parser's default=/implicit= conflict rule, so a
 * test can set both). */
static void set_default(const char *spec)
{
	char err[BND_ERRLEN];
	bnd_config_clear(&cfg);
	snprintf(cfg.default_spec, sizeof(cfg.default_spec), "%s", spec);
	if (!*spec)
		return;
	cfg.default_req = malloc(sizeof(*cfg.default_req));
	ck_assert(cfg.default_req);
	ck_assert_msg(bnd_request_parse(cfg.default_req, spec, err, sizeof(err)) == BND_OK, "%s",
		      err);
}

/* The instance env: a test that reads the task's variables without binding
 * itself. The request is the test's (an option value, or made by the
 * step), only the step sees it as const. */
static void env_only(struct bnd_step *s)
{
	((struct bnd_request *)s->req)->instance = BND_I_ENV;
}

static struct bnd_step_in base(uint32_t job, uint32_t step, int ntasks, const char *cores,
			       const char *binding)
{
	struct bnd_step_in in = {
		.cfg = &cfg, .job = job, .step = step, .uid = (uint32_t)getuid(), .nodeid = 0,
		.ntasks = ntasks, .step_cores = cores, .job_cores = cores, .binding = tu_option(BND_OPT_BINDING, binding),
		.step_nodelist = "n1", .owner = getpid(),
	};
	return in;
}

static const char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = 0;
	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static const char *status_cpus(void)
{
	static char out[256];
	const char *p = strstr(slurp("/proc/self/status"), "Cpus_allowed_list:");
	ck_assert(p);
	sscanf(p, "Cpus_allowed_list: %255s", out);
	return out;
}

static const char *cpus_of_core(int k)
{
	static char buf[2][64];
	static int i;
	bnd_cpuset_t c;
	char *b = buf[i++ % 2];
	bnd_topology_core_cpus(here, k, &c);
	bnd_cpuset_format_list(&c, b, 64);
	return b;
}

static const char *env(const struct bnd_task_result *r, const char *name)
{
	const char *v = tu_taskenv_get(&r->env, name);
	return v ? v : "(unset)";
}

static const char *list_of(const bnd_cpuset_t *c)
{
	static char buf[4][128];
	static int i;
	char *b = buf[i++ % 4];
	ck_assert_int_eq(bnd_cpuset_format_list(c, b, 128), BND_OK);
	return b;
}

/* Records that hold or wait for cpus (a refused step's unbound record
 * holds nothing: unbound_records). */
static int records(void)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/state", state);
	int n = 0;
	for (const char *p = slurp(path); (p = strstr(p, "\nrec ")); p++)
		n += !strstr(p, " status=unbound ") ||
		     strstr(p, " status=unbound ") > strchr(p + 1, '\n');
	return n;
}

static int unbound_records(void)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/state", state);
	int n = 0;
	for (const char *p = slurp(path); (p = strstr(p, " status=unbound ")); p++)
		n++;
	return n;
}

/* The state's count line ("" without one). */
static const char *count_line(void)
{
	static char line[2048];
	char path[160];
	snprintf(path, sizeof(path), "%s/state", state);
	const char *p = strstr(slurp(path), "\ncount ");
	line[0] = '\0';
	if (p)
		snprintf(line, sizeof(line), "%.*s", (int)(strchr(p + 1, '\n') - p - 1), p + 1);
	return line;
}

/* metrics_file=: every change of the state rewrites the node's metrics. */
START_TEST(metrics_file_follows_every_change)
{
	struct bnd_step s;
	char prom[160];
	snprintf(prom, sizeof(prom), "%s/node.prom", dir);
	snprintf(cfg.metrics_file, sizeof(cfg.metrics_file), "%s", prom);
	struct bnd_step_in in = base(15, 0, 1, "0", "linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_msg(strstr(slurp(prom), "\nspank_binding_steps{status=\"bound\"} 1\n") &&
		      strstr(slurp(prom), "\nspank_binding_placements_total{strategy=\"linear\"} 1\n"),
		      "%s", slurp(prom));
	/* a refused step (2 cores on Slurm's 1) is in it as unbound */
	struct bnd_step t;
	struct bnd_step_in in2 = base(16, 0, 1, "0", "linear:2");
	ck_assert_int_eq(tu_step_start(&t, &in2), BND_OK);
	ck_assert_msg(strstr(slurp(prom), "\nspank_binding_steps{status=\"unbound\"} 1\n") &&
		      strstr(slurp(prom), "{reason=\"allocation_too_small\"} 1\n"), "%s", slurp(prom));
	bnd_step_finish(&t);
	bnd_step_free(&t);
	bnd_step_finish(&s);
	bnd_step_free(&s);
	ck_assert_msg(strstr(slurp(prom), "\nspank_binding_steps{status=\"bound\"} 0\n") &&
		      strstr(slurp(prom), "\nspank_binding_steps{status=\"unbound\"} 0\n"),
		      "%s", slurp(prom));
}
END_TEST

/* Slurm's GRES detail for the job on this node (numamem=yes). */
static char *detail_100m(void *ctx, const char *host, char *err, size_t errlen)
{
	(void)ctx;
	(void)host;
	(void)err;
	(void)errlen;
	return strdup("numamem:n0(CNT:104857600)");
}

/* numamem=yes: a refused step's unbound record keeps its job's booking,
 * which Slurm holds for the job whatever became of the step, so the
 * node's accounting still counts it (occupancy.c). */
START_TEST(refused_step_keeps_its_jobs_booking)
{
	cfg.numamem = true;
	struct bnd_step s;
	struct bnd_step_in in = base(17, 0, 1, "0", "linear:2");
	in.mbind = tu_option(BND_OPT_MBIND, "cores:strict");
	in.gres_detail = detail_100m;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_int_eq(s.booking.n, 1);
	char path[160];
	snprintf(path, sizeof(path), "%s/state", state);
	ck_assert_int_eq(unbound_records(), 1);
	ck_assert_msg(strstr(slurp(path), " why=allocation_too_small ") &&
		      strstr(slurp(path), " booked=0:100 "), "%s", slurp(path));
	bnd_step_finish(&s);
	bnd_step_free(&s);
	ck_assert_int_eq(unbound_records(), 0);
}
END_TEST

START_TEST(two_tasks_bound_and_released)
{
	if (!need_cores(2))
		return;
	struct bnd_step s;
	struct bnd_step_in in = base(11, 0, 2, "0-1", "linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.reason[0] == '\0', "%s", s.reason);
	ck_assert(bnd_step_active(&s) && s.state == BND_STEP_PLACED && bnd_step_recorded(&s));
	ck_assert_int_eq(records(), 1);

	struct bnd_task_result r;
	ck_assert_int_eq(bnd_step_task(&s, 1, 1, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_str_eq(r.message, "");
	/* task 1 of two linear:1 tasks on a free node: the second core */
	ck_assert_str_eq(status_cpus(), cpus_of_core(1));
	ck_assert_str_eq(env(&r, "SLURM_BINDING_STATUS"), "bound");
	ck_assert_str_eq(env(&r, "SLURM_BINDING_REQUEST"), "linear:1");
	ck_assert_msg(strstr(r.verbose, "host=n1 task=1 cores=0,1 cpus=") &&
		      strstr(r.verbose, "mempolicy=default"), "%s", r.verbose);
	/* slurmd's line: the mask read back, in hex and as a list */
	char want[256];
	snprintf(want, sizeof(want), "job 11 step 0 task 1 [%d] on n1: bound, mask 0x",
		 (int)getpid());
	ck_assert_msg(!strncmp(r.log, want, strlen(want)), "%s", r.log);
	snprintf(want, sizeof(want), " cpus %s cores 0,1, mems - mempolicy default, gpus -",
		 cpus_of_core(1));
	ck_assert_msg(strstr(r.log, want), "%s", r.log);
	bnd_taskenv_free(&r.env);

	ck_assert_int_eq(bnd_step_finish(&s), BND_OK);
	ck_assert_int_eq(records(), 0);
	bnd_step_free(&s);
}
END_TEST

START_TEST(allocation_too_small_names_both_numbers)
{
	struct bnd_step s;
	struct bnd_step_in in = base(12, 0, 1, "0", "linear:2");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(bnd_step_active(&s) && s.state != BND_STEP_PLACED && !bnd_step_recorded(&s));
	char want[128];
	snprintf(want, sizeof(want), "Slurm gave this step 1 core (cpus %s) for 1 task", cpus_of_core(0));
	ck_assert_msg(strstr(s.reason, "allocation on this node is too small") &&
		      strstr(s.reason, want) && strstr(s.reason, "2 cores needed"), "%s", s.reason);
	/* and names what the job should have asked Slurm for (lib/submit) */
	ck_assert_msg(strstr(s.reason, "the job's --cpus-per-task=2 --threads-per-core=1 would have "
			     "fitted"), "%s", s.reason);
	ck_assert_int_eq(records(), 0);
	/* kept as unbound for sbind status, counted with its reason */
	char path[160];
	snprintf(path, sizeof(path), "%s/state", state);
	ck_assert_int_eq(unbound_records(), 1);
	ck_assert_msg(strstr(slurp(path), " status=unbound ") &&
		      strstr(slurp(path), " why=allocation_too_small ") &&
		      strstr(slurp(path), " hist=1/unbound@"), "%s", slurp(path));
	ck_assert_msg(strstr(count_line(), " refusals.allocation_too_small=1 fallbacks.unbound=1 "),
		      "%s", count_line());

	const char *before = strdup(status_cpus());
	struct bnd_task_result r;
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_msg(strstr(r.message, "spank-binding: n1 task 0: not bound: the allocation"), "%s",
		      r.message);
	ck_assert(!strncmp(env(&r, "SLURM_BINDING_STATUS"), "unbound: the allocation", 23));
	ck_assert_str_eq(r.log, ""); /* only bound tasks are logged */
	ck_assert_str_eq(env(&r, "SLURM_BINDING"), "");
	ck_assert_str_eq(status_cpus(), before);
	bnd_taskenv_free(&r.env);

	/* on_failure=fail: the task is told to fail, with the same reason */
	cfg.on_failure = BND_ONFAIL_FAIL;
	bnd_step_free(&s);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_int_eq(r.failed, 1);
	ck_assert_msg(strstr(r.message, "binding failed (on_failure=fail): the allocation"), "%s",
		      r.message);
	bnd_taskenv_free(&r.env);
	/* the same step again: its record replaced, the refusals added up */
	ck_assert_int_eq(unbound_records(), 1);
	ck_assert_msg(strstr(count_line(), " refusals.allocation_too_small=2 fallbacks.unbound=1 "
			     "fallbacks.failed=1 "), "%s", count_line());
	/* its release drops the record; the counts stay */
	ck_assert_int_eq(bnd_step_finish(&s), BND_OK);
	ck_assert_int_eq(unbound_records(), 0);
	ck_assert_msg(strstr(count_line(), " refusals.allocation_too_small=2 "), "%s", count_line());
	bnd_step_free(&s);
	free((void *)before);
}
END_TEST

/* The two stages: prepare decides what the step asks and where it may
 * run, and writes nothing to the state; place runs its transaction, and
 * records every refused step, whichever stage refused it. */
START_TEST(prepare_writes_nothing_place_records)
{
	struct bnd_step s;
	struct bnd_step_in in = base(17, 0, 1, "0", "linear:1");
	ck_assert_int_eq(bnd_step_place(NULL, &in), BND_EINVAL);
	ck_assert_int_eq(bnd_step_prepare(&s, &in), BND_OK);
	ck_assert_int_eq(bnd_step_place(&s, NULL), BND_EINVAL);
	ck_assert_msg(s.state == BND_STEP_READY, "%s: %s", bnd_step_state_name(s.state), s.reason);
	ck_assert(!bnd_step_active(&s) && !bnd_step_recorded(&s));
	ck_assert_int_eq(records(), 0);
	ck_assert_int_eq(bnd_step_place(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_int_eq(records(), 1);
	ck_assert_int_eq(bnd_step_finish(&s), BND_OK);
	bnd_step_free(&s);

	/* refused by place (2 cores on Slurm's 1) */
	in = base(18, 0, 1, "0", "linear:2");
	ck_assert_int_eq(bnd_step_prepare(&s, &in), BND_OK);
	ck_assert_int_eq(s.state, BND_STEP_READY);
	ck_assert_int_eq(unbound_records(), 0);
	ck_assert_int_eq(bnd_step_place(&s, &in), BND_OK);
	ck_assert_int_eq(s.state, BND_STEP_FAILED);
	ck_assert_int_eq(unbound_records(), 1);
	ck_assert_msg(strstr(count_line(), " refusals.allocation_too_small=1 fallbacks.unbound=1"),
		      "%s", count_line());
	ck_assert_int_eq(bnd_step_finish(&s), BND_OK);
	bnd_step_free(&s);

	/* refused by prepare (a request that does not parse): recorded by place */
	in = base(19, 0, 1, "0", "linear:0");
	ck_assert_int_eq(bnd_step_prepare(&s, &in), BND_OK);
	ck_assert_int_eq(s.state, BND_STEP_FAILED);
	ck_assert(bnd_step_active(&s));
	ck_assert_int_eq(unbound_records(), 0);
	ck_assert_msg(!strstr(count_line(), "refusals.invalid_request="), "%s", count_line());
	ck_assert_int_eq(bnd_step_place(&s, &in), BND_OK);
	ck_assert_int_eq(s.state, BND_STEP_FAILED);
	ck_assert_int_eq(unbound_records(), 1);
	ck_assert_msg(strstr(count_line(), " refusals.invalid_request=1 "), "%s", count_line());
	ck_assert_int_eq(bnd_step_finish(&s), BND_OK);
	bnd_step_free(&s);
}
END_TEST

START_TEST(other_jobs_cores_are_never_taken)
{
	struct bnd_step a, b;
	struct bnd_step_in ia = base(21, 0, 1, "0", "linear:1");
	struct bnd_step_in ib = base(22, 0, 1, "0", "linear:1");
	ck_assert_int_eq(tu_step_start(&a, &ia), BND_OK);
	ck_assert(a.state == BND_STEP_PLACED);
	ck_assert_int_eq(tu_step_start(&b, &ib), BND_OK);
	ck_assert(b.state != BND_STEP_PLACED);
	char want[64];
	snprintf(want, sizeof(want), "other jobs hold cpus %s", cpus_of_core(0));
	ck_assert_msg(strstr(b.reason, "cores held by other jobs") && strstr(b.reason, want), "%s",
		      b.reason);
	bnd_step_free(&b);
	ck_assert_int_eq(bnd_step_finish(&a), BND_OK);
	bnd_step_free(&a);
	/* released: the same request fits now */
	ck_assert_int_eq(tu_step_start(&b, &ib), BND_OK);
	ck_assert_msg(b.state == BND_STEP_PLACED, "%s", b.reason);
	bnd_step_finish(&b);
	bnd_step_free(&b);
}
END_TEST

START_TEST(batch_script_holds_the_jobs_cores_and_steps_reuse_them)
{
	if (!need_cores(2))
		return;
	struct bnd_step bat, st, other;
	struct bnd_step_in ib = base(31, BND_STEP_BATCH, 1, "0-1", "linear:1");
	ib.tasks_per_node = "2";
	ib.ntasks_env = "2";
	ck_assert_int_eq(tu_step_start(&bat, &ib), BND_OK);
	ck_assert_msg(bat.state == BND_STEP_PLACED, "%s", bat.reason);
	ck_assert_int_eq(bat.ntasks, 2);
	ck_assert_int_eq(bnd_cpuset_count(&bat.pl.all_cpus) , here->cores[0].npus + here->cores[1].npus);

	/* the srun step inside: two tasks inside the script's cores */
	struct bnd_step_in is = base(31, 0, 2, "0-1", "linear:1");
	ck_assert_int_eq(tu_step_start(&st, &is), BND_OK);
	ck_assert_msg(st.state == BND_STEP_PLACED, "%s", st.reason);
	ck_assert(bnd_cpuset_subset(&st.pl.all_cpus, &bat.pl.all_cpus));
	ck_assert(!bnd_cpuset_intersects(&st.pl.tasks[0].cpus, &st.pl.tasks[1].cpus));

	/* a second step of the job while the first runs: the script's cores
	 * are both held by step 0, and steps never share */
	struct bnd_step st2;
	struct bnd_step_in is2 = base(31, 1, 1, "0-1", "linear:1");
	ck_assert_int_eq(tu_step_start(&st2, &is2), BND_OK);
	ck_assert(st2.state != BND_STEP_PLACED);
	char steps_want[96];
	snprintf(steps_want, sizeof(steps_want), "the job's other running steps hold cpus %s and other "
		 "jobs cpus none", list_of(&st.pl.all_cpus));
	ck_assert_msg(strstr(st2.reason, "cores held by this job's other steps: Slurm gave this step") &&
		      strstr(st2.reason, steps_want), "%s", st2.reason);
	/* on_failure=defer (the default): it waits as a deferred record */
	ck_assert_msg(st2.state == BND_STEP_DEFERRED && strstr(st2.reason, "deferred, bound as soon as a placement "
					     "frees up (on_failure=defer): "), "%s", st2.reason);
	/* counted when it was deferred: the reason and what it got instead */
	ck_assert_msg(strstr(count_line(), "count placements.linear=2 refusals.held_by_own_steps=1 "
			     "fallbacks.deferred=1 "), "%s", count_line());
	bnd_step_finish(&st2);
	bnd_step_free(&st2);

	/* another job on the same cores gets nothing */
	struct bnd_step_in io = base(32, 0, 1, "0-1", "linear:1");
	ck_assert_int_eq(tu_step_start(&other, &io), BND_OK);
	ck_assert_msg(other.state != BND_STEP_PLACED && strstr(other.reason, "held by other jobs"), "%s", other.reason);
	ck_assert_msg(strstr(count_line(), " refusals.held_by_other_jobs=1 refusals.held_by_own_steps=1 "
			     "fallbacks.deferred=2 "), "%s", count_line());
	bnd_step_finish(&other);
	bnd_step_free(&other);

	/* the batch task itself is bound to all of the job's cores */
	struct bnd_task_result r;
	ck_assert_int_eq(bnd_step_task(&bat, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	char want[64];
	bnd_cpuset_format_list(&bat.pl.all_cpus, want, sizeof(want));
	ck_assert_str_eq(status_cpus(), want);
	bnd_taskenv_free(&r.env);

	bnd_step_finish(&st);
	bnd_step_free(&st);
	bnd_step_finish(&bat);
	bnd_step_free(&bat);
	ck_assert_int_eq(records(), 0);
}
END_TEST

START_TEST(env_and_pe_bind_nothing_pe_writes_a_rankfile)
{
	if (!need_cores(2))
		return;
	struct bnd_step s;
	struct bnd_task_result r;
	int gids[2] = { 4, 5 };
	const char *before = strdup(status_cpus());

	struct bnd_step_in in = base(41, 3, 2, "0-1", "env:linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state == BND_STEP_PLACED);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(status_cpus(), before);
	ck_assert_str_eq(env(&r, "SLURM_BINDING_INSTANCE"), "env");
	ck_assert_str_eq(env(&r, "SLURM_BINDING"), cpus_of_core(0));
	ck_assert_str_eq(env(&r, "OMP_PLACES"), "(unset)");
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);

	in = base(42, 3, 2, "0-1", "pe:linear:1");
	in.global_ids = gids;
	in.step_nodelist = "a,n[7-9]";
	in.job_nodelist = "a,n[7-9],z";
	in.nodeid = 2;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state == BND_STEP_PLACED);
	char path[256], want[128];
	snprintf(path, sizeof(path), "%s/rankfile.42.3.2", state);
	ck_assert_str_eq(s.rankfile, path);
	snprintf(want, sizeof(want), "rank 4=n8 slot=%d:%d\nrank 5=n8 slot=%d:%d\n",
		 here->cores[0].socket, here->cores[0].core, here->cores[1].socket,
		 here->cores[1].core);
	ck_assert_str_eq(slurp(path), want);
	ck_assert_int_eq(bnd_step_task(&s, 1, 5, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(status_cpus(), before);
	ck_assert_str_eq(env(&r, "SLURM_BINDING_RANKFILE"), path);
	snprintf(want, sizeof(want), "%d,%d", here->cores[1].socket, here->cores[1].core);
	ck_assert_str_eq(env(&r, "SLURM_BINDING_PE"), want);
	bnd_taskenv_free(&r.env);
	/* written after its transaction: counted by the step's next one */
	ck_assert_msg(!strstr(count_line(), "rankfiles="), "%s", count_line());
	ck_assert_uint_eq(s.pending.v[BND_CNT_RANKFILE], 1);
	bnd_step_finish(&s);
	ck_assert_msg(strstr(count_line(), " rankfiles=1 "), "%s", count_line());
	ck_assert_uint_eq(s.pending.v[BND_CNT_RANKFILE], 0);
	ck_assert_int_eq(access(path, F_OK), -1);
	bnd_step_free(&s);
	free((void *)before);
}
END_TEST

static void keep_log(void *ctx, const char *msg)
{
	char *buf = ctx;
	size_t n = strlen(buf);
	snprintf(buf + n, 4096 - n, "%s\n", msg);
}

/* Regression (issue 8): a rankfile name that already exists (planted as a
 * hard link to another file, a symlink, anything) was opened with O_TRUNC
 * and written through: a hard link's other file was overwritten as root,
 * and a file another user owned stayed theirs. Now the name is removed,
 * logged, and a fresh root file created. */
START_TEST(planted_rankfile_is_never_opened)
{
	char victim[160], path[200], dangling[160], link2[200], logbuf[4096] = "";
	struct stat st;
	ck_assert_int_eq(mkdir(state, 0755), 0);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	FILE *f = fopen(victim, "w");
	ck_assert(f);
	fputs("precious\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/rankfile.50.0.0", state);
	ck_assert_int_eq(link(victim, path), 0);
	snprintf(dangling, sizeof(dangling), "%s/made-through-a-symlink", dir);
	snprintf(link2, sizeof(link2), "%s/rankfile.51.0.0", state);
	ck_assert_int_eq(symlink(dangling, link2), 0);

	for (int job = 50; job <= 51; job++) {
		struct bnd_step s;
		struct bnd_step_in in = base((uint32_t)job, 0, 1, "0", "pe:linear:1");
		in.log = keep_log;
		in.log_ctx = logbuf;
		ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
		ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
		const char *want = job == 50 ? path : link2;
		ck_assert_str_eq(s.rankfile, want);
		ck_assert_int_eq(lstat(want, &st), 0);
		ck_assert(S_ISREG(st.st_mode));
		ck_assert_int_eq((int)st.st_nlink, 1);
		ck_assert_int_eq((int)st.st_uid, (int)geteuid());
		ck_assert_int_eq(st.st_mode & 07777, 0644);
		ck_assert_msg(!strncmp(slurp(want), "rank 0=", 7), "%s", slurp(want));
		bnd_step_finish(&s);
		bnd_step_free(&s);
	}
	ck_assert_str_eq(slurp(victim), "precious\n");
	ck_assert_int_eq(access(dangling, F_OK), -1);
	ck_assert_msg(strstr(logbuf, "rankfile.50.0.0 was already there (a file") &&
		      strstr(logbuf, "rankfile.51.0.0 was already there (a symlink") &&
		      strstr(logbuf, "never opened"), "%s", logbuf);
}
END_TEST

static const char *host_of(uint32_t step, const char *step_list, const char *job_list,
			   uint32_t nodeid)
{
	static char out[256];
	struct bnd_step s;
	struct bnd_step_in in = base(45, step, 1, "0", NULL);
	in.step_nodelist = step_list;
	in.job_nodelist = job_list;
	in.nodeid = nodeid;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	snprintf(out, sizeof(out), "%s", s.host);
	bnd_step_free(&s);
	return out;
}

/* The node's name comes from the step's (batch: the job's) node list at
 * this node's index, else gethostname(); never a name that could add
 * lines to the root-written rankfile. */
START_TEST(node_name_from_the_lists_never_injected)
{
	char me[256] = "";
	ck_assert_int_eq(gethostname(me, sizeof(me) - 1), 0);
	ck_assert_str_eq(host_of(0, "a,n[7-9]", "z", 2), "n8");
	ck_assert_str_eq(host_of(0, NULL, "j[0-3]", 1), "j1");
	ck_assert_str_eq(host_of(0, "n1\nrank 9=evil slot=0", "j[0-3]", 1), "j1");
	ck_assert_str_eq(host_of(0, "bad name", NULL, 0), me);
	ck_assert_str_eq(host_of(0, "a,b", NULL, 5), me);
	/* the batch step: the job's list, whatever SLURM_STEP_NODELIST the
	 * submitting shell carried */
	ck_assert_str_eq(host_of(BND_STEP_BATCH, "stale", "b[1-2]", 0), "b1");

	if (!need_cores(1))
		return;
	struct bnd_step s;
	struct bnd_step_in in = base(46, 0, 1, "0", "pe:linear:1");
	in.step_nodelist = "x\nrank 99=evil slot=0:0";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	char want[512];
	snprintf(want, sizeof(want), "rank 0=%s slot=%d:%d\n", me, here->cores[0].socket,
		 here->cores[0].core);
	ck_assert_str_eq(slurp(s.rankfile), want);
	bnd_step_finish(&s);
	bnd_step_free(&s);
}
END_TEST

START_TEST(cpuset_check_refuses_cpus_outside)
{
	if (!need_cores(2))
		return;
	/* a fake cgroup tree whose cpuset is core 1 only, step placed on core 0 */
	char root[128], self[160], cmd[512];
	snprintf(root, sizeof(root), "%s/cg", dir);
	snprintf(self, sizeof(self), "%s/self", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/cpuset/job && echo %s > %s/cpuset/job/cpuset.cpus && "
		 "echo /job > %s", root, cpus_of_core(1), root, self);
	ck_assert_int_eq(system(cmd), 0);
	struct bnd_step s;
	struct bnd_task_result r;
	struct bnd_step_in in = base(51, 0, 1, "0", "linear:1");
	const char *before = strdup(status_cpus());
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state == BND_STEP_PLACED);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, root, self, &r), BND_OK);
	ck_assert_msg(strstr(r.message, "outside the task's cpuset"), "%s", r.message);
	ck_assert_str_eq(status_cpus(), before);
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);
	free((void *)before);
}
END_TEST

START_TEST(nothing_asked_costs_nothing)
{
	struct bnd_step s;
	struct bnd_task_result r;
	struct bnd_step_in in = base(61, 0, 1, "0", NULL);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(!bnd_step_active(&s) && !s.topo);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_int_eq(r.env.n, 0);
	ck_assert_str_eq(r.verbose, "");
	bnd_step_free(&s);
	/* the admin's default applies to jobs without --binding */
	set_default("linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(s.req->text, "linear:1");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	/* disabled: nothing, even with a request; the extern step never */
	cfg.enabled = 0;
	in.binding = tu_option(BND_OPT_BINDING, "linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(!bnd_step_active(&s));
	cfg.enabled = 1;
	in.step = BND_STEP_EXTERN;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(!bnd_step_active(&s));
	/* an explicit none clears what a batch script exported */
	in.step = 0;
	in.binding = tu_option(BND_OPT_BINDING, "none");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(bnd_step_active(&s) && s.state != BND_STEP_PLACED);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(r.message, "");
	ck_assert_str_eq(env(&r, "SLURM_BINDING_STATUS"), "unbound: no binding requested");
	ck_assert_str_eq(env(&r, "SLURM_BINDING"), "");
	bnd_taskenv_free(&r.env);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
}
END_TEST

START_TEST(mbind_strict_and_nlocal)
{
	struct bnd_step s;
	struct bnd_task_result r;
	struct bnd_step_in in = base(71, 0, 1, "0", "linear:1");
	in.mbind = tu_option(BND_OPT_MBIND, "cores:strict");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(r.message, "");
	ck_assert_msg(strstr(r.verbose, "mempolicy=bind:0"), "%s", r.verbose);
	ck_assert_str_eq(env(&r, "SLURM_MBIND"), "cores:strict");
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);
}
END_TEST

/* A policy that follows the task's cores, asked without a core binding:
 * the task runs with the reason request.h words for both the plugin and
 * sbind place; round_robin alone applies (interleaved) and, like every
 * step that places no cores, records nothing, memory included. */
START_TEST(mbind_without_cores_says_what_sbind_says)
{
	struct bnd_step s;
	struct bnd_task_result r;
	char why[BND_ERRLEN];
	ck_assert_int_eq(bnd_mbind_unbound(BND_M_CORES_STRICT, 0, why, sizeof(why)), BND_EINVAL);
	struct bnd_step_in in = base(72, 0, 1, "0", "none");
	in.mbind = tu_option(BND_OPT_MBIND, "cores:strict");
	in.mem_mib = 100;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(bnd_step_active(&s) && s.state == BND_STEP_UNBOUND);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_msg(strstr(r.message, why) && !r.failed, "%s", r.message);
	bnd_taskenv_free(&r.env);
	bnd_step_free(&s);
	/* the same without --binding at all */
	in.binding = NULL;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_msg(strstr(r.message, why), "%s", r.message);
	bnd_taskenv_free(&r.env);
	bnd_step_free(&s);
	/* round_robin needs no cores */
	in.mbind = tu_option(BND_OPT_MBIND, "round_robin");
	ck_assert_int_eq(bnd_mbind_unbound(BND_M_ROUND_ROBIN, 0, why, sizeof(why)), BND_OK);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state == BND_STEP_UNBOUND);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(r.message, "");
	ck_assert_msg(strstr(r.verbose, "mempolicy=interleave"), "%s", r.verbose);
	bnd_taskenv_free(&r.env);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
}
END_TEST

/* nlocal: an implicit binding (one core per task on one NUMA node), the
 * memory bound there, the reservation in the record and the variables. */
START_TEST(mbind_nlocal_binds_and_reserves)
{
	struct bnd_step s;
	struct bnd_task_result r;
	struct bnd_step_in in = base(72, 0, 1, "0", NULL);
	in.mbind = tu_option(BND_OPT_MBIND, "nlocal");
	in.mem_mib = 100;
	cfg.on_failure = BND_ONFAIL_FAIL;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_int_eq(s.mem.nshares, 1);
	ck_assert(s.mem.shares[0].node == 0 && s.mem.shares[0].mib == 100);
	ck_assert_int_eq(s.mem.bind, 1);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_str_eq(r.message, "");
	ck_assert_msg(strstr(r.verbose, "mempolicy=bind:0"), "%s", r.verbose);
	ck_assert_str_eq(env(&r, "SLURM_MBIND_NODES"), "0");
	ck_assert_str_eq(env(&r, "SLURM_MBIND"), "nlocal");
	ck_assert_msg(strchr(env(&r, "SLURM_BINDING_TOPOLOGY_NUMA"), 'c'), "%s",
		      env(&r, "SLURM_BINDING_TOPOLOGY_NUMA"));
	bnd_taskenv_free(&r.env);
	/* The record holds the memory until the step ends. */
	char path[160];
	snprintf(path, sizeof(path), "%s/state", state);
	ck_assert_int_eq(records(), 1);
	ck_assert_msg(strstr(slurp(path), " mem=0:100 mbind=nlocal hist=1/bound@"), "%s", slurp(path));
	ck_assert_msg(strstr(count_line(), "count placements.nlocal=1 "), "%s", count_line());
	bnd_step_finish(&s);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
	cfg.on_failure = BND_ONFAIL_UNBOUND;
}
END_TEST

/* cores:strict with more memory than the node has after mem_reserve=: no
 * binding possible, said so; nothing recorded. */
START_TEST(mbind_strict_memory_short)
{
	struct bnd_step s;
	struct bnd_task_result r;
	struct bnd_step_in in = base(73, 0, 1, "0", "linear:1");
	in.mbind = tu_option(BND_OPT_MBIND, "cores:strict");
	in.mem_mib = 1ull << 40; /* a TiB per node: more than any test machine */
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state != BND_STEP_PLACED);
	ck_assert_msg(strstr(s.reason, "cores:strict") && strstr(s.reason, "free MiB per node"),
		      "%s", s.reason);
	/* memory is what is short: the reason must not blame other jobs' cores */
	ck_assert_msg(!strncmp(s.reason, "not enough free memory on the NUMA nodes of this step's "
			       "cores: Slurm gave this step cpus ", 89) &&
		      strstr(s.reason, ", none of them held by another job; --mbind=cores:strict") &&
		      !strstr(s.reason, "cores held"), "%s", s.reason);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
}
END_TEST

/* The node as a synthetic topology: the cache in the state dir is what a
 * step reads, so writing one there stands in for other hardware. Tasks
 * are not bound on it (its cpus need not exist here): the tests read the
 * placement. */
static struct bnd_topology *fake_node(const char *source)
{
	char err[BND_ERRLEN], path[160];
	struct bnd_topology *t = NULL;
	ck_assert_msg(bnd_topocache_warmup(cfg.state_dir, cfg.topology, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_msg(bnd_topology_load(&t, source, err, sizeof(err)) == BND_OK, "%s", err);
	/* what discovery of "this machine" would have cached (a cache of
	 * another source is not used without topology=) */
	snprintf(t->source, sizeof(t->source), "this machine");
	snprintf(path, sizeof(path), "%s/" BND_TOPOCACHE_FILE, state);
	ck_assert_msg(tu_cache_write(t, path, NULL, err, sizeof(err)) == BND_OK, "%s", err);
	return t;
}

/* An explicit list that does not fit says why: more cpus would not help,
 * so the reason must not say "too small ... ask for more cpus". */
START_TEST(explicit_list_reasons)
{
	struct bnd_topology *t = fake_node("pack:1 core:4");
	struct bnd_step s;
	struct bnd_step_in in = base(13, 0, 2, "0-3", "explicit:0,0:0,1:0,2");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state != BND_STEP_PLACED);
	ck_assert_str_eq(s.reason, "--binding=explicit:0,0:0,1:0,2 lists 3 cores, which cannot be "
			 "shared out evenly among this step's 2 tasks on this node (list a multiple "
			 "of 2 cores)");
	bnd_step_free(&s);
	/* the batch script stands for the job's tasks */
	in = base(14, BND_STEP_BATCH, 1, "0-3", "explicit:0,0:0,1:0,2");
	in.tasks_per_node = "2";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED && strstr(s.reason, "among the job's 2 tasks on this node"), "%s",
		      s.reason);
	bnd_step_free(&s);
	/* a core outside the step's allocation */
	in = base(15, 0, 1, "0-1", "explicit:0,3");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state != BND_STEP_PLACED);
	ck_assert_str_eq(s.reason, "--binding=explicit:0,3 names cores this step was not given: "
			 "Slurm gave it 2 cores (cpus 0-1) for 1 task; explicit: core 0,3 is not free");
	bnd_step_free(&s);
	/* Regression (issue 8): an LSF cpus: list naming a cpu outside the
	 * allocation was "the allocation is too small ... ask for more cpus",
	 * but it names its cpus, like explicit. */
	in = base(16, 0, 1, "0-1", "cpus:3");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state != BND_STEP_PLACED);
	const char *cw = "--binding=cpus:3 names cpus this step was not given: Slurm gave it "
			 "2 cores (cpus 0-1) for 1 task; cpus: ";
	ck_assert_msg(!strncmp(s.reason, cw, strlen(cw)) && !strstr(s.reason, "ask for more"),
		      "%s", s.reason);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
	bnd_topology_free(t);
}
END_TEST

/* The guest node's SMT layout: Slurm's CR_Core gives `srun -n2` one core
 * and a task per thread. The tasks share the core (issue 13: before, the
 * step was "too small" and nothing was bound). */
START_TEST(smt_tasks_share_the_core_slurm_gave)
{
	struct bnd_topology *t = fake_node("pack:2 numa:2 core:2 pu:2");
	struct bnd_step s, s2;
	struct bnd_task_result r;
	const struct { const char *cores, *req; int ntasks; const char *want[4]; } v[] = {
		{ "0", "env:linear:1", 2, { "0 1", "0 1" } },
		{ "0-1", "env:linear:1", 4, { "0 1", "0 1", "2 3", "2 3" } },
		{ "0-1", "env:linear:1", 3, { "0 1", "0 1", "2 3" } },
		{ "0", "env:explicit:0,0", 2, { "0 1", "0 1" } },
		/* a core per task from Slurm (-n2 -c2): no sharing */
		{ "0-1", "env:linear:1", 2, { "0 1", "2 3" } },
		/* threads asked: a thread each */
		{ "0", "env:packed:1:unit=T", 2, { "0", "1" } },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct bnd_step_in in = base(130 + (uint32_t)i, 0, v[i].ntasks, v[i].cores, v[i].req);
		ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
		ck_assert_msg(s.state == BND_STEP_PLACED, "%s: %s", v[i].req, s.reason);
		for (int k = 0; k < v[i].ntasks; k++) {
			ck_assert_int_eq(bnd_step_task(&s, k, k, 0, NULL, NULL, NULL, &r), BND_OK);
			ck_assert_msg(!strcmp(env(&r, "SLURM_BINDING"), v[i].want[k]),
				      "%zu %s task %d: %s, want %s", i, v[i].req, k,
				      env(&r, "SLURM_BINDING"), v[i].want[k]);
			ck_assert_str_eq(env(&r, "SLURM_BINDING_STATUS"), "bound");
			bnd_taskenv_free(&r.env);
		}
		bnd_step_finish(&s);
		bnd_step_free(&s);
	}
	/* two jobs of two tasks each on the threads of cores 0 and 1: the
	 * state keeps them apart, and the core of one is held for the other */
	struct bnd_step_in a = base(140, 0, 2, "0", "env:linear:1");
	struct bnd_step_in b = base(141, 0, 2, "1", "env:linear:1");
	struct bnd_step_in c = base(142, 0, 2, "0", "env:linear:1");
	ck_assert_int_eq(tu_step_start(&s, &a), BND_OK);
	ck_assert_int_eq(tu_step_start(&s2, &b), BND_OK);
	ck_assert(s.state == BND_STEP_PLACED && s2.state == BND_STEP_PLACED);
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "0-1");
	ck_assert_str_eq(list_of(&s2.pl.all_cpus), "2-3");
	ck_assert_int_eq(records(), 2);
	struct bnd_step s3;
	ck_assert_int_eq(tu_step_start(&s3, &c), BND_OK);
	ck_assert_msg(s3.state != BND_STEP_PLACED && strstr(s3.reason, "cores held by other jobs"), "%s", s3.reason);
	bnd_step_free(&s3);
	bnd_step_finish(&s);
	bnd_step_free(&s);
	bnd_step_finish(&s2);
	bnd_step_free(&s2);
	/* pe: the rankfile gives both ranks their shared core */
	struct bnd_step_in p = base(143, 0, 2, "5", "pe:linear:1");
	ck_assert_int_eq(tu_step_start(&s, &p), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(slurp(s.rankfile), "rank 0=n1 slot=1:1\nrank 1=n1 slot=1:1\n");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	/* the batch script of a 2-task job on one core gets it */
	struct bnd_step_in ib = base(144, BND_STEP_BATCH, 1, "2", "linear:1");
	ib.tasks_per_node = "2";
	ck_assert_int_eq(tu_step_start(&s, &ib), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "4-5");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	/* two cores per task do not fit one core, shared or not */
	struct bnd_step_in l2 = base(145, 0, 2, "0", "linear:2");
	ck_assert_int_eq(tu_step_start(&s, &l2), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED && strstr(s.reason, "allocation on this node is too small"), "%s",
		      s.reason);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
	bnd_topology_free(t);
}
END_TEST

/* GPUs on an MI300A-shaped node (4 packages, an APU each): fake device
 * files in gres.conf, their bus ids from the site's map; each task next to
 * its own GPU, the visible-device variables narrowed, a second job next to
 * its own, a third whose GPU's cores are taken told where it went. */
static void gpu_node(void)
{
	char path[160], line[512];
	snprintf(path, sizeof(path), "%s/gres.conf", dir);
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "AutoDetect=off\nName=gpu File=%s/fakegpu[0-3]\n", dir);
	fclose(fp);
	snprintf(cfg.gres_conf, sizeof(cfg.gres_conf), "%s", path);
	memset(&cfg.gpu_devices, 0, sizeof(cfg.gpu_devices));
	for (int i = 0; i < 4; i++) {
		char err[BND_ERRLEN];
		snprintf(line, sizeof(line), "%s/fakegpu%d=%04x:02:00.0", dir, i, i);
		ck_assert_int_eq(bnd_gpu_devmap_add(&cfg.gpu_devices, line, err, sizeof(err)), BND_OK);
	}
}

static struct bnd_task_vars gpu_vars(const char *list)
{
	struct bnd_task_vars v = { NULL, NULL, NULL, NULL, { list, list, NULL, list, NULL } };
	return v;
}

START_TEST(gpu_tasks_next_to_their_own_gpus)
{
	struct bnd_topology *t = fake_node("tests/unit/topology/xml/mi300a-apu.xml");
	gpu_node();
	struct bnd_step a, b, c;
	struct bnd_task_result r;
	struct bnd_step_in in = base(200, 0, 2, "0-15", "env:gpu:2");
	in.gpu.step_gpus = "1,3";
	ck_assert_int_eq(tu_step_start(&a, &in), BND_OK);
	ck_assert_msg(a.state == BND_STEP_PLACED, "%s", a.reason);
	ck_assert_int_eq(a.gpus.split, BND_SPLIT_PLUGIN);
	struct bnd_task_vars v = gpu_vars("1,3");
	const char *want[2][4] = { { "8 9 10 11", "0001:02:00.0", "1", "local" },
				   { "24 25 26 27", "0003:02:00.0", "3", "local" } };
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(bnd_step_task(&a, k, k, 1, &v, NULL, NULL, &r), BND_OK);
		ck_assert_str_eq(env(&r, "SLURM_BINDING"), want[k][0]);
		ck_assert_str_eq(env(&r, "SLURM_BINDING_GPUS"), want[k][1]);
		ck_assert_str_eq(env(&r, "CUDA_VISIBLE_DEVICES"), want[k][2]);
		ck_assert_str_eq(env(&r, "SLURM_STEP_GPUS"), want[k][2]);
		ck_assert_str_eq(env(&r, "ROCR_VISIBLE_DEVICES"), want[k][2]);
		ck_assert_ptr_null(tu_taskenv_get(&r.env, "GPU_DEVICE_ORDINAL"));
		ck_assert_str_eq(env(&r, "SLURM_BINDING_GPU_LOCALITY"), want[k][3]);
		ck_assert_msg(strstr(r.verbose, " gpus=") && strstr(r.verbose, want[k][1]), "%s",
			      r.verbose);
		bnd_taskenv_free(&r.env);
	}
	/* A second job on GPU 2: package 2; a third on GPU 1 with 4 cores:
	 * two are job 200's, so two come from the nearest package, and the
	 * task says which GPU's cores were taken. */
	in = base(201, 0, 1, "0-15", "env:gpu:2:visible=all");
	in.gpu.step_gpus = "2";
	ck_assert_int_eq(tu_step_start(&b, &in), BND_OK);
	ck_assert_str_eq(list_of(&b.pl.all_cpus), "16-19");
	v = gpu_vars("2");
	ck_assert_int_eq(bnd_step_task(&b, 0, 0, 0, &v, NULL, NULL, &r), BND_OK);
	ck_assert_ptr_null(tu_taskenv_get(&r.env, "CUDA_VISIBLE_DEVICES"));
	bnd_taskenv_free(&r.env);
	in = base(202, 0, 1, "0-15", "env:gpu:4");
	in.gpu.step_gpus = "1";
	ck_assert_int_eq(tu_step_start(&c, &in), BND_OK);
	ck_assert_msg(c.state == BND_STEP_PLACED, "%s", c.reason);
	ck_assert_str_eq(list_of(&c.pl.all_cpus), "0-3,12-15");
	v = gpu_vars("1");
	ck_assert_int_eq(bnd_step_task(&c, 0, 0, 0, &v, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(env(&r, "SLURM_BINDING_GPU_LOCALITY"), "nearest: 2 of 4 cores next to "
			 "rsmi1; task 0: rsmi1 has 4 local cores (cpus 8-15): 2 held by other jobs, "
			 "0 outside this step's cpus, 0 taken by its earlier tasks; 2 of its 4 cores "
			 "are elsewhere, the farthest at NUMA distance 20");
	/* One GPU, one task: nothing to narrow (the task has all of them). */
	ck_assert_str_eq(env(&r, "CUDA_VISIBLE_DEVICES"), "1");
	bnd_taskenv_free(&r.env);
	ck_assert_int_eq(records(), 3);
	bnd_step_finish(&a);
	bnd_step_free(&a);
	bnd_step_finish(&b);
	bnd_step_free(&b);
	bnd_step_finish(&c);
	bnd_step_free(&c);
	/* A request that is not GPU-aware leaves the GPUs alone. */
	in = base(203, 0, 2, "0-15", "env:linear:1");
	in.gpu.step_gpus = "1,3";
	ck_assert_int_eq(tu_step_start(&a, &in), BND_OK);
	ck_assert_int_eq(a.gpus.n, 0);
	v = gpu_vars("1,3");
	ck_assert_int_eq(bnd_step_task(&a, 1, 1, 0, &v, NULL, NULL, &r), BND_OK);
	ck_assert_ptr_null(tu_taskenv_get(&r.env, "CUDA_VISIBLE_DEVICES"));
	ck_assert_str_eq(env(&r, "SLURM_BINDING_GPUS"), "");
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&a);
	bnd_step_free(&a);
	ck_assert_int_eq(records(), 0);
	bnd_topology_free(t);
}
END_TEST

/* A start core the step was not given is named as such; the allocation is
 * not "too small" when it holds more cores than asked (issue 13). */
START_TEST(start_core_outside_the_step_is_the_reason)
{
	struct bnd_topology *t = fake_node("pack:2 numa:2 core:2 pu:2");
	struct bnd_step s;
	struct bnd_step_in in = base(150, 0, 1, "0-3", "linear:1:1,0");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state != BND_STEP_PLACED);
	ck_assert_str_eq(s.reason, "--binding=linear:1:1,0 needs core 1,0, which is not among this "
			 "step's cores: Slurm gave it 4 cores (cpus 0-7) for 1 task");
	bnd_step_free(&s);
	in = base(151, 0, 1, "0-1", "striding:2:2:0,0");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.reason, "--binding=striding:2:2:0,0 needs core 0,2, which is not among "
			 "this step's cores: Slurm gave it 2 cores (cpus 0-3) for 1 task");
	bnd_step_free(&s);
	in = base(152, 0, 2, "0-7", "linear:1:1,3");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED && strstr(s.reason, "--binding=linear:1:1,3 cannot be placed on this "
					   "node for 2 tasks: linear: 2 successive cores from 1,3 "
					   "run past the last core"), "%s", s.reason);
	bnd_step_free(&s);
	/* the site's first core is named with the filter */
	cfg.filter = BND_FILTER_FIRST_CORE;
	in = base(153, 0, 1, "0-3", "linear:1:0,0");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED && strstr(s.reason, "needs core 0,0, which is not among") &&
		      strstr(s.reason, "filter=first_core keeps cpus 0-1"), "%s", s.reason);
	bnd_step_free(&s);
	/* the start core is there but not enough after it: still named */
	cfg.filter = BND_FILTER_NONE;
	in = base(154, 0, 1, "0-3", "linear:2:0,3");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.reason, "--binding=linear:2:0,3 needs core 1,0, which is not among this "
			 "step's cores: Slurm gave it 4 cores (cpus 0-7) for 1 task");
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
	bnd_topology_free(t);
}
END_TEST

/* filter=first_core: core 0,0 is never handed out, whatever the request;
 * the rest of the allocation still is. */
START_TEST(first_core_is_never_used)
{
	if (!need_cores(2))
		return;
	struct bnd_step s;
	struct bnd_task_result r;
	cfg.filter = BND_FILTER_FIRST_CORE;
	struct bnd_step_in in = base(81, 0, 1, "0-1", "linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(list_of(&s.pl.all_cpus), cpus_of_core(1));
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(status_cpus(), cpus_of_core(1));
	ck_assert_str_eq(env(&r, "SLURM_BINDING_STATUS"), "bound");
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* two cores asked, one left: the reason names the filter */
	in = base(82, 0, 1, "0-1", "linear:2");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state != BND_STEP_PLACED);
	char want[160];
	snprintf(want, sizeof(want), "of which the site's filter=first_core keeps cpus %s from every job",
		 cpus_of_core(0));
	ck_assert_msg(strstr(s.reason, "allocation on this node is too small") &&
		      strstr(s.reason, want), "%s", s.reason);
	bnd_step_free(&s);

	/* additive with the request's own filter=: it forbids core 1, the
	 * site core 0, nothing is left */
	bnd_cpuset_t c1;
	char filt[256], text[320];
	bnd_topology_core_cpus(here, 1, &c1);
	ck_assert_int_eq(bnd_topostring_format(here, BND_TOPO_OCS, &c1, filt, sizeof(filt)), BND_OK);
	snprintf(text, sizeof(text), "packed:1:filter=%s", filt);
	in = base(83, 0, 1, "0-1", text);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED && strstr(s.reason, "packed: 1 free C unit of power cores needed, 0 found"),
		      "%s", s.reason);
	bnd_step_free(&s);
	/* without the site filter the same request gets core 0 */
	cfg.filter = BND_FILTER_NONE;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(list_of(&s.pl.all_cpus), cpus_of_core(0));
	bnd_step_finish(&s);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
}
END_TEST

/* Every strategy and the batch script: 2 sockets x 2 cores x 2 threads,
 * core k = cpus 2k,2k+1; core 0,0 is cpus 0-1. */
START_TEST(first_core_on_every_strategy)
{
	struct bnd_topology *t = fake_node("pack:2 core:2 pu:2");
	struct bnd_step s;
	cfg.filter = BND_FILTER_FIRST_CORE;
	const struct { const char *req; int ntasks; const char *cpus; } v[] = {
		{ "linear:1", 1, "4-5" },       /* free sockets first: socket 1 */
		{ "explicit:0,1", 1, "2-3" },
		{ "striding:1:2", 1, "2-3" },   /* 0,0 would be its first pick */
		{ "packed:2", 1, "2-5" },
		{ "packed:1:unit=T", 1, "2" },
		{ "packed:1:unit=S", 1, "4-7" }, /* socket 0 is no longer whole */
		{ "balance:2", 1, "2-5" },
		{ "pack:2", 1, "4-7" },         /* one socket that holds both */
		{ "any:1", 1, "2-3" },
		{ "cpus:2-3", 1, "2-3" },
		{ "linear:1", 3, "2-7" },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct bnd_step_in in = base(90 + (uint32_t)i, 0, v[i].ntasks, "0-3", v[i].req);
		ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
		ck_assert_msg(s.state == BND_STEP_PLACED, "%s: %s", v[i].req, s.reason);
		ck_assert_msg(!strcmp(list_of(&s.pl.all_cpus), v[i].cpus), "%s: got %s, want %s",
			      v[i].req, list_of(&s.pl.all_cpus), v[i].cpus);
		bnd_step_finish(&s);
		bnd_step_free(&s);
	}
	/* four tasks cannot fit on three cores; 0,0 named is refused, in a
	 * cpu list too (LSF binds all the listed usable cpus or none) */
	const char *none[] = { "linear:1", "explicit:0,0", "cpus:0-2" };
	for (int i = 0; i < 3; i++) {
		struct bnd_step_in in = base(120, 0, i ? 1 : 4, "0-3", none[i]);
		ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
		ck_assert_msg(s.state != BND_STEP_PLACED && strstr(s.reason, "filter=first_core keeps cpus 0-1"),
			      "%s: %s", none[i], s.reason);
		bnd_step_free(&s);
	}
	/* the batch script of a 2-task job: cores 0,1 and 1,0 */
	struct bnd_step_in ib = base(121, BND_STEP_BATCH, 1, "0-3", "packed:1");
	ib.tasks_per_node = "2";
	ck_assert_int_eq(tu_step_start(&s, &ib), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "2-5");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
	bnd_topology_free(t);
}
END_TEST

/* implicit=yes: a step without --binding gets packed units for its cpus
 * per task, on a node with 2 threads per core (core k = cpus 2k,2k+1). */
START_TEST(implicit_binding_from_cpus_per_task)
{
	struct bnd_topology *t = fake_node("pack:1 core:4 pu:2");
	struct bnd_step s;
	struct bnd_task_result r;
	cfg.implicit = 1;

	/* -c4, unit C: 2 cores */
	struct bnd_step_in in = base(131, 0, 1, "0-3", NULL);
	in.cpus_per_task = 4;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert(s.source == BND_SRC_IMPLICIT);
	ck_assert_str_eq(s.req->text, "packed:2:unit=C");
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "0-3");
	/* what the task is told (env instance: nothing to bind here) */
	env_only(&s);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(env(&r, "SLURM_BINDING_REQUEST"), "packed:2:unit=C");
	ck_assert_str_eq(env(&r, "SLURM_BINDING"), "0 1 2 3");
	ck_assert_str_eq(env(&r, "SLURM_BINDING_TOPOLOGY_OCS"), "NScttcttCTTCTT");
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* unit T, -c3: 3 threads; two tasks of -c2 with unit C: a core each */
	snprintf(cfg.default_unit, sizeof(cfg.default_unit), "T");
	in = base(132, 0, 1, "0-3", NULL);
	in.cpus_per_task = 3;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "packed:3:unit=T");
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "0-2");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	snprintf(cfg.default_unit, sizeof(cfg.default_unit), "C");
	in = base(133, 0, 2, "0-3", NULL);
	in.cpus_per_task = 2;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "packed:1:unit=C");
	ck_assert_str_eq(list_of(&s.pl.tasks[0].cpus), "0-1");
	ck_assert_str_eq(list_of(&s.pl.tasks[1].cpus), "2-3");
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* cpus per task unknown: 1, one core; the batch script: per job task */
	in = base(134, 0, 1, "0-3", NULL);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "packed:1:unit=C");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	/* sbatch -n2: Slurm's cpus per task for the batch step is the
	 * script's whole share (2 cpus here), not the job's -c (none): one
	 * core per job task, not two, or the script of a plain sbatch -n2
	 * would ask for twice its allocation and run unbound */
	struct bnd_step_in ib = base(135, BND_STEP_BATCH, 1, "0-1", NULL);
	ib.tasks_per_node = "2";
	ib.cpus_per_task = 2;
	ck_assert_int_eq(tu_step_start(&s, &ib), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(s.req->text, "packed:1:unit=C");
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "0-3");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	/* sbatch -n2 -c4: the job's SLURM_CPUS_PER_TASK, 2 cores per task */
	ib = base(135, BND_STEP_BATCH, 1, "0-3", NULL);
	ib.tasks_per_node = "2";
	ib.cpus_per_task = 8;
	ib.cpus_per_task_env = "4";
	ck_assert_int_eq(tu_step_start(&s, &ib), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(s.req->text, "packed:2:unit=C");
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "0-7");
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* too small an allocation: the reason says the binding was implicit */
	in = base(136, 0, 1, "0", NULL);
	in.cpus_per_task = 4;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED && strstr(s.reason, "--binding=packed:2:unit=C (the site's implicit "
					   "binding)"), "%s", s.reason);
	bnd_step_free(&s);

	/* --binding=none opts out; an explicit --binding is used as given */
	in = base(137, 0, 1, "0-3", "none");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state != BND_STEP_PLACED && s.source != BND_SRC_IMPLICIT);
	bnd_step_free(&s);
	in = base(138, 0, 1, "0-3", "linear:1");
	in.cpus_per_task = 4;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "linear:1");
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* default= wins when both are set (the config parser also says so) */
	set_default("linear:1");
	in = base(139, 0, 1, "0-3", NULL);
	in.cpus_per_task = 4;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "linear:1");
	ck_assert(s.source != BND_SRC_IMPLICIT);
	bnd_step_finish(&s);
	bnd_step_free(&s);
	set_default("");

	/* a unit this node lacks: unbound, the reason says which */
	snprintf(cfg.default_unit, sizeof(cfg.default_unit), "E");
	in = base(140, 0, 1, "0-3", NULL);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(bnd_step_active(&s) && s.state != BND_STEP_PLACED && strstr(s.reason, "default_unit=E"), "%s", s.reason);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
	bnd_topology_free(t);
}
END_TEST

/* LSF job scripts: LSB_USER_BIND_JOB / LSB_USER_BIND_CPU_LIST in the
 * environment and no --binding are bound as LSF would bind them. */
START_TEST(lsf_user_variables)
{
	struct bnd_topology *t = fake_node("pack:2 core:4");
	struct bnd_step s;
	struct bnd_task_result r;

	/* BALANCE, two tasks of one cpu: one core on each socket */
	struct bnd_step_in in = base(151, 0, 2, "0-7", NULL);
	in.lsf_bind_job = "BALANCE";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert(s.source == BND_SRC_LSF);
	ck_assert_str_eq(s.req->text, "balance:1");
	ck_assert_str_eq(list_of(&s.pl.tasks[0].cpus), "0");
	ck_assert_str_eq(list_of(&s.pl.tasks[1].cpus), "4");
	env_only(&s);
	ck_assert_int_eq(bnd_step_task(&s, 1, 1, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(env(&r, "LSB_BIND_JOB"), "BALANCE");
	ck_assert_str_eq(env(&r, "LSB_BIND_CPU_LIST"), "4");
	ck_assert_msg(strstr(r.verbose, "request=balance:1 from LSB_USER_BIND_JOB=BALANCE"), "%s",
		      r.verbose);
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* USER_CPU_LIST with a list: the listed cpus; -c3 with PACK: one task, 3 cores */
	in = base(152, 0, 1, "0-7", NULL);
	in.lsf_bind_job = "USER_CPU_LIST";
	in.lsf_cpu_list = "1,2";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(s.req->text, "cpus:1,2");
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "1-2");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	in = base(153, 0, 1, "0-7", NULL);
	in.lsf_bind_job = "PACK";
	in.cpus_per_task = 3;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "pack:3");
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "0-2");
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* only the list */
	in = base(154, 0, 1, "0-7", NULL);
	in.lsf_cpu_list = "6";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "cpus:6");
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* --binding wins, and the verbose line says so */
	in = base(155, 0, 1, "0-7", "env:linear:2");
	in.lsf_bind_job = "PACK";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.source != BND_SRC_LSF);
	ck_assert_str_eq(s.req->text, "env:linear:2");
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 1, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_msg(strstr(r.verbose, "(--binding wins over LSB_USER_BIND_JOB=PACK"), "%s",
		      r.verbose);
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* the user's LSF variables win over the site's default= and implicit= */
	set_default("linear:2");
	cfg.implicit = 1;
	in = base(156, 0, 1, "0-7", NULL);
	in.lsf_bind_job = "whatever";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "any:1");
	ck_assert(s.source != BND_SRC_IMPLICIT);
	bnd_step_finish(&s);
	bnd_step_free(&s);
	/* N: no request from LSF, the site's default applies */
	in = base(157, 0, 1, "0-7", NULL);
	in.lsf_bind_job = "N";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "linear:2");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	set_default("");
	cfg.implicit = 0;

	/* USER without a list: the admin's word, any other value is ANY */
	in = base(158, 0, 1, "0-7", NULL);
	in.lsf_bind_job = "USER";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(s.req->text, "any:1");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	/* a list wins over LSB_USER_BIND_JOB, NONE included */
	in = base(159, 0, 1, "0-7", NULL);
	in.lsf_bind_job = "NONE";
	in.lsf_cpu_list = "5";
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.req->text, "cpus:5");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
	bnd_topology_free(t);
}
END_TEST

/* implicit=yes on this machine, really bound: -c1 gets one core. */
START_TEST(implicit_binding_binds_here)
{
	struct bnd_step s;
	struct bnd_task_result r;
	cfg.implicit = 1;
	struct bnd_step_in in = base(141, 0, 1, "0", NULL);
	in.cpus_per_task = 1;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(status_cpus(), cpus_of_core(0));
	ck_assert_str_eq(env(&r, "SLURM_BINDING_REQUEST"), "packed:1:unit=C");
	ck_assert_str_eq(env(&r, "SLURM_BINDING_STATUS"), "bound");
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);
}
END_TEST

/* A request longer than the 255 characters req.text keeps is used whole:
 * slurmstepd once cut the option at 255 characters and bound the tasks
 * differently from what srun had validated. */
START_TEST(long_request_used_whole)
{
	struct bnd_topology *t = fake_node("pack:4 core:16");
	struct bnd_step s;
	struct bnd_task_result r;
	char text[1024];
	int n = snprintf(text, sizeof(text), "cpus:");
	for (int i = 0; i < 40; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%d,", 900000 + i);
	snprintf(text + n, sizeof(text) - (size_t)n, "5");
	ck_assert_int_gt(strlen(text), 256);
	/* cut at 255: only ids this node lacks, so no binding at all */
	struct bnd_step_in in = base(150, 0, 1, "0-63", text);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "5");
	env_only(&s); /* cpu 5 need not exist here */
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(env(&r, "SLURM_BINDING_REQUEST"), text);
	ck_assert_str_eq(env(&r, "SLURM_BINDING"), "5");
	bnd_taskenv_free(&r.env);
	/* the state record keeps a shortened copy, for display only */
	ck_assert_int_eq(records(), 1);
	bnd_step_finish(&s);
	bnd_step_free(&s);

	/* every core of the node named: cut at 255 the list would end inside
	 * "3,1x" and name fewer (or other) cores */
	n = snprintf(text, sizeof(text), "explicit");
	for (int k = 0; k < 64; k++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, ":%d,%d", k / 16, k % 16);
	ck_assert_int_gt(strlen(text), 256);
	in = base(151, 0, 1, "0-63", text);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_str_eq(list_of(&s.pl.all_cpus), "0-63");
	bnd_step_finish(&s);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
	bnd_topology_free(t);
}
END_TEST

/* A state dir refused as untrusted (group-writable here) gets no topology
 * cache written into it: the step reads the topology from hwloc and runs
 * unbound with the state dir's reason. */
START_TEST(refused_state_dir_gets_no_cache)
{
	char cmd[256], path[160];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && chmod 0777 '%s'", state, state);
	ck_assert_int_eq(system(cmd), 0);
	struct bnd_step s;
	struct bnd_step_in in = base(160, 0, 1, "0", "linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.topo && s.state != BND_STEP_PLACED);
	ck_assert_msg(strstr(s.reason, "state (") && strstr(s.reason, "writable"), "%s", s.reason);
	snprintf(path, sizeof(path), "%s/" BND_TOPOCACHE_FILE, state);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(records(), 0);
	bnd_step_free(&s);
}
END_TEST

/* OCS: a start letter the node lacks, or a filter that does not match
 * its layout, is no binding on that node; more cpus from Slurm would not
 * help, so the reason names the node, not the allocation, and the step is
 * never deferred. */
START_TEST(packed_that_the_node_cannot_hold)
{
	struct bnd_topology *t = fake_node("pack:1 core:4");
	struct bnd_step s;
	struct bnd_step_in in = base(41, 0, 1, "0", "packed:1:start=E");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(s.state != BND_STEP_PLACED && s.state != BND_STEP_DEFERRED && !bnd_step_recorded(&s));
	ck_assert_str_eq(s.reason, "--binding=packed:1:start=E cannot be placed on this node for 1 "
			 "task: packed: start=E: this node has no such unit (its units: NSC)");
	bnd_step_free(&s);
	in = base(42, 0, 1, "0", "packed:1:filter=SCCCCC");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED && s.state != BND_STEP_DEFERRED && strstr(s.reason, "cannot be placed on this node") &&
		      strstr(s.reason, "filter does not match this node's topology"), "%s", s.reason);
	bnd_step_free(&s);
	/* what the node holds but Slurm's cpus do not: the allocation, still */
	in = base(43, 0, 1, "0", "packed:2");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(strstr(s.reason, "the allocation on this node is too small"), "%s", s.reason);
	bnd_step_free(&s);
	/* the site's reserved core is part of why: named */
	cfg.filter = BND_FILTER_FIRST_CORE;
	in = base(44, 0, 1, "0-3", "packed:1:filter=NSCccc");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.reason, "--binding=packed:1:filter=NSCccc cannot be placed on this node for "
			 "1 task (the site's filter=first_core keeps cpus 0 from every job): packed: 1 "
			 "free C unit of power cores needed, 0 found");
	bnd_step_free(&s);
	bnd_topology_free(t);
}
END_TEST

/* A node whose topology cannot be read: Grid Engine reports NONE, and
 * OCS's on_any_host (default yes) lets jobs with a binding request run
 * there unbound; no: they fail with the reason. plugstack topology= at a
 * file hwloc cannot read is how a test gets such a node, deterministically. */
START_TEST(no_topology_is_none_and_on_any_host_decides)
{
	char bad[160];
	snprintf(bad, sizeof(bad), "%s/broken.xml", dir);
	FILE *f = fopen(bad, "w");
	ck_assert_ptr_nonnull(f);
	fputs("<topology>not what hwloc exports</topology>\n", f);
	fclose(f);
	snprintf(cfg.topology, sizeof(cfg.topology), "%s", bad);
	const char *before = status_cpus();
	char want_before[256];
	snprintf(want_before, sizeof(want_before), "%s", before);

	for (int any = 1; any >= 0; any--) {
		cfg.on_any_host = any;
		/* on_failure=fail does not decide here, on_any_host does */
		cfg.on_failure = any ? BND_ONFAIL_FAIL : BND_ONFAIL_UNBOUND;
		struct bnd_step s;
		struct bnd_step_in in = base(31, 0, 1, "0", "linear:1");
		ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
		ck_assert(bnd_step_active(&s) && s.state == BND_STEP_NO_TOPOLOGY && s.state != BND_STEP_PLACED && !bnd_step_recorded(&s) && !s.topo);
		ck_assert_msg(strstr(s.reason, "this node's topology is NONE: ") &&
			      strstr(s.reason, any ? "(on_any_host=yes: runs unbound)"
						   : "(on_any_host=no: a binding request fails here)"),
			      "%s", s.reason);
		struct bnd_task_result r;
		ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
		ck_assert_int_eq(r.failed, !any);
		ck_assert_msg(strstr(r.message, any ? "task 0: not bound: this node's topology is NONE"
						    : "task 0: binding failed (on_any_host=no): this "
						      "node's topology is NONE"), "%s", r.message);
		ck_assert_str_eq(env(&r, "SLURM_BINDING_TOPOLOGY"), "NONE");
		ck_assert_str_eq(env(&r, "SLURM_BINDING_TOPOLOGY_OCS"), "NONE");
		ck_assert_str_eq(env(&r, "SLURM_BINDING_TOPOLOGY_NUMA"), "NONE");
		const char *st = env(&r, "SLURM_BINDING_STATUS"), *pre = "unbound: this node's "
									      "topology is NONE: ";
		ck_assert_msg(!strncmp(st, pre, strlen(pre)), "%s", st);
		ck_assert_str_eq(status_cpus(), want_before);
		bnd_taskenv_free(&r.env);
		bnd_step_finish(&s);
		bnd_step_free(&s);
	}
	/* --binding=none asks for no binding: nothing to fail with no */
	struct bnd_step s;
	struct bnd_step_in in = base(32, 0, 1, "0", "none");
	struct bnd_task_result r;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert(!bnd_step_asks_cores(&s));
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_int_eq(r.failed, 0);
	bnd_taskenv_free(&r.env);
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
}
END_TEST

/* topology= at a readable XML: the step places on it (the quadrant test
 * host, 16 cpus; cpu 0 exists everywhere), and the cache follows the
 * source: discovery's cache is not used for it, nor its cache for
 * discovery. */
START_TEST(topology_setting_reads_that_xml)
{
	char cwd[4096], xml[4200], err[BND_ERRLEN];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(xml, sizeof(xml), "%s/tests/unit/topology/xml/quadrant-4numa.xml", cwd);
	ck_assert_int_lt(strlen(xml), sizeof(cfg.topology));
	ck_assert_msg(bnd_topocache_warmup(cfg.state_dir, NULL, err, sizeof(err)) == BND_OK, "%s",
		      err);
	snprintf(cfg.topology, sizeof(cfg.topology), "%.*s", (int)sizeof(cfg.topology) - 1, xml);
	struct bnd_step s;
	struct bnd_step_in in = base(33, 0, 1, "0-1", "linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED && s.state != BND_STEP_NO_TOPOLOGY, "%s", s.reason);
	ck_assert_int_eq(s.topo->nnuma, 4);
	struct bnd_task_result r;
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(env(&r, "SLURM_BINDING_TOPOLOGY_OCS"), "NSXcCXCCNSXCCXCCNSXCCXCCNSXCCXCC");
	ck_assert_str_eq(status_cpus(), "0");
	bnd_taskenv_free(&r.env);
	bnd_step_finish(&s);
	bnd_step_free(&s);
	/* the next step finds the XML's topology in the cache */
	char note[2 * BND_ERRLEN];
	struct bnd_topology *t = NULL;
	ck_assert_int_eq(bnd_topocache_load_source(&t, state, xml, note, sizeof(note), err,
						   sizeof(err)), BND_OK);
	ck_assert_msg(!strncmp(note, "cache hit", 9) && t->nnuma == 4, "%s", note);
	bnd_topology_free(t);
	/* discovery does not take it for this machine's */
	ck_assert_int_eq(bnd_topocache_load_source(&t, state, "", note, sizeof(note), err,
						   sizeof(err)), BND_OK);
	ck_assert_msg(strstr(note, "it holds the topology of") && t->ncores == here->ncores, "%s",
		      note);
	bnd_topology_free(t);
}
END_TEST

START_TEST(node_warmup_builds_the_cache)
{
	char err[BND_ERRLEN], path[160];
	ck_assert_msg(bnd_topocache_warmup(cfg.state_dir, cfg.topology, err, sizeof(err)) == BND_OK, "%s", err);
	snprintf(path, sizeof(path), "%s/" BND_TOPOCACHE_FILE, state);
	ck_assert_int_eq(access(path, R_OK), 0);
	struct bnd_topology *t = NULL;
	ck_assert_int_eq(bnd_topocache_read(&t, path, NULL, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(t->ncores, here->ncores);
	ck_assert_int_eq(t->npus, here->npus);
	bnd_topology_free(t);
}
END_TEST

/* Counts near INT_MAX from a batch job's environment (the user's) leave
 * the step unbound with the reason, never an overflow or a giant
 * allocation: SLURM_CPUS_PER_TASK with implicit=yes, the tasks per node,
 * and an srun step's count alike. */
START_TEST(counts_near_int_max_leave_the_step_unbound)
{
	struct bnd_step s;
	cfg.implicit = 1;
	struct bnd_step_in ib = base(150, BND_STEP_BATCH, 1, "0", NULL);
	ib.tasks_per_node = "1";
	ib.cpus_per_task_env = "2147483647";
	ck_assert_int_eq(tu_step_start(&s, &ib), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED && strstr(s.reason, "is not 1..1000000"), "%s", s.reason);
	bnd_step_free(&s);
	cfg.implicit = 0;
	ib = base(151, BND_STEP_BATCH, 1, "0", "linear:1");
	ib.tasks_per_node = "2147483647";
	ck_assert_int_eq(tu_step_start(&s, &ib), BND_OK);
	ck_assert_msg(s.state != BND_STEP_PLACED, "placed");
	ck_assert_str_eq(s.reason, "2147483647 tasks on this node: more than Slurm allows (65533)");
	bnd_step_free(&s);
	struct bnd_step_in in = base(152, 0, INT_MAX, "0", "linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_str_eq(s.reason, "2147483647 tasks on this node: more than Slurm allows (65533)");
	bnd_step_free(&s);
	ck_assert_int_eq(records(), 0);
}
END_TEST

/* errno of open(path) (0: it opened) or of opendir when listing, as uid. */
static int errno_as(uid_t uid, const char *path, int listing)
{
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (!c) {
		if (setgid(65534) || setuid(uid))
			_exit(99);
		if (listing) {
			DIR *d = opendir(path);
			_exit(d ? 0 : errno);
		}
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		_exit(fd >= 0 ? 0 : errno);
	}
	int st;
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* errno of what a user does to a file they may read: append to it, or set
 * its times (0: it worked). */
enum user_act { APPEND, TOUCH };
static int errno_doing(uid_t uid, const char *path, enum user_act act)
{
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (!c) {
		if (setgid(65534) || setuid(uid))
			_exit(99);
		if (act == TOUCH) {
			struct timespec old[2] = { { 946684800, 0 }, { 946684800, 0 } };
			_exit(utimensat(AT_FDCWD, path, old, 0) ? errno : 0);
		}
		int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		_exit(fd >= 0 ? 0 : errno);
	}
	int st;
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static mode_t mode_of(const char *path, uid_t *uid)
{
	struct stat st;
	ck_assert_msg(!stat(path, &st), "%s", path);
	if (uid)
		*uid = st.st_uid;
	return st.st_mode & 07777;
}

/* private_files=yes: another user reads neither the state nor a rankfile,
 * nor lists the dir; the job's user reads its rankfile; and no turns it
 * back. */
START_TEST(private_files_keep_state_and_rankfiles_from_other_users)
{
	if (geteuid() != 0) {
		printf("# SKIP private files: needs root (file owners, other users)\n");
		return;
	}
	ck_assert_int_eq(chmod(dir, 0755), 0);
	char statefile[160];
	snprintf(statefile, sizeof(statefile), "%s/state", state);
	struct bnd_step s;
	uid_t owner;
	cfg.private_files = 1;
	struct bnd_step_in in = base(160, 0, 1, "0", "pe:linear:1");
	in.uid = 65534;
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED && s.rankfile[0], "%s", s.reason);
	ck_assert_int_eq(mode_of(state, NULL), 0711);
	ck_assert_int_eq(mode_of(statefile, &owner), 0600);
	ck_assert_int_eq(owner, 0);
	/* Root's, readable by its job's user alone through an ACL entry (the
	 * mode's group bits are the ACL's mask): issue 32 item 1, the user
	 * owned it, appended 1 MB to root's /run and set its times. */
	ck_assert_int_eq(mode_of(s.rankfile, &owner), 0640);
	ck_assert_int_eq(owner, 0);
	ck_assert_int_eq(errno_as(65533, s.rankfile, 0), EACCES);
	ck_assert_int_eq(errno_as(65533, statefile, 0), EACCES);
	ck_assert_int_eq(errno_as(65533, state, 1), EACCES);
	ck_assert_int_eq(errno_as(65534, s.rankfile, 0), 0);
	ck_assert_int_eq(errno_doing(65534, s.rankfile, APPEND), EACCES);
	ck_assert_int_eq(errno_doing(65534, s.rankfile, TOUCH), EPERM);
	ck_assert_int_eq(errno_as(65534, statefile, 0), EACCES);
	char rf[sizeof(s.rankfile)];
	snprintf(rf, sizeof(rf), "%s", s.rankfile);
	ck_assert_int_eq(bnd_step_finish(&s), BND_OK);
	bnd_step_free(&s);
	ck_assert_int_eq(access(rf, F_OK), -1);
	ck_assert_int_eq(mode_of(statefile, NULL), 0600);

	/* no: the dir as before, and the next transaction's state 0644 */
	cfg.private_files = 0;
	in = base(161, 0, 1, "0", "pe:linear:1");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(s.state == BND_STEP_PLACED, "%s", s.reason);
	ck_assert_int_eq(mode_of(state, NULL), 0755);
	ck_assert_int_eq(mode_of(statefile, NULL), 0644);
	ck_assert_int_eq(mode_of(s.rankfile, &owner), 0644);
	ck_assert_int_eq(owner, 0);
	ck_assert_int_eq(errno_as(65533, statefile, 0), 0);
	ck_assert_int_eq(bnd_step_finish(&s), BND_OK);
	bnd_step_free(&s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("step");
	TCase *tc = tcase_create("step");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, two_tasks_bound_and_released);
	tcase_add_test(tc, refused_step_keeps_its_jobs_booking);
	tcase_add_test(tc, metrics_file_follows_every_change);
	tcase_add_test(tc, allocation_too_small_names_both_numbers);
	tcase_add_test(tc, prepare_writes_nothing_place_records);
	tcase_add_test(tc, explicit_list_reasons);
	tcase_add_test(tc, other_jobs_cores_are_never_taken);
	tcase_add_test(tc, batch_script_holds_the_jobs_cores_and_steps_reuse_them);
	tcase_add_test(tc, env_and_pe_bind_nothing_pe_writes_a_rankfile);
	tcase_add_test(tc, planted_rankfile_is_never_opened);
	tcase_add_test(tc, node_name_from_the_lists_never_injected);
	tcase_add_test(tc, cpuset_check_refuses_cpus_outside);
	tcase_add_test(tc, nothing_asked_costs_nothing);
	tcase_add_test(tc, mbind_strict_and_nlocal);
	tcase_add_test(tc, mbind_without_cores_says_what_sbind_says);
	tcase_add_test(tc, mbind_nlocal_binds_and_reserves);
	tcase_add_test(tc, mbind_strict_memory_short);
	tcase_add_test(tc, node_warmup_builds_the_cache);
	tcase_add_test(tc, no_topology_is_none_and_on_any_host_decides);
	tcase_add_test(tc, packed_that_the_node_cannot_hold);
	tcase_add_test(tc, topology_setting_reads_that_xml);
	tcase_add_test(tc, refused_state_dir_gets_no_cache);
	tcase_add_test(tc, first_core_is_never_used);
	tcase_add_test(tc, first_core_on_every_strategy);
	tcase_add_test(tc, smt_tasks_share_the_core_slurm_gave);
	tcase_add_test(tc, start_core_outside_the_step_is_the_reason);
	tcase_add_test(tc, implicit_binding_from_cpus_per_task);
	tcase_add_test(tc, implicit_binding_binds_here);
	tcase_add_test(tc, lsf_user_variables);
	tcase_add_test(tc, long_request_used_whole);
	tcase_add_test(tc, gpu_tasks_next_to_their_own_gpus);
	tcase_add_test(tc, private_files_keep_state_and_rankfiles_from_other_users);
	tcase_add_test(tc, counts_near_int_max_leave_the_step_unbound);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
