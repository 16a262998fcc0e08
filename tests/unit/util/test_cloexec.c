/* No descriptor of the library outlives an exec: slurmstepd runs the
 * user's epilog (and forks tasks) while the plugin has files open, and an
 * fd without close-on-exec would hand a root-opened file to the user.
 *
 * Two checks. Every call that creates a descriptor is linked to a wrapper
 * here (ld --wrap, the names in the Makefile's CLOEXEC_WRAP), so each fd
 * the library's code opens, however briefly, is checked for FD_CLOEXEC the
 * moment it exists; a tour drives every module that opens something
 * (safe dir walk and listing, lock creation, state transactions and the
 * repair of a damaged state, topology XML and cache, rankfile, the watcher
 * thread, the rebind walk, the freezer and /proc readers, the cgroup
 * cpuset). And while the watcher thread holds its files, the test execs
 * itself and the child lists what it inherited: nothing beyond what the
 * test process had before the library ran.
 *
 * hwloc and libnuma are shared libraries: their calls are not wrapped (not
 * ours), and their descriptors are closed before they return. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/hooks/rebind.h"
#include "binding/util/error.h"
#include "binding/util/proc.h"
#include "binding/util/safefile.h"
#include "binding/request/config.h"
#include "binding/state/state.h"
#include "binding/request/option.h"
#include "binding/step/step.h"
#include "binding/step/stepinfo.h"
#include "binding/suspend/rebind.h"
#include "binding/suspend/verdict.h"
#include "binding/suspend/watcher.h"
#include "binding/task/apply.h"
#include "binding/task/rankfile.h"
#include "binding/task/taskenv.h"
#include "binding/topology/topocache.h"
#include "testutil.h"

/* --- the wrappers: count each call, note an fd without FD_CLOEXEC ------- */

enum { W_OPEN, W_OPENAT, W_FOPEN, W_OPENDIR, W_DUP, W_PIPE, W_SOCKET, W_EVENTFD, W_INOTIFY,
       W_OTHER, W_N };
static const char *const wname[W_N] = { "open", "openat", "fopen", "opendir", "dup",
					"pipe", "socket", "eventfd", "inotify", "other" };
static int calls[W_N];
static char leaks[4096];

static int note(int kind, int fd)
{
	calls[kind]++;
	if (fd >= 0 && !(fcntl(fd, F_GETFD) & FD_CLOEXEC)) {
		size_t n = strlen(leaks);
		snprintf(leaks + n, sizeof(leaks) - n, " %s:fd%d", wname[kind], fd);
	}
	return fd;
}

static int mode_wanted(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (mode_wanted(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return note(W_OPEN, __real_open(path, flags, mode));
}

int __real___open_2(const char *path, int flags);
int __wrap___open_2(const char *path, int flags);
int __wrap___open_2(const char *path, int flags)
{
	return note(W_OPEN, __real___open_2(path, flags));
}

int __real_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (mode_wanted(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return note(W_OPENAT, __real_openat(dirfd, path, flags, mode));
}

int __real___openat_2(int dirfd, const char *path, int flags);
int __wrap___openat_2(int dirfd, const char *path, int flags);
int __wrap___openat_2(int dirfd, const char *path, int flags)
{
	return note(W_OPENAT, __real___openat_2(dirfd, path, flags));
}

int __real_creat(const char *path, mode_t mode);
int __wrap_creat(const char *path, mode_t mode);
int __wrap_creat(const char *path, mode_t mode)
{
	return note(W_OPEN, __real_creat(path, mode));
}

FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode)
{
	FILE *f = __real_fopen(path, mode);
	note(W_FOPEN, f ? fileno(f) : -1);
	return f;
}

DIR *__real_opendir(const char *path);
DIR *__wrap_opendir(const char *path);
DIR *__wrap_opendir(const char *path)
{
	DIR *d = __real_opendir(path);
	note(W_OPENDIR, d ? dirfd(d) : -1);
	return d;
}

int __real_dup(int fd);
int __wrap_dup(int fd);
int __wrap_dup(int fd)
{
	return note(W_DUP, __real_dup(fd));
}

int __real_dup2(int fd, int to);
int __wrap_dup2(int fd, int to);
int __wrap_dup2(int fd, int to)
{
	return note(W_DUP, __real_dup2(fd, to));
}

int __real_dup3(int fd, int to, int flags);
int __wrap_dup3(int fd, int to, int flags);
int __wrap_dup3(int fd, int to, int flags)
{
	return note(W_DUP, __real_dup3(fd, to, flags));
}

int __real_pipe(int fds[2]);
int __wrap_pipe(int fds[2]);
int __wrap_pipe(int fds[2])
{
	int rc = __real_pipe(fds);
	if (!rc) {
		note(W_PIPE, fds[0]);
		note(W_PIPE, fds[1]);
	}
	return rc;
}

int __real_pipe2(int fds[2], int flags);
int __wrap_pipe2(int fds[2], int flags);
int __wrap_pipe2(int fds[2], int flags)
{
	int rc = __real_pipe2(fds, flags);
	if (!rc) {
		note(W_PIPE, fds[0]);
		note(W_PIPE, fds[1]);
	}
	return rc;
}

int __real_socket(int domain, int type, int protocol);
int __wrap_socket(int domain, int type, int protocol);
int __wrap_socket(int domain, int type, int protocol)
{
	return note(W_SOCKET, __real_socket(domain, type, protocol));
}

int __real_eventfd(unsigned int initval, int flags);
int __wrap_eventfd(unsigned int initval, int flags);
int __wrap_eventfd(unsigned int initval, int flags)
{
	return note(W_EVENTFD, __real_eventfd(initval, flags));
}

int __real_inotify_init(void);
int __wrap_inotify_init(void);
int __wrap_inotify_init(void)
{
	return note(W_INOTIFY, __real_inotify_init());
}

int __real_inotify_init1(int flags);
int __wrap_inotify_init1(int flags);
int __wrap_inotify_init1(int flags)
{
	return note(W_INOTIFY, __real_inotify_init1(flags));
}

int __real_mkstemp(char *tmpl);
int __wrap_mkstemp(char *tmpl);
int __wrap_mkstemp(char *tmpl)
{
	return note(W_OTHER, __real_mkstemp(tmpl));
}

/* --- the exec'd child: which fds did it get? ---------------------------- */

#define REPORT_ARG "--inherited-fds"

/* Run as `test_cloexec --inherited-fds`: prints each fd above 2 it holds
 * (but the listing's own) as "N -> target", sorted by number. */
static int report_inherited(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 1;
	int own = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		char link[64], target[512] = "";
		if (e->d_name[0] == '.' || fd <= 2 || fd == own)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		printf("%d -> %s\n", fd, target);
	}
	closedir(d);
	return 0;
}

/* What a program exec'd now inherits, one "N -> target" line each. */
static char *inherited(void)
{
	static char out[2][8192];
	static int turn;
	char *buf = out[turn = !turn];
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (!c) {
		dup2(p[1], 1);
		execl("/proc/self/exe", "test_cloexec", REPORT_ARG, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(out[0]) - 1 && (r = read(p[0], buf + n, sizeof(out[0]) - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(p[0]);
	int st;
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the exec'd child failed");
	return buf;
}

/* --- the tour ------------------------------------------------------------ */

static char dir[64], state[96];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_cloexec.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(state, sizeof(state), "%s/state", dir);
	memset(calls, 0, sizeof(calls));
	leaks[0] = '\0';
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int on_event(void *ctx, enum bnd_watch_event ev, long long seen_ms)
{
	(void)ctx, (void)ev, (void)seen_ms;
	return 1; /* deferred: the state dir stays watched (inotify) */
}

/* A step through prepare, task and finish as slurmstepd runs it: the state
 * dir made, the lock created (a dead creator's leftover removed), the
 * topology cache, a pe rankfile. */
static void a_step(struct bnd_config *cfg)
{
	char err[BND_ERRLEN];
	struct bnd_step s;
	struct bnd_step_in in = {
		.cfg = cfg, .job = 7, .step = 0, .uid = (uint32_t)getuid(), .ntasks = 1,
		.step_cores = "0", .job_cores = "0", .binding = tu_option(BND_OPT_BINDING, "pe:linear:1"),
		.step_nodelist = "n1", .owner = getpid(),
	};
	ck_assert_int_eq(bnd_topocache_warmup(cfg->state_dir, NULL, err, sizeof(err)), BND_OK);
	char leftover[1100];
	snprintf(leftover, sizeof(leftover), "%s/lock.init.999999999", cfg->state_dir);
	put(leftover, "");
	ck_assert_int_eq(tu_step_start(&s, &in), BND_OK);
	ck_assert_msg(bnd_step_recorded(&s), "step recorded");
	struct bnd_task_result r;
	memset(&r, 0, sizeof(r));
	bnd_step_task(&s, 0, 0, 0, NULL, "/sys/fs/cgroup", "/proc/self/cpuset", &r);
	bnd_taskenv_free(&r.env);
	ck_assert_int_eq(bnd_step_finish(&s), BND_OK);
	bnd_step_free(&s);
	tu_options_free();
}

/* A damaged state kept aside, the next transaction finding it by inode. */
static void a_repair(const struct bnd_config *cfg)
{
	char err[BND_ERRLEN];
	struct bnd_state_opts o = { .dir = cfg->state_dir, .lock_timeout_ms = 2000 };
	put(state, "");
	char path[1100];
	snprintf(path, sizeof(path), "%s/state", cfg->state_dir);
	put(path, "spank-binding-state 1\ngarbage\n");
	ck_assert_int_eq(bnd_state_gc(&o, NULL, err, sizeof(err)), BND_OK);
	struct bnd_state_file f;
	ck_assert_int_eq(bnd_state_list(&o, &f, err, sizeof(err)), BND_OK);
	bnd_statefile_free(&f);
}

START_TEST(no_library_fd_is_inherited_across_exec)
{
	char err[BND_ERRLEN];
	char *before = strdup(inherited());
	struct bnd_config cfg;
	bnd_config_defaults(&cfg);
	snprintf(cfg.state_dir, sizeof(cfg.state_dir), "%s/st", dir);
	cfg.lock_timeout_ms = 2000;

	struct bnd_topology *t = NULL;
	char *xml = tu_topology_xml("Intel-Xeon-Haswell-1pa6co.xml");
	ck_assert_int_eq(bnd_topology_load(&t, xml, err, sizeof(err)), BND_OK);
	bnd_topology_free(t);
	free(xml);
	a_step(&cfg);
	a_repair(&cfg);

	/* the watcher holds its files while the step lives */
	pid_t task = fork();
	ck_assert_int_ge(task, 0);
	if (!task)
		for (;;)
			pause();
	put(state, "THAWED\n");
	struct bnd_watch_cfg wc = { .pids = &task, .npids = 1, .proc_root = "/proc",
				    .freezer = state, .state_dir = cfg.state_dir,
				    .event = on_event, .start_deferred = 1 };
	struct bnd_watch *w = NULL;
	ck_assert_int_eq(bnd_watch_start(&w, &wc, err, sizeof(err)), BND_OK);
	char *during = inherited();
	ck_assert_msg(!strcmp(before, during), "inherited by an exec while the watcher runs:\n%s\n"
		      "before the library ran:\n%s", during, before);
	bnd_cpuset_t cpus;
	ck_assert_int_eq(bnd_affinity_get(task, &cpus, err, sizeof(err)), BND_OK);
	/* the rebind walk holds each process by its /proc dir meanwhile */
	struct bnd_rebind rb;
	int fresh = 0;
	struct bnd_task_id id;
	struct bnd_rebind_counts rc;
	ck_assert_int_eq(bnd_task_identify("/proc", task, &id), BND_OK);
	ck_assert_int_eq(bnd_rebind_begin(&rb, "/proc", &id, &cpus, NULL, err, sizeof(err)), BND_OK);
	ck_assert_int_eq(bnd_rebind_pass(&rb, &fresh), BND_OK);
	during = inherited();
	ck_assert_msg(!strcmp(before, during), "inherited by an exec during a rebind walk:\n%s\n"
		      "before the library ran:\n%s", during, before);
	ck_assert_int_eq(bnd_rebind_end(&rb, NULL, NULL, &rc), BND_OK);
	ck_assert_int_eq(rc.threads, 1);
	char fpath[512];
	bnd_freezer_find("/proc", "/sys/fs/cgroup", task, fpath, sizeof(fpath), NULL);
	bnd_freezer_read(state);
	ck_assert_int_eq(bnd_task_stopped("/proc", task), 0);
	unsigned long long start;
	ck_assert_int_eq(bnd_proc_start_time(task, &start, err, sizeof(err)), BND_OK);
	char boot[BND_BOOT_ID_LEN];
	ck_assert_int_eq(bnd_proc_boot_id(boot, sizeof(boot), err, sizeof(err)), BND_OK);
	bnd_cgroup_cpuset("/sys/fs/cgroup", "/proc/self/cpuset", &cpus, err, sizeof(err));
	bnd_watch_stop(w);
	kill(task, SIGKILL);
	waitpid(task, NULL, 0);

	ck_assert_msg(!leaks[0], "opened without close-on-exec:%s", leaks);
	/* the tour reached every kind of call the library makes */
	const int kinds[] = { W_OPEN, W_OPENAT, W_FOPEN, W_OPENDIR, W_EVENTFD, W_INOTIFY };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		ck_assert_msg(calls[kinds[i]] > 0, "no %s call was seen", wname[kinds[i]]);
	ck_assert_str_eq(inherited(), before);
	free(before);
}
END_TEST

/* The wrappers themselves: an fd made without close-on-exec is seen. */
START_TEST(a_leak_is_seen)
{
	int fd = dup(0);
	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(strstr(leaks, "dup:fd"));
	ck_assert_str_ne(inherited(), "");
	close(fd);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], REPORT_ARG))
		return report_inherited();
	Suite *s = suite_create("cloexec");
	TCase *tc = tcase_create("cloexec");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_library_fd_is_inherited_across_exec);
	tcase_add_test(tc, a_leak_is_seen);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
