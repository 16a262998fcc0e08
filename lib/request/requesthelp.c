/* --binding=help, --mbind=help and the completion words, built from the
 * tables of strategies and memory policies (request.c): a strategy's row
 * is its only description, so the help, the man pages (made from this
 * text) and the bash completion (sbind complete) cannot miss one.
 *
 * The texts are built once per process (pthread_once) into static
 * buffers: callers keep the const char * they always had.
 */
#include "binding/request/request.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "binding/util/error.h"

/* Each family's title line in --binding=help, by enum bnd_family. */
static const char *const family_title[BND_F_COUNT] = {
	[BND_F_GE] = "Grid Engine 6.2u5 (a core is <socket>,<core>, both counted from 0):\n",
	[BND_F_OCS] = "OCS/GCS 9.1 packed: the first <amount> free units of the topology string:\n",
	[BND_F_LSF] = "LSF (optional :level=socket|core|thread, default core; processor = socket):\n",
	[BND_F_GPU] = "GPUs (the step's GPUs from Slurm, each task's by Slurm's per-task rule):\n",
};

static const char binding_head[] =
	"--binding=[set:|env:|pe:]<strategy>  bind each task to whole cores\n\n";

static const char binding_tail[] =
	"Instance prefix: set: binds (default); env: only exports the choice; pe:\n"
	"only exports the cores as 0,0:0,1 and writes an OpenMPI rankfile.\n"
	"Numbers are plain decimal, at most 1000000; amounts and steps at least 1\n"
	"(packed:0 is the one 0: no binding).\n\n";

/* Large enough for the tables with room for more rows; a text that did
 * not fit would end without its newline, which the unit tests catch. */
static char binding_help[8192], mbind_help[2048], binding_usage[512], mbind_usage[256];
static pthread_once_t built = PTHREAD_ONCE_INIT;

struct out {
	char *buf;
	size_t len, o;
};

static void put(struct out *w, const char *s)
{
	size_t n = strlen(s);
	if (w->o + n >= w->len)
		n = w->o + 1 < w->len ? w->len - w->o - 1 : 0;
	memcpy(w->buf + w->o, s, n);
	w->o += n;
	w->buf[w->o] = '\0';
}

/* Columns of a help line, and where the examples after "e.g." start. */
#define HELP_COLUMNS 79
#define EG_HEAD "  e.g. --binding="

/* The family's rows, then "e.g." and their examples, two spaces apart,
 * on as many lines as they need. */
static void put_family(struct out *w, enum bnd_family f)
{
	const struct bnd_strategy_def *d;
	size_t col = 0;
	put(w, family_title[f]);
	for (size_t i = 0; (d = bnd_strategy_def_at(i)); i++)
		if (d->family == f)
			put(w, d->help);
	for (size_t i = 0; (d = bnd_strategy_def_at(i)); i++) {
		if (d->family != f || !d->example)
			continue;
		if (!col) {
			put(w, EG_HEAD);
			col = sizeof(EG_HEAD) - 1;
		} else if (col + 2 + strlen(d->example) > HELP_COLUMNS) {
			put(w, "\n" EG_HEAD);
			col = sizeof(EG_HEAD) - 1;
		} else {
			put(w, "  ");
			col += 2;
		}
		put(w, d->example);
		col += strlen(d->example);
	}
	put(w, col ? "\n\n" : "\n");
}

/* The one-line texts srun --help shows beside the options. */
static void build_usage(void)
{
	const struct bnd_strategy_def *d;
	struct out w = { binding_usage, sizeof(binding_usage), 0 };
	char words[256];
	put(&w, "Bind each task to cores, Grid Engine/OCS/LSF style: "
		"[set|env|pe:]<strategy>[:<fields>], <strategy> one of ");
	for (size_t i = 0; (d = bnd_strategy_def_at(i)); i++) {
		put(&w, i == 0 ? "" : bnd_strategy_def_at(i + 1) ? ", " : " or ");
		put(&w, d->word);
	}
	put(&w, ". --binding=help shows the grammar.");
	struct out m = { mbind_usage, sizeof(mbind_usage), 0 };
	bnd_mbind_words('|', words, sizeof(words));
	put(&m, "Memory policy of each task: ");
	put(&m, words);
	put(&m, ". --mbind=help shows the choices.");
}

static void build(void)
{
	struct out w = { binding_help, sizeof(binding_help), 0 };
	char words[256];
	put(&w, binding_head);
	for (int f = 0; f < BND_F_COUNT; f++)
		put_family(&w, (enum bnd_family)f);
	put(&w, binding_tail);
	bnd_mbind_words('|', words, sizeof(words));
	put(&w, "--mbind=");
	put(&w, words);
	put(&w, "   memory policy\n");

	struct out m = { mbind_help, sizeof(mbind_help), 0 };
	const struct bnd_mbind_def *p;
	put(&m, "--mbind=<policy>  memory policy of each task\n");
	for (size_t i = 0; (p = bnd_mbind_def_at(i)); i++)
		put(&m, p->help);
	put(&m, "  e.g. --binding=linear:4 --mbind=cores:strict\n");
	build_usage();
}

const char *bnd_request_help(void)
{
	pthread_once(&built, build);
	return binding_help;
}

const char *bnd_mbind_help(void)
{
	pthread_once(&built, build);
	return mbind_help;
}

const char *bnd_request_usage(void)
{
	pthread_once(&built, build);
	return binding_usage;
}

const char *bnd_mbind_usage(void)
{
	pthread_once(&built, build);
	return mbind_usage;
}

/* Appends word (and suffix) after a separator; BND_EINVAL when full. */
static int add_word(char sep, const char *word, const char *suffix, char *buf, size_t len,
		    size_t *o)
{
	int n = snprintf(buf + *o, len - *o, "%s%s%s", *o ? (char[]){ sep, '\0' } : "", word,
			 suffix);
	if (n < 0 || (size_t)n >= len - *o)
		return BND_EINVAL;
	*o += (size_t)n;
	return BND_OK;
}

int bnd_request_words(char sep, char *buf, size_t len)
{
	const struct bnd_strategy_def *d;
	size_t o = 0;
	int rc = len ? BND_OK : BND_EINVAL;
	if (len)
		buf[0] = '\0';
	/* A strategy that takes fields is offered with its ':' */
	for (size_t i = 0; !rc && (d = bnd_strategy_def_at(i)); i++)
		rc = add_word(sep, d->word, d->share == BND_SHARE_NONE ? "" : ":", buf, len, &o);
	for (int i = BND_I_SET; !rc && i <= BND_I_PE; i++)
		rc = add_word(sep, bnd_instance_name((enum bnd_instance)i), ":", buf, len, &o);
	return rc;
}

int bnd_mbind_words(char sep, char *buf, size_t len)
{
	const struct bnd_mbind_def *p;
	size_t o = 0;
	int rc = len ? BND_OK : BND_EINVAL;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; !rc && (p = bnd_mbind_def_at(i)); i++)
		rc = add_word(sep, p->word, "", buf, len, &o);
	return rc;
}
