/* Helpers for the state tests: temporary state dirs, raw file access, a log
 * collector and record building. Header-only (static) so every
 * test_state*.c program can use it without a Makefile change. */
#ifndef STATETEST_H
#define STATETEST_H

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/proc.h"
#include "binding/request/request.h"
#include "binding/state/state.h"
#include "binding/state/statefile.h"

struct st_env {
	char base[64];   /* mkdtemp dir, 0755 */
	char dir[96];    /* base/st: the state dir (created by the library) */
	char log[16384]; /* everything opts.log received, one line each */
	struct bnd_state_opts opts;
};

static inline void st_log_cb(void *ctx, const char *msg)
{
	struct st_env *e = ctx;
	size_t n = strlen(e->log);
	snprintf(e->log + n, sizeof(e->log) - n, "%s\n", msg);
}

static inline void st_setup(struct st_env *e)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->base, sizeof(e->base), "/tmp/bnd-state-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(e->base));
	ck_assert_int_eq(chmod(e->base, 0755), 0);
	snprintf(e->dir, sizeof(e->dir), "%s/st", e->base);
	e->opts.dir = e->dir;
	e->opts.log = st_log_cb;
	e->opts.log_ctx = e;
}

/* The dirs hold only plain files (and the test's own symlinks). */
static inline void st_rmdir_files(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p;
		if (asprintf(&p, "%s/%s", path, de->d_name) < 0)
			continue;
		struct stat st;
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			st_rmdir_files(p);
		else
			unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(path);
}

static inline void st_teardown(struct st_env *e)
{
	st_rmdir_files(e->base);
}

static inline char *st_path(const struct st_env *e, const char *name)
{
	static char p[512];
	snprintf(p, sizeof(p), "%s/%s", e->dir, name);
	return p;
}

/* Whole file, NUL-terminated; NULL when absent. */
static inline char *st_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (len)
		*len = 0;
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	size_t got;
	while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			char *grown = realloc(b, cap *= 2);
			ck_assert_ptr_nonnull(grown);
			b = grown;
		}
	}
	fclose(f);
	b[n] = '\0';
	if (len)
		*len = n;
	return b;
}

static inline void st_write(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, 0644), 0);
}

/* The state dir exists, made by the library itself. */
static inline void st_make_dir(struct st_env *e)
{
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_state_gc(&e->opts, NULL, err, sizeof(err)) == BND_OK, "%s", err);
}

static inline unsigned long long st_start_of(pid_t pid)
{
	unsigned long long s = 0;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_proc_start_time(pid, &s, err, sizeof(err)) == BND_OK, "%s", err);
	return s;
}

/* A record with one task per listed cpu set ("0-1;2-3"). */
static inline struct bnd_state_record st_rec(uint32_t job, uint32_t step, pid_t pid,
				      unsigned long long start, const char *tasks)
{
	struct bnd_state_record r;
	memset(&r, 0, sizeof(r));
	r.job = job;
	r.step = step;
	r.owner_pid = (int)pid;
	r.owner_start = start;
	r.uid = 1000;
	r.status = BND_ST_ACTIVE;
	r.created = 1700000000;
	snprintf(r.request, sizeof(r.request), "linear:1");
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", tasks);
	int n = 1;
	for (const char *c = buf; *c; c++)
		n += *c == ';';
	r.ntasks = n;
	r.tasks = calloc((size_t)n, sizeof(*r.tasks));
	char *save = NULL, *tok = strtok_r(buf, ";", &save);
	for (int i = 0; i < n && tok; i++, tok = strtok_r(NULL, ";", &save)) {
		ck_assert_int_eq(bnd_cpuset_parse_list(&r.tasks[i], tok, NULL, 0), BND_OK);
		bnd_cpuset_or(&r.cpus, &r.tasks[i]);
	}
	return r;
}

/* Formats f into buf; returns length. boot NULL: this boot's id and this
 * host's name, as the library writes them. */
static inline size_t st_format(struct bnd_state_file *f, const char *boot, char **text)
{
	size_t len;
	char err[BND_ERRLEN] = "";
	if (boot) {
		snprintf(f->boot_id, sizeof(f->boot_id), "%s", boot);
	} else {
		ck_assert_int_eq(bnd_proc_boot_id(f->boot_id, sizeof(f->boot_id), NULL, 0), BND_OK);
		ck_assert_int_eq(gethostname(f->node, sizeof(f->node) - 1), 0);
	}
	ck_assert_msg(bnd_statefile_format(f, text, &len, err, sizeof(err)) == BND_OK, "%s", err);
	return len;
}

static inline struct bnd_request *st_req(const char *text)
{
	static struct bnd_request r;
	char err[BND_ERRLEN] = "";
	ck_assert_msg(bnd_request_parse(&r, text, err, sizeof(err)) == BND_OK, "%s: %s", text, err);
	return &r;
}

static inline int st_count_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

#endif
