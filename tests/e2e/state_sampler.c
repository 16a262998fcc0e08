/* state_sampler: reads a node's state file every PERIOD ms, without the
 * lock, the way `cat` or `sbind status` would, until STOPFILE exists, and
 * checks every sample: it parses clean (no torn or damaged file is ever
 * visible), and no cpu is in two active records that may not share it
 * (records of different jobs; two steps of one job, the batch step's record
 * aside, which its steps inherit). The soak test (t40_soak.sh) runs it
 * while jobs come and go and processes are killed.
 *
 *   state_sampler STATEDIR PERIOD_MS STOPFILE REPORT
 *
 * REPORT gets one line per distinct record seen ("rec JOB STEP PID START
 * FIRST LAST", sample numbers) and a summary line:
 *   samples N absent A unclean U overlaps O list_errors L max_records M
 * Every unclean sample and overlap is described on stderr (at most 20).
 * It also stops when its parent dies (a test killed by its timeout).
 * Exit 0 when U, O and L are 0, 1 otherwise, 2 on bad usage. The verdict
 * counts faults, never timing: a slow machine just takes fewer samples. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/state/state.h"
#include "binding/state/statefile.h"
#include "binding/util/error.h"
#include "binding/util/textfile.h"

struct seen {
	uint32_t job, step;
	int pid;
	unsigned long long start;
	long first, last;
};

static struct seen *seen;
static int nseen, capseen;
static int complaints;

static void complain(long sample, const char *fmt, const char *a, const char *b)
{
	if (complaints++ >= 20)
		return;
	fprintf(stderr, "state_sampler: sample %ld: ", sample);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
}

static void note_seen(const struct bnd_state_record *r, long sample)
{
	for (int i = 0; i < nseen; i++) {
		struct seen *s = &seen[i];
		if (s->job == r->job && s->step == r->step && s->pid == r->owner_pid &&
		    s->start == r->owner_start) {
			s->last = sample;
			return;
		}
	}
	if (nseen == capseen) {
		int cap = capseen ? 2 * capseen : 256;
		struct seen *n = realloc(seen, (size_t)cap * sizeof(*n));
		if (!n)
			return;
		seen = n;
		capseen = cap;
	}
	seen[nseen++] = (struct seen){ r->job, r->step, r->owner_pid, r->owner_start,
				       sample, sample };
}

/* 1 when the two active records may not share a cpu. */
static int exclusive(const struct bnd_state_record *a, const struct bnd_state_record *b)
{
	if (a->status != BND_ST_ACTIVE || b->status != BND_ST_ACTIVE)
		return 0;
	if (a->job != b->job)
		return 1;
	return a->step != BND_STEP_BATCH && b->step != BND_STEP_BATCH;
}

static int overlaps(const struct bnd_state_file *f, long sample)
{
	int n = 0;
	for (int i = 0; i < f->nrec; i++)
		for (int j = 0; j < i; j++) {
			const struct bnd_state_record *a = &f->rec[i], *b = &f->rec[j];
			if (!exclusive(a, b) || !bnd_cpuset_intersects(&a->cpus, &b->cpus))
				continue;
			char *ta = bnd_state_record_text(a), *tb = bnd_state_record_text(b);
			complain(sample, "cpu in two active records: [%s] and [%s]",
				 ta ? ta : "?", tb ? tb : "?");
			free(ta);
			free(tb);
			n++;
		}
	return n;
}

/* The file whole, as a reader without the lock gets it (the state is
 * replaced by rename, never rewritten in place); NULL when absent. */
static char *read_state(const char *path, size_t *len)
{
	char *text;
	return bnd_textfile_read(path, (size_t)1 << 30, &text, len, NULL, 0) == BND_OK ? text : NULL;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s STATEDIR PERIOD_MS STOPFILE REPORT\n", argv[0]);
		return 2;
	}
	const char *dir = argv[1], *stop = argv[3];
	long period = atol(argv[2]);
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, BND_STATE_FILE_NAME);
	struct bnd_state_opts o = { .dir = dir };
	long samples = 0, absent = 0, unclean = 0, overl = 0, list_errors = 0;
	int maxrec = 0;
	struct timespec ts = { period / 1000, (period % 1000) * 1000000L };

	pid_t parent = getppid();
	while (access(stop, F_OK) != 0 && getppid() == parent) {
		size_t len = 0;
		char *text = read_state(path, &len);
		samples++;
		if (!text) {
			absent++;
		} else {
			struct bnd_state_file f;
			char why[256] = "";
			int v = bnd_statefile_parse(text, len, &f, why, sizeof(why));
			if (v != BND_SF_CLEAN) {
				unclean++;
				complain(samples, "state does not parse clean: %s%s", why,
					 v < 0 ? " (out of memory)" : "");
			} else {
				overl += overlaps(&f, samples);
				for (int i = 0; i < f.nrec; i++)
					note_seen(&f.rec[i], samples);
				if (f.nrec > maxrec)
					maxrec = f.nrec;
			}
			if (v >= 0)
				bnd_statefile_free(&f);
			free(text);
		}
		/* sbind status's path: the library's unlocked reader. */
		if (samples % 10 == 0) {
			struct bnd_state_file f;
			char err[512] = "";
			if (bnd_state_list(&o, &f, err, sizeof(err)) != BND_OK) {
				list_errors++;
				complain(samples, "the library's reader failed: %s%s", err, "");
			} else {
				bnd_statefile_free(&f);
			}
		}
		nanosleep(&ts, NULL);
	}

	FILE *out = fopen(argv[4], "w");
	if (!out) {
		perror(argv[4]);
		return 2;
	}
	for (int i = 0; i < nseen; i++)
		fprintf(out, "rec %" PRIu32 " %" PRIu32 " %d %llu %ld %ld\n", seen[i].job,
			seen[i].step, seen[i].pid, seen[i].start, seen[i].first, seen[i].last);
	fprintf(out, "samples %ld absent %ld unclean %ld overlaps %ld list_errors %ld "
		"max_records %d\n", samples, absent, unclean, overl, list_errors, maxrec);
	fclose(out);
	free(seen);
	return (unclean || overl || list_errors) ? 1 : 0;
}
