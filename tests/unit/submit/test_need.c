/* What each strategy consumes (the need table, lib/submit/need.c): one
 * vector per strategy and unit, the named cores, the spread of striding,
 * the listed cores of explicit, and that every strategy has a row. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/request/request.h"
#include "binding/submit/need.h"
#include "binding/util/error.h"
#include "testutil.h"

struct vec {
	const char *binding;
	enum bnd_need_unit unit;
	enum bnd_need_scope scope;
	int amount, span, named, spread, shared_out, min_sockets, min_cores, whole;
	const char *unit_name;
};

static const struct vec vecs[] = {
	{ "none", BND_NEED_NONE, BND_NEED_PER_TASK, 0, 0, 0, 0, 0, 0, 0, 0, "unit" },
	{ "packed:0", BND_NEED_NONE, BND_NEED_PER_TASK, 0, 0, 0, 0, 0, 0, 0, 0, "unit" },
	{ "linear:2", BND_NEED_CORE, BND_NEED_PER_TASK, 2, 2, 0, 0, 0, 0, 0, 0, "core" },
	{ "env:linear:3", BND_NEED_CORE, BND_NEED_PER_TASK, 3, 3, 0, 0, 0, 0, 0, 0, "core" },
	{ "linear:2:1,3", BND_NEED_CORE, BND_NEED_PER_TASK, 2, 2, 1, 0, 0, 2, 4, 1, "core" },
	{ "striding:2:4", BND_NEED_CORE, BND_NEED_PER_TASK, 2, 8, 0, 1, 0, 0, 0, 1, "core" },
	{ "striding:1:2:0,2", BND_NEED_CORE, BND_NEED_PER_TASK, 1, 2, 1, 1, 0, 1, 3, 1, "core" },
	{ "explicit:0,0:1,3:0,1", BND_NEED_CORE, BND_NEED_PER_NODE, 3, 3, 1, 0, 3, 2, 4, 1, "core" },
	{ "packed:2", BND_NEED_CORE, BND_NEED_PER_TASK, 2, 2, 0, 0, 0, 0, 0, 0, "core" },
	{ "packed:2:unit=E", BND_NEED_CORE, BND_NEED_PER_TASK, 2, 2, 0, 0, 0, 0, 0, 0, "core" },
	{ "packed:3:unit=T", BND_NEED_THREAD, BND_NEED_PER_TASK, 3, 3, 0, 0, 0, 0, 0, 0, "thread" },
	{ "packed:1:unit=CT", BND_NEED_THREAD, BND_NEED_PER_TASK, 1, 1, 0, 0, 0, 0, 0, 0, "thread" },
	{ "packed:1:unit=ET", BND_NEED_THREAD, BND_NEED_PER_TASK, 1, 1, 0, 0, 0, 0, 0, 0, "thread" },
	{ "packed:1:unit=S", BND_NEED_SOCKET, BND_NEED_PER_TASK, 1, 1, 0, 0, 0, 0, 0, 1, "socket" },
	{ "packed:1:unit=ES", BND_NEED_SOCKET, BND_NEED_PER_TASK, 1, 1, 0, 0, 0, 0, 0, 1, "socket" },
	{ "packed:2:unit=N", BND_NEED_SOCKET, BND_NEED_PER_TASK, 2, 2, 0, 0, 0, 0, 0, 1, "NUMA node" },
	{ "packed:1:unit=CX", BND_NEED_SOCKET, BND_NEED_PER_TASK, 1, 1, 0, 0, 0, 0, 0, 1, "L3 cache" },
	{ "packed:1:unit=Y", BND_NEED_SOCKET, BND_NEED_PER_TASK, 1, 1, 0, 0, 0, 0, 0, 1, "L2 cache" },
	{ "packed:4:type=node", BND_NEED_CORE, BND_NEED_PER_NODE, 4, 4, 0, 0, 0, 0, 0, 0, "core" },
	{ "packed:4:unit=T:type=node", BND_NEED_THREAD, BND_NEED_PER_NODE, 4, 4, 0, 0, 0, 0, 0, 0,
	  "thread" },
	{ "packed:2:sort=S:start=S:stop=s", BND_NEED_CORE, BND_NEED_PER_TASK, 2, 2, 0, 0, 0, 0, 0, 0,
	  "core" },
	{ "balance:2", BND_NEED_CORE, BND_NEED_PER_TASK, 2, 2, 0, 0, 0, 0, 0, 0, "core" },
	{ "pack:2:level=thread", BND_NEED_THREAD, BND_NEED_PER_TASK, 2, 2, 0, 0, 0, 0, 0, 0,
	  "thread" },
	{ "any:1:level=socket", BND_NEED_SOCKET, BND_NEED_PER_TASK, 1, 1, 0, 0, 0, 0, 0, 1,
	  "socket" },
	{ "balance:1:level=processor", BND_NEED_SOCKET, BND_NEED_PER_TASK, 1, 1, 0, 0, 0, 0, 0, 1,
	  "socket" },
	{ "gpu:4", BND_NEED_CORE, BND_NEED_PER_TASK, 4, 4, 0, 0, 0, 0, 0, 0, "core" },
	{ "packed:2:near=gpu", BND_NEED_CORE, BND_NEED_PER_TASK, 2, 2, 0, 0, 0, 0, 0, 0, "core" },
	{ "cpus:0,5,9-11", BND_NEED_THREAD, BND_NEED_PER_NODE, 5, 5, 1, 0, 0, 0, 0, 1, "cpu" },
};

START_TEST(vectors)
{
	const struct vec *v = &vecs[_i];
	struct bnd_request *r = calloc(1, sizeof(*r));
	struct bnd_need n;
	char err[BND_ERRLEN];
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(bnd_request_parse(r, v->binding, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_int_eq(bnd_need_of(r, &n, err, sizeof(err)), BND_OK);
	ck_assert_msg(n.unit == v->unit, "%s: unit %d, want %d", v->binding, n.unit, v->unit);
	ck_assert_msg(n.scope == v->scope, "%s: scope", v->binding);
	ck_assert_msg(n.amount == v->amount && n.span == v->span, "%s: amount %d span %d",
		      v->binding, n.amount, n.span);
	ck_assert_msg(n.named == v->named && n.spread == v->spread, "%s: named %d spread %d",
		      v->binding, n.named, n.spread);
	ck_assert_msg(n.shared_out == v->shared_out, "%s: shared_out %d", v->binding, n.shared_out);
	ck_assert_msg(n.min_sockets == v->min_sockets && n.min_cores_per_socket == v->min_cores,
		      "%s: min %d:%d", v->binding, n.min_sockets, n.min_cores_per_socket);
	ck_assert_msg(bnd_need_whole_node(&n) == v->whole, "%s: whole node", v->binding);
	ck_assert_str_eq(n.unit_name, v->unit_name);
	bnd_request_clear(r);
	free(r);
}
END_TEST

/* One row per strategy: every value of enum bnd_strategy has its row, and
 * its example (its word for none) consumes units, none nothing. */
START_TEST(one_row_per_strategy)
{
	for (int s = 0; s < BND_S_COUNT; s++) {
		const struct bnd_strategy_def *d = bnd_strategy_def((enum bnd_strategy)s);
		const struct bnd_need_row *row = bnd_need_row_of((enum bnd_strategy)s);
		ck_assert_ptr_nonnull(d);
		ck_assert_msg(row && row->strategy == (enum bnd_strategy)s && row->fill && row->consumes,
			      "strategy %s has no row in the need table", d->word);
		struct bnd_request *r = calloc(1, sizeof(*r));
		struct bnd_need n;
		char text[128], err[BND_ERRLEN];
		ck_assert_ptr_nonnull(r);
		ck_assert(tu_strategy_example((enum bnd_strategy)s, 0, text, sizeof(text)));
		ck_assert_int_eq(bnd_request_parse(r, text, err, sizeof(err)), BND_OK);
		ck_assert_int_eq(r->strategy, s);
		ck_assert_msg(bnd_need_of(r, &n, err, sizeof(err)) == BND_OK, "%s: %s", text, err);
		ck_assert_msg((n.unit == BND_NEED_NONE) == (s == BND_S_NONE), "%s: unit %d", text,
			      (int)n.unit);
		ck_assert_msg(n.unit == BND_NEED_NONE || n.amount >= 1, "%s: amount %d", text,
			      n.amount);
		bnd_request_clear(r);
		free(r);
	}
	ck_assert_ptr_null(bnd_need_row_of(BND_S_COUNT));
}
END_TEST

START_TEST(unknown_strategy)
{
	struct bnd_request *r = calloc(1, sizeof(*r));
	struct bnd_need n;
	char err[BND_ERRLEN] = "";
	ck_assert_ptr_nonnull(r);
	r->strategy = (enum bnd_strategy)99;
	snprintf(r->text, sizeof(r->text), "future:1");
	ck_assert_int_eq(bnd_need_of(r, &n, err, sizeof(err)), BND_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "no row in the submit table"));
	ck_assert_ptr_null(bnd_need_row_of((enum bnd_strategy)99));
	free(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("need");
	TCase *tc = tcase_create("need");
	tcase_add_loop_test(tc, vectors, 0, (int)(sizeof(vecs) / sizeof(vecs[0])));
	tcase_add_test(tc, one_row_per_strategy);
	tcase_add_test(tc, unknown_strategy);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
