/* A host's load values as UGE 8.1 reports them: the host's memory is the
 * sum of its nodes', in the document's notation and groups. Vectors: the
 * UGE 8.1 document's qhost -F lines (hl:m_cache_l1=32.000K,
 * hl:m_cache_l3=12.000M, hl:m_mem_total=31.250G, hl:m_mem_used_n0=
 * 500.000M), Grid Engine's memory printer's rules (three decimals, the
 * unit scaled to the value, none below 1 KiB, printf's rounding), and a
 * UGE execution host's values (qconf -se: m_cache_l3=25600.000000K,
 * m_mem_total=131022.000000M) as qhost -F prints them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/memory/memreport.h"
#include "binding/util/error.h"
#include "testutil.h"

static const char *mem(uint64_t bytes)
{
	static char buf[48];
	bnd_uge_memory(bytes, buf, sizeof(buf));
	return buf;
}

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

START_TEST(the_documents_notation)
{
	/* the UGE 8.1 document */
	ck_assert_str_eq(mem(32 * KIB), "32.000K");
	ck_assert_str_eq(mem(12 * MIB), "12.000M");
	ck_assert_str_eq(mem(32000 * MIB), "31.250G");
	ck_assert_str_eq(mem(500 * MIB), "500.000M");
	/* the same host as qconf -se lists it (25600.000000K, 131022.000000M) */
	ck_assert_str_eq(mem(25600 * KIB), "25.000M");
	ck_assert_str_eq(mem(131022 * MIB), "127.951G");
	ck_assert_str_eq(mem(256 * KIB), "256.000K");
	/* the unit scales at each power of 1024; below 1 KiB no unit */
	ck_assert_str_eq(mem(0), "0.000");
	ck_assert_str_eq(mem(1), "1.000");
	ck_assert_str_eq(mem(1023), "1023.000");
	ck_assert_str_eq(mem(KIB), "1.000K");
	ck_assert_str_eq(mem(MIB - 1), "1023.999K");
	ck_assert_str_eq(mem(GIB - 1), "1024.000M");
	ck_assert_str_eq(mem(MIB), "1.000M");
	ck_assert_str_eq(mem(GIB), "1.000G");
	ck_assert_str_eq(mem(4096 * GIB), "4096.000G");
	/* printf's %.3f of the exact value: to the nearest thousandth, a tie
	 * (1.0625, 2.5625, 0.0625 of a unit) to the even one */
	ck_assert_str_eq(mem(1088 * MIB), "1.062G");
	ck_assert_str_eq(mem(2624 * MIB), "2.562G");
	ck_assert_str_eq(mem(GIB + 64 * MIB + 1), "1.063G");
	ck_assert_str_eq(mem(1088 * KIB), "1.062M");
	ck_assert_str_eq(mem(1536), "1.500K");
	ck_assert_str_eq(mem(1025), "1.001K");
	ck_assert_str_eq(mem(2 * GIB - 1), "2.000G");
	/* a count */
	char buf[32];
	bnd_uge_count(2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2.000000");
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
	bnd_memreport_host(&r, collect, &l);
	bnd_memreport_nodes(&r, collect, &l);
	ck_assert_str_eq(l.text, "m_cache_l1=0.000\nm_cache_l2=0.000\nm_cache_l3=0.000\n"
			 "m_mem_total=16.000G\nm_mem_used=12.000G\nm_mem_free=4.000G\n"
			 "m_mem_total_n0=8.000G\nm_mem_total_n1=8.000G\n"
			 "m_mem_used_n0=7.000G\nm_mem_used_n1=5.000G\n"
			 "m_mem_free_n0=1.000G\nm_mem_free_n1=3.000G\n");
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
	bnd_memreport_nodes(&r, collect, &l);
	ck_assert_msg(strstr(l.text, "m_cache_l1=32.000K\nm_cache_l2=256.000K\n"
			     "m_cache_l3=17.500M\n"), "%s", l.text);
	/* 15821, 16119, 16119 and 16116 MiB */
	ck_assert_msg(strstr(l.text, "m_mem_free_n0=15.450G\nm_mem_free_n1=15.741G\n"
			     "m_mem_free_n2=15.741G\nm_mem_free_n3=15.738G\n"), "%s", l.text);
	bnd_memreport_free(&r);
	bnd_topology_free(t);
	free(x);
}
END_TEST

/* The UGE 8.1 document's host: two NUMA nodes of four cores, 31.250G in
 * all, 32K L1, 12M L3, 500M used on node 0; every load value in the
 * document's groups and notation, as sbind topology --format uge lists
 * them. */
START_TEST(the_documents_host_in_its_groups)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:1(memory=16000MiB) l3:1(size=12MiB) "
					 "l2:4(size=256KiB) l1d:1(size=32KiB) core:1 pu:1");
	uint64_t jobs[2] = { 500, 0 };
	struct bnd_memreport r;
	ck_assert_int_eq(bnd_memreport_build(t, NULL, jobs, &r), BND_OK);
	const struct bnd_uge_strings s = { "SCCCCSCCCC", "SccCCSCCCC", "[SccCC][SCCCC]" };
	struct lines l = { "" };
	bnd_uge_loadvalues(t, &r, &s, collect, &l);
	ck_assert_str_eq(l.text,
			 "m_topology=SCCCCSCCCC\nm_topology_inuse=SccCCSCCCC\n"
			 "m_socket=2.000000\nm_core=8.000000\nm_thread=8.000000\n"
			 "m_topology_numa=[SccCC][SCCCC]\nm_numa_nodes=2.000000\n"
			 "m_cache_l1=32.000K\nm_cache_l2=256.000K\nm_cache_l3=12.000M\n"
			 "m_mem_total=31.250G\nm_mem_used=500.000M\nm_mem_free=30.762G\n"
			 "m_mem_total_n0=15.625G\nm_mem_total_n1=15.625G\n"
			 "m_mem_used_n0=500.000M\nm_mem_used_n1=0.000\n"
			 "m_mem_free_n0=15.137G\nm_mem_free_n1=15.625G\n");
	bnd_memreport_free(&r);
	bnd_topology_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("memreport");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, the_documents_notation);
	tcase_add_test(tc, the_documents_host_in_its_groups);
	tcase_add_test(tc, host_is_the_sum_of_its_nodes);
	tcase_add_test(tc, nodes_by_os_id_and_real_caches);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
