/* Topology strings: exact vectors, parse errors, and print/parse round
 * trips with seeded random masks on synthetic topologies and every XML. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/util/error.h"
#include "binding/topology/topology.h"
#include "binding/topology/topostring.h"
#include "testutil.h"

static char *fmt(const struct bnd_topology *t, enum bnd_topo_format f, const bnd_cpuset_t *taken)
{
	size_t n = bnd_topostring_length(t, f) + 1;
	char *s = malloc(n);
	ck_assert_int_eq(bnd_topostring_format(t, f, taken, s, n), BND_OK);
	ck_assert_uint_eq(strlen(s), n - 1);
	return s;
}

static void expect(const char *src, enum bnd_topo_format f, const char *cpulist,
		   const char *want)
{
	struct bnd_topology *t = tu_topo(src);
	bnd_cpuset_t taken, *tp = NULL;
	char err[BND_ERRLEN];
	if (cpulist) {
		ck_assert_int_eq(bnd_cpuset_parse_list(&taken, cpulist, err, sizeof(err)), BND_OK);
		tp = &taken;
	}
	char *s = fmt(t, f, tp);
	ck_assert_msg(!strcmp(s, want), "%s taken %s: got %s, want %s", src,
		      cpulist ? cpulist : "-", s, want);
	free(s);
	bnd_topology_free(t);
}

START_TEST(format_vectors)
{
	expect("pack:2 core:2", BND_TOPO_SGE, NULL, "SCCSCC");
	expect("pack:2 core:2", BND_TOPO_OCS, NULL, "NSCCSCC");
	expect("pack:1 core:2 pu:2", BND_TOPO_SGE, NULL, "SCTTCTT");
	expect("pack:1 core:2 pu:2", BND_TOPO_OCS, NULL, "NSCTTCTT");
	expect("pack:2 l3:1 core:4 pu:1", BND_TOPO_OCS, NULL, "NSXCCCCSXCCCC");
	expect("pack:2 l3:1 core:4 pu:1", BND_TOPO_SGE, NULL, "SCCCCSCCCC");
	/* Cores 0,2 and 0,3 taken. */
	expect("pack:2 l3:1 core:4 pu:1", BND_TOPO_OCS, "2-3", "NSXCCccSXCCCC");
	expect("pack:2 l3:1 core:4 pu:1", BND_TOPO_SGE, "2-3", "SCCccSCCCC");
	/* A whole socket: S (and X) lower in both forms. */
	expect("pack:2 l3:1 core:4 pu:1", BND_TOPO_OCS, "0-3", "NsxccccSXCCCC");
	expect("pack:2 l3:1 core:4 pu:1", BND_TOPO_SGE, "0-3", "sccccSCCCC");
	expect("pack:2 l3:1 core:4 pu:1", BND_TOPO_OCS, "0-7", "nsxccccsxcccc");
	expect("pack:2 l3:1 core:4 pu:1", BND_TOPO_SGE, "0-7", "sccccscccc");
	/* Grid Engine's documented examples: after linear:2 on a 2x2 host, and
	 * a 4x2 host with core 1,1 and all of socket 3 in use. */
	expect("pack:2 core:2", BND_TOPO_SGE, "0-1", "sccSCC");
	expect("pack:4 core:2", BND_TOPO_SGE, "3,6-7", "SCCSCcSCCscc");
	expect("pack:4 core:2", BND_TOPO_OCS, "3,6-7", "NSCCSCcSCCscc");
	/* One thread taken: its core and that T lower. */
	expect("pack:1 core:2 pu:2", BND_TOPO_SGE, "1", "ScTtCTT");
	expect("pack:1 core:2 pu:2", BND_TOPO_OCS, "2-3", "NSCTTctt");
	/* CPUs outside the topology change nothing. */
	expect("pack:2 core:2", BND_TOPO_SGE, "7,100", "SCCSCC");
	expect("pack:2 numa:2 core:4 pu:2", BND_TOPO_OCS, "8-15",
	       "SNCTTCTTCTTCTTncttcttcttcttSNCTTCTTCTTCTTNCTTCTTCTTCTT");
	expect("pack:2 core:2", BND_TOPO_SGE, "", "SCCSCC");
}
END_TEST

START_TEST(length_and_small_buffer)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:4 pu:2");
	ck_assert_uint_eq(bnd_topostring_length(t, BND_TOPO_OCS), 54);
	ck_assert_uint_eq(bnd_topostring_length(t, BND_TOPO_SGE), 50);
	char buf[54];
	memset(buf, 'z', sizeof(buf));
	ck_assert_int_eq(bnd_topostring_format(t, BND_TOPO_OCS, NULL, buf, sizeof(buf)), BND_EINVAL);
	ck_assert_str_eq(buf, "");
	char big[55];
	ck_assert_int_eq(bnd_topostring_format(t, BND_TOPO_OCS, NULL, big, sizeof(big)), BND_OK);
	ck_assert_uint_eq(strlen(big), 54);
	bnd_topology_free(t);
}
END_TEST

static void parse_ok(const char *src, const char *str, const char *want_cpus)
{
	struct bnd_topology *t = tu_topo(src);
	bnd_cpuset_t taken, want;
	char err[BND_ERRLEN] = "";
	int rc = bnd_topostring_parse_mask(t, str, &taken, err, sizeof(err));
	ck_assert_msg(rc == BND_OK, "%s on %s: %s", str, src, err);
	ck_assert_int_eq(bnd_cpuset_parse_list(&want, want_cpus, err, sizeof(err)), BND_OK);
	char got[256];
	bnd_cpuset_format_list(&taken, got, sizeof(got));
	ck_assert_msg(bnd_cpuset_equal(&taken, &want), "%s on %s: cpus %s, want %s", str, src,
		      got, want_cpus);
	bnd_topology_free(t);
}

START_TEST(parse_vectors)
{
	parse_ok("pack:2 core:2", "SccSCC", "0-1");
	parse_ok("pack:2 core:2", "sccSCC", "0-1");
	parse_ok("pack:4 core:2", "SCCSCcSCCscc", "3,6-7");
	parse_ok("pack:2 core:2", "SCCSCC", "");
	parse_ok("pack:2 core:2", "sccscc", "0-3");
	parse_ok("pack:2 core:2", "sCCSCC", "0-1"); /* lower socket = all below */
	parse_ok("pack:2 l3:1 core:4 pu:1", "NSXCCccSXCCCC", "2-3");
	parse_ok("pack:2 l3:1 core:4 pu:1", "SCCccSCCCC", "2-3"); /* GE form, same topology */
	parse_ok("pack:2 l3:1 core:4 pu:1", "NSXCCCCSxCCCC", "4-7");
	parse_ok("pack:2 l3:1 core:4 pu:1", "nSXCCCCSXCCCC", "0-7");
	parse_ok("pack:1 core:2 pu:2", "SCTtCTT", "1");
	parse_ok("pack:1 core:2 pu:2", "SCTTcTT", "2-3");
	parse_ok("pack:1 core:2 pu:2", "NSCTTCtt", "2-3");
	parse_ok("pack:1 l2:2 core:1 pu:1", "NSYcYC", "0");
	/* Without N, X, Y or E it is GE form. */
	parse_ok("pack:1 core:2", "SCc", "1");
}
END_TEST

static void parse_bad(const char *src, const char *str, const char *want1, const char *want2)
{
	struct bnd_topology *t = tu_topo(src);
	bnd_cpuset_t taken;
	char err[BND_ERRLEN] = "";
	int rc = bnd_topostring_parse_mask(t, str, &taken, err, sizeof(err));
	ck_assert_msg(rc == BND_EINVAL, "%s on %s: rc %d", str, src, rc);
	ck_assert_msg(strstr(err, want1) && strstr(err, want2), "%s on %s: message \"%s\" lacks "
		      "\"%s\" / \"%s\"", str, src, err, want1, want2);
	bnd_topology_free(t);
}

START_TEST(parse_errors)
{
	parse_bad("pack:2 core:2", "SCCSC", "position 6", "expected 'C'");
	parse_bad("pack:2 core:2", "SCCSCCC", "position 7", "expected the end");
	parse_bad("pack:2 core:2", "SCCCCC", "position 4 is 'C'", "expected 'S'");
	parse_bad("pack:2 core:2", "SCTSCC", "position 3 is 'T'", "expected 'C'");
	parse_bad("pack:2 core:2", "", "position 1", "expected 'S'");
	/* An X makes it OCS form, whose first letter is N here. */
	parse_bad("pack:2 core:2", "SXCSCC", "position 1 is 'S'", "expected 'N'");
	parse_bad("pack:2 core:2", "SXCSCC", "OCS", "SXCSCC");
	parse_bad("pack:2 l3:1 core:4 pu:1", "NSXCCCCSCCCC", "position 9 is 'C'", "expected 'X'");
	parse_bad("pack:1 core:2 pu:2", "SCTCTT", "position 4 is 'C'", "expected 'T'");
	parse_bad("pack:1 core:2 pu:2", "SCTT CTT", "position 5 is ' '", "expected 'C'");
	/* No E on a topology without efficiency cores. */
	parse_bad("pack:1 core:2", "NSEC", "position 3 is 'E'", "expected 'C'");
}
END_TEST

/* Deterministic generator so failures reproduce. */
static unsigned long long rng_state;
static unsigned rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng_state >> 33);
}

/* Whole cores taken at random (cores are always taken whole): the string
 * of either form parses back to exactly those cpus and prints the same. */
static int round_trips(const struct bnd_topology *t, int rounds)
{
	int checked = 0;
	for (int r = 0; r < rounds; r++) {
		bnd_cpuset_t taken;
		bnd_cpuset_zero(&taken);
		unsigned density = r == 0 ? 0 : r == 1 ? 100 : rnd() % 100;
		for (int c = 0; c < t->ncores; c++) {
			if (rnd() % 100 >= density)
				continue;
			bnd_cpuset_t cpus;
			bnd_topology_core_cpus(t, c, &cpus);
			bnd_cpuset_or(&taken, &cpus);
		}
		for (int f = BND_TOPO_SGE; f <= BND_TOPO_OCS; f++) {
			char *s = fmt(t, (enum bnd_topo_format)f, &taken);
			bnd_cpuset_t back;
			char err[BND_ERRLEN] = "";
			int rc = bnd_topostring_parse_mask(t, s, &back, err, sizeof(err));
			ck_assert_msg(rc == BND_OK, "%s: %s", t->source, err);
			ck_assert_msg(bnd_cpuset_equal(&back, &taken), "%s: %s parsed to other cpus",
				      t->source, s);
			char *again = fmt(t, (enum bnd_topo_format)f, &back);
			ck_assert_str_eq(again, s);
			/* A mask with only cores marked (threads and containers upper
			 * case) means the same cpus. */
			for (char *p = again; *p; p++)
				if (*p != 'c' && *p != 'e')
					*p = (char)(*p >= 'a' ? *p - 32 : *p);
			ck_assert_int_eq(bnd_topostring_parse_mask(t, again, &back, err, sizeof(err)),
					 BND_OK);
			ck_assert(bnd_cpuset_equal(&back, &taken));
			free(again);
			free(s);
			checked++;
		}
	}
	return checked;
}

START_TEST(round_trip_synthetic)
{
	const char *srcs[] = { "pack:2 core:2", "pack:1 core:2 pu:2", "pack:2 l3:1 core:4 pu:1",
			       "pack:2 numa:2 core:4 pu:2", "core:3 pu:4",
			       "pack:2 l3:2 l2:2 core:2 pu:2", "pack:4 numa:2 l3:1 core:3 pu:1", NULL };
	rng_state = 42;
	for (int i = 0; srcs[i]; i++) {
		struct bnd_topology *t = tu_topo(srcs[i]);
		ck_assert_int_eq(round_trips(t, 50), 100);
		bnd_topology_free(t);
	}
}
END_TEST

START_TEST(round_trip_every_xml)
{
	char **xmls = tu_topology_xmls();
	if (!xmls)
		return;
	rng_state = 2024;
	int n = 0;
	for (char **p = xmls; *p; p++, n++) {
		struct bnd_topology *t = tu_topo(*p);
		round_trips(t, 8);
		/* The GE form has one S per socket, one C per core, T only for
		 * multi-thread cores; the OCS form adds N, X, Y and E. */
		char *ge = fmt(t, BND_TOPO_SGE, NULL), *o = fmt(t, BND_TOPO_OCS, NULL);
		int s = 0, c = 0, tt = 0, multi = 0;
		for (char *q = ge; *q; q++) {
			s += *q == 'S';
			c += *q == 'C';
			tt += *q == 'T';
		}
		for (int k = 0; k < t->ncores; k++)
			multi += t->cores[k].npus > 1 ? t->cores[k].npus : 0;
		ck_assert_int_eq(s, t->nsockets);
		ck_assert_int_eq(c, t->ncores);
		ck_assert_int_eq(tt, multi);
		ck_assert_uint_eq(strlen(o), strlen(ge) + (size_t)(t->nnuma + t->nl3 + t->nl2));
		free(ge);
		free(o);
		bnd_topology_free(t);
	}
	tu_free_list(xmls);
	ck_assert_int_ge(n, 1);
}
END_TEST

START_TEST(real_xml_strings)
{
	const char *d = tu_topologies_dir();
	if (!d)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", d, "Intel-Core-RaptorLake-1pa6co2t+2ca4co1t-hybrid.xml");
	struct bnd_topology *t = tu_topo(path);
	char *s = fmt(t, BND_TOPO_OCS, NULL);
	ck_assert_str_eq(s, "NSXYCTTYCTTYCTTYCTTYCTTYCTTYEEEEYEEEE");
	free(s);
	s = fmt(t, BND_TOPO_SGE, NULL);
	ck_assert_str_eq(s, "SCTTCTTCTTCTTCTTCTTCCCCCCCC");
	free(s);
	/* The E cores 0,6 .. 0,9 (the first L2 cluster of E cores) taken:
	 * their Y goes lower case too. */
	bnd_cpuset_t taken;
	char err[BND_ERRLEN];
	ck_assert_int_eq(bnd_topostring_parse_mask(t, "NSXYCTTYCTTYCTTYCTTYCTTYCTTYeeeeYEEEE", &taken,
						   err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_cpuset_count(&taken), 4);
	s = fmt(t, BND_TOPO_OCS, &taken);
	ck_assert_str_eq(s, "NSXYCTTYCTTYCTTYCTTYCTTYCTTyeeeeYEEEE");
	free(s);
	bnd_topology_free(t);

	snprintf(path, sizeof(path), "%s/%s", d, "AMD-Opteron-MagnyCours-2pa2no6co.xml");
	t = tu_topo(path);
	s = fmt(t, BND_TOPO_OCS, NULL);
	ck_assert_str_eq(s, "SNXYCYCYCYCYCYCNXYCYCYCYCYCYCSNXYCYCYCYCYCYCNXYCYCYCYCYCYC");
	free(s);
	bnd_topology_free(t);
}
END_TEST

/* OCS prints a host without NUMA or cache information without memory
 * units (sge_binding(5): "SCTTCTTCTTCTTCTTCTTCTTCTTEEEEEEEE" for a host
 * whose full string is "NSXYCTTYCTT...YEEYEEYEEYEE"); filter= and --mask
 * take that form too. xml/hybrid-4p4e.xml: a synthetic "pack:1 l3:1 l2:4
 * core:2 pu:1" export with hwloc-annotate cpukinds, cpus 0-3 power and
 * 4-7 efficiency. */
START_TEST(ocs_form_without_memory_units)
{
	struct bnd_topology *t = tu_topo("tests/unit/topology/xml/hybrid-4p4e.xml");
	char *s = fmt(t, BND_TOPO_OCS, NULL);
	ck_assert_str_eq(s, "NSXYCCYCCYEEYEE");
	free(s);
	s = fmt(t, BND_TOPO_OCS_CPU, NULL);
	ck_assert_str_eq(s, "SCCCCEEEE");
	free(s);
	s = fmt(t, BND_TOPO_SGE, NULL);
	ck_assert_str_eq(s, "SCCCCCCCC");
	free(s);
	bnd_topology_free(t);
	parse_ok("tests/unit/topology/xml/hybrid-4p4e.xml", "SCCCCEEeE", "6");
	parse_ok("tests/unit/topology/xml/hybrid-4p4e.xml", "ScCCCEEEE", "0");
	parse_ok("tests/unit/topology/xml/hybrid-4p4e.xml", "sCCCCEEEE", "0-7");
	/* Grid Engine's form of the same host, E cores written C */
	parse_ok("tests/unit/topology/xml/hybrid-4p4e.xml", "SCCCCCCcC", "6");
	/* an E where the host has a power core, in the form with E */
	parse_bad("tests/unit/topology/xml/hybrid-4p4e.xml", "SEEEEEEEE",
		  "(OCS form without memory units): position 2 is 'E'", "expected 'C'");
	parse_bad("tests/unit/topology/xml/hybrid-4p4e.xml", "SCCCCEEEC", "position 9", "expected 'E'");
	/* on a host without efficiency cores the form is Grid Engine's */
	parse_ok("pack:1 core:2 pu:2", "SCTTcTT", "2-3");

	const char *d = tu_topologies_dir();
	if (!d)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", d, "Intel-Core-RaptorLake-1pa6co2t+2ca4co1t-hybrid.xml");
	t = tu_topo(path);
	s = fmt(t, BND_TOPO_OCS_CPU, NULL);
	ck_assert_str_eq(s, "SCTTCTTCTTCTTCTTCTTEEEEEEEE");
	free(s);
	bnd_topology_free(t);
	parse_ok(path, "SCTTCTTCTTCTTCTTcttEEEEeEEE", "10-11,16");
}
END_TEST

START_TEST(numa_form)
{
	struct bnd_topology *t = tu_topo("pack:2 numa:2 core:2 pu:2");
	char buf[64];
	ck_assert_int_eq(bnd_topostring_numa(t, NULL, buf, sizeof(buf)), BND_OK);
	ck_assert_str_eq(buf, "[SCC][CC][SCC][CC]");
	bnd_cpuset_t taken;
	bnd_cpuset_zero(&taken);
	bnd_cpuset_set(&taken, 3);  /* core 0,1 (cpus 2-3), one thread is enough */
	bnd_cpuset_set(&taken, 8);  /* core 1,0 */
	ck_assert_int_eq(bnd_topostring_numa(t, &taken, buf, sizeof(buf)), BND_OK);
	ck_assert_str_eq(buf, "[SCc][CC][ScC][CC]");
	ck_assert_int_eq(bnd_topostring_numa(t, NULL, buf, 10), BND_EINVAL);
	ck_assert_str_eq(buf, "");
	bnd_topology_free(t);
	/* CPU-less nodes are empty brackets. */
	t = tu_topo("tests/unit/topology/xml/gpu-memory-at-root.xml");
	ck_assert_int_eq(bnd_topostring_numa(t, NULL, buf, sizeof(buf)), BND_OK);
	ck_assert_str_eq(buf, "[][][SCC][SCC]");
	bnd_topology_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topostring");
	TCase *tc = tcase_create("topostring");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, numa_form);
	tcase_add_test(tc, ocs_form_without_memory_units);
	tcase_add_test(tc, format_vectors);
	tcase_add_test(tc, length_and_small_buffer);
	tcase_add_test(tc, parse_vectors);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, round_trip_synthetic);
	tcase_add_test(tc, round_trip_every_xml);
	tcase_add_test(tc, real_xml_strings);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
