/* transition: active -> suspended -> active (same cpus, moved) or deferred
 * -> active, each one transaction on a real state dir; since=/why= in the
 * file; --mbind-like prev_only never moves a task to other NUMA nodes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/placement/place.h"
#include "binding/state/state.h"
#include "binding/state/transition.h"
#include "binding/topology/topogpu.h"
#include "statetest.h"
#include "testutil.h"

static struct st_env env;
static char journal[16384];

static void journal_cb(void *ctx, const char *line)
{
	(void)ctx;
	size_t n = strlen(journal);
	snprintf(journal + n, sizeof(journal) - n, "%s\n", line);
}

static void setup(void)
{
	st_setup(&env);
	journal[0] = '\0';
	env.opts.journal = journal_cb;
}

static void teardown(void)
{
	st_teardown(&env);
}

static struct bnd_alloc_args args(uint32_t job, uint32_t step, int ntasks,
				  const bnd_cpuset_t *allowed)
{
	struct bnd_alloc_args a = { .job = job, .step = step, .ntasks = ntasks, .uid = 1000,
				    .allowed = allowed };
	return a;
}

static void alloc(const struct bnd_topology *t, const char *req, struct bnd_alloc_args a,
		  struct bnd_placement *p, const char *expect)
{
	char err[BND_ERRLEN] = "", got[256];
	ck_assert_msg(bnd_state_allocate(&env.opts, t, st_req(req), &a, p, err, sizeof(err)) ==
		      BND_OK, "%s: %s", req, err);
	bnd_cpuset_format_list(&p->all_cpus, got, sizeof(got));
	if (expect)
		ck_assert_str_eq(got, expect);
}

static const struct bnd_state_record *rec_of(const struct bnd_state_file *f, uint32_t job,
					     uint32_t step)
{
	for (int i = 0; i < f->nrec; i++)
		if (f->rec[i].job == job && f->rec[i].step == step)
			return &f->rec[i];
	return NULL;
}

static struct bnd_state_file list(void)
{
	struct bnd_state_file f;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_state_list(&env.opts, &f, err, sizeof(err)) == BND_OK, "%s", err);
	return f;
}

static enum bnd_resume_result resume(const struct bnd_topology *t, const char *req,
				     struct bnd_alloc_args a, const struct bnd_placement *prev,
				     int prev_only, char *cpus, size_t len, char *err, size_t errlen)
{
	struct bnd_resume_args ra = { .a = &a, .prev = prev, .prev_only = prev_only };
	struct bnd_placement out;
	enum bnd_resume_result res;
	err[0] = '\0';
	int rc = bnd_state_resume(&env.opts, t, st_req(req), &ra, &out, &res, err, errlen);
	cpus[0] = '\0';
	if (res == BND_RESUME_SAME || res == BND_RESUME_MOVED) {
		ck_assert_msg(rc == BND_OK, "%s", err);
		bnd_cpuset_format_list(&out.all_cpus, cpus, len);
		bnd_placement_free(&out);
	} else if (res == BND_RESUME_ALREADY) {
		ck_assert_int_eq(rc, BND_OK);
	} else {
		ck_assert_int_eq(rc, BND_ENOFIT);
	}
	return res;
}

START_TEST(suspend_releases_cpus_and_resume_takes_them_back)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_placement pa, pb;
	char err[BND_ERRLEN] = "", cpus[64];
	alloc(t, "linear:1", args(1, 0, 2, NULL), &pa, "0-1");
	long long before = bnd_state_now_ms();
	ck_assert_msg(bnd_state_suspend(&env.opts, 1, 0, "slurm-suspend", err, sizeof(err)) ==
		      BND_OK, "%s", err);
	struct bnd_state_file f = list();
	const struct bnd_state_record *r = rec_of(&f, 1, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->status, BND_ST_SUSPENDED);
	ck_assert(bnd_cpuset_empty(&r->cpus));
	ck_assert_int_eq(r->ntasks, 0);
	ck_assert_str_eq(r->why, "slurm-suspend");
	ck_assert(r->since_ms >= before && r->since_ms <= bnd_state_now_ms());
	bnd_statefile_free(&f);
	ck_assert_ptr_nonnull(strstr(journal, "suspend job=1 step=0 "));

	/* Suspending again changes nothing. */
	journal[0] = '\0';
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 1, 0, "x", err, sizeof(err)), BND_OK);
	ck_assert_str_eq(journal, "");

	/* The released cpus serve another job meanwhile. */
	alloc(t, "linear:1", args(2, 0, 1, NULL), &pb, "0");
	bnd_placement_free(&pb);
	ck_assert_int_eq(bnd_state_release(&env.opts, 2, 0, NULL, err, sizeof(err)), BND_OK);

	/* Resume: the previous cpus, each task its own. */
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 2, NULL), &pa, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_SAME);
	ck_assert_str_eq(cpus, "0-1");
	f = list();
	r = rec_of(&f, 1, 0);
	ck_assert_int_eq(r->status, BND_ST_ACTIVE);
	ck_assert_int_eq(r->ntasks, 2);
	ck_assert_int_eq(bnd_cpuset_count(&r->tasks[0]), 1);
	ck_assert(!bnd_cpuset_equal(&r->tasks[0], &r->tasks[1]));
	ck_assert_int_eq(r->since_ms, 0);
	ck_assert_str_eq(r->why, "");
	bnd_statefile_free(&f);
	/* Resuming an active step changes nothing. */
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 2, NULL), &pa, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_ALREADY);
	bnd_placement_free(&pa);
	bnd_topology_free(t);
}
END_TEST

START_TEST(resume_moves_when_previous_cpus_are_taken)
{
	struct bnd_topology *t = tu_topo("pack:1 core:4");
	struct bnd_placement pa, pb;
	char err[BND_ERRLEN] = "", cpus[64];
	alloc(t, "linear:1", args(1, 0, 1, NULL), &pa, "0");
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 1, 0, "slurm-suspend", err, sizeof(err)),
			 BND_OK);
	alloc(t, "linear:1", args(2, 0, 1, NULL), &pb, "0");
	bnd_placement_free(&pb);
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 1, NULL), &pa, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_MOVED);
	ck_assert_str_eq(cpus, "1");
	/* Never outside Slurm's allocation: allowed 0,2 and 0 taken -> 2. */
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 1, 0, "slurm-suspend", err, sizeof(err)),
			 BND_OK);
	bnd_cpuset_t allowed;
	bnd_cpuset_parse_list(&allowed, "0,2", NULL, 0);
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 1, &allowed), &pa, 0, cpus,
				sizeof(cpus), err, sizeof(err)), BND_RESUME_MOVED);
	ck_assert_str_eq(cpus, "2");
	struct bnd_state_file f = list();
	ck_assert(!bnd_cpuset_intersects(&rec_of(&f, 1, 0)->cpus, &rec_of(&f, 2, 0)->cpus));
	bnd_statefile_free(&f);
	bnd_placement_free(&pa);
	bnd_topology_free(t);
}
END_TEST

START_TEST(resume_defers_then_binds_when_cpus_free_up)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_placement pa, pc;
	char err[BND_ERRLEN] = "", cpus[64];
	alloc(t, "linear:1", args(1, 0, 2, NULL), &pa, "0-1");
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 1, 0, "slurm-suspend", err, sizeof(err)),
			 BND_OK);
	/* job 3: a batch step and a step inside it, both on cpus 0-1 */
	alloc(t, "linear:1", args(3, BND_STEP_BATCH, 2, NULL), &pc, "0-1");
	bnd_placement_free(&pc);
	struct bnd_alloc_args in3 = args(3, 0, 2, NULL);
	in3.inherit_job = 1;
	alloc(t, "linear:1", in3, &pc, "0-1");
	bnd_placement_free(&pc);
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 2, NULL), &pa, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_DEFERRED);
	ck_assert_str_eq(err, "deferred: held-by-job:3");
	struct bnd_state_file f = list();
	const struct bnd_state_record *r = rec_of(&f, 1, 0);
	ck_assert_int_eq(r->status, BND_ST_DEFERRED);
	ck_assert(bnd_cpuset_empty(&r->cpus));
	ck_assert_str_eq(r->why, "held-by-job:3");
	long long since = r->since_ms;
	ck_assert(since > 0);
	/* job 3 keeps its binding */
	ck_assert_int_eq(rec_of(&f, 3, 0)->status, BND_ST_ACTIVE);
	ck_assert_int_eq(bnd_cpuset_count(&rec_of(&f, 3, 0)->cpus), 2);
	bnd_statefile_free(&f);

	/* A retry that changes nothing writes nothing (it would wake every
	 * deferred step on the node). */
	journal[0] = '\0';
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 2, NULL), &pa, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_DEFERRED);
	ck_assert_str_eq(journal, "");
	f = list();
	ck_assert_int_eq(rec_of(&f, 1, 0)->since_ms, since);
	bnd_statefile_free(&f);

	ck_assert_int_eq(bnd_state_release_job(&env.opts, 3, NULL, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 2, NULL), &pa, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_SAME);
	ck_assert_str_eq(cpus, "0-1");
	f = list();
	ck_assert_int_eq(rec_of(&f, 1, 0)->status, BND_ST_ACTIVE);
	/* its history: bound, suspended, deferred (once, not at each retry),
	 * bound again; a resume is no new placement */
	const char *h = rec_of(&f, 1, 0)->hist;
	ck_assert_msg(!strncmp(h, "4/bound@", 8) && strstr(h, "=0-1/suspended@") &&
		      strstr(h, "=0-1:slurm-suspend/deferred@") &&
		      strstr(h, ":held-by-job:3/rebound@") && strstr(h, "=0-1") &&
		      !strchr(strstr(h, "/rebound@") + 1, '/'), "%s", h);
	ck_assert_uint_eq(f.counts.v[BND_CNT_PLACEMENT + BND_S_LINEAR], 3);
	ck_assert_uint_eq(f.counts.v[BND_CNT_FALLBACK + BND_FB_DEFERRED], 0);
	bnd_statefile_free(&f);
	bnd_placement_free(&pa);
	bnd_topology_free(t);
}
END_TEST

START_TEST(a_new_step_is_recorded_deferred_or_placed)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_placement pa;
	char err[BND_ERRLEN] = "", cpus[64];
	alloc(t, "linear:2", args(1, 0, 1, NULL), &pa, "0-1");
	ck_assert_int_eq(resume(t, "linear:1", args(2, 0, 1, NULL), NULL, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_DEFERRED);
	struct bnd_state_file f = list();
	ck_assert_int_eq(f.nrec, 2);
	const struct bnd_state_record *r = rec_of(&f, 2, 0);
	ck_assert_int_eq(r->status, BND_ST_DEFERRED);
	ck_assert_int_eq(r->owner_pid, (int)getpid());
	ck_assert_str_eq(r->request, "linear:1");
	ck_assert_str_eq(r->why, "held-by-job:1");
	/* a new step deferred: a refusal with its reason, and the fallback */
	ck_assert_uint_eq(f.counts.v[BND_CNT_REFUSAL + BND_R_HELD_BY_OTHER_JOBS], 1);
	ck_assert_uint_eq(f.counts.v[BND_CNT_FALLBACK + BND_FB_DEFERRED], 1);
	ck_assert_msg(!strncmp(r->hist, "1/deferred@", 11), "%s", r->hist);
	bnd_statefile_free(&f);
	/* Never deferred: more cores than Slurm gave the step. */
	bnd_cpuset_t one;
	bnd_cpuset_parse_list(&one, "0", NULL, 0);
	ck_assert_int_eq(resume(t, "linear:2", args(4, 0, 1, &one), NULL, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_NEVER);
	ck_assert_ptr_nonnull(strstr(err, "even with no other job"));
	f = list();
	ck_assert_ptr_null(rec_of(&f, 4, 0));
	bnd_statefile_free(&f);
	/* A job's own other steps are named as such. */
	ck_assert_int_eq(resume(t, "linear:1", args(1, 7, 1, NULL), NULL, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_DEFERRED);
	ck_assert_str_eq(err, "deferred: held-by-step:0");
	ck_assert_int_eq(bnd_state_release(&env.opts, 1, 0, NULL, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(resume(t, "linear:1", args(2, 0, 1, NULL), NULL, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_MOVED);
	ck_assert_str_eq(cpus, "0");
	/* bound at last: its first placement, counted as one */
	f = list();
	ck_assert_uint_eq(f.counts.v[BND_CNT_PLACEMENT + BND_S_LINEAR], 2);
	ck_assert_msg(!strncmp(rec_of(&f, 2, 0)->hist, "2/deferred@", 11) &&
		      strstr(rec_of(&f, 2, 0)->hist, "/bound@"), "%s", rec_of(&f, 2, 0)->hist);
	bnd_statefile_free(&f);
	bnd_placement_free(&pa);
	bnd_topology_free(t);
}
END_TEST

/* A step kept waiting by its own job's batch script says so by name (the
 * legend of sbind draw and sbind status show the why). */
START_TEST(a_step_held_by_its_batch_script_names_it)
{
	struct bnd_topology *t = tu_topo("pack:1 core:1");
	struct bnd_placement pb;
	char err[BND_ERRLEN] = "", cpus[64];
	alloc(t, "linear:1", args(5, BND_STEP_BATCH, 1, NULL), &pb, "0");
	ck_assert_int_eq(resume(t, "linear:1", args(5, 1, 1, NULL), NULL, 0, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_DEFERRED);
	ck_assert_str_eq(err, "deferred: held-by-step:batch");
	bnd_placement_free(&pb);
	bnd_topology_free(t);
}
END_TEST

/* A --mbind=cores:strict task's policy names its NUMA node: it only ever
 * gets its previous cpus back, never cores of another node. */
START_TEST(prev_only_stays_on_its_numa_node)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:1 core:2");
	struct bnd_placement pa, pb;
	char err[BND_ERRLEN] = "", cpus[64];
	alloc(t, "linear:1", args(1, 0, 1, NULL), &pa, "0");
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 1, 0, "slurm-suspend", err, sizeof(err)),
			 BND_OK);
	alloc(t, "linear:1", args(2, 0, 1, NULL), &pb, "0");
	bnd_placement_free(&pb);
	/* cpus 1-3 are free, 2-3 on the other node: still deferred. */
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 1, NULL), &pa, 1, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_DEFERRED);
	ck_assert_int_eq(bnd_state_release(&env.opts, 2, 0, NULL, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(resume(t, "linear:1", args(1, 0, 1, NULL), &pa, 1, cpus, sizeof(cpus),
				err, sizeof(err)), BND_RESUME_SAME);
	ck_assert_str_eq(cpus, "0");
	bnd_placement_free(&pa);
	bnd_topology_free(t);
}
END_TEST

START_TEST(suspended_record_round_trips_and_keeps_memory)
{
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	struct bnd_state_record r = st_rec(5, 0, getpid(), st_start_of(getpid()), "0;1");
	ck_assert_int_eq(bnd_state_record_mem(&r, 1), BND_OK);
	r.mem[0].node = 0;
	r.mem[0].mib = 512;
	ck_assert_int_eq(bnd_statefile_add(&f, &r), BND_OK);
	bnd_state_record_free(&r);
	char *text;
	size_t len = st_format(&f, NULL, &text);
	bnd_statefile_free(&f);
	st_make_dir(&env);
	st_write(st_path(&env, "state"), text, len);
	free(text);
	char err[BND_ERRLEN] = "";
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 5, 0, "slurm suspend!", err, sizeof(err)),
			 BND_OK);
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 6, 0, "x", err, sizeof(err)), BND_EINVAL);
	text = st_read(st_path(&env, "state"), NULL);
	ck_assert_msg(strstr(text, " cpus= since="), "%s", text);
	/* its history keeps the cpus it gave back, and why */
	ck_assert_msg(strstr(text, " why=slurm-suspend- tasks= mem=0:512 hist=1/suspended@"), "%s",
		      text);
	ck_assert_msg(strstr(text, "=0-1:slurm-suspend- req=linear:1\n"), "%s", text);
	free(text);
	f = list();
	ck_assert_int_eq(f.nrec, 1);
	ck_assert_int_eq(f.rec[0].nmem, 1);
	ck_assert_int_eq(f.rec[0].mem[0].mib, 512);
	ck_assert_str_eq(f.rec[0].why, "slurm-suspend-");
	bnd_statefile_free(&f);
	/* why= is one word of a fixed alphabet; anything else is damage. */
	const char *bad = "job=1 step=0 pid=1 start=1 uid=0 status=deferred created=1 cpus= "
			  "tasks= mem= since=12 why=a/b req=x";
	char line[256];
	snprintf(line, sizeof(line), "spank-binding-state 1\nboot x\nrec %s\n", bad);
	struct bnd_state_file g;
	char why[256];
	ck_assert_int_eq(bnd_statefile_parse(line, strlen(line), &g, why, sizeof(why)),
			 BND_SF_CORRUPT);
	bnd_statefile_free(&g);
}
END_TEST

/* A batch script whose srun step resumed first gets its cores back: the
 * job's own steps run inside its record, they never block it. */
START_TEST(batch_resumes_after_its_own_step)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	struct bnd_placement pb, ps;
	char err[BND_ERRLEN] = "", cpus[64];
	alloc(t, "linear:1", args(1, BND_STEP_BATCH, 2, NULL), &pb, "0-1");
	struct bnd_alloc_args sa = args(1, 0, 2, NULL);
	sa.inherit_job = 1;
	alloc(t, "linear:1", sa, &ps, "0-1");
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 1, 0, "s", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 1, BND_STEP_BATCH, "s", err, sizeof(err)),
			 BND_OK);
	ck_assert_int_eq(resume(t, "linear:1", sa, &ps, 0, cpus, sizeof(cpus), err, sizeof(err)),
			 BND_RESUME_SAME);
	ck_assert_int_eq(resume(t, "linear:1", args(1, BND_STEP_BATCH, 2, NULL), &pb, 0, cpus,
				sizeof(cpus), err, sizeof(err)), BND_RESUME_SAME);
	ck_assert_str_eq(cpus, "0-1");
	/* and a fresh batch placement is not blocked by its steps either */
	ck_assert_int_eq(bnd_state_release(&env.opts, 1, BND_STEP_BATCH, NULL, err, sizeof(err)),
			 BND_OK);
	struct bnd_placement p2;
	alloc(t, "linear:1", args(1, BND_STEP_BATCH, 2, NULL), &p2, "0-1");
	bnd_placement_free(&p2);
	bnd_placement_free(&pb);
	bnd_placement_free(&ps);
	bnd_topology_free(t);
}
END_TEST

/* A GPU job keeps its place by its GPU across suspend and resume: the
 * state's allocator and the resume transaction both see the step's GPUs
 * (bnd_alloc_args.near). */
START_TEST(gpu_step_resumes_next_to_its_gpu)
{
	struct bnd_topology *t = tu_topo("tests/unit/topology/xml/mi300a-apu.xml");
	uint64_t g2 = 1ull << bnd_gpu_find(t, "rsmi2");
	struct bnd_near near = { 1, &g2 };
	struct bnd_alloc_args a = args(1, 0, 1, NULL);
	a.near = &near;
	struct bnd_placement pa, pb;
	char err[BND_ERRLEN] = "", cpus[64];
	alloc(t, "gpu:2", a, &pa, "16-19");
	ck_assert_int_eq(pa.tasks[0].nlocal, 2);
	ck_assert_int_eq(bnd_state_suspend(&env.opts, 1, 0, "slurm-suspend", err, sizeof(err)),
			 BND_OK);
	/* Meanwhile another job takes those two cores next to rsmi2. */
	struct bnd_alloc_args b = args(2, 0, 1, NULL);
	b.near = &near;
	alloc(t, "gpu:2", b, &pb, "16-19");
	/* Resumed elsewhere, still next to rsmi2: its package's other cores. */
	ck_assert_int_eq(resume(t, "gpu:2", a, &pa, 0, cpus, sizeof(cpus), err, sizeof(err)),
			 BND_RESUME_MOVED);
	ck_assert_str_eq(cpus, "20-23");
	/* Both placements next to rsmi2, the resume no new one: two counted,
	 * neither away from its GPU. */
	struct bnd_state_file f = list();
	ck_assert_uint_eq(f.counts.v[BND_CNT_PLACEMENT + BND_S_GPU], 2);
	ck_assert_uint_eq(f.counts.v[BND_CNT_GPU_NONLOCAL], 0);
	ck_assert_int_eq(rec_of(&f, 2, 0)->ngpus, 1);
	ck_assert_uint_eq(rec_of(&f, 2, 0)->gpus[0], g2);
	bnd_statefile_free(&f);
	/* A third job while rsmi2's cores are taken: placed away from it. */
	struct bnd_alloc_args c = args(3, 0, 1, NULL);
	struct bnd_placement pc;
	c.near = &near;
	alloc(t, "gpu:2", c, &pc, NULL);
	ck_assert_int_lt(pc.tasks[0].nlocal, pc.tasks[0].ncores);
	f = list();
	ck_assert_uint_eq(f.counts.v[BND_CNT_GPU_NONLOCAL], 1);
	bnd_statefile_free(&f);
	bnd_placement_free(&pc);
	bnd_placement_free(&pa);
	bnd_placement_free(&pb);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("transition");
	TCase *tc = tcase_create("transition");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, suspend_releases_cpus_and_resume_takes_them_back);
	tcase_add_test(tc, resume_moves_when_previous_cpus_are_taken);
	tcase_add_test(tc, resume_defers_then_binds_when_cpus_free_up);
	tcase_add_test(tc, a_new_step_is_recorded_deferred_or_placed);
	tcase_add_test(tc, a_step_held_by_its_batch_script_names_it);
	tcase_add_test(tc, prev_only_stays_on_its_numa_node);
	tcase_add_test(tc, suspended_record_round_trips_and_keeps_memory);
	tcase_add_test(tc, batch_resumes_after_its_own_step);
	tcase_add_test(tc, gpu_step_resumes_next_to_its_gpu);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
