/* sbind status --job J --all-nodes: the job's receipt from every node it
 * runs on (report/receipts.h). Slurm says where the job runs (squeue,
 * scontrol show hostnames); one step of the job, `srun --jobid=J --overlap
 * --binding=none`, runs `sbind status --job J --format json` once per node
 * and each node answers from its own state. The step asks for no binding,
 * so it gets no record and takes no core from the job; Slurm runs it as
 * the job's owner (root may not start steps in a user's job), so root
 * starts srun as that user. */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binding/report/receipts.h"
#include "binding/util/error.h"
#include "sbind.h"
#include "sbind_state.h"

extern char **environ;

#define ACCEPTED "expected: sbind status --job J --all-nodes, J a running job's id"

/* A command's stdout (malloc'd) and stderr (malloc'd, trailing newline
 * cut), and its exit status. */
struct run {
	char *out, *err;
	int status;  /* exit code; -1 when it did not run or died of a signal */
};

/* srun reads SLURM_* and SRUN_* as its options (SLURM_NTASKS is -n): the
 * caller's own job's must not shape the step. SLURM_CONF stays. */
static void clean_environment(void)
{
	for (int i = 0; environ[i];) {
		const char *e = environ[i];
		if ((!strncmp(e, "SLURM_", 6) && strncmp(e, "SLURM_CONF=", 11)) ||
		    !strncmp(e, "SRUN_", 5) || !strncmp(e, "_SLURM_SPANK_OPTION_", 20)) {
			char name[256];
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(e, "="), e);
			unsetenv(name);
		} else {
			i++;
		}
	}
}

static void child(char *const *argv, uid_t as, int out, FILE *errf)
{
	dup2(out, STDOUT_FILENO);
	dup2(fileno(errf), STDERR_FILENO);
	clean_environment();
	if (as != (uid_t)-1) {
		struct passwd *pw = getpwuid(as);
		if (!pw || initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) || setuid(as)) {
			fprintf(stderr, "cannot become uid %u: %s\n", (unsigned)as, strerror(errno));
			_exit(126);
		}
	}
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static char *slurp(FILE *f)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	char chunk[4096];
	size_t k;
	while (m && (k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, k, m);
	if (m)
		fclose(m);
	while (buf && n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

/* argv[0] found on PATH, run as uid `as` ((uid_t)-1: as we are). */
static int run_capture(char *const *argv, uid_t as, struct run *r)
{
	int p[2];
	FILE *errf = tmpfile();
	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!errf || pipe(p)) {
		if (errf)
			fclose(errf);
		return BND_ESYS;
	}
	pid_t pid = fork();
	if (pid == 0)
		child(argv, as, p[1], errf);
	close(p[1]);
	FILE *in = pid > 0 ? fdopen(p[0], "r") : NULL;
	r->out = in ? slurp(in) : NULL;
	in ? fclose(in) : close(p[0]);
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (pid > 0 && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	rewind(errf);
	r->err = slurp(errf);
	fclose(errf);
	return pid > 0 && r->out && r->err ? BND_OK : BND_ESYS;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* What Slurm says of the job: its state, node count, node list, owner. */
struct job_info {
	char state[32], nodes[4096];
	int count;
	uid_t uid;
};

static int job_info(uint32_t job, struct job_info *j)
{
	char id[16];
	snprintf(id, sizeof(id), "%" PRIu32, job);
	char *argv[] = { "squeue", "-h", "-j", id, "-o", "%T|%D|%U|%N", NULL };
	struct run r;
	unsigned uid = 0;
	int rc = run_capture(argv, (uid_t)-1, &r);
	if (rc || r.status || sscanf(r.out, "%31[^|]|%d|%u|%4095[^\n]", j->state, &j->count, &uid,
				     j->nodes) < 3) {
		fprintf(stderr, "sbind status: --job %" PRIu32 " --all-nodes: Slurm knows no job %" PRIu32
			" (squeue -j %" PRIu32 ": %s); " ACCEPTED "\n", job, job, job,
			rc ? "did not run" : r.err[0] ? r.err : r.out[0] ? r.out : "no such job");
		run_free(&r);
		return SBIND_EXIT_USAGE;
	}
	j->uid = (uid_t)uid;
	run_free(&r);
	if (strcmp(j->state, "RUNNING")) {
		fprintf(stderr, "sbind status: --job %" PRIu32 " --all-nodes: job %" PRIu32 " is %s, "
			"and Slurm starts steps only in a running job%s; " ACCEPTED "\n", job, job,
			j->state, !strcmp(j->state, "SUSPENDED")
				? " (its records are on its nodes: sbind status --job J there, or here "
				  "once it runs again)" : "");
		return SBIND_EXIT_ERROR;
	}
	return SBIND_EXIT_OK;
}

/* The job's node names, in Slurm's order (scontrol show hostnames). */
static char **node_names(const char *list, int *n)
{
	char *argv[] = { "scontrol", "show", "hostnames", (char *)list, NULL };
	struct run r;
	char **names = NULL;
	*n = 0;
	if (run_capture(argv, (uid_t)-1, &r) || r.status) {
		fprintf(stderr, "sbind status: --all-nodes: scontrol show hostnames %s: %s\n", list,
			r.err && r.err[0] ? r.err : "failed");
		run_free(&r);
		return NULL;
	}
	for (char *save = NULL, *w = strtok_r(r.out, "\n", &save); w; w = strtok_r(NULL, "\n", &save)) {
		char **g = realloc(names, (size_t)(*n + 1) * sizeof(*g));
		if (!g || !(g[*n] = strdup(w))) {
			names = g ? g : names;
			break;
		}
		names = g;
		(*n)++;
	}
	run_free(&r);
	return names;
}

/* Runs each node's `sbind status --job J --format json` in one overlap
 * step; its node's Slurm name (SLURMD_NODENAME) names the answer, as the
 * job's node list does. srun's stdout (labeled) and stderr into r. */
static int gather(uint32_t job, const struct job_info *j, const char *state, const char *topology,
		  struct run *r)
{
	char self[PATH_MAX], id[32], nn[16], jtext[16];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k <= 0) {
		fprintf(stderr, "sbind status: --all-nodes: cannot find this program's path: %s\n",
			strerror(errno));
		return SBIND_EXIT_ERROR;
	}
	self[k] = '\0';
	snprintf(id, sizeof(id), "--jobid=%" PRIu32, job);
	snprintf(nn, sizeof(nn), "-N%d", j->count);
	snprintf(jtext, sizeof(jtext), "%" PRIu32, job);
	char *argv[24] = { "srun", id, "--overlap", nn, "--ntasks-per-node=1", "--label", "--quiet",
			   "--job-name=sbind-status", "--binding=none", "/bin/sh", "-c",
			   "b=$1 j=$2; shift 2; exec \"$b\" status --job \"$j\" --format json "
			   "--node \"${SLURMD_NODENAME:-$(hostname)}\" \"$@\"",
			   "sbind-status", self, jtext };
	int a = 15;
	if (state) {
		argv[a++] = "--state";
		argv[a++] = (char *)state;
	}
	if (topology) {
		argv[a++] = "--topology";
		argv[a++] = (char *)topology;
	}
	argv[a] = NULL;
	uid_t as = geteuid() == 0 && j->uid != 0 ? j->uid : (uid_t)-1;
	if (run_capture(argv, as, r)) {
		fprintf(stderr, "sbind status: --all-nodes: cannot run srun: %s\n",
			r->err && r->err[0] ? r->err : strerror(errno));
		return SBIND_EXIT_ERROR;
	}
	return SBIND_EXIT_OK;
}

/* The merged receipt on stdout; the nodes that gave none on stderr. */
static int show(uint32_t job, const json_t *m, int json, const struct run *r)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long long now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	int rc = json ? (json_dumpf(m, stdout, JSON_COMPACT) || putchar('\n') == EOF)
		      : bnd_receipts_render(m, now, stdout) != BND_OK;
	if (rc) {
		fprintf(stderr, "sbind status: out of memory\n");
		return SBIND_EXIT_ERROR;
	}
	const json_t *missing = json_object_get(m, "missing");
	if (!json_array_size(missing) && r->status == 0)
		return SBIND_EXIT_OK;
	fprintf(stderr, "sbind status: --job %" PRIu32 " --all-nodes: ", job);
	if (json_array_size(missing)) {
		size_t n = json_array_size(missing);
		fputs("no answer from node", stderr);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i ? "," : (n > 1 ? "s " : " "),
				json_string_value(json_array_get(missing, i)));
		fputs(": ", stderr);
	}
	fprintf(stderr, "srun exited %d%s%s\n", r->status, r->err[0] ? ": " : "", r->err);
	return SBIND_EXIT_ERROR;
}

int sbind_status_all_nodes(uint32_t job, int json, const char *state, const char *topology)
{
	struct job_info j;
	int n = 0, na = 0, rc = job_info(job, &j);
	char **names = rc ? NULL : node_names(j.nodes, &n), **answers = NULL;
	struct run r = { NULL, NULL, -1 };
	json_t *m = NULL;
	char err[BND_ERRLEN] = "";
	if (!rc && !names)
		rc = SBIND_EXIT_ERROR;
	if (!rc)
		rc = gather(job, &j, state, topology, &r);
	if (!rc && (bnd_receipts_split(r.out, &answers, &na, err, sizeof(err)) ||
		    bnd_receipts_merge(job, (const char *const *)names, n, answers, na, &m, err,
				       sizeof(err)))) {
		fprintf(stderr, "sbind status: --job %" PRIu32 " --all-nodes: %s%s%s\n", job, err,
			r.err[0] ? "; srun said: " : "", r.err);
		rc = SBIND_EXIT_ERROR;
	}
	if (!rc)
		rc = show(job, m, json, &r);
	json_decref(m);
	bnd_receipts_free_answers(answers, na);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	run_free(&r);
	return rc;
}
