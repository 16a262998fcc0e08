/* numamem at submission (submit/numamem.h): what the filter asks Slurm for
 * at a site whose nodes offer the GRES numamem per NUMA node. One row per
 * case, on the QEMU guest's node line (n0 458 MiB, n1-n3 503 MiB), through
 * bnd_submit_at_site (the translation, then numamem), as the cli_filter's
 * module and sbind run it; and slurm.conf's node lines read as the filter
 * reads them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/submit/numamem.h"
#include "binding/submit/submission.h"
#include "binding/util/error.h"
#include "submittest.h"
#include "testutil.h"

#define GUEST_GRES "numamem:n0:458M,numamem:n1:503M,numamem:n2:503M,numamem:n3:503M"

struct row {
	const char *binding, *mbind, *cmd, *user, *mode;
	int rc;
	const char *want; /* options text, or a piece of the refusal */
};

static const struct row rows[] = {
	/* untyped: the node's memory fits one NUMA node */
	{ "linear:1", "cores:strict", "srun", "ntasks=1 mem=400", NULL, BND_OK,
	  "--threads-per-core=1 --gres=numamem:400M" },
	{ "linear:1", "cores", "sbatch", "ntasks=2 nodes=1 mem-per-cpu=100", NULL, BND_OK,
	  "--threads-per-core=1 --gres=numamem:200M" },
	{ "linear:2", "cores:strict", "salloc", "ntasks-per-node=2 mem-per-cpu=50", NULL, BND_OK,
	  "--cpus-per-task=2 --threads-per-core=1 --gres=numamem:200M" },
	{ NULL, "nlocal", "srun", "mem=300", NULL, BND_OK,
	  "--threads-per-core=1 --gres=numamem:300M" },
	/* typed per task: more than one NUMA node, each task fits one */
	{ "linear:1", "cores:strict", "srun", "ntasks=2 nodes=1 mem=800", NULL, BND_OK,
	  "--threads-per-core=1 --gres=numamem:n0:400M,numamem:n1:400M" },
	{ "linear:1", "cores:strict", "sbatch", "ntasks=4 ntasks-per-node=4 mem-per-cpu=300", NULL,
	  BND_OK, "--threads-per-core=1 --gres=numamem:n0:300M,numamem:n1:300M,numamem:n2:300M,"
	  "numamem:n3:300M" },
	/* two tasks of 200 fit n0 (458), the third goes to n1 */
	{ "linear:1", "cores", "srun", "ntasks=3 nodes=1 mem=600", NULL, BND_OK,
	  "--threads-per-core=1 --gres=numamem:n0:400M,numamem:n1:200M" },
	/* round_robin: typed, evenly over the types */
	{ "linear:1", "round_robin", "srun", "ntasks=2 nodes=1 mem=1000", NULL, BND_OK,
	  "--threads-per-core=1 --gres=numamem:n0:250M,numamem:n1:250M,numamem:n2:250M,"
	  "numamem:n3:250M" },
	/* the user's other GRES are kept, as Slurm takes them (no gres: / gres/) */
	{ "linear:1", "cores", "srun", "ntasks=1 mem=100 gres=gres/gpu:1", NULL, BND_OK,
	  "--threads-per-core=1 --gres=gpu:1,numamem:100M" },
	{ "linear:1", "cores", "srun", "ntasks=1 mem=100 gres=gres:gpu:tesla:1,gres:mps:10", NULL,
	  BND_OK, "--threads-per-core=1 --gres=gpu:tesla:1,mps:10,numamem:100M" },
	/* the user's own numamem is kept as given */
	{ "linear:1", "cores", "srun", "ntasks=1 mem=100 gres=gres/numamem:n2:100M", NULL, BND_OK,
	  "--threads-per-core=1" },
	/* nothing for numamem: no memory, a step, no binding, --mbind=gpu or none */
	{ "linear:1", "cores:strict", "srun", "ntasks=1", NULL, BND_OK, "--threads-per-core=1" },
	{ "linear:1", "cores:strict", "srun", "ntasks=1 mem=100 jobid=7", NULL, BND_OK,
	  "--threads-per-core=1" },
	{ NULL, "cores:strict", "srun", "ntasks=1 mem=100", NULL, BND_OK, "" },
	{ "linear:1", "gpu", "srun", "ntasks=1 mem=100", NULL, BND_OK, "--threads-per-core=1" },
	{ "linear:1", NULL, "srun", "ntasks=1 mem=100", NULL, BND_OK, "--threads-per-core=1" },
	{ "linear:1", "cores", "srun", "ntasks=1 mem=100", "off", BND_OK, "" },
	/* refused, with both numbers */
	{ "linear:1", "cores:strict", "srun", "ntasks=1 mem=600", NULL, BND_ENOFIT,
	  "--mbind=cores:strict needs 600 MiB per task on one NUMA node; the largest NUMA node "
	  "holds 503 MiB (the nodes' Gres=numamem:n1)" },
	{ "linear:1", "cores:strict", "srun", "ntasks=2 mem=800", NULL, BND_ENOFIT,
	  "needs 800 MiB on a node (--mem is per node); the largest NUMA node holds 503 MiB" },
	{ "linear:1", "cores", "srun", "ntasks=4 mem-per-cpu=100", NULL, BND_ENOFIT,
	  "with --mem-per-cpu=100M: Slurm books numamem per node, and -n 4 without -N or "
	  "--ntasks-per-node leaves a node's tasks to Slurm" },
	{ "linear:1", "cores", "srun", "ntasks=5 nodes=1 mem=2000", NULL, BND_ENOFIT,
	  "needs 5 task(s) of 400 MiB on a node, each on one NUMA node; the nodes' NUMA nodes "
	  "hold only 4 of them" },
	{ "linear:1", "round_robin", "srun", "ntasks=1 mem=2400", NULL, BND_ENOFIT,
	  "interleaves a node's 2400 MiB over its 4 NUMA nodes, 600 MiB on each; NUMA node n0 "
	  "holds 458 MiB" },
	{ "linear:1", "cores", "srun", "ntasks=1 mem=100 threads-per-core=1", "refuse", BND_ENOFIT,
	  "--mbind=cores needs --gres=numamem:100M (the node's 100 MiB booked per NUMA node" },
};

static int run_row(const struct row *w, struct bnd_submit *s, char *err, size_t errlen)
{
	struct bnd_request *r = calloc(1, sizeof(*r));
	struct bnd_alloc a;
	struct bnd_submit_site site = { .mode = BND_SUBMIT_TRANSLATE, .numamem = { .on = 1 } };
	enum bnd_submit_cmd cmd = BND_CMD_SRUN;
	enum bnd_mbind m = BND_M_NONE;
	ck_assert_ptr_nonnull(r);
	bnd_numamem_site_add(&site.numamem, GUEST_GRES);
	ck_assert_int_eq(bnd_submit_cmd_parse(w->cmd, &cmd, err, errlen), BND_OK);
	bnd_alloc_init(&a, cmd);
	st_set_user(&a, w->user);
	ck_assert_int_eq(bnd_request_parse(r, w->binding ? w->binding : "none", err, errlen),
			 BND_OK);
	if (w->mbind)
		ck_assert_int_eq(bnd_mbind_parse(&m, w->mbind, err, errlen), BND_OK);
	if (w->mode)
		ck_assert_int_eq(bnd_submit_mode_parse(w->mode, &site.mode, err, errlen), BND_OK);
	int rc = bnd_submit_at_site(r, m, &a, &site, s, err, errlen);
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
	ck_assert_msg(rc == w->rc, "row %d: %s %s: rc %d, want %d (%s; options %s)", _i, w->cmd,
		      w->user, rc, w->rc, err, opts);
	if (rc == BND_OK)
		ck_assert_msg(!strcmp(opts, w->want), "row %d: %s %s: \"%s\", want \"%s\"", _i,
			      w->cmd, w->user, opts, w->want);
	else
		ck_assert_msg(strstr(err, w->want), "row %d: \"%s\" lacks \"%s\"", _i, err, w->want);
	free(s);
}
END_TEST

/* Off at the site: nothing of numamem, whatever is asked. */
START_TEST(off_at_the_site_adds_nothing)
{
	struct bnd_request r;
	struct bnd_alloc a;
	struct bnd_submit *s = calloc(1, sizeof(*s));
	struct bnd_submit_site site = { .mode = BND_SUBMIT_TRANSLATE, .numamem = { .on = 0 } };
	char err[BND_ERRLEN], opts[BND_SUBMIT_TEXT];
	bnd_numamem_site_add(&site.numamem, GUEST_GRES);
	bnd_alloc_init(&a, BND_CMD_SRUN);
	st_set_user(&a, "ntasks=1 mem=600");
	ck_assert_int_eq(bnd_request_parse(&r, "linear:1", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_submit_at_site(&r, BND_M_CORES_STRICT, &a, &site, s, err, sizeof(err)),
			 BND_OK);
	bnd_submit_options_text(s, opts, sizeof(opts));
	ck_assert_str_eq(opts, "--threads-per-core=1");
	free(s);
}
END_TEST

/* Without node lines (no numamem in slurm.conf) the untyped request is
 * made whatever its size: Slurm is the judge. */
START_TEST(unknown_sizes_ask_untyped)
{
	struct bnd_numamem_site site = { .on = 1 };
	struct bnd_request r;
	struct bnd_alloc a;
	struct bnd_submit *s = calloc(1, sizeof(*s));
	char err[BND_ERRLEN];
	bnd_alloc_init(&a, BND_CMD_SRUN);
	st_set_user(&a, "ntasks=1 mem=5000");
	ck_assert_int_eq(bnd_request_parse(&r, "linear:1", err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_submit_numamem(&r, BND_M_CORES_STRICT, &a, &site, BND_SUBMIT_TRANSLATE,
					    s, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(s->nset, 1);
	ck_assert_str_eq(s->set[0].value, "numamem:5000M");
	free(s);
}
END_TEST

static const char *site_text(const struct bnd_numamem_site *s)
{
	static char out[512];
	size_t k = (size_t)snprintf(out, sizeof(out), "nodes %d largest %s:%llu types", s->nnodes,
				    s->largest, (unsigned long long)s->largest_mib);
	for (int i = 0; i < s->ntypes; i++)
		k += (size_t)snprintf(out + k, sizeof(out) - k, " %s:%llu", s->type[i],
				      (unsigned long long)s->type_mib[i]);
	return out;
}

static void no_include(void *ctx, const char *path)
{
	(void)path;
	++*(int *)ctx;
}

/* slurm.conf's node lines: counts as Slurm reads them, NodeName=DEFAULT,
 * other GRES, the types every node has (at their smallest), Include. */
START_TEST(slurm_conf_node_lines)
{
	struct bnd_numamem_site s = { 0 };
	int includes = 0;
	bnd_numamem_site_scan(&s,
			      "ClusterName=x\n"
			      "NodeName=DEFAULT Gres=numamem:n0:1G,numamem:n1:1G\n"
			      "NodeName=a[1-4] CPUs=8 # Gres=numamem:n0:9G\n"
			      "nodename=b1 gres=gpu:2,numamem:n0:512M,numamem:n1:524288K,numamem:n2:2G\n"
			      "NodeName=c1 Gres=numamem:n0:1073741824\n"
			      "Include /etc/slurm/nodes.conf\n"
			      "PartitionName=p Nodes=ALL\n", no_include, &includes);
	ck_assert_str_eq(site_text(&s), "nodes 3 largest n2:2048 types n0:512");
	ck_assert_int_eq(includes, 1);
	memset(&s, 0, sizeof(s));
	bnd_numamem_site_add(&s, GUEST_GRES);
	ck_assert_str_eq(site_text(&s), "nodes 1 largest n1:503 types n0:458 n1:503 n2:503 n3:503");
	bnd_numamem_site_add(&s, "gpu:4");
	bnd_numamem_site_add(&s, "numamem:n0 numamem:n1:x numamem::5M");
	ck_assert_int_eq(s.nnodes, 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("numamem");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, every_row, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(tc, off_at_the_site_adds_nothing);
	tcase_add_test(tc, unknown_sizes_ask_untyped);
	tcase_add_test(tc, slurm_conf_node_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
