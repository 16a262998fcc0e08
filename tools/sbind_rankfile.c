/* sbind rankfile: one Open MPI rankfile from the per-node ones. Each node
 * of a pe step writes a rankfile with only its own ranks, and mpirun
 * rejects a rankfile with a rank missing ("A rank is missing its location
 * specification"): a multi-node job merges the nodes' files into one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbind.h"
#include "sbind_opts.h"

#define MAX_RANKS (1 << 20)

struct line {
	long rank;
	char *text;
};

static int by_rank(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* "rank <N>=<host> slot=<list>": the rank, or -1 when the line is not one. */
static long rank_of(const char *s)
{
	char *end;
	if (strncmp(s, "rank ", 5))
		return -1;
	long r = strtol(s + 5, &end, 10);
	if (end == s + 5 || *end != '=' || r < 0 || r >= MAX_RANKS || !strstr(end, " slot="))
		return -1;
	return r;
}

static int read_file(const char *path, struct line **v, size_t *n, size_t *cap)
{
	FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	ssize_t got;
	int lineno = 0, rc = SBIND_EXIT_OK;
	if (!f) {
		perror(path);
		return SBIND_EXIT_ERROR;
	}
	while (rc == SBIND_EXIT_OK && (got = getline(&buf, &len, f)) >= 0) {
		lineno++;
		while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
			buf[--got] = '\0';
		if (!got || buf[0] == '#')
			continue;
		long r = rank_of(buf);
		if (r < 0) {
			fprintf(stderr, "sbind rankfile: %s:%d: \"%.60s\" is not a rankfile line "
				"(expected rank <N>=<host> slot=<list>)\n", path, lineno, buf);
			rc = SBIND_EXIT_USAGE;
			break;
		}
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			struct line *nv = realloc(*v, c * sizeof(**v));
			if (!nv) {
				rc = SBIND_EXIT_ERROR;
				break;
			}
			*v = nv;
			*cap = c;
		}
		(*v)[*n].rank = r;
		if (!((*v)[*n].text = strdup(buf))) {
			rc = SBIND_EXIT_ERROR;
			break;
		}
		(*n)++;
	}
	free(buf);
	if (f != stdin)
		fclose(f);
	return rc;
}

/* Every rank from 0 to the largest exactly once, or the first few
 * duplicated / missing ones named. */
static int check(const struct line *v, size_t n)
{
	int shown = 0;
	for (size_t i = 1; i < n; i++)
		if (v[i].rank == v[i - 1].rank) {
			fprintf(stderr, "sbind rankfile: rank %ld is given twice\n", v[i].rank);
			return SBIND_EXIT_USAGE;
		}
	long want = 0;
	for (size_t i = 0; i <= n; i++) {
		long upto = i < n ? v[i].rank : want;
		for (; want < upto; want++)
			if (shown++ < 8)
				fprintf(stderr, "sbind rankfile: rank %ld is missing (mpirun needs "
					"every rank from 0 to %ld)\n", want, v[n - 1].rank);
		want = upto + 1;
	}
	return shown ? SBIND_EXIT_USAGE : SBIND_EXIT_OK;
}

int sbind_cmd_rankfile(int argc, char **argv)
{
	const char *output = NULL;
	int first, prc = sbind_getopt("rankfile", argc, argv, NULL, NULL, sbind_set_string, &output,
				      &first);
	if (prc)
		return prc < 0 ? SBIND_EXIT_OK : prc;
	if (first >= argc) {
		fprintf(stderr, "sbind rankfile: no input (give the nodes' rankfiles)\n");
		return SBIND_EXIT_USAGE;
	}
	struct line *v = NULL;
	size_t n = 0, cap = 0;
	int rc = SBIND_EXIT_OK;
	for (int i = first; rc == SBIND_EXIT_OK && i < argc; i++)
		rc = read_file(argv[i], &v, &n, &cap);
	if (rc == SBIND_EXIT_OK && !n) {
		fprintf(stderr, "sbind rankfile: the input has no rank lines\n");
		rc = SBIND_EXIT_USAGE;
	}
	if (rc == SBIND_EXIT_OK) {
		qsort(v, n, sizeof(*v), by_rank);
		rc = check(v, n);
	}
	if (rc == SBIND_EXIT_OK) {
		FILE *out = output ? fopen(output, "w") : stdout;
		if (!out) {
			perror(output);
			rc = SBIND_EXIT_ERROR;
		} else {
			for (size_t i = 0; i < n; i++)
				fprintf(out, "%s\n", v[i].text);
			int bad = fflush(out) != 0 || ferror(out);
			if (output && fclose(out) != 0)
				bad = 1;
			if (bad) {
				perror(output ? output : "stdout");
				rc = SBIND_EXIT_ERROR;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
	return rc;
}
