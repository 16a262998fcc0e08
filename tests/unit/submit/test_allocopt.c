/* The user's allocation options by Slurm's names, as a cli_filter shows
 * them: good values recorded, bad ones refused naming the option and the
 * form; --jobid makes an srun a step, not an sbatch. */
#include <check.h>
#include <string.h>

#include "binding/submit/allocopt.h"
#include "binding/util/error.h"
#include "testutil.h"

static struct bnd_alloc a;
static char err[BND_ERRLEN];

static int set(const char *name, const char *value)
{
	err[0] = '\0';
	return bnd_alloc_set(&a, name, value, err, sizeof(err));
}

START_TEST(counts)
{
	bnd_alloc_init(&a, BND_CMD_SRUN);
	ck_assert_int_eq(set("ntasks", "4"), BND_OK);
	ck_assert_int_eq(a.ntasks, 4);
	ck_assert_int_eq(set("cpus-per-task", "2"), BND_OK);
	ck_assert_int_eq(a.cpus_per_task, 2);
	ck_assert_int_eq(set("threads-per-core", "1"), BND_OK);
	ck_assert_int_eq(a.threads_per_core, 1);
	ck_assert_int_eq(set("ntasks-per-node", "3"), BND_OK);
	ck_assert_int_eq(set("ntasks-per-socket", "1"), BND_OK);
	ck_assert_int_eq(set("ntasks-per-core", "2"), BND_OK);
	ck_assert_int_eq(a.ntasks_per_node * 100 + a.ntasks_per_socket * 10 + a.ntasks_per_core, 312);
	static const char *const bad[] = { "0", "-1", "x", "", "2x", "1000001" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(set("cpus-per-task", bad[i]), BND_EINVAL);
		ck_assert_msg(strstr(err, "--cpus-per-task=") && strstr(err, "whole number"), "%s", err);
	}
	ck_assert_int_eq(set("ntasks", NULL), BND_EINVAL);
}
END_TEST

START_TEST(nodes)
{
	bnd_alloc_init(&a, BND_CMD_SBATCH);
	ck_assert_int_eq(set("nodes", "2"), BND_OK);
	ck_assert_int_eq(a.nodes_min * 10 + a.nodes_max, 22);
	ck_assert_int_eq(set("nodes", "2-4"), BND_OK);
	ck_assert_int_eq(a.nodes_min * 10 + a.nodes_max, 24);
	/* what options["nodes"] reads when only the minimum is known */
	ck_assert_int_eq(set("nodes", "1-0"), BND_OK);
	ck_assert_int_eq(a.nodes_min * 10 + a.nodes_max, 10);
	ck_assert_int_eq(set("nodes", "4-2"), BND_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "M >= N"));
	ck_assert_int_eq(set("nodes", "-2"), BND_EINVAL);
	ck_assert_int_eq(set("nodes", "12345678901234567890-3"), BND_EINVAL);
}
END_TEST

START_TEST(extra_node_info)
{
	bnd_alloc_init(&a, BND_CMD_SRUN);
	ck_assert_int_eq(set("extra-node-info", "2:4:1"), BND_OK);
	ck_assert_int_eq(a.sockets_per_node * 100 + a.cores_per_socket * 10 + a.threads_per_core, 241);
	bnd_alloc_init(&a, BND_CMD_SRUN);
	ck_assert_int_eq(set("extra-node-info", "*:*:1"), BND_OK);
	ck_assert_int_eq(a.sockets_per_node * 100 + a.cores_per_socket * 10 + a.threads_per_core, 1);
	ck_assert_int_eq(set("extra-node-info", "2:4:1:5"), BND_EINVAL);
	ck_assert_int_eq(set("extra-node-info", "a"), BND_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "S[:C[:T]]"));
}
END_TEST

START_TEST(flags_and_words)
{
	bnd_alloc_init(&a, BND_CMD_SBATCH);
	static const struct { const char *v; enum bnd_excl e; } ex[] = {
		{ "exclusive", BND_EXCL_NODE }, { "set", BND_EXCL_NODE }, { "", BND_EXCL_NODE },
		{ "user", BND_EXCL_USER }, { "mcs", BND_EXCL_MCS },
		{ "oversubscribe", BND_EXCL_SHARED },
	};
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		ck_assert_int_eq(set("exclusive", ex[i].v), BND_OK);
		ck_assert_int_eq(a.exclusive, ex[i].e);
	}
	ck_assert_int_eq(set("exclusive", "nodes"), BND_EINVAL);
	ck_assert_int_eq(set("exclusive", "exclusive"), BND_OK);
	ck_assert_int_eq(set("oversubscribe", "oversubscribe"), BND_OK);
	ck_assert_int_eq(a.exclusive, BND_EXCL_SHARED);
	ck_assert_int_eq(set("overcommit", "set"), BND_OK);
	ck_assert_int_eq(set("exact", "set"), BND_OK);
	ck_assert_int_eq(a.overcommit + a.exact, 2);
	ck_assert_int_eq(set("hint", "nomultithread"), BND_OK);
	ck_assert_str_eq(a.hint, "nomultithread");
	ck_assert_int_eq(set("hint", "fast"), BND_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--hint=fast"));
	ck_assert_int_eq(set("mem-bind", "local"), BND_OK);
	ck_assert_str_eq(a.mem_bind, "local");
	ck_assert_int_eq(set("mem-bind", ""), BND_EINVAL);
}
END_TEST

START_TEST(memory)
{
	bnd_alloc_init(&a, BND_CMD_SRUN);
	/* --mem as Slurm converts it (MB), --mem-per-cpu as typed */
	ck_assert_int_eq(set("mem", "4096"), BND_OK);
	ck_assert_int_eq(a.has_mem, 1);
	ck_assert_uint_eq(a.mem_mib, 4096);
	ck_assert_int_eq(set("mem-per-cpu", "1G"), BND_OK);
	ck_assert_uint_eq(a.mem_per_cpu_mib, 1024);
	ck_assert_int_eq(set("mem", "0"), BND_OK);
	ck_assert_int_eq(a.has_mem, 1);
	ck_assert_int_eq(set("mem", "lots"), BND_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--mem"));
}
END_TEST

START_TEST(jobid_and_names)
{
	bnd_alloc_init(&a, BND_CMD_SRUN);
	ck_assert_int_eq(set("jobid", "17"), BND_OK);
	ck_assert_int_eq(a.in_job, 1);
	bnd_alloc_init(&a, BND_CMD_SBATCH);
	ck_assert_int_eq(set("jobid", "17"), BND_OK);
	ck_assert_int_eq(a.in_job, 0);
	ck_assert_int_eq(set("jobid", "x"), BND_EINVAL);
	ck_assert_int_eq(set("gpus", "1"), BND_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--gpus: not an allocation option"));
	/* every key of the table is settable by its name */
	for (const struct bnd_alloc_key *k = bnd_alloc_keys; k->name; k++) {
		bnd_alloc_init(&a, BND_CMD_SRUN);
		const char *v = !strcmp(k->name, "nodes") ? "2" : !strcmp(k->name, "hint")
			? "nomultithread" : !strcmp(k->name, "extra-node-info") ? "2" : !strcmp(k->name, "mem-bind")
			? "local" : !strcmp(k->name, "exclusive") ? "exclusive" : "1";
		ck_assert_msg(set(k->name, v) == BND_OK, "%s=%s: %s", k->name, v, err);
	}
	enum bnd_submit_cmd c;
	ck_assert_int_eq(bnd_submit_cmd_parse("salloc", &c, err, sizeof(err)), BND_OK);
	ck_assert_str_eq(bnd_submit_cmd_name(c), "salloc");
	ck_assert_int_eq(bnd_submit_cmd_parse("qsub", &c, err, sizeof(err)), BND_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("allocopt");
	TCase *tc = tcase_create("allocopt");
	tcase_add_test(tc, counts);
	tcase_add_test(tc, nodes);
	tcase_add_test(tc, extra_node_info);
	tcase_add_test(tc, flags_and_words);
	tcase_add_test(tc, memory);
	tcase_add_test(tc, jobid_and_names);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
