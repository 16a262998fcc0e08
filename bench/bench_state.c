/* Latency of one state transaction pair (allocate linear:1 + release) with
 * 1, 8 and 32 processes looping at once on a 256-PU synthetic topology, and
 * the cost of the placement alone. Prints one summary line per case; the
 * figures are reported, never asserted.
 *
 * Back-to-back loops of 32 processes on a 2-CPU machine measure the CPU
 * scheduler as much as the lock (16 runnable processes per CPU: a process
 * preempted between two samples waits tens of ms). The "paced" cases sleep a
 * random 0-8 ms between pairs, the way step launches arrive, so they show
 * the transaction and lock-wait cost under contention without that artefact.
 *
 * Records: the cost of one transaction (half an allocate+release pair) on
 * a state already holding 0 (the floor: only the step's own record), 10,
 * 100, 1000 and 10000 records, next to the anchor, a bare transaction on a
 * file of the same size in the same file system (open a lock file, flock,
 * read the file, write a temp file, rename it over, unlock), the two
 * interleaved so load hits both alike; the ratio
 * of the medians is the figure to report. The records' owner is this
 * process (so the owner checks are real, as with distinct owners); the
 * first 200 hold one cpu each, the rest are suspended (no cpus, as the
 * transitions leave them). "busy" is the same on a node that has run for
 * long: every counter of the count line at 20 digits (state/counters.h)
 * and every record a history of the most events it keeps (a gang-scheduled
 * node's); what counting costs a launch is the difference of the two
 * ratios to the bare transaction.
 *
 * Waiting steps: a state of 1000 deferred records (one user's steps that
 * wait for two cores of its job while its first step holds one of them)
 * and 600 retries of them, as their watchers run at changes of the state,
 * by 2 processes, while another job allocates and releases a core outside
 * that job's cpus: the unrelated allocation's latency against the same
 * allocation on the same state with nobody retrying (the ratio of the
 * medians, and the p99; issue 20's goal: p99 <= 100 ms), for retries as
 * the watchers make them now (a lock-free check first) and as they were
 * made before (every retry a transaction). BENCH_STATE_WAITING=1 runs that
 * case alone. BENCH_STATE_RECORDS=N[,ROUNDS] runs one records case alone
 * (with BENCH_STATE_BUSY set: the busy one).
 *
 * The state dir is a fresh temp dir under $BINDING_BENCH_DIR (default /tmp);
 * when /dev/shm is a tmpfs the cases run there too, since the default state
 * dir /run is a tmpfs on most systems.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/state/state.h"
#include "binding/state/counters.h"
#include "binding/state/history.h"
#include "binding/state/statefile.h"
#include "binding/state/transition.h"
#include "binding/topology/topology.h"
#include "bench.h"

#define TOPO "pack:4 core:32 pu:2"
#define TMPFS_MAGIC_ 0x01021994

static void summary(const char *what, double *v, size_t n, double wall_us)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	double med = v[n / 2], p99 = v[(size_t)((double)(n - 1) * 0.99)];
	printf("%-52s median %8.1f us  p99 %8.1f us  (%zu samples", what, med, p99, n);
	if (wall_us > 0)
		printf(", %.0f pairs/s", (double)n / (wall_us / 1e6));
	printf(")\n");
}

static void rmdir_state(const char *dir, const char *base)
{
	const char *names[] = { "state", "state.new", "lock" };
	char p[512];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	rmdir(base);
}

/* nproc processes x cycles allocate+release pairs; latencies into shared
 * memory. Returns 0 when every call succeeded. */
static int run_case(const char *root, const char *fsname, const struct bnd_topology *t,
		    const struct bnd_request *r, int nproc, int cycles, int pace_us)
{
	char base[256], dir[300];
	snprintf(base, sizeof(base), "%s/bnd-bench-XXXXXX", root);
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/st", base);
	struct bnd_state_opts o = { .dir = dir };
	char err[BND_ERRLEN] = "";
	if (bnd_state_gc(&o, NULL, err, sizeof(err))) {
		fprintf(stderr, "bench_state: %s\n", err);
		rmdir_state(dir, base);
		return -1;
	}
	size_t n = (size_t)nproc * (size_t)cycles;
	double *lat = mmap(NULL, n * sizeof(double), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int gate[2];
	if (lat == MAP_FAILED || pipe(gate))
		return -1;
	for (int k = 0; k < nproc; k++) {
		if (fork() == 0) {
			char b;
			close(gate[1]);
			if (read(gate[0], &b, 1) < 0)
				_exit(1);
			srand((unsigned)getpid());
			for (int i = 0; i < cycles; i++) {
				if (pace_us)
					usleep((useconds_t)(rand() % pace_us));
				struct bnd_alloc_args a = { .job = (uint32_t)k + 1, .step = (uint32_t)i,
							    .ntasks = 1 };
				struct bnd_placement p;
				double t0 = bench_now_us();
				if (bnd_state_allocate(&o, t, r, &a, &p, err, sizeof(err)) ||
				    (bnd_placement_free(&p), 0) ||
				    bnd_state_release(&o, a.job, a.step, NULL, err, sizeof(err))) {
					fprintf(stderr, "bench_state: %s\n", err);
					_exit(1);
				}
				lat[(size_t)k * (size_t)cycles + (size_t)i] = bench_now_us() - t0;
			}
			_exit(0);
		}
	}
	close(gate[0]);
	double t0 = bench_now_us();
	close(gate[1]);
	int bad = 0, status;
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	double wall = bench_now_us() - t0;
	char what[256];
	snprintf(what, sizeof(what), "allocate+release, %2d process%s%s, %s", nproc,
		 nproc == 1 ? "  " : "es", pace_us ? " paced" : "", fsname);
	if (!bad)
		summary(what, lat, n, wall);
	munmap(lat, n * sizeof(double));
	rmdir_state(dir, base);
	return bad;
}

static void placement_only(const struct bnd_topology *t, const struct bnd_request *r)
{
	enum { N = 20000 };
	static double lat[N];
	bnd_cpuset_t taken;
	bnd_cpuset_zero(&taken);
	/* a node half full, as in the 32-process runs at their busiest */
	for (int c = 0; c < t->npus; c += 4)
		bnd_cpuset_set(&taken, t->pu_os[c]);
	struct bnd_domain d = { NULL, &taken, NULL };
	char err[BND_ERRLEN];
	for (int i = 0; i < N; i++) {
		struct bnd_placement p;
		double t0 = bench_now_us();
		int rc = bnd_place(t, &d, r, 1, &p, err, sizeof(err));
		lat[i] = bench_now_us() - t0;
		if (rc) {
			fprintf(stderr, "bench_state: %s\n", err);
			return;
		}
		bnd_placement_free(&p);
	}
	summary("placement only (bnd_place linear:1)", lat, N, 0);
}

static void rm_anchor(const char *adir)
{
	const char *names[] = { "state", "state.new", "lock" };
	char p[512];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", adir, names[i]);
		unlink(p);
	}
	rmdir(adir);
}

/* The anchor: what any locked read-modify-replace of the file must do. */
static int bare_txn(int adirfd)
{
	static char *buf;
	static size_t cap;
	int lk = openat(adirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lk < 0 || flock(lk, LOCK_EX))
		return -1;
	int fd = openat(adirfd, "state", O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		return -1;
	if ((size_t)st.st_size + 1 > cap) {
		char *grown = realloc(buf, (size_t)st.st_size + 1);
		if (!grown)
			return -1;
		buf = grown;
		cap = (size_t)st.st_size + 1;
	}
	size_t got = 0;
	ssize_t n;
	while ((n = read(fd, buf + got, cap - got)) > 0)
		got += (size_t)n;
	close(fd);
	fd = openat(adirfd, "state.new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, got) != (ssize_t)got || close(fd) ||
	    renameat(adirfd, "state.new", adirfd, "state"))
		return -1;
	flock(lk, LOCK_UN);
	close(lk);
	return 0;
}

/* Every counter near its limit (20 digits). */
static void busy_counts(struct bnd_state_file *f)
{
	for (int k = 0; k < BND_CNT_COUNT; k++)
		f->counts.v[k] = 10000000000000000000ull + (uint64_t)k;
}

/* A history of BND_HIST_KEEP events of a step gang-scheduled for hours. */
static int busy_history(struct bnd_state_record *r, const bnd_cpuset_t *cpus)
{
	if (bnd_hist_append(&r->hist, BND_H_BOUND, 1700000000123LL, cpus, NULL))
		return -1;
	for (int e = 1; e < 40; e++)
		if (bnd_hist_append(&r->hist, e % 2 ? BND_H_SUSPENDED : BND_H_REBOUND,
				    1700000000123LL + e * 5000, cpus, e % 2 ? "slurm-suspend" : NULL))
			return -1;
	return 0;
}

/* A state of nrec records owned by this process, written as the library
 * writes it (busy: see above); the anchor dir gets a copy of the same
 * bytes. */
static int fill_state(const char *dir, const char *adir, int nrec, int busy)
{
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	if (busy)
		busy_counts(&f);
	unsigned long long start;
	char err[BND_ERRLEN] = "";
	if (bnd_proc_start_time(getpid(), &start, err, sizeof(err)) ||
	    bnd_proc_boot_id(f.boot_id, sizeof(f.boot_id), err, sizeof(err)))
		return -1;
	for (int i = 0; i < nrec; i++) {
		struct bnd_state_record r;
		memset(&r, 0, sizeof(r));
		r.job = (uint32_t)i + 1000;
		r.owner_pid = (int)getpid();
		r.owner_start = start;
		r.uid = 1000;
		r.status = i < 200 ? BND_ST_ACTIVE : BND_ST_SUSPENDED;
		r.created = 1700000000;
		/* a suspended record holds no cpus (transition.h) */
		if (i < 200) {
			bnd_cpuset_set(&r.cpus, i);
			r.ntasks = 1;
			r.tasks = &r.cpus;
		} else {
			r.since_ms = 1700000000123LL;
			snprintf(r.why, sizeof(r.why), "slurm-suspend");
		}
		snprintf(r.request, sizeof(r.request), "linear:1");
		bnd_cpuset_t one;
		bnd_cpuset_zero(&one);
		bnd_cpuset_set(&one, i % 256);
		if ((busy && busy_history(&r, &one)) || bnd_statefile_add(&f, &r))
			return -1;
		free(r.hist);
	}
	char *text;
	size_t len;
	int rc = bnd_statefile_format(&f, &text, &len, err, sizeof(err));
	bnd_statefile_free(&f);
	if (rc)
		return -1;
	const char *dirs[2] = { dir, adir };
	for (int k = 0; k < 2; k++) {
		char p[512];
		snprintf(p, sizeof(p), "%s/state", dirs[k]);
		FILE *fp = fopen(p, "w");
		if (!fp || fwrite(text, 1, len, fp) != len || fclose(fp))
			rc = -1;
	}
	free(text);
	return rc;
}

static int records_case(const char *root, const char *fsname, const struct bnd_topology *t,
			const struct bnd_request *r, int nrec, int rounds, int busy)
{
	char base[256], dir[300], adir[300];
	snprintf(base, sizeof(base), "%s/bnd-bench-XXXXXX", root);
	if (!mkdtemp(base))
		return -1;
	snprintf(dir, sizeof(dir), "%s/st", base);
	snprintf(adir, sizeof(adir), "%s/bare", base);
	struct bnd_state_opts o = { .dir = dir };
	char err[BND_ERRLEN] = "";
	int rc = -1;
	double *ours = calloc((size_t)rounds, sizeof(double));
	double *bare = calloc((size_t)rounds, sizeof(double));
	int adirfd = -1;
	if (!ours || !bare || bnd_state_gc(&o, NULL, err, sizeof(err)) || mkdir(adir, 0755) ||
	    fill_state(dir, adir, nrec, busy) || (adirfd = open(adir, O_RDONLY | O_DIRECTORY)) < 0)
		goto out;
	for (int i = 0; i < rounds; i++) {
		struct bnd_alloc_args a = { .job = 1, .step = (uint32_t)i, .ntasks = 1 };
		struct bnd_placement p;
		double t0 = bench_now_us();
		if (bnd_state_allocate(&o, t, r, &a, &p, err, sizeof(err)) ||
		    (bnd_placement_free(&p), 0) ||
		    bnd_state_release(&o, a.job, a.step, NULL, err, sizeof(err)))
			goto out;
		double t1 = bench_now_us();
		if (bare_txn(adirfd) || bare_txn(adirfd)) {
			snprintf(err, sizeof(err), "bare transaction: %m");
			goto out;
		}
		ours[i] = (t1 - t0) / 2;
		bare[i] = (bench_now_us() - t1) / 2;
	}
	qsort(ours, (size_t)rounds, sizeof(double), bench_cmp_double);
	qsort(bare, (size_t)rounds, sizeof(double), bench_cmp_double);
	printf("transaction, %5d records%s, %s: median %8.1f us, bare %7.1f us, ratio %5.2f  "
	       "(%d rounds)\n", nrec, busy ? " (busy)" : "", fsname, ours[rounds / 2],
	       bare[rounds / 2], ours[rounds / 2] / bare[rounds / 2], rounds);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "bench_state: %d records: %s\n", nrec, err);
	if (adirfd >= 0)
		close(adirfd);
	free(ours);
	free(bare);
	rm_anchor(adir);
	rmdir_state(dir, base);
	return rc;
}

/* The deferred records: jobs 5000.. of uid 2000 waiting for linear:2 in
 * cpus 0-1, which job 4999 (the same user's first step) holds one of. */
static int fill_waiting(const char *dir, int nrec)
{
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	unsigned long long start;
	char err[BND_ERRLEN] = "";
	bnd_cpuset_t want;
	bnd_cpuset_parse_list(&want, "0-1", NULL, 0);
	if (bnd_proc_start_time(getpid(), &start, err, sizeof(err)) ||
	    bnd_proc_boot_id(f.boot_id, sizeof(f.boot_id), err, sizeof(err)) ||
	    gethostname(f.node, sizeof(f.node) - 1))
		return -1;
	for (int i = 0; i <= nrec; i++) {
		struct bnd_state_record r;
		memset(&r, 0, sizeof(r));
		r.job = 4999 + (uint32_t)i;
		r.owner_pid = (int)getpid();
		r.owner_start = start;
		r.uid = 2000;
		r.created = 1700000000;
		snprintf(r.request, sizeof(r.request), i ? "linear:2" : "linear:1");
		if (i) {
			r.status = BND_ST_DEFERRED;
			r.since_ms = 1700000000000LL + i;
			snprintf(r.why, sizeof(r.why), "held-by-job:4999");
			if (bnd_state_record_want(&r, &want, 1, 2))
				return -1;
		} else {
			bnd_cpuset_set(&r.cpus, 0);
			r.ntasks = 1;
			r.tasks = malloc(sizeof(*r.tasks));
			if (!r.tasks)
				return -1;
			r.tasks[0] = r.cpus;
		}
		int rc = bnd_statefile_add(&f, &r);
		bnd_state_record_free(&r);
		if (rc)
			return -1;
	}
	char *text;
	size_t len;
	int rc = bnd_statefile_format(&f, &text, &len, err, sizeof(err));
	bnd_statefile_free(&f);
	char p[512];
	snprintf(p, sizeof(p), "%s/state", dir);
	FILE *fp = rc ? NULL : fopen(p, "w");
	if (!fp || fwrite(text, 1, len, fp) != len || fclose(fp))
		rc = -1;
	free(text);
	return rc;
}

/* n retries of waiting steps (jobs from first on, in turn): what a
 * watcher does at a change of the state. locked: every retry a
 * transaction, as before; else the lock-free check first. */
static int retries(const struct bnd_state_opts *o, const struct bnd_topology *t, int first,
		   int n, int locked)
{
	struct bnd_request r;
	char err[BND_ERRLEN];
	bnd_cpuset_t allowed;
	bnd_cpuset_parse_list(&allowed, "0-1", NULL, 0);
	if (bnd_request_parse(&r, "linear:2", err, sizeof(err)))
		return -1;
	for (int i = 0; i < n; i++) {
		struct bnd_alloc_args a = { .job = 5000 + (uint32_t)((first + i) % 1000), .step = 0,
					    .ntasks = 1, .uid = 2000, .allowed = &allowed };
		struct bnd_resume_args ra = { .a = &a };
		struct bnd_placement p;
		enum bnd_resume_result res;
		if (!locked && !bnd_state_resume_may_fit(o, t, &r, &ra))
			continue;
		if (bnd_state_resume(o, t, &r, &ra, &p, &res, err, sizeof(err)) != BND_ENOFIT) {
			fprintf(stderr, "bench_state: a waiting step fit: %s\n", err);
			return -1;
		}
	}
	return 0;
}

/* The unrelated job's allocate+release pairs (cpus 2..) until *stop, at
 * least min_pairs; latencies (us, the pair / 2) into lat. Returns how many. */
static size_t unrelated(const struct bnd_state_opts *o, const struct bnd_topology *t,
			const struct bnd_request *r, volatile int *stop, size_t min_pairs,
			double *lat, size_t cap)
{
	bnd_cpuset_t allowed = t->all_cpus;
	bnd_cpuset_t low;
	bnd_cpuset_parse_list(&low, "0-1", NULL, 0);
	bnd_cpuset_andnot(&allowed, &low);
	char err[BND_ERRLEN];
	size_t n = 0;
	while (n < cap && (n < min_pairs || !*stop)) {
		struct bnd_alloc_args a = { .job = 1, .step = (uint32_t)n, .ntasks = 1, .uid = 1000,
					    .allowed = &allowed };
		struct bnd_placement p;
		double t0 = bench_now_us();
		if (bnd_state_allocate(o, t, r, &a, &p, err, sizeof(err)) ||
		    (bnd_placement_free(&p), 0) ||
		    bnd_state_release(o, a.job, a.step, NULL, err, sizeof(err))) {
			fprintf(stderr, "bench_state: %s\n", err);
			return 0;
		}
		lat[n++] = (bench_now_us() - t0) / 2;
	}
	return n;
}

static void quantiles(double *v, size_t n, double *med, double *p99)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	*med = v[n / 2];
	*p99 = v[(size_t)((double)(n - 1) * 0.99)];
}

/* One run: the unrelated pairs while 2 processes make nretry retries
 * (locked or not). Fills med/p99 (us); -1 on failure. */
static int waiting_run(const char *dir, const struct bnd_topology *t, const struct bnd_request *r,
		       int nretry, int locked, double *med, double *p99, double *retry_s)
{
	struct bnd_state_opts o = { .dir = dir };
	enum { CAP = 100000 };
	double *lat = malloc(CAP * sizeof(double));
	volatile int *stop = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!lat || stop == MAP_FAILED || fill_waiting(dir, 1000))
		return -1;
	*stop = !nretry;
	double t0 = bench_now_us();
	pid_t kids[2] = { 0, 0 };
	for (int k = 0; nretry && k < 2; k++)
		if ((kids[k] = fork()) == 0)
			_exit(retries(&o, t, k * 500, nretry / 2, locked) ? 1 : 0);
	/* Nobody retrying: 300 pairs; else as many as fit while they run. */
	int bad = 0, st;
	size_t n = 0;
	if (!nretry) {
		n = unrelated(&o, t, r, stop, 300, lat, CAP);
	} else {
		pid_t w = fork();
		if (w == 0) {
			for (int k = 0; k < 2; k++)
				waitpid(kids[k], &st, 0);
			*stop = 1;
			_exit(0);
		}
		n = unrelated(&o, t, r, stop, 20, lat, CAP);
		for (int k = 0; k < 2; k++)
			if (waitpid(kids[k], &st, 0) == kids[k])
				bad |= !WIFEXITED(st) || WEXITSTATUS(st);
		waitpid(w, &st, 0);
	}
	*retry_s = (bench_now_us() - t0) / 1e6;
	if (!n || bad)
		return -1;
	quantiles(lat, n, med, p99);
	free(lat);
	munmap((void *)stop, sizeof(int));
	return 0;
}

static int waiting_case(const char *root, const char *fsname, const struct bnd_topology *t,
			const struct bnd_request *r)
{
	char base[256], dir[300];
	snprintf(base, sizeof(base), "%s/bnd-bench-XXXXXX", root);
	if (!mkdtemp(base))
		return -1;
	snprintf(dir, sizeof(dir), "%s/st", base);
	struct bnd_state_opts o = { .dir = dir };
	char err[BND_ERRLEN] = "";
	double im, ip, nm, np, lm, lp, s0, s1, s2;
	int rc = bnd_state_gc(&o, NULL, err, sizeof(err)) ||
		 waiting_run(dir, t, r, 0, 0, &im, &ip, &s0) ||
		 waiting_run(dir, t, r, 600, 0, &nm, &np, &s1) ||
		 waiting_run(dir, t, r, 600, 1, &lm, &lp, &s2);
	if (!rc) {
		printf("waiting steps, 1000 records, %s: an unrelated allocation idle: median %.0f us, "
		       "p99 %.0f us\n", fsname, im, ip);
		printf("  during 600 retries (lock-free check first): median %.0f us, p99 %.0f us, "
		       "ratio %.2f (the retries took %.2f s)\n", nm, np, nm / im, s1);
		printf("  during 600 retries (each a transaction, as before): median %.0f us, "
		       "p99 %.0f us, ratio %.2f (%.2f s)\n", lm, lp, lm / im, s2);
	} else {
		fprintf(stderr, "bench_state: waiting steps: %s\n", err);
	}
	rmdir_state(dir, base);
	return rc;
}

/* BENCH_STATE_RECORDS=N[,ROUNDS]: only that case, on the first root (for
 * valgrind --tool=callgrind, which counts instructions whatever the load). */
static int records_only(const char *root, const struct bnd_topology *t,
			const struct bnd_request *r, const char *spec)
{
	int nrec = atoi(spec), rounds = 20;
	const char *comma = strchr(spec, ',');
	if (comma)
		rounds = atoi(comma + 1);
	if (nrec < 0 || rounds < 1)
		return 1;
	return records_case(root, root, t, r, nrec, rounds, getenv("BENCH_STATE_BUSY") != NULL) ? 1 : 0;
}

int main(void)
{
	struct bnd_topology *t = NULL;
	struct bnd_request r;
	char err[BND_ERRLEN] = "";
	if (bnd_topology_load(&t, TOPO, err, sizeof(err)) ||
	    bnd_request_parse(&r, "linear:1", err, sizeof(err))) {
		fprintf(stderr, "bench_state: %s\n", err);
		return 1;
	}
	const char *roots[2] = { getenv("BINDING_BENCH_DIR"), "/dev/shm" };
	if (!roots[0] || !*roots[0])
		roots[0] = "/tmp";
	if (getenv("BENCH_STATE_WAITING")) {
		int wrc = waiting_case(roots[0], roots[0], t, &r);
		bnd_topology_free(t);
		return wrc ? 1 : 0;
	}
	const char *only = getenv("BENCH_STATE_RECORDS");
	if (only && *only) {
		int orc = records_only(roots[0], t, &r, only);
		bnd_topology_free(t);
		return orc;
	}
	printf("bench_state: %s (%d PUs), request linear:1, %ld CPUs online\n", TOPO, t->npus,
	       sysconf(_SC_NPROCESSORS_ONLN));
	placement_only(t, &r);
	int rc = 0;
	for (int i = 0; i < 2; i++) {
		struct statfs sf;
		if (statfs(roots[i], &sf))
			continue;
		int tmpfs = sf.f_type == TMPFS_MAGIC_;
		if (i == 1 && (!tmpfs || !strcmp(roots[0], roots[1])))
			continue;
		char fsname[128];
		snprintf(fsname, sizeof(fsname), "%s (%s)", roots[i], tmpfs ? "tmpfs" : "disk");
		static const int nrecs[] = { 0, 10, 100, 1000, 10000 },
				 rounds[] = { 1000, 1000, 300, 60, 12 };
		for (int k = 0; k < 5; k++)
			for (int busy = 0; busy < 2; busy++)
				rc |= records_case(roots[i], fsname, t, &r, nrecs[k], rounds[k], busy);
		rc |= waiting_case(roots[i], fsname, t, &r);
		static const int procs[] = { 1, 8, 32 }, cycles[] = { 2000, 400, 100 };
		for (int k = 0; k < 3; k++)
			rc |= run_case(roots[i], fsname, t, &r, procs[k], cycles[k], 0);
		rc |= run_case(roots[i], fsname, t, &r, 32, 100, 8000);
	}
	bnd_topology_free(t);
	return rc ? 1 : 0;
}
