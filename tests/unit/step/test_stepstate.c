/* The step's states and the moves between them (stepstate.h), and which
 * source's request a step runs (stepsource.h): the two tables that decide
 * a step's life, checked against what the headers promise. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "binding/step/step.h"
#include "binding/util/error.h"
#include "testutil.h"

/* The moves stepstate.h draws, written out again: a row changed in one
 * place and not the other fails here. */
static int drawn(enum bnd_step_state from, enum bnd_step_state to)
{
	switch (from) {
	case BND_STEP_NEW:
		return to == BND_STEP_IDLE || to == BND_STEP_UNBOUND || to == BND_STEP_FAILED ||
		       to == BND_STEP_NO_TOPOLOGY || to == BND_STEP_READY;
	case BND_STEP_READY:
		return to == BND_STEP_PLACED || to == BND_STEP_DEFERRED || to == BND_STEP_FAILED;
	case BND_STEP_PLACED:
		return to == BND_STEP_SUSPENDED || to == BND_STEP_RELEASED;
	case BND_STEP_DEFERRED:
		return to == BND_STEP_PLACED || to == BND_STEP_SUSPENDED_WAITING ||
		       to == BND_STEP_RELEASED;
	case BND_STEP_SUSPENDED:
	case BND_STEP_SUSPENDED_WAITING:
		return to == BND_STEP_PLACED || to == BND_STEP_DEFERRED || to == BND_STEP_RELEASED;
	default:
		return 0; /* IDLE, UNBOUND, FAILED, NO_TOPOLOGY, RELEASED end there */
	}
}

START_TEST(only_the_drawn_moves_are_allowed)
{
	struct bnd_step s;
	for (int from = 0; from < BND_STEP_NSTATES; from++)
		for (int to = 0; to < BND_STEP_NSTATES; to++) {
			memset(&s, 0, sizeof(s));
			s.state = (enum bnd_step_state)from;
			int want = drawn(s.state, (enum bnd_step_state)to);
			int rc = bnd_step_move(&s, (enum bnd_step_state)to);
			ck_assert_msg(rc == (want ? BND_OK : BND_EINVAL), "%s -> %s: %d",
				      bnd_step_state_name((enum bnd_step_state)from),
				      bnd_step_state_name((enum bnd_step_state)to), rc);
			ck_assert_int_eq(s.state, want ? to : from);
		}
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_NSTATES), BND_EINVAL);
	ck_assert_int_eq(bnd_step_move(NULL, BND_STEP_IDLE), BND_EINVAL);
}
END_TEST

START_TEST(recorded_and_active_follow_the_state)
{
	struct bnd_step s;
	memset(&s, 0, sizeof(s));
	ck_assert(!bnd_step_active(&s) && !bnd_step_recorded(&s));
	/* prepared, not placed: nothing decided to tell its tasks yet */
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_READY), BND_OK);
	ck_assert(!bnd_step_active(&s) && !bnd_step_recorded(&s));
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_DEFERRED), BND_OK);
	ck_assert(bnd_step_active(&s) && bnd_step_recorded(&s));
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_SUSPENDED_WAITING), BND_OK);
	ck_assert(bnd_step_recorded(&s));
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_PLACED), BND_OK);
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_SUSPENDED), BND_OK);
	ck_assert(bnd_step_recorded(&s));
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_RELEASED), BND_OK);
	ck_assert(!bnd_step_recorded(&s));
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_IDLE), BND_OK);
	ck_assert(!bnd_step_active(&s) && !bnd_step_recorded(&s));
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(bnd_step_move(&s, BND_STEP_FAILED), BND_OK);
	ck_assert(bnd_step_active(&s) && !bnd_step_recorded(&s));
	ck_assert_str_eq(bnd_step_state_name(BND_STEP_SUSPENDED_WAITING), "suspended-waiting");
	ck_assert_str_eq(bnd_step_state_name(BND_STEP_READY), "ready");
}
END_TEST

/* --binding > LSF's variables > default= > implicit=, whatever else is set. */
START_TEST(sources_win_in_their_order)
{
	struct bnd_config cfg;
	struct bnd_step s;
	struct bnd_step_in in;
	bnd_config_defaults(&cfg);
	const struct {
		const char *binding, *lsf_job, *def;
		int implicit;
		enum bnd_step_source want;
	} v[] = {
		{ NULL, NULL, "", 0, BND_SRC_NONE },
		{ "none", "PACK", "linear:1", 1, BND_SRC_OPTION },
		{ NULL, "PACK", "linear:1", 1, BND_SRC_LSF },
		{ NULL, "N", "linear:1", 1, BND_SRC_DEFAULT }, /* N asks for nothing */
		{ NULL, NULL, "linear:1", 1, BND_SRC_DEFAULT },
		{ NULL, NULL, "", 1, BND_SRC_IMPLICIT },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct bnd_config row = cfg;
		memset(&s, 0, sizeof(s));
		memset(&in, 0, sizeof(in));
		snprintf(row.default_spec, sizeof(row.default_spec), "%s", v[i].def);
		row.implicit = v[i].implicit;
		s.cfg = &row;
		in.binding = tu_option(BND_OPT_BINDING, v[i].binding);
		in.lsf_bind_job = v[i].lsf_job;
		ck_assert_int_eq(bnd_step_source_pick(&s, &in), v[i].want);
		ck_assert_msg(s.source == v[i].want, "row %zu: %s", i, bnd_step_source_name(s.source));
		/* the user's two ways at once: the -v line says which was ignored */
		ck_assert_int_eq(strstr(s.note, "--binding wins over LSB_USER_BIND_JOB=PACK") != NULL,
				 v[i].want == BND_SRC_OPTION);
	}
	ck_assert(bnd_step_source_needs_topology(BND_SRC_LSF));
	ck_assert(bnd_step_source_needs_topology(BND_SRC_IMPLICIT));
	ck_assert(!bnd_step_source_needs_topology(BND_SRC_OPTION));
	ck_assert(!bnd_step_source_needs_topology(BND_SRC_DEFAULT));
	ck_assert(!bnd_step_source_needs_topology(BND_SRC_NONE));
	tu_options_free();
}
END_TEST

/* The option callback's parse is the one the step runs (there is no other
 * input): a value without text is not given, and a parse that failed there
 * is the step's reason. */
START_TEST(the_callbacks_parse_is_taken)
{
	struct bnd_config cfg;
	struct bnd_step s;
	struct bnd_option_value b, m;
	memset(&b, 0, sizeof(b));
	memset(&m, 0, sizeof(m));
	bnd_config_defaults(&cfg);
	cfg.enabled = 1;
	struct bnd_step_in in = { .cfg = &cfg, .binding = &b, .mbind = &m };
	/* neither given */
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_int_eq(s.state, BND_STEP_IDLE);
	bnd_step_free(&s);

	ck_assert_int_eq(bnd_option_value_set(&b, BND_OPT_BINDING, "linear:0"), BND_OK);
	ck_assert_int_eq(b.rc, BND_EINVAL);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_int_eq(s.state, BND_STEP_FAILED);
	ck_assert_int_eq(s.source, BND_SRC_OPTION);
	ck_assert_str_eq(s.reason, b.err);
	/* the task still reports what was asked, as from the text */
	struct bnd_task_result r;
	ck_assert_int_eq(bnd_step_task(&s, 0, 0, 0, NULL, NULL, NULL, &r), BND_OK);
	ck_assert_str_eq(tu_taskenv_get(&r.env, "SLURM_BINDING_REQUEST"), "linear:0");
	bnd_taskenv_free(&r.env);
	bnd_step_free(&s);

	ck_assert_int_eq(bnd_option_value_set(&m, BND_OPT_MBIND, "cores:loose"), BND_OK);
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_int_eq(s.state, BND_STEP_FAILED);
	ck_assert_str_eq(s.reason, m.err); /* --mbind is read first, as before */
	bnd_step_free(&s);

	bnd_option_value_clear(&b);
	bnd_option_value_clear(&m);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("stepstate");
	TCase *tc = tcase_create("stepstate");
	tcase_add_test(tc, only_the_drawn_moves_are_allowed);
	tcase_add_test(tc, recorded_and_active_follow_the_state);
	tcase_add_test(tc, sources_win_in_their_order);
	tcase_add_test(tc, the_callbacks_parse_is_taken);
	suite_add_tcase(su, tc);
	return tu_run(su);
}
