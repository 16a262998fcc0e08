#include "testutil.h"

#include <dirent.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/placement/place.h"
#include "binding/request/option.h"
#include "binding/request/request.h"
#include "binding/step/step.h"

struct bnd_topology *tu_topo(const char *source)
{
	struct bnd_topology *t = NULL;
	char err[BND_ERRLEN] = "";
	int rc = bnd_topology_load(&t, source, err, sizeof(err));
	ck_assert_msg(rc == BND_OK && t, "loading %s: %s", source, err);
	return t;
}

/* The project carries these XMLs (tests/topologies): a folder or a file
 * missing is a broken checkout or a wrong $BINDING_TOPOLOGIES, and fails
 * the test rather than letting it pass on less. */
const char *tu_topologies_dir(void)
{
	const char *d = getenv("BINDING_TOPOLOGIES");
	if (!d || !*d)
		d = TU_TOPOLOGIES_DEFAULT;
	DIR *dir = opendir(d);
	ck_assert_msg(dir != NULL, "real-machine XMLs: folder %s is absent (BINDING_TOPOLOGIES)", d);
	closedir(dir);
	return d;
}

char *tu_topology_xml(const char *name)
{
	const char *d = tu_topologies_dir();
	size_t n = strlen(d) + strlen(name) + 2;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	snprintf(p, n, "%s/%s", d, name);
	ck_assert_msg(access(p, R_OK) == 0, "real-machine XML %s is absent", p);
	return p;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **tu_topology_xmls(void)
{
	const char *d = tu_topologies_dir();
	DIR *dir = opendir(d);
	ck_assert_ptr_nonnull(dir);
	size_t n = 0, cap = 16;
	char **v = calloc(cap, sizeof(*v));
	struct dirent *e;
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".xml"))
			continue;
		if (n + 2 > cap) {
			cap *= 2;
			char **grown = realloc(v, cap * sizeof(*v));
			ck_assert_ptr_nonnull(grown);
			v = grown;
		}
		size_t sz = strlen(d) + len + 2;
		v[n] = malloc(sz);
		snprintf(v[n], sz, "%s/%s", d, e->d_name);
		n++;
	}
	closedir(dir);
	ck_assert_msg(n > 0, "real-machine XMLs: no *.xml in %s", d);
	v[n] = NULL;
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

void tu_free_list(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}

int tu_step_start(struct bnd_step *s, const struct bnd_step_in *in)
{
	int rc = bnd_step_prepare(s, in);
	return rc != BND_OK ? rc : bnd_step_place(s, in);
}

int tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const char *tu_place(const struct bnd_topology *t, const bnd_cpuset_t *taken, const char *text,
		     int ntasks, bnd_cpuset_t *cpus, char *err, size_t errlen)
{
	static char out[8192];
	struct bnd_request r;
	struct bnd_placement p;

	ck_assert_msg(bnd_request_parse(&r, text, err, errlen) == BND_OK, "%s: %s", text, err);
	struct bnd_domain dom = { NULL, taken, NULL };
	int rc = bnd_place(t, &dom, &r, ntasks, &p, err, errlen);
	bnd_request_clear(&r);
	if (rc != BND_OK) {
		ck_assert_msg(rc == BND_ENOFIT || rc == BND_EINVAL, "%s: rc %d: %s", text, rc, err);
		return rc == BND_ENOFIT ? "ENOFIT" : "EINVAL";
	}
	if (taken)
		ck_assert(!bnd_cpuset_intersects(&p.all_cpus, taken));
	size_t n = 0;
	out[0] = 0;
	for (int i = 0; i < p.ntasks; i++) {
		if (i)
			n += (size_t)snprintf(out + n, sizeof(out) - n, " | ");
		for (int k = 0; k < p.tasks[i].ncores; k++) {
			const struct bnd_core *c = &t->cores[p.tasks[i].cores[k]];
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%d,%d", k ? " " : "",
					      c->socket, c->core);
		}
	}
	if (cpus)
		*cpus = p.all_cpus;
	bnd_placement_free(&p);
	return out;
}

void tu_assert_each_core_once(const struct bnd_topology *t, const struct bnd_placement *p,
			      const char *what)
{
	char *seen = calloc((size_t)t->ncores, 1);
	bnd_cpuset_t cpus;
	bnd_cpuset_zero(&cpus);
	ck_assert_int_eq(p->ntasks, t->ncores);
	for (int i = 0; i < p->ntasks; i++) {
		ck_assert_msg(p->tasks[i].ncores == 1, "%s: task %d has %d cores", what, i,
			      p->tasks[i].ncores);
		int c = p->tasks[i].cores[0];
		ck_assert_msg(!seen[c], "%s: core %d twice", what, c);
		seen[c] = 1;
		ck_assert_msg(!bnd_cpuset_intersects(&cpus, &p->tasks[i].cpus), "%s: cpu twice", what);
		bnd_cpuset_or(&cpus, &p->tasks[i].cpus);
	}
	ck_assert_msg(bnd_cpuset_equal(&cpus, &t->all_cpus), "%s: not every cpu used", what);
	free(seen);
}

const char *tu_taskenv_get(const struct bnd_taskenv *e, const char *name)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name))
			return e->v[i].value;
	return NULL;
}

pid_t tu_sleeper(void)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		for (;;)
			pause();
	return pid;
}

const char *tu_affinity_of(pid_t pid)
{
	static char v[256];
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	v[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			char *p = line + 18;
			p += strspn(p, " \t");
			p[strcspn(p, "\n")] = '\0';
			snprintf(v, sizeof(v), "%s", p);
		}
	fclose(f);
	return v;
}

int tu_strategy_example(enum bnd_strategy s, int k, char *buf, size_t len)
{
	const struct bnd_strategy_def *d = bnd_strategy_def(s);
	ck_assert_msg(d, "strategy %d has no row", (int)s);
	const char *e = d->example ? d->example : d->word;
	for (size_t n; *e; e += n) {
		e += strspn(e, " ");
		n = strcspn(e, " ");
		if (!n || !strncmp(e, "--", 2))
			continue;
		if (k-- == 0) {
			snprintf(buf, len, "%.*s", (int)n, e);
			return 1;
		}
	}
	return 0;
}

/* Enough for the most options one test gives before its teardown. */
#define TU_OPTIONS 256
static struct bnd_option_value tu_options[TU_OPTIONS];
static int tu_noptions;

const struct bnd_option_value *tu_option(enum bnd_option which, const char *text)
{
	if (!text)
		return NULL;
	ck_assert_msg(tu_noptions < TU_OPTIONS, "more than %d options before teardown", TU_OPTIONS);
	struct bnd_option_value *v = &tu_options[tu_noptions++];
	ck_assert_int_eq(bnd_option_value_set(v, which, text), BND_OK);
	return v;
}

void tu_options_free(void)
{
	for (int i = 0; i < tu_noptions; i++)
		bnd_option_value_clear(&tu_options[i]);
	tu_noptions = 0;
}
