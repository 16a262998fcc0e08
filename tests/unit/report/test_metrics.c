/* The node's metrics in Prometheus' text format: every series with the
 * value the records and counters give, every counter written (0 too),
 * nothing but state_ok for a state that could not be read; the update
 * writes the file atomically and in order. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/report/metrics.h"
#include "binding/state/counters.h"
#include "binding/util/error.h"
#include "statetest.h"
#include "testutil.h"

static struct st_env env;

static void setup(void)
{
	st_setup(&env);
}

static void teardown(void)
{
	st_teardown(&env);
}

static char *format(const struct bnd_topology *t, const struct bnd_state_file *f, int read)
{
	struct bnd_metrics_in in = { t, f, NULL, read, read };
	char *text = NULL, err[BND_ERRLEN] = "";
	size_t len = 0;
	ck_assert_msg(bnd_metrics_format(&in, &text, &len, err, sizeof(err)) == BND_OK, "%s", err);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

/* The line of series `name` (with its labels) has value want. */
static void has(const char *text, const char *series, const char *want)
{
	char line[256];
	snprintf(line, sizeof(line), "\n%s %s\n", series, want);
	ck_assert_msg(strstr(text, line), "no \"%s %s\" in:\n%s", series, want, text);
}

/* Two jobs on a 2-socket, 4-NUMA node with SMT: job 5 on core 0,0 and a
 * thread of core 0,1; job 6 on socket 1's first NUMA node with 512 MiB
 * there; a deferred and an unbound step hold nothing. */
static void sample(struct bnd_state_file *f)
{
	bnd_statefile_init(f);
	struct bnd_state_record a = st_rec(5, 0, 1, 1, "0-2");
	struct bnd_state_record b = st_rec(6, 0, 1, 1, "8-11");
	ck_assert_int_eq(bnd_state_record_mem(&b, 1), BND_OK);
	b.mem[0].node = 2;
	b.mem[0].mib = 512;
	struct bnd_state_record c = st_rec(7, 0, 1, 1, "");
	c.status = BND_ST_DEFERRED;
	c.ntasks = 0;
	struct bnd_state_record d = st_rec(8, 1, 1, 1, "");
	d.status = BND_ST_UNBOUND;
	d.ntasks = 0;
	ck_assert_int_eq(bnd_statefile_add(f, &a), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(f, &b), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(f, &c), BND_OK);
	ck_assert_int_eq(bnd_statefile_add(f, &d), BND_OK);
	bnd_state_record_free(&a);
	bnd_state_record_free(&b);
	bnd_state_record_free(&c);
	bnd_state_record_free(&d);
	f->counts.v[BND_CNT_PLACEMENT + BND_S_LINEAR] = 2;
	f->counts.v[BND_CNT_PLACEMENT + BND_S_NONE] = 1;
	f->counts.v[BND_CNT_REFUSAL + BND_R_HELD_BY_OTHER_JOBS] = 3;
	f->counts.v[BND_CNT_FALLBACK + BND_FB_DEFERRED] = 1;
	f->counts.v[BND_CNT_CROSS_NUMA] = 4;
	f->counts.v[BND_CNT_RANKFILE] = 6;
	bnd_counts_lockwait(&f->counts, 5000);      /* 5 us */
	bnd_counts_lockwait(&f->counts, 2000000);   /* 2 ms */
	bnd_counts_lockwait(&f->counts, 20000000000ull); /* 20 s: past the last bucket */
}

START_TEST(series_have_the_state_values)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2(memory=1GiB) core:2 pu:2");
	struct bnd_state_file f;
	sample(&f);
	char *text = format(t, &f, 1);
	has(text, "spank_binding_state_ok", "1");
	has(text, "spank_binding_steps{status=\"bound\"}", "2");
	has(text, "spank_binding_steps{status=\"deferred\"}", "1");
	has(text, "spank_binding_steps{status=\"suspended\"}", "0");
	has(text, "spank_binding_steps{status=\"unbound\"}", "1");
	/* cpus 0-2: core 0,0 whole and a thread of 0,1; 8-11: socket 1's NUMA 2 */
	has(text, "spank_binding_socket_cores{socket=\"0\"}", "4");
	has(text, "spank_binding_socket_cores_held{socket=\"0\"}", "2");
	has(text, "spank_binding_socket_cores_free{socket=\"0\"}", "2");
	has(text, "spank_binding_socket_threads_held{socket=\"0\"}", "3");
	has(text, "spank_binding_socket_threads_free{socket=\"0\"}", "5");
	has(text, "spank_binding_socket_cores_held{socket=\"1\"}", "2");
	has(text, "spank_binding_numa_cores_held{numa=\"0\"}", "2");
	has(text, "spank_binding_numa_cores_free{numa=\"1\"}", "2");
	has(text, "spank_binding_numa_threads_held{numa=\"2\"}", "4");
	has(text, "spank_binding_numa_threads_free{numa=\"3\"}", "4");
	has(text, "spank_binding_numa_memory_bytes{numa=\"2\"}", "1073741824");
	has(text, "spank_binding_numa_memory_reserved_bytes{numa=\"2\"}", "536870912");
	has(text, "spank_binding_numa_memory_free_bytes{numa=\"2\"}", "536870912");
	has(text, "spank_binding_numa_memory_reserved_bytes{numa=\"0\"}", "0");
	has(text, "spank_binding_placements_total{strategy=\"linear\"}", "2");
	has(text, "spank_binding_placements_total{strategy=\"nlocal\"}", "1");
	has(text, "spank_binding_placements_total{strategy=\"gpu\"}", "0");
	has(text, "spank_binding_refusals_total{reason=\"held_by_other_jobs\"}", "3");
	has(text, "spank_binding_refusals_total{reason=\"lock_timeout\"}", "0");
	has(text, "spank_binding_fallbacks_total{fallback=\"deferred\"}", "1");
	has(text, "spank_binding_cross_numa_placements_total", "4");
	has(text, "spank_binding_gpu_nonlocal_placements_total", "0");
	has(text, "spank_binding_rankfiles_written_total", "6");
	/* cumulative buckets; the 20 s wait only in +Inf, _count and _sum */
	has(text, "spank_binding_state_lock_wait_seconds_bucket{le=\"1e-05\"}", "1");
	has(text, "spank_binding_state_lock_wait_seconds_bucket{le=\"0.001\"}", "1");
	has(text, "spank_binding_state_lock_wait_seconds_bucket{le=\"0.01\"}", "2");
	has(text, "spank_binding_state_lock_wait_seconds_bucket{le=\"10\"}", "2");
	has(text, "spank_binding_state_lock_wait_seconds_bucket{le=\"+Inf\"}", "3");
	has(text, "spank_binding_state_lock_wait_seconds_count", "3");
	has(text, "spank_binding_state_lock_wait_seconds_sum", "20.002005000");
	free(text);
	bnd_statefile_free(&f);
	bnd_topology_free(t);
}
END_TEST

/* Every counter of the table is a series, each once; every metric has its
 * HELP and TYPE, names are Prometheus' and counters end in _total. */
START_TEST(every_counter_is_written_once)
{
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	char *text = format(NULL, &f, 1);
	int series = 0;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		if (l[0] == '#') {
			ck_assert_msg(!strncmp(l, "# HELP spank_binding_", 21) ||
				      !strncmp(l, "# TYPE spank_binding_", 21), "%s", l);
			if (!strncmp(l, "# TYPE ", 7) && strstr(l, " counter"))
				ck_assert_msg(strstr(l, "_total counter"), "%s", l);
			continue;
		}
		ck_assert_msg(!strncmp(l, "spank_binding_", 14), "%s", l);
		for (const char *p = l; *p && *p != '{' && *p != ' '; p++)
			ck_assert_msg((*p >= 'a' && *p <= 'z') || *p == '_', "%s", l);
		series += !strstr(l, "_steps{") && strcmp(l, "spank_binding_state_ok 1");
	}
	/* the counters but the histogram's, + its 8 buckets, sum and count */
	ck_assert_int_eq(series, BND_CNT_LOCKWAIT_BUCKET + BND_LOCKWAIT_BUCKETS + 1 + 2);
	free(text);
	bnd_statefile_free(&f);
}
END_TEST

START_TEST(an_unreadable_state_says_only_so)
{
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	f.counts.v[BND_CNT_RANKFILE] = 9;
	char *text = format(NULL, &f, 0);
	has(text, "spank_binding_state_ok", "0");
	ck_assert_msg(!strstr(text, "_total") && !strstr(text, "steps"), "%s", text);
	free(text);
	bnd_statefile_free(&f);
}
END_TEST

/* The update reads the state dir and replaces the file whole; a state of
 * a newer version is refused: state_ok 0, no counters. */
START_TEST(update_writes_the_file_whole)
{
	struct bnd_topology *t = tu_topo("pack:1 core:2");
	st_make_dir(&env);
	char out[160], err[BND_ERRLEN] = "";
	snprintf(out, sizeof(out), "%s/node.prom", env.base);
	ck_assert_msg(bnd_metrics_update(env.dir, out, t, NULL, NULL, NULL, err, sizeof(err)) ==
		      BND_OK, "%s", err);
	char *text = st_read(out, NULL);
	has(text, "spank_binding_state_ok", "1");
	has(text, "spank_binding_socket_cores_free{socket=\"0\"}", "2");
	free(text);
	struct stat st;
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	/* no temporary file left beside it */
	ck_assert_int_eq(st_count_prefix(env.base, ".node.prom"), 0);
	const char *future = "spank-binding-state 99\n";
	st_write(st_path(&env, "state"), future, strlen(future));
	ck_assert_int_eq(bnd_metrics_update(env.dir, out, t, NULL, NULL, NULL, err, sizeof(err)),
			 BND_OK);
	text = st_read(out, NULL);
	has(text, "spank_binding_state_ok", "0");
	ck_assert_ptr_null(strstr(text, "_total"));
	free(text);
	/* a dir anyone may write is refused */
	char open_dir[160], in_it[200];
	snprintf(open_dir, sizeof(open_dir), "%s/open", env.base);
	ck_assert_int_eq(mkdir(open_dir, 0777), 0);
	ck_assert_int_eq(chmod(open_dir, 0777), 0);
	snprintf(in_it, sizeof(in_it), "%s/x.prom", open_dir);
	ck_assert_int_eq(bnd_metrics_update(env.dir, in_it, t, NULL, NULL, NULL, err, sizeof(err)),
			 BND_EINVAL);
	ck_assert_msg(strstr(err, "writable by others than its owner"), "%s", err);
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("metrics");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, series_have_the_state_values);
	tcase_add_test(tc, every_counter_is_written_once);
	tcase_add_test(tc, an_unreadable_state_says_only_so);
	tcase_add_test(tc, update_writes_the_file_whole);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
