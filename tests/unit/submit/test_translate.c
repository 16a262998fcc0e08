/* The submit translation, one row per case: request, command, the user's
 * allocation options and the site's mode in; the Slurm options added, or
 * the refusal, out. The rows cover every strategy of the need table (a
 * test below fails when a strategy has no row here), thread, core and
 * socket units per task and per node, named cores and cpus, spread
 * picks, steps inside a job, and every option a user's own value must
 * never be overridden for. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/request/request.h"
#include "binding/submit/allocopt.h"
#include "binding/submit/need.h"
#include "binding/submit/translate.h"
#include "binding/util/error.h"
#include "submittest.h"
#include "testutil.h"

struct row {
	const char *binding;   /* NULL: none */
	const char *mbind;     /* NULL: none */
	const char *cmd;       /* srun, sbatch, salloc */
	const char *user;      /* "name=value name=value ..." (Slurm's names) */
	const char *mode;      /* NULL: translate */
	int rc;                /* BND_OK or BND_ENOFIT */
	/* BND_OK: the options added, exactly ("" none); BND_ENOFIT: a part
	 * of the reason */
	const char *want;
};

static const struct row rows[] = {
	/* whole cores per task: -c counts cores with --threads-per-core=1 */
	{ "linear:1", NULL, "srun", "ntasks=4", NULL, BND_OK, "--threads-per-core=1" },
	{ "linear:2", NULL, "srun", "ntasks=1", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "linear:2", NULL, "srun", "ntasks=4", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "linear:2", NULL, "sbatch", "ntasks=2", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "linear:2", NULL, "salloc", "", NULL, BND_OK, "--cpus-per-task=2 --threads-per-core=1" },
	{ "set:linear:3", NULL, "srun", "", NULL, BND_OK, "--cpus-per-task=3 --threads-per-core=1" },
	{ "env:linear:2", NULL, "srun", "", NULL, BND_OK, "--cpus-per-task=2 --threads-per-core=1" },
	{ "pe:linear:2", NULL, "srun", "", NULL, BND_OK, "--cpus-per-task=2 --threads-per-core=1" },
	/* the user's -c: too small refused with both numbers, enough kept */
	{ "linear:2", NULL, "srun", "ntasks=1 cpus-per-task=1", NULL, BND_ENOFIT,
	  "--binding=linear:2 needs 2 cores per task; -c 1 gives 1" },
	{ "linear:2", NULL, "srun", "cpus-per-task=2", NULL, BND_OK, "--threads-per-core=1" },
	{ "linear:2", NULL, "srun", "cpus-per-task=4", NULL, BND_OK, "--threads-per-core=1" },
	{ "linear:2", NULL, "srun", "cpus-per-task=2 threads-per-core=1", NULL, BND_OK, "" },
	{ "linear:2", NULL, "srun", "cpus-per-task=1 threads-per-core=1", NULL, BND_ENOFIT,
	  "needs 2 cores per task; -c 1 with --threads-per-core=1 gives 1" },
	{ "linear:2", NULL, "srun", "cpus-per-task=3 threads-per-core=2", NULL, BND_ENOFIT,
	  "needs 2 cores per task; -c 3 with --threads-per-core=2 gives 1" },
	{ "linear:2", NULL, "srun", "cpus-per-task=4 threads-per-core=2", NULL, BND_OK, "" },
	{ "linear:2", NULL, "srun", "threads-per-core=2", NULL, BND_OK, "--cpus-per-task=4" },
	{ "linear:1", NULL, "srun", "threads-per-core=1", NULL, BND_OK, "" },
	{ "linear:2", NULL, "srun", "extra-node-info=*:*:1", NULL, BND_OK, "--cpus-per-task=2" },
	/* options that let tasks share what each task gets alone */
	{ "linear:1", NULL, "srun", "ntasks=4 ntasks-per-core=2", NULL, BND_ENOFIT,
	  "--ntasks-per-core=2 puts 2 tasks on one core" },
	{ "linear:1", NULL, "srun", "ntasks-per-core=1", NULL, BND_OK, "--threads-per-core=1" },
	{ "linear:1", NULL, "srun", "overcommit=set", NULL, BND_ENOFIT,
	  "--overcommit lets tasks share CPUs" },
	{ "linear:1", NULL, "srun", "hint=multithread", NULL, BND_ENOFIT,
	  "--hint=multithread counts hardware threads" },
	/* a --hint that counts one thread per core already: no
	 * --threads-per-core=1, which would make Slurm drop the hint (issue
	 * 32 item 9: 22.05 says "mutually exclusive ... Ignoring --hint");
	 * with an option that makes Slurm drop it anyway, as without it */
	{ "linear:1", NULL, "srun", "hint=nomultithread", NULL, BND_OK, "" },
	{ "linear:2", NULL, "srun", "hint=compute_bound", NULL, BND_OK, "--cpus-per-task=2" },
	{ "linear:2", NULL, "sbatch", "hint=memory_bound ntasks=2", NULL, BND_OK,
	  "--cpus-per-task=2" },
	{ "linear:2", NULL, "srun", "hint=nomultithread cpus-per-task=2", NULL, BND_OK, "" },
	{ "linear:1", NULL, "srun", "hint=nomultithread cpu-bind=verbose", NULL, BND_OK, "" },
	{ "linear:1", NULL, "srun", "hint=nomultithread cpu-bind=none", NULL, BND_OK,
	  "--threads-per-core=1" },
	{ "linear:1", NULL, "srun", "hint=nomultithread cpu-bind=v,cores", NULL, BND_OK,
	  "--threads-per-core=1" },
	{ "linear:1", NULL, "srun", "hint=nomultithread ntasks-per-core=1", NULL, BND_OK,
	  "--threads-per-core=1" },
	{ "linear:2", NULL, "srun", "hint=compute_bound extra-node-info=2", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	/* 26.05 drops the hint beside --sockets-per-node or --cores-per-socket
	 * too, the user's or the filter's own */
	{ "linear:2", NULL, "srun", "hint=nomultithread sockets-per-node=1", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "linear:2", NULL, "sbatch", "hint=nomultithread cores-per-socket=4", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "linear:1:1,2", NULL, "sbatch", "hint=nomultithread", NULL, BND_OK,
	  "--exclusive --sockets-per-node=2 --cores-per-socket=3 --threads-per-core=1" },
	{ "linear:1:0,0", NULL, "sbatch", "hint=nomultithread", NULL, BND_OK, "--exclusive" },
	/* counts past what Slurm can be asked for are refused, never wrapped
	 * (issue 32 item 4: -727379968 cores per task, and
	 * options["cpus-per-task"]="cpus-per-task") */
	{ "striding:1000000:1000000", NULL, "sbatch", "ntasks=1", NULL, BND_ENOFIT,
	  "spreads each task over more than 1000000 cores" },
	{ "striding:1000000:1000000", NULL, "srun", "", NULL, BND_ENOFIT,
	  "spreads each task over more than 1000000 cores" },
	{ "linear:4096", NULL, "srun", "threads-per-core=1000000", NULL, BND_ENOFIT,
	  "would need --cpus-per-task=4096000000, which Slurm cannot be asked for" },
	{ "packed:1000000:unit=S", NULL, "sbatch", "ntasks-per-node=1000000", NULL, BND_ENOFIT,
	  "would need --sockets-per-node=1000000000000" },
	{ "packed:1000000:type=node", NULL, "sbatch", "ntasks=1 threads-per-core=3", NULL,
	  BND_ENOFIT, "would need --cpus-per-task=3000000" },
	/* threads: Slurm's CPUs */
	{ "packed:2:unit=T", NULL, "srun", "ntasks=2", NULL, BND_OK, "--cpus-per-task=2" },
	{ "packed:1:unit=T", NULL, "srun", "ntasks=2", NULL, BND_OK, "" },
	{ "packed:1:unit=CT", NULL, "srun", "ntasks=2 ntasks-per-core=2", NULL, BND_OK, "" },
	{ "packed:3:unit=T", NULL, "srun", "cpus-per-task=2", NULL, BND_ENOFIT,
	  "needs 3 threads per task; -c 2 gives 2" },
	{ "balance:2:level=thread", NULL, "srun", "", NULL, BND_OK, "--cpus-per-task=2" },
	/* cores through packed and LSF */
	{ "packed:2", NULL, "srun", "", NULL, BND_OK, "--cpus-per-task=2 --threads-per-core=1" },
	{ "packed:2:unit=E", NULL, "srun", "", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "packed:0", NULL, "srun", "ntasks=2", NULL, BND_OK, "" },
	{ "balance:2", NULL, "srun", "ntasks=2", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "pack:1", NULL, "sbatch", "", NULL, BND_OK, "--threads-per-core=1" },
	{ "any:3:level=core", NULL, "srun", "", NULL, BND_OK,
	  "--cpus-per-task=3 --threads-per-core=1" },
	/* gpu: whole cores per task; the GPUs are the user's own options */
	{ "gpu:4", NULL, "srun", "ntasks=2", NULL, BND_OK, "--cpus-per-task=4 --threads-per-core=1" },
	{ "packed:2:near=gpu", NULL, "sbatch", "ntasks=4", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	/* type=node: the node's tasks share the units */
	{ "packed:4:type=node", NULL, "srun", "ntasks=4 nodes=1", NULL, BND_OK,
	  "--threads-per-core=1" },
	{ "packed:4:type=node", NULL, "srun", "ntasks=2 ntasks-per-node=2", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "packed:4:type=node", NULL, "srun", "ntasks=3 ntasks-per-node=2", NULL, BND_OK,
	  "--cpus-per-task=4 --threads-per-core=1" },
	{ "packed:4:type=node", NULL, "srun", "ntasks=2", NULL, BND_OK,
	  "--cpus-per-task=4 --threads-per-core=1" },
	{ "packed:4:unit=T:type=node", NULL, "srun", "ntasks=4 nodes=1", NULL, BND_OK, "" },
	{ "packed:1:unit=S:type=node", NULL, "sbatch", "ntasks=4", NULL, BND_OK, "--exclusive" },
	{ "packed:2:unit=S:type=node", NULL, "sbatch", "ntasks=4", NULL, BND_OK,
	  "--exclusive --sockets-per-node=2" },
	/* sockets, NUMA nodes, L3s: whole nodes, at most a socket's share */
	{ "packed:1:unit=S", NULL, "sbatch", "ntasks=2", NULL, BND_OK,
	  "--exclusive --ntasks-per-socket=1" },
	{ "packed:1:unit=N", NULL, "salloc", "ntasks=2", NULL, BND_OK,
	  "--exclusive --ntasks-per-socket=1" },
	{ "packed:1:unit=CX", NULL, "sbatch", "ntasks=2", NULL, BND_OK,
	  "--exclusive --ntasks-per-socket=1" },
	{ "balance:1:level=socket", NULL, "sbatch", "ntasks=2", NULL, BND_OK,
	  "--exclusive --ntasks-per-socket=1" },
	{ "packed:2:unit=N", NULL, "sbatch", "ntasks=2", NULL, BND_OK,
	  "--exclusive --ntasks-per-node=1 --sockets-per-node=2" },
	{ "packed:2:unit=S", NULL, "sbatch", "ntasks=4 ntasks-per-node=2", NULL, BND_OK,
	  "--exclusive --sockets-per-node=4" },
	/* a new job's srun -N runs one task per node already, and refuses
	 * --ntasks-per-node (fuzz_submit's fixed point found it added) */
	{ "packed:2:unit=S", NULL, "srun", "nodes=2", NULL, BND_OK,
	  "--exclusive --sockets-per-node=2" },
	{ "packed:2:unit=S", NULL, "sbatch", "nodes=2", NULL, BND_OK,
	  "--exclusive --ntasks-per-node=1 --sockets-per-node=2" },
	{ "packed:2:unit=S", NULL, "sbatch", "ntasks-per-node=2 sockets-per-node=2", NULL,
	  BND_ENOFIT, "needs 4 sockets on a node (4 sockets); --sockets-per-node=2" },
	{ "packed:1:unit=S", NULL, "sbatch", "ntasks=4 ntasks-per-socket=2", NULL, BND_ENOFIT,
	  "--ntasks-per-socket=2 puts 2 tasks on a socket" },
	{ "packed:1:unit=S", NULL, "sbatch", "exclusive=exclusive", NULL, BND_OK,
	  "--ntasks-per-socket=1" },
	{ "packed:1:unit=S", NULL, "sbatch", "exclusive=user", NULL, BND_ENOFIT,
	  "--exclusive=user shares nodes with other jobs" },
	{ "packed:1:unit=S", NULL, "sbatch", "oversubscribe=oversubscribe", NULL, BND_ENOFIT,
	  "--oversubscribe shares nodes" },
	/* srun's own job: its step gets the whole node only without -n/-c */
	{ "packed:1:unit=S", NULL, "srun", "", NULL, BND_OK, "--exclusive --ntasks-per-socket=1" },
	{ "packed:1:unit=S", NULL, "srun", "nodes=2", NULL, BND_OK,
	  "--exclusive --ntasks-per-socket=1" },
	{ "packed:1:unit=S", NULL, "srun", "ntasks=2", NULL, BND_ENOFIT,
	  "run the tasks inside salloc or sbatch" },
	{ "striding:2:2", NULL, "srun", "cpus-per-task=4", NULL, BND_ENOFIT,
	  "srun gives a new job's step only the CPUs of its tasks" },
	/* spread picks: the whole node, -c bounds the tasks a node gets */
	{ "striding:2:4", NULL, "sbatch", "ntasks=2", NULL, BND_OK,
	  "--exclusive --cpus-per-task=8 --threads-per-core=1" },
	{ "striding:1:2", NULL, "srun", "", NULL, BND_OK, "--exclusive" },
	{ "striding:2:4", NULL, "sbatch", "cpus-per-task=4", NULL, BND_ENOFIT,
	  "needs 8 cores per task; -c 4 gives 4" },
	/* named cores: the whole node, which must have them */
	{ "explicit:0,0:1,3", NULL, "srun", "", NULL, BND_OK,
	  "--exclusive --sockets-per-node=2 --cores-per-socket=4" },
	{ "explicit:0,0:0,1", NULL, "sbatch", "ntasks=2", NULL, BND_OK,
	  "--exclusive --cores-per-socket=2 --nodes=1" },
	{ "explicit:0,0:0,1:0,2", NULL, "sbatch", "ntasks=2", NULL, BND_ENOFIT,
	  "lists 3 cores, which cannot be shared out evenly among 2 tasks" },
	{ "explicit:0,0:0,1:0,2:0,3", NULL, "sbatch", "ntasks=3 ntasks-per-node=2", NULL, BND_OK,
	  "--exclusive --cores-per-socket=4" },
	{ "explicit:0,0:0,1:0,2", NULL, "sbatch", "ntasks=4 nodes=2", NULL, BND_ENOFIT,
	  "among 2 tasks on a node (-n and -N)" },
	{ "explicit:0,0", NULL, "sbatch", "ntasks=2 nodes=2", NULL, BND_OK, "--exclusive" },
	{ "explicit:1,0", NULL, "sbatch", "sockets-per-node=1", NULL, BND_ENOFIT,
	  "names a core of socket 1, so the node needs 2 sockets; --sockets-per-node=1" },
	{ "explicit:0,5", NULL, "sbatch", "cores-per-socket=8", NULL, BND_OK, "--exclusive" },
	{ "linear:2:1,0", NULL, "sbatch", "", NULL, BND_OK,
	  "--exclusive --sockets-per-node=2 --cpus-per-task=2 --threads-per-core=1" },
	{ "linear:1:0,0", NULL, "srun", "", NULL, BND_OK, "--exclusive" },
	{ "striding:1:2:0,2", NULL, "sbatch", "", NULL, BND_OK,
	  "--exclusive --cores-per-socket=3 --cpus-per-task=2 --threads-per-core=1" },
	{ "cpus:0,5,9-11", NULL, "sbatch", "ntasks=2", NULL, BND_OK, "--exclusive" },
	{ "cpus:3", NULL, "srun", "ntasks=1", NULL, BND_ENOFIT, "names physical cpus" },
	/* a step inside a job: it asks within the job */
	{ "linear:2", NULL, "srun", "jobid=7 ntasks=2", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1" },
	{ "linear:1", NULL, "srun", "jobid=7 ntasks=2 threads-per-core=1", NULL, BND_OK, "" },
	{ "linear:2", NULL, "srun", "jobid=7 ntasks=2 cpus-per-task=1", NULL, BND_ENOFIT,
	  "needs 2 cores per task; -c 1 gives 1" },
	{ "packed:1:unit=S", NULL, "srun", "jobid=7 ntasks=2", NULL, BND_OK, "" },
	{ "explicit:0,0:0,1", NULL, "srun", "jobid=7 ntasks=2", NULL, BND_OK, "" },
	{ "packed:1:unit=S", NULL, "srun", "jobid=7 ntasks=2 cpus-per-task=2", NULL, BND_ENOFIT,
	  "-c makes a step use only the CPUs it asks for" },
	{ "striding:1:2", NULL, "srun", "jobid=7 exact=set", NULL, BND_ENOFIT,
	  "--exact makes a step use only the CPUs it asks for" },
	/* --jobid on sbatch is still a new job */
	{ "packed:1:unit=S", NULL, "sbatch", "jobid=7 ntasks=2", NULL, BND_OK,
	  "--exclusive --ntasks-per-socket=1" },
	/* memory policies */
	{ NULL, "nlocal", "srun", "ntasks=2", NULL, BND_OK, "--threads-per-core=1" },
	{ NULL, "cores:strict", "srun", "ntasks=2", NULL, BND_OK, "" },
	{ "linear:1", "cores:strict", "srun", "mem-bind=local", NULL, BND_ENOFIT,
	  "--mbind=cores:strict and --mem-bind=local both set each task's memory policy" },
	{ "linear:1", "cores", "srun", "mem-bind=verbose,none", NULL, BND_OK,
	  "--threads-per-core=1" },
	{ "linear:1", NULL, "srun", "mem-bind=local", NULL, BND_OK, "--threads-per-core=1" },
	{ "linear:1", "round_robin", "srun", "mem=4G ntasks=2", NULL, BND_OK,
	  "--threads-per-core=1" },
	/* nothing to ask for */
	{ "none", NULL, "srun", "ntasks=4", NULL, BND_OK, "" },
	{ NULL, NULL, "sbatch", "", NULL, BND_OK, "" },
	/* the site's switch */
	{ "linear:2", NULL, "srun", "", "refuse", BND_ENOFIT,
	  "needs --cpus-per-task=2 --threads-per-core=1 (2 cores per task); this site's filter "
	  "does not add options (submit=refuse)" },
	{ "linear:2", NULL, "srun", "cpus-per-task=2 threads-per-core=1", "refuse", BND_OK, "" },
	{ "linear:2", NULL, "srun", "cpus-per-task=1", "refuse", BND_ENOFIT,
	  "needs 2 cores per task; -c 1 gives 1" },
	{ "linear:2", NULL, "srun", "cpus-per-task=1", "off", BND_OK, "" },
	{ "packed:1:unit=S", NULL, "srun", "ntasks=2", "off", BND_OK, "" },
};

static int run_row(const struct row *w, struct bnd_submit *s, char *err, size_t errlen)
{
	struct bnd_request *r = calloc(1, sizeof(*r));
	struct bnd_alloc a;
	enum bnd_submit_cmd cmd = BND_CMD_SRUN;
	enum bnd_mbind m = BND_M_NONE;
	enum bnd_submit_mode mode = BND_SUBMIT_TRANSLATE;
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(bnd_submit_cmd_parse(w->cmd, &cmd, err, errlen), BND_OK);
	bnd_alloc_init(&a, cmd);
	st_set_user(&a, w->user);
	ck_assert_int_eq(bnd_request_parse(r, w->binding ? w->binding : "none", err, errlen),
			 BND_OK);
	if (w->mbind)
		ck_assert_int_eq(bnd_mbind_parse(&m, w->mbind, err, errlen), BND_OK);
	if (w->mode)
		ck_assert_int_eq(bnd_submit_mode_parse(w->mode, &mode, err, errlen), BND_OK);
	int rc = bnd_submit_translate(r, m, &a, mode, s, err, errlen);
	free(r);
	return rc;
}

START_TEST(every_row)
{
	const struct row *w = &rows[_i];
	struct bnd_submit *s = calloc(1, sizeof(*s));
	char err[BND_ERRLEN] = "", opts[BND_SUBMIT_TEXT] = "";
	ck_assert_ptr_nonnull(s);
	int rc = run_row(w, s, err, sizeof(err));
	bnd_submit_options_text(s, opts, sizeof(opts));
	ck_assert_msg(rc == w->rc, "row %d: --binding=%s %s %s: rc %d, want %d (%s; options %s)",
		      _i, w->binding ? w->binding : "-", w->cmd, w->user, rc, w->rc, err, opts);
	if (rc == BND_OK)
		ck_assert_msg(!strcmp(opts, w->want), "row %d: --binding=%s %s %s: \"%s\", want "
			      "\"%s\"", _i, w->binding ? w->binding : "-", w->cmd, w->user, opts,
			      w->want);
	else
		ck_assert_msg(strstr(err, w->want), "row %d: --binding=%s %s %s: \"%s\" lacks "
			      "\"%s\"", _i, w->binding ? w->binding : "-", w->cmd, w->user, err,
			      w->want);
	/* every option added says why */
	for (int i = 0; rc == BND_OK && i < s->nset; i++)
		ck_assert_msg(s->set[i].why[0], "row %d: --%s without a reason", _i, s->set[i].name);
	free(s);
}
END_TEST

/* Every strategy of the need table is exercised by some row. */
START_TEST(rows_cover_every_strategy)
{
	for (const struct bnd_need_row *t = bnd_need_rows; t->fill; t++) {
		int seen = 0;
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && !seen; i++) {
			struct bnd_request *r = calloc(1, sizeof(*r));
			char err[BND_ERRLEN];
			ck_assert_ptr_nonnull(r);
			if (bnd_request_parse(r, rows[i].binding ? rows[i].binding : "none", err,
					      sizeof(err)) == BND_OK)
				seen = r->strategy == t->strategy;
			free(r);
		}
		ck_assert_msg(seen, "strategy %s has no row in test_translate",
			      bnd_strategy_name(t->strategy));
	}
}
END_TEST

/* The options text is what a user types: flags bare, values after '='. */
START_TEST(options_text)
{
	struct bnd_submit s = { .nset = 2 };
	char buf[64];
	snprintf(s.set[0].name, sizeof(s.set[0].name), "exclusive");
	snprintf(s.set[0].value, sizeof(s.set[0].value), "exclusive");
	snprintf(s.set[1].name, sizeof(s.set[1].name), "cpus-per-task");
	snprintf(s.set[1].value, sizeof(s.set[1].value), "2");
	ck_assert_int_eq(bnd_submit_options_text(&s, buf, sizeof(buf)), BND_OK);
	ck_assert_str_eq(buf, "--exclusive --cpus-per-task=2");
	char small[8];
	ck_assert_int_eq(bnd_submit_options_text(&s, small, sizeof(small)), BND_EINVAL);
}
END_TEST

/* What the request consumes, as sbind and the filter's -v show it. */
START_TEST(what_it_says)
{
	struct bnd_submit *s = calloc(1, sizeof(*s));
	char err[BND_ERRLEN];
	struct row w = { "packed:2:unit=N", NULL, "sbatch", "", NULL, BND_OK, "" };
	ck_assert_int_eq(run_row(&w, s, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(s->what, "--binding=packed:2:unit=N: 2 whole NUMA nodes per task, on "
			 "whole nodes");
	w.binding = "packed:3:unit=T";
	ck_assert_int_eq(run_row(&w, s, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(s->what, "--binding=packed:3:unit=T: 3 threads per task");
	w.binding = "explicit:0,0:0,1";
	ck_assert_int_eq(run_row(&w, s, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(s->what, "--binding=explicit:0,0:0,1: the 2 cores listed, shared out "
			 "among a node's tasks, on whole nodes");
	w.binding = NULL;
	w.mbind = "nlocal";
	ck_assert_int_eq(run_row(&w, s, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(s->what, "--mbind=nlocal: 1 whole core per task");
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("translate");
	TCase *tc = tcase_create("rows");
	tcase_add_loop_test(tc, every_row, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(tc, rows_cover_every_strategy);
	tcase_add_test(tc, options_text);
	tcase_add_test(tc, what_it_says);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
