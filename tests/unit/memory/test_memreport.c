/* A host's memory and caches as UGE 8.1 reports them: the host's values
 * are the sums of its nodes', in UGE's notation. Vectors from a UGE
 * execution host's load values (qconf -se: m_cache_l1=32.000000K,
 * m_cache_l2=256.000000K, m_cache_l3=25600.000000K,
 * m_mem_total=131022.000000M). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/memory/memreport.h"
#include "binding/util/error.h"
#include "testutil.h"

static const char *mib(uint64_t v)
{
	static char buf[48];
	bnd_uge_mib(v, buf, sizeof(buf));
	return buf;
}

static const char *cache(uint64_t v)
{
	static char buf[48];
	bnd_uge_cache(v, buf, sizeof(buf));
	return buf;
}

START_TEST(uge_notation)
{
	ck_assert_str_eq(mib(131022), "131022.000000M");
	ck_assert_str_eq(mib(0), "0.000000M");
	ck_assert_str_eq(cache(32 << 10), "32.000000K");
	ck_assert_str_eq(cache(256 << 10), "256.000000K");
	ck_assert_str_eq(cache(25 << 20), "25600.000000K");
	/* exact below a KiB: 1.5 KiB, 1 byte */
	ck_assert_str_eq(cache(1536), "1.500000K");
	ck_assert_str_eq(cache(1), "0.000976K");
	ck_assert_str_eq(cache(0), "0.000000K");
}
END_TEST

struct lines {
	char text[2048];
};

static void collect(void *ctx, const char *name, const char *value)
{
	struct lines *l = ctx;
	size_t n = strlen(l->text);
	snprintf(l->text + n, sizeof(l->text) - n, "%s=%s\n", name, value);
}

/* Two nodes of 8 GiB, 1 GiB kept for the OS on each, jobs holding 6 GiB
 * of node 0 and 4 GiB of node 1: per node free = 7 - jobs, used = total -
 * free; the host sums them. */
START_TEST(host_is_the_sum_of_its_nodes)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:1(memory=8GiB) core:2 pu:1");
	struct bnd_mem_reserve reserve = { 1024, 0 };
	uint64_t jobs[2] = { 6144, 4096 };
	struct bnd_memreport r;
	ck_assert_int_eq(bnd_memreport_build(t, &reserve, jobs, &r), BND_OK);
	ck_assert_int_eq(r.n, 2);
	ck_assert(r.node[0].total_mib == 8192 && r.node[0].free_mib == 1024 &&
		  r.node[0].used_mib == 7168 && r.node[0].reserved_os_mib == 1024 &&
		  r.node[0].reserved_jobs_mib == 6144);
	ck_assert(r.node[1].free_mib == 3072 && r.node[1].used_mib == 5120);
	ck_assert(r.total_mib == 16384 && r.free_mib == 4096 && r.used_mib == 12288 &&
		  r.reserved_os_mib == 2048 && r.reserved_jobs_mib == 10240);
	struct lines l = { "" };
	bnd_memreport_caches(t, collect, &l);
	bnd_memreport_values(&r, collect, &l);
	ck_assert_str_eq(l.text, "m_cache_l1=0.000000K\nm_cache_l2=0.000000K\nm_cache_l3=0.000000K\n"
			 "m_mem_free=4096.000000M\nm_mem_free_n0=1024.000000M\n"
			 "m_mem_free_n1=3072.000000M\nm_mem_total=16384.000000M\n"
			 "m_mem_total_n0=8192.000000M\nm_mem_total_n1=8192.000000M\n"
			 "m_mem_used=12288.000000M\nm_mem_used_n0=7168.000000M\n"
			 "m_mem_used_n1=5120.000000M\n");
	bnd_memreport_free(&r);

	/* more reserved than a node has left: free 0, used the whole node */
	jobs[0] = 9000;
	ck_assert_int_eq(bnd_memreport_build(t, NULL, jobs, &r), BND_OK);
	ck_assert(r.node[0].free_mib == 0 && r.node[0].used_mib == 8192);
	ck_assert(r.free_mib == 4096 && r.used_mib == 12288);
	bnd_memreport_free(&r);
	bnd_topology_free(t);
}
END_TEST

/* Per node values come by OS node id, as UGE lists them, whatever the
 * NUMA index order (the Broadwell XML numbers its nodes 0 2 1 3). */
START_TEST(nodes_by_os_id_and_real_caches)
{
	char *x = tu_topology_xml("Intel-Xeon-Broadwell-2pa2no7co2t+ib.xml");
	if (!x)
		return;
	struct bnd_topology *t = tu_topo(x);
	struct bnd_memreport r;
	ck_assert_int_eq(bnd_memreport_build(t, NULL, NULL, &r), BND_OK);
	struct lines l = { "" };
	bnd_memreport_caches(t, collect, &l);
	bnd_memreport_values(&r, collect, &l);
	ck_assert_msg(strstr(l.text, "m_cache_l1=32.000000K\nm_cache_l2=256.000000K\n"
			     "m_cache_l3=17920.000000K\n"), "%s", l.text);
	ck_assert_msg(strstr(l.text, "m_mem_free=64175.000000M\nm_mem_free_n0=15821.000000M\n"
			     "m_mem_free_n1=16119.000000M\nm_mem_free_n2=16119.000000M\n"
			     "m_mem_free_n3=16116.000000M\n"), "%s", l.text);
	bnd_memreport_free(&r);
	bnd_topology_free(t);
	free(x);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("memreport");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, uge_notation);
	tcase_add_test(tc, host_is_the_sum_of_its_nodes);
	tcase_add_test(tc, nodes_by_os_id_and_real_caches);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
