/* Runs as the guest's only program (tests/numa/run.sh boots it): a QEMU
 * machine with 2 sockets, 4 NUMA nodes (node n = cpus 2n, 2n+1; one node per
 * die, 2 dies per socket) and 8 single-thread cores. Here, unlike on the
 * 2-cpu, 1-node build host, CPU and memory placement have visible effects:
 * it loads the topology, places requests and applies them with the
 * project's library, then asserts what the kernel really did (affinity,
 * current cpu, memory policy, the node of every page).
 *
 * Output: TAP-like "ok N - ..." / "not ok N - ...", the plan "1..N" last.
 * Exit status: 0 when every check passed.
 *
 * "child" as argv[1]: the exec'd half of the inheritance check (see
 * check_inherited). */
#include <errno.h>
#include <numaif.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binding/memory/memplace.h"
#include "binding/state/state.h"
#include "binding/task/apply.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topology.h"
#include "binding/suspend/rebind.h"

static const char *rc_text(int rc)
{
	static char buf[24];
	snprintf(buf, sizeof(buf), "rc %d", rc);
	return buf;
}

/* The guest, as run.sh defines it. */
#define G_SOCKETS 2
#define G_NODES 4
#define G_CORES 8
#define G_CPUS_PER_NODE 2

/* Big enough that a policy that is not applied cannot pass by luck, small
 * enough that faulting it in stays well under a second under emulation.
 * Each node has 256 MiB. */
#define BUF_MIB 64
#define CHILD_BUF_MIB 16
#define PAGE 4096UL

static int n_checks, n_failed;

__attribute__((format(printf, 2, 3)))
static void check(int ok, const char *fmt, ...)
{
	va_list ap;
	n_checks++;
	if (!ok)
		n_failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", n_checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *list(const bnd_cpuset_t *s, char *buf, size_t len)
{
	if (bnd_cpuset_format_list(s, buf, len) != BND_OK)
		snprintf(buf, len, "?");
	return buf;
}

static bnd_cpuset_t set_of(const char *text)
{
	bnd_cpuset_t s;
	char err[BND_ERRLEN];
	if (bnd_cpuset_parse_list(&s, text, err, sizeof(err)) != BND_OK) {
		printf("# bad list %s: %s\n", text, err);
		exit(2);
	}
	return s;
}

static int same(const bnd_cpuset_t *s, const char *text)
{
	bnd_cpuset_t want = set_of(text);
	return bnd_cpuset_equal(s, &want);
}

static int kernel_affinity(bnd_cpuset_t *out)
{
	cpu_set_t cs;
	CPU_ZERO(&cs);
	if (sched_getaffinity(0, sizeof(cs), &cs))
		return -1;
	bnd_cpuset_zero(out);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &cs))
			bnd_cpuset_set(out, c);
	return 0;
}

/* A line of /proc/self/status such as Cpus_allowed_list, value only. */
static int proc_status(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[512];
	size_t kl = strlen(key);
	int found = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl) || line[kl] != ':')
			continue;
		char *v = line + kl + 1;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return 0;
}

/* Test scaffolding, not the code under test: puts the thread back to the
 * default policy so each scenario starts from the same state. */
static void reset_policy(void)
{
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
}

/* Faults in a fresh buffer under the thread's current policy and counts
 * its pages per node with move_pages' status query (nodes == NULL: report
 * where each page is, move nothing). counts[G_NODES] collects anything
 * else (errors, other nodes). Returns the number of pages, -1 on failure. */
static long touch_and_count(size_t mib, long counts[G_NODES + 1], double *secs)
{
	size_t len = mib << 20, np = len / PAGE;
	double t0 = now();
	long ret = -1;

	memset(counts, 0, sizeof(long) * (G_NODES + 1));
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -1;
	/* Whole 4 KiB pages, so interleaving is counted page by page. */
	madvise(buf, len, MADV_NOHUGEPAGE);
	void **pages = malloc(np * sizeof(*pages));
	int *status = malloc(np * sizeof(*status));
	if (pages && status) {
		for (size_t i = 0; i < np; i++) {
			buf[i * PAGE] = (char)i;
			pages[i] = buf + i * PAGE;
		}
		if (move_pages(0, np, pages, NULL, status, 0) == 0) {
			for (size_t i = 0; i < np; i++) {
				int n = status[i];
				counts[n >= 0 && n < G_NODES ? n : G_NODES]++;
			}
			ret = (long)np;
		} else {
			printf("# move_pages: %s\n", strerror(errno));
		}
	}
	free(pages);
	free(status);
	munmap(buf, len);
	if (secs)
		*secs = now() - t0;
	return ret;
}

static const char *counts_text(const long c[G_NODES + 1], char *buf, size_t len)
{
	snprintf(buf, len, "node0=%ld node1=%ld node2=%ld node3=%ld other=%ld",
		 c[0], c[1], c[2], c[3], c[G_NODES]);
	return buf;
}

/* Parses and places one request for one task; returns its cpus (empty
 * when it failed, with the reason printed). */
static bnd_cpuset_t place_one(const struct bnd_topology *t, const char *req,
			      const bnd_cpuset_t *taken, int *rc_out)
{
	static struct bnd_request r; /* large (explicit lists, filters) */
	struct bnd_domain dom = { NULL, taken, NULL };
	struct bnd_placement p;
	char err[BND_ERRLEN] = "";
	bnd_cpuset_t cpus;

	bnd_cpuset_zero(&cpus);
	int rc = bnd_request_parse(&r, req, err, sizeof(err));
	if (rc == BND_OK)
		rc = bnd_place(t, &dom, &r, 1, &p, err, sizeof(err));
	if (rc == BND_OK) {
		if (p.ntasks == 1)
			cpus = p.tasks[0].cpus;
		bnd_placement_free(&p);
	} else {
		printf("# %s: %s (%s)\n", req, err, rc_text(rc));
	}
	if (rc_out)
		*rc_out = rc;
	return cpus;
}

/* --- topology ------------------------------------------------------------ */

static struct bnd_topology *check_topology(void)
{
	struct bnd_topology *t = NULL;
	char err[BND_ERRLEN] = "", a[256], b[256], path[128], sys[256];

	int rc = bnd_topology_load(&t, NULL, err, sizeof(err));
	check(rc == BND_OK && t, "bnd_topology_load(NULL) discovers the guest (%s)",
	      rc == BND_OK ? "ok" : err);
	if (rc != BND_OK || !t)
		return NULL;
	check(t->nsockets == G_SOCKETS && t->nnuma == G_NODES && t->ncores == G_CORES &&
	      t->npus == G_CORES,
	      "topology has %d packages, %d NUMA nodes, %d cores, %d PUs (got %d, %d, %d, %d)",
	      G_SOCKETS, G_NODES, G_CORES, G_CORES, t->nsockets, t->nnuma, t->ncores, t->npus);
	if (t->nnuma != G_NODES || t->ncores != G_CORES)
		return t;

	for (int i = 0; i < G_NODES; i++) {
		/* The kernel's own view of the node, an independent source. */
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
			 t->numa_os[i]);
		if (read_file(path, sys, sizeof(sys)))
			snprintf(sys, sizeof(sys), "(unreadable)");
		bnd_cpuset_t want;
		bnd_cpuset_zero(&want);
		for (int c = 0; c < G_CPUS_PER_NODE; c++)
			bnd_cpuset_set(&want, i * G_CPUS_PER_NODE + c);
		list(&want, b, sizeof(b));
		list(&t->numa_cpus[i], a, sizeof(a));
		check(t->numa_os[i] == i && strcmp(a, b) == 0 && strcmp(sys, b) == 0,
		      "NUMA node %d: os id %d, numa_cpus %s, kernel cpulist %s (want %s)",
		      i, t->numa_os[i], a, sys, b);
	}

	/* Grid Engine numbering: socket s, core c is OS cpu 4s+c and lives on
	 * node 2s + c/2. */
	int bad = 0;
	for (int k = 0; k < G_CORES; k++) {
		int core = bnd_topology_core_at(t, k / 4, k % 4);
		bnd_cpuset_t cpus;
		bnd_nodeset_t nodes;
		if (core < 0) {
			bad++;
			continue;
		}
		bnd_topology_core_cpus(t, core, &cpus);
		bnd_topology_numa_of_cpus(t, &cpus, &nodes);
		if (bnd_cpuset_count(&cpus) != 1 || !bnd_cpuset_isset(&cpus, k) ||
		    bnd_nodeset_count(&nodes) != 1 || !bnd_nodeset_isset(&nodes, k / 2)) {
			printf("# core %d,%d: cpus %s nodes %s\n", k / 4, k % 4,
			       list(&cpus, a, sizeof(a)), list(&nodes.bits, b, sizeof(b)));
			bad++;
		}
	}
	check(bad == 0, "cores s,c are cpu 4s+c on node 2s+c/2 (%d wrong)", bad);
	return t;
}

/* --- placement and CPU affinity ------------------------------------------ */

static void check_affinity_on(const char *what, const bnd_cpuset_t *want)
{
	char err[BND_ERRLEN] = "", a[256], b[256], st[256] = "?";
	bnd_cpuset_t got;

	int rc = bnd_apply_affinity(0, want, err, sizeof(err));
	int krc = kernel_affinity(&got);
	int cpu = sched_getcpu();
	proc_status("Cpus_allowed_list", st, sizeof(st));
	list(want, b, sizeof(b));
	list(&got, a, sizeof(a));
	check(rc == BND_OK && krc == 0 && bnd_cpuset_equal(&got, want) && strcmp(st, b) == 0 &&
	      bnd_cpuset_isset(want, cpu),
	      "%s: bnd_apply_affinity(%s) -> sched_getaffinity %s, Cpus_allowed_list %s, "
	      "running on cpu %d%s%s", what, b, a, st, cpu, rc ? ": " : "", rc ? err : "");
}

static void check_placement(const struct bnd_topology *t)
{
	char a[256];
	bnd_cpuset_t socket0 = set_of("0-3");
	bnd_nodeset_t nodes;
	int rc;

	/* Socket 0 held by another job: linear:2 takes the free socket's first
	 * two cores (the spec's linear algorithm), which sit on node 2. */
	bnd_cpuset_t cpus = place_one(t, "linear:2", &socket0, &rc);
	bnd_topology_numa_of_cpus(t, &cpus, &nodes);
	check(rc == BND_OK && same(&cpus, "4-5"),
	      "linear:2 with socket 0 taken -> cpus 4-5 (got %s)", list(&cpus, a, sizeof(a)));
	check(bnd_nodeset_count(&nodes) == 1 && bnd_nodeset_isset(&nodes, 2),
	      "those cpus are local to node 2 only (got nodes %s)", list(&nodes.bits, a, sizeof(a)));
	check_affinity_on("linear:2 placement", &cpus);

	/* Socket 0 and node 2 taken: the remaining two cores are node 3's. */
	bnd_cpuset_t held = set_of("0-5");
	cpus = place_one(t, "linear:2", &held, &rc);
	check(rc == BND_OK && same(&cpus, "6-7"),
	      "linear:2 with cpus 0-5 taken -> cpus 6-7 (got %s)", list(&cpus, a, sizeof(a)));
	cpus = place_one(t, "linear:3", &held, &rc);
	check(rc == BND_ENOFIT, "linear:3 with cpus 0-5 taken -> no binding (%s)",
	      rc_text(rc));

	/* Every core by its Grid Engine name: the kernel runs us there. */
	for (int s = 0; s < G_SOCKETS; s++) {
		for (int c = 0; c < 4; c++) {
			char req[64];
			snprintf(req, sizeof(req), "explicit:%d,%d", s, c);
			cpus = place_one(t, req, NULL, &rc);
			int want = 4 * s + c;
			check(rc == BND_OK && bnd_cpuset_count(&cpus) == 1 &&
			      bnd_cpuset_isset(&cpus, want),
			      "%s -> cpu %d (got %s)", req, want, list(&cpus, a, sizeof(a)));
			if (rc == BND_OK && want == 5) {
				check_affinity_on(req, &cpus);
				/* Still there after giving the scheduler a chance. */
				int moved = 0;
				for (int i = 0; i < 50; i++) {
					sched_yield();
					if (sched_getcpu() != 5)
						moved++;
				}
				check(moved == 0, "bound to cpu 5: sched_getcpu() stayed 5 over "
				      "50 yields (%d elsewhere)", moved);
			} else if (rc == BND_OK) {
				int ok = bnd_apply_affinity(0, &cpus, NULL, 0) == BND_OK &&
					 sched_getcpu() == want;
				check(ok, "%s: bound, sched_getcpu() = %d", req, sched_getcpu());
			}
		}
	}
}

/* --- memory policy ------------------------------------------------------- */

/* Pins the thread to cpu 0 (node 0) so that pages landing elsewhere prove
 * the policy, not first-touch locality, put them there. */
static void run_on_node0(void)
{
	bnd_cpuset_t c0 = set_of("0");
	char err[BND_ERRLEN];
	if (bnd_apply_affinity(0, &c0, err, sizeof(err)) != BND_OK)
		printf("# pin to cpu 0: %s\n", err);
}

/* Applies mbind for a task on `cpus` and checks the description, the policy
 * read back, and where BUF_MIB of fresh memory lands: every page on a node
 * of `only` and, for each node in `even`, exactly its share. */
static void check_mbind(const struct bnd_topology *t, enum bnd_mbind m, const char *cpus_text,
			const char *want_desc, const char *only, int even)
{
	char err[BND_ERRLEN] = "", desc[128] = "", back[128] = "", c[160];
	bnd_cpuset_t cpus = set_of(cpus_text), allowed = set_of(only);
	long counts[G_NODES + 1];
	double secs = 0;

	reset_policy();
	run_on_node0();
	int rc = bnd_apply_mempolicy(t, m, &cpus, desc, sizeof(desc), err, sizeof(err));
	check(rc == BND_OK && strcmp(desc, want_desc) == 0,
	      "mbind %s for cpus %s: bnd_apply_mempolicy -> %s (got %s%s%s)", bnd_mbind_name(m),
	      cpus_text, want_desc, rc == BND_OK ? desc : rc_text(rc), rc ? ": " : "",
	      rc ? err : "");
	int drc = bnd_mempolicy_describe(back, sizeof(back), err, sizeof(err));
	check(drc == BND_OK && strcmp(back, want_desc) == 0,
	      "mbind %s: bnd_mempolicy_describe reads back %s (got %s)", bnd_mbind_name(m),
	      want_desc, drc == BND_OK ? back : err);

	long np = touch_and_count(BUF_MIB, counts, &secs);
	long outside = counts[G_NODES];
	for (int n = 0; n < G_NODES; n++)
		if (!bnd_cpuset_isset(&allowed, n))
			outside += counts[n];
	counts_text(counts, c, sizeof(c));
	check(np > 0 && outside == 0, "mbind %s: all %ld pages of %d MiB on nodes %s, "
	      "thread on node 0 (%s; %.2f s)", bnd_mbind_name(m), np, BUF_MIB, only, c, secs);
	if (even && np > 0) {
		int k = bnd_cpuset_count(&allowed), spread = 1;
		for (int n = 0; n < G_NODES; n++)
			if (bnd_cpuset_isset(&allowed, n) &&
			    (counts[n] < np / k - 1 || counts[n] > np / k + 1))
				spread = 0;
		check(spread, "mbind %s: pages spread evenly, %ld per node (%s)",
		      bnd_mbind_name(m), np / k, c);
	}
	reset_policy();
}

static void check_mempolicies(const struct bnd_topology *t)
{
	char err[BND_ERRLEN] = "", desc[128] = "";

	/* cpus 4-5 are the linear:2 placement above (node 2). */
	check_mbind(t, BND_M_CORES_STRICT, "4-5", "bind:2", "2", 0);
	check_mbind(t, BND_M_CORES, "2-3", "preferred:1", "1", 0);
	check_mbind(t, BND_M_ROUND_ROBIN, "6", "interleave:0-3", "0-3", 1);
	/* Cores on two nodes: the policy covers both. */
	check_mbind(t, BND_M_CORES_STRICT, "3-4", "bind:1-2", "1-2", 0);
	check_mbind(t, BND_M_CORES, "4-7", "preferred_many:2-3", "2-3", 0);

	bnd_cpuset_t cpu0 = set_of("0");
	reset_policy();
	int rc = bnd_apply_mempolicy(t, BND_M_NLOCAL, &cpu0, desc, sizeof(desc), err,
				     sizeof(err));
	check(rc == BND_EINVAL && strstr(err, "chosen at placement"),
	      "mbind nlocal without its nodes -> BND_EINVAL (got %s: %s)", rc_text(rc), err);
	rc = bnd_apply_mempolicy(t, BND_M_NONE, &cpu0, desc, sizeof(desc), err, sizeof(err));
	char back[128] = "";
	bnd_mempolicy_describe(back, sizeof(back), err, sizeof(err));
	check(rc == BND_OK && strcmp(back, "default") == 0,
	      "mbind none leaves the default policy (got %s)", back);
}

/* --- NUMA memory: nlocal and reservations ------------------------------- */

/* Where BUF_MIB of fresh memory lands under the policy for OS nodes
 * `nodes` (bind), the thread on node 0: every page on node `want`. */
static void check_pages_on(const char *what, int want)
{
	long counts[G_NODES + 1];
	char c[160];
	double secs = 0;
	long np = touch_and_count(BUF_MIB, counts, &secs);
	check(np > 0 && counts[want] == np, "%s: all %ld pages of %d MiB on node %d (%s; %.2f s)",
	      what, np, BUF_MIB, want, counts_text(counts, c, sizeof(c)), secs);
}

static void check_nlocal(const struct bnd_topology *t)
{
	static struct bnd_request none;
	char err[BND_ERRLEN] = "", nodes[64] = "", desc[128] = "";
	uint64_t avail[G_NODES] = { 100, 100, 200, 100 };
	struct bnd_mem_request m = { BND_M_NLOCAL, 64, avail };
	struct bnd_placement p;
	struct bnd_mem_result res;
	bnd_request_parse(&none, "none", err, sizeof(err));
	int rc = bnd_place_mem(t, NULL, &none, 1, &m, &p, &res, err, sizeof(err));
	bnd_mem_nodes_text(t, &res, nodes, sizeof(nodes));
	check(rc == BND_OK && p.ntasks == 1 && same(&p.tasks[0].cpus, "4") &&
	      !strcmp(nodes, "2") && res.bind,
	      "nlocal, 1 task of 64 MiB, node 2 has the most free memory: cpu 4, memory "
	      "bound to node 2 (got %s, nodes %s, %s)", rc ? err : "placed", nodes,
	      res.bind ? "bind" : "preferred");
	if (rc == BND_OK) {
		check_affinity_on("nlocal task", &p.tasks[0].cpus);
		bnd_placement_free(&p);
	}
	reset_policy();
	run_on_node0();
	bnd_nodeset_t os;
	bnd_nodeset_zero(&os);
	if (nodes[0])
		bnd_mem_os_nodes(t, &res, &os);
	else
		bnd_nodeset_set(&os, 2);
	rc = bnd_apply_mempolicy_nodes(&os, res.bind, desc, sizeof(desc), err, sizeof(err));
	check(rc == BND_OK && !strcmp(desc, "bind:2"), "nlocal: policy bind:2 (got %s)",
	      rc ? err : desc);
	check_pages_on("nlocal", 2);
	reset_policy();
}

/* Two jobs through the node's state: the first reserves node 0 down to
 * 56 MiB, so the second (100 MiB, cores:strict) goes to node 1 although
 * cpu 1 on node 0 is free, and its pages land on node 1. */
static void check_reservations(const struct bnd_topology *t)
{
	static struct bnd_request packed;
	char err[BND_ERRLEN] = "", desc[128] = "";
	uint64_t cap[G_NODES];
	struct bnd_state_opts o = { .dir = "/tmp/numa-state" };
	struct bnd_placement p1, p2;
	struct bnd_mem_result r1 = { 0 }, r2 = { 0 };
	bnd_mem_capacity(t, NULL, cap);
	bnd_request_parse(&packed, "packed:1", err, sizeof(err));
	struct bnd_alloc_args a = { .job = 1, .step = 0, .ntasks = 1, .uid = 0,
				    .mem_mib = cap[0] - 56, .mbind = BND_M_CORES_STRICT,
				    .mem_out = &r1 };
	int rc = bnd_state_allocate(&o, t, &packed, &a, &p1, err, sizeof(err));
	check(rc == BND_OK && same(&p1.all_cpus, "0") && r1.nshares == 1 &&
	      r1.shares[0].node == 0, "job 1, packed:1, %llu MiB cores:strict: cpu 0, reserved "
	      "on node 0 (%s)", (unsigned long long)a.mem_mib, rc ? err : "placed");
	a.job = 2;
	a.mem_mib = 100;
	a.mem_out = &r2;
	rc = bnd_state_allocate(&o, t, &packed, &a, &p2, err, sizeof(err));
	check(rc == BND_OK && same(&p2.all_cpus, "2") && r2.nshares == 1 &&
	      r2.shares[0].node == 1 && r2.shares[0].mib == 100,
	      "job 2, packed:1, 100 MiB cores:strict: node 0 has 56 MiB left, so cpu 2 on "
	      "node 1 although cpu 1 is free (%s)", rc ? err : "placed");
	if (rc == BND_OK) {
		reset_policy();
		run_on_node0();
		rc = bnd_apply_mempolicy(t, BND_M_CORES_STRICT, &p2.all_cpus, desc, sizeof(desc),
					 err, sizeof(err));
		check(rc == BND_OK && !strcmp(desc, "bind:1"), "job 2: policy bind:1 (got %s)",
		      rc ? err : desc);
		check_pages_on("job 2 (pushed by job 1's reservation)", 1);
		reset_policy();
		bnd_placement_free(&p2);
	}
	if (p1.tasks)
		bnd_placement_free(&p1);
	bnd_state_release(&o, 1, 0, NULL, err, sizeof(err));
	bnd_state_release(&o, 2, 0, NULL, err, sizeof(err));
}

/* --- inheritance across fork + exec -------------------------------------- */

/* What the plugin relies on: the task sets affinity and policy before exec
 * and the program it execs runs under both. Bits of the exit status:
 * 1 affinity, 2 current cpu, 4 policy, 8 pages. */
static int child_main(void)
{
	bnd_cpuset_t got, want = set_of("5");
	char desc[128] = "", err[BND_ERRLEN];
	long counts[G_NODES + 1];
	int bits = 0;

	if (kernel_affinity(&got) || !bnd_cpuset_equal(&got, &want))
		bits |= 1;
	if (sched_getcpu() != 5)
		bits |= 2;
	if (bnd_mempolicy_describe(desc, sizeof(desc), err, sizeof(err)) ||
	    strcmp(desc, "bind:2"))
		bits |= 4;
	long np = touch_and_count(CHILD_BUF_MIB, counts, NULL);
	if (np <= 0 || counts[2] != np)
		bits |= 8;
	return bits;
}

static void check_inherited(const struct bnd_topology *t)
{
	char err[BND_ERRLEN] = "", desc[128];
	int rc;
	bnd_cpuset_t cpus = place_one(t, "explicit:1,1", NULL, &rc);

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (bnd_apply_affinity(0, &cpus, err, sizeof(err)) ||
		    bnd_apply_mempolicy(t, BND_M_CORES_STRICT, &cpus, desc, sizeof(desc), err,
					sizeof(err)))
			_exit(100);
		execl("/proc/self/exe", "numa_guest_test", "child", (char *)NULL);
		_exit(101);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	int code = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	int bits = code > 0 && code < 100 ? code : 0;
	check(code == 0, "explicit:1,1 + cores:strict, then exec: the new program runs on cpu 5 "
	      "only with policy bind:2 and its %d MiB on node 2 (exit %d%s%s%s%s)",
	      CHILD_BUF_MIB, code, code < 0 || code >= 100 ? ", setup failed" : "",
	      bits & 3 ? ", cpu wrong" : "", bits & 4 ? ", policy wrong" : "",
	      bits & 8 ? ", pages elsewhere" : "");
}

/* --- a rebind that moves the pages (resume with --mbind=cores) ---------- */

/* A child faults MIGRATE_MIB in on node 1 (bound there), then waits; the
 * parent moves its tree to node 2's cpus with the pages (what the suspend
 * watcher does for a cores task resumed elsewhere); the child then says
 * where its pages are, as counts per node through a pipe. */
#define MIGRATE_MIB 8
static void check_migration(const struct bnd_topology *t)
{
	int go[2], back[2];
	if (pipe(go) || pipe(back)) {
		check(0, "migrate: pipes");
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(back[0]);
		unsigned long one = 1UL << 1;
		size_t len = (size_t)MIGRATE_MIB << 20, np = len / PAGE;
		char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long counts[G_NODES + 1] = { 0 };
		if (buf == MAP_FAILED || set_mempolicy(MPOL_BIND, &one, G_NODES + 1))
			_exit(1);
		madvise(buf, len, MADV_NOHUGEPAGE);
		memset(buf, 1, len);
		char c = 'r';
		if (write(back[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		void **pages = malloc(np * sizeof(*pages));
		int *status = malloc(np * sizeof(*status));
		if (!pages || !status)
			_exit(3);
		for (size_t i = 0; i < np; i++)
			pages[i] = buf + i * PAGE;
		if (move_pages(0, np, pages, NULL, status, 0))
			_exit(4);
		for (size_t i = 0; i < np; i++)
			counts[status[i] >= 0 && status[i] < G_NODES ? status[i] : G_NODES]++;
		if (write(back[1], counts, sizeof(counts)) != (ssize_t)sizeof(counts))
			_exit(5);
		_exit(0);
	}
	close(go[0]);
	close(back[1]);
	char c = 0, err[BND_ERRLEN] = "", a[96];
	long counts[G_NODES + 1] = { 0 };
	int ready = read(back[0], &c, 1) == 1;
	bnd_cpuset_t cpus = set_of("4-5");
	bnd_nodeset_t from, to;
	bnd_nodeset_zero(&from);
	bnd_nodeset_set(&from, 1);
	bnd_topology_numa_of_cpus(t, &cpus, &to);
	struct bnd_task_id id;
	struct bnd_rebind_counts rbc = { 0 };
	int rc = ready && bnd_task_identify("/proc", pid, &id) == BND_OK
			 ? bnd_rebind_tree("/proc", &id, &cpus, NULL, &from, &to, &rbc, err, sizeof(err))
			 : BND_ESYS;
	int procs = rbc.procs;
	int got = write(go[1], "g", 1) == 1 &&
		  read(back[0], counts, sizeof(counts)) == (ssize_t)sizeof(counts);
	int st = 0;
	waitpid(pid, &st, 0);
	close(go[1]);
	close(back[0]);
	long np = ((long)MIGRATE_MIB << 20) / PAGE;
	check(rc == BND_OK && procs == 1 && got && counts[2] == np,
	      "rebind with migration: the task's %ld pages move from node 1 to node 2 with its "
	      "cpus (rc %d %s, %d process(es) asked, pages %s)", np, rc, err, procs,
	      counts_text(counts, a, sizeof(a)));
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child_main();

	setvbuf(stdout, NULL, _IOLBF, 0);
	double t0 = now();
	struct bnd_topology *t = check_topology();
	if (t && t->nnuma == G_NODES && t->ncores == G_CORES) {
		check_placement(t);
		check_mempolicies(t);
		check_nlocal(t);
		check_reservations(t);
		check_inherited(t);
		check_migration(t);
	}
	bnd_topology_free(t);
	printf("# guest test took %.2f s\n", now() - t0);
	printf("1..%d\n", n_checks);
	return n_failed ? 1 : 0;
}
