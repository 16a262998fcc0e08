/* sbind's option table (sbind_opts.h) and what is made from it: each
 * command's getopt and --help, sbind --help, and the shell's completion. */
#include "sbind_opts.h"

#include <stdlib.h>
#include <string.h>

#include "binding/request/request.h"
#include "binding/util/error.h"
#include "sbind.h"
#include "sbind_state.h"

/* An option and its argument are one word of the usage: NBSP joins them
 * and is written as a space (wrapped). */
#define NBSP '\001'

/* Rows that several commands share, with the same meaning everywhere. */
#define O_TOPOLOGY { "topology", 't', SA_TOPOLOGY, "SRC", NULL, \
	"the topology: an hwloc synthetic description, an hwloc XML or a *.cache file " \
	"(default: this machine, through the state dir's topology cache)" }
#define O_STATE { "state", 'S', SA_FILE, "DIR", NULL, \
	"the state directory (default: $BINDING_STATE_DIR, else /run/slurm-binding)" }
#define O_MEM_RESERVE { "mem-reserve", 'R', SA_TEXT, "SIZE|N%", NULL, \
	"memory per NUMA node left to the OS, as the plugin's mem_reserve=" }
#define O_MASK { "mask", 'm', SA_TEXT, "STR", NULL, \
	"a topology string whose lower-case units count as taken" }
#define O_OUTPUT(what) { "output", 'o', SA_FILE, "FILE", NULL, what }
#define O_FORMAT(words, what) { "format", 'f', SA_WORDS, NULL, words, what }
#define O_END { NULL, 0, SA_NONE, NULL, NULL, NULL }

static const struct sbind_opt topology_opts[] = {
	O_TOPOLOGY,
	O_MASK,
	O_STATE,
	O_MEM_RESERVE,
	O_FORMAT("sge|ocs|numa|uge|json", "Grid Engine's string (default), OCS's, the NUMA "
		 "nodes', UGE's load values, or JSON"),
	O_END,
};

static const struct sbind_opt place_opts[] = {
	{ "binding", 'b', SA_BINDING, "SPEC", NULL, "the request (--binding help: the grammar)" },
	{ "mbind", 'M', SA_MBIND, "SPEC", NULL, "the memory policy, with --binding or alone" },
	{ "mem", 'G', SA_TEXT, "SIZE", NULL, "the step's memory on the node (512M, 2G)" },
	O_MEM_RESERVE,
	{ "tasks", 'n', SA_TEXT, "N", NULL, "how many tasks (default 1)" },
	{ "gpus", 'g', SA_TEXT, "LIST", NULL,
	  "the step's GPUs in its tasks' order, by OS device name or PCI bus id" },
	{ "gpus-per-task", 'P', SA_TEXT, "N", NULL, "Slurm's --gpus-per-task" },
	{ "gpu-bind", 'B', SA_TEXT, "SPEC", NULL, "Slurm's --gpu-bind" },
	O_TOPOLOGY,
	O_MASK,
	O_STATE,
	{ "commit", 'c', SA_NONE, NULL, NULL, "record the placement in the state, as a step's" },
	{ "job", 'j', SA_TEXT, "J", NULL, "the job of the record (--commit)" },
	{ "step", 's', SA_TEXT, "S", "batch|extern|interactive", "the step of the record (--commit)" },
	{ "owner-pid", 'o', SA_TEXT, "PID", NULL, "the record's owner (--commit; default sbind)" },
	O_FORMAT("text|sge|ocs|json|rankfile", "one line per task (default), the topology "
		 "string, JSON, or Open MPI rankfile lines"),
	{ "host", 'H', SA_TEXT, "NAME", NULL, "the rankfile's host name" },
	{ "first-rank", 'r', SA_TEXT, "N", NULL, "the rankfile's first rank" },
	O_END,
};

static const struct sbind_opt rankfile_opts[] = {
	O_OUTPUT("write the merged rankfile there (default: standard output)"),
	O_END,
};

static const struct sbind_opt submit_opts[] = {
	{ "binding", SO_BINDING, SA_BINDING, "SPEC", NULL, "the job's --binding" },
	{ "mbind", SO_MBIND, SA_MBIND, "SPEC", NULL, "the job's --mbind" },
	{ "command", SO_COMMAND, SA_TEXT, NULL, "srun|sbatch|salloc",
	  "the command that submits (default srun)" },
	{ "mode", SO_MODE, SA_TEXT, NULL, "translate|refuse|off",
	  "instead of the site's plugstack.conf submit=" },
	{ "slurm-conf", SO_SLURM_CONF, SA_FILE, "PATH", NULL,
	  "the slurm.conf whose PlugStackConfig names the site's settings (default: "
	  "$SLURM_CONF, else /etc/slurm/slurm.conf)" },
	{ "numamem-gres", SO_NUMAMEM_GRES, SA_TEXT, "GRES", NULL,
	  "numamem=yes with a node line's Gres= value (repeat for more node lines) instead of "
	  "the site's" },
	{ "format", SO_FORMAT, SA_WORDS, NULL, "text|json", "the answer as lines (default) or JSON" },
	{ "cli-json", SO_CLI_JSON, SA_FILE, "FILE", NULL,
	  "the submission as Slurm's cli_filter gives it (slurm.json_cli_options; - reads "
	  "stdin): its --binding, --mbind and Slurm options, said first (binding:, mbind:), "
	  "or untouched: when it asks nothing" },
	{ "list-options", SO_LIST, SA_NONE, NULL, NULL,
	  "the Slurm option names it reads, one a line" },
	{ "site", SO_SITE, SA_NONE, NULL, NULL,
	  "the site's submit= and submit_error=, and where they come from" },
	O_END,
};

static const struct sbind_opt gres_conf_opts[] = {
	O_TOPOLOGY,
	O_STATE,
	{ "mem-reserve", 'R', SA_TEXT, "SIZE|N%", NULL,
	  "memory per NUMA node left to the OS (default: the plugin's mem_reserve=)" },
	{ "node-name", 'n', SA_TEXT, "NAME", NULL, "start each line with NodeName=NAME" },
	{ "slurm-conf", 'c', SA_FILE, "PATH", NULL,
	  "the slurm.conf whose plugstack.conf gives mem_reserve=" },
	O_FORMAT("gres|node-line", "gres.conf lines (default), or the node line's Gres= part"),
	O_END,
};

static const struct sbind_opt status_opts[] = {
	O_STATE,
	O_TOPOLOGY,
	O_FORMAT("text|json", "a table (default) or JSON"),
	{ "job", 'j', SA_TEXT, "J", NULL, "the job's receipt on this node" },
	{ "node", 'n', SA_TEXT, "NAME", NULL, "the node's name in the receipt (default: the host's)" },
	{ "all-nodes", 'a', SA_NONE, NULL, NULL,
	  "the receipt of the running job J from every node it runs on, in the job's node "
	  "order (one srun step of the job that asks for no binding, run as its owner)" },
	O_END,
};

static const struct sbind_opt metrics_opts[] = {
	O_STATE,
	O_TOPOLOGY,
	O_MEM_RESERVE,
	O_OUTPUT("replace FILE atomically (node_exporter's textfile) instead of printing"),
	O_END,
};

static const struct sbind_opt draw_opts[] = {
	O_STATE,
	O_TOPOLOGY,
	O_FORMAT("xml|svg|png", "hwloc's XML for lstopo (default), or rendered by lstopo"),
	O_OUTPUT("write there (default: standard output; svg and png need one)"),
	O_END,
};

static const struct sbind_opt release_opts[] = {
	{ "job", 'j', SA_TEXT, "J", NULL, "the job whose records go" },
	{ "step", 's', SA_TEXT, "S", "batch|extern|interactive", "only this step's records" },
	O_STATE,
	O_END,
};

static const struct sbind_opt gc_opts[] = {
	O_STATE,
	O_END,
};

static const struct sbind_opt no_opts[] = { O_END };

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

const struct sbind_cmd sbind_cmds[] = {
	{ "topology", sbind_cmd_topology, "[--topology] [--mask] [--state] [--mem-reserve] [--format]",
	  "the node's topology string; taken units (mask or state) in lower case;\n"
	  "json also lists the GPUs with their cpus and NUMA nodes;\n"
	  "uge: UGE's load values as qhost -F lists them (hl:m_topology=...)",
	  topology_opts, NULL, NULL, NULL },
	{ "place", sbind_cmd_place,
	  "--binding|--mbind [--mem [--mem-reserve]] [--tasks] [--gpus [--gpus-per-task] "
	  "[--gpu-bind]] [--topology] [--mask] [--state [--commit --job --step [--owner-pid]]] "
	  "[--format [--host] [--first-rank]]",
	  "what a request would get (dry run), or record it with --commit",
	  place_opts, NULL, NULL, NULL },
	{ "rankfile", sbind_cmd_rankfile, "[--output] FILE...|-",
	  "one Open MPI rankfile from the nodes' rankfiles (- reads stdin;\n"
	  "every rank from 0 exactly once)",
	  rankfile_opts, "FILE...", NULL, NULL },
	{ "submit", sbind_cmd_submit,
	  "[--binding] [--mbind] [--command] [--mode] [--slurm-conf] [--numamem-gres]... "
	  "[--format] [--cli-json] [SLURM OPTIONS] | --list-options | --site",
	  "the Slurm options a request needs from the allocation, given the\n"
	  "user's (sbind submit --help lists them), or why it is refused;\n"
	  "--list-options: the Slurm option names it reads, one a line;\n"
	  "--site: the site's submit= and submit_error=",
	  submit_opts, NULL, sbind_submit_help, sbind_submit_words },
	{ "gres-conf", sbind_cmd_gres_conf,
	  "[--topology] [--state] [--mem-reserve] [--node-name] [--slurm-conf] [--format]",
	  "this node's NUMA memory as Slurm's GRES numamem (plugstack numamem=yes):\n"
	  "its gres.conf lines, each NUMA node's memory less mem_reserve= with its\n"
	  "cores, and the node line's Gres= part",
	  gres_conf_opts, NULL, NULL, NULL },
	{ "status", sbind_cmd_status,
	  "[--state] [--topology] [--format] [--job [--node | --all-nodes]]",
	  "current bindings on this node (suspended/deferred: since when, why);\n"
	  "--job: the job's receipt here, each step's request, binding, tasks and\n"
	  "history (NAME in it: the host's name by default); --all-nodes: from\n"
	  "every node the running job J has, by one srun step of the job that\n"
	  "asks for no binding (run as the job's owner), in the job's node order",
	  status_opts, NULL, NULL, NULL },
	{ "metrics", sbind_cmd_metrics, "[--state] [--topology] [--mem-reserve] [--output]",
	  "the node's binding state for Prometheus (text format): cores, threads and\n"
	  "memory held and free, steps by status, the counters; --output writes\n"
	  "node_exporter's textfile atomically",
	  metrics_opts, NULL, NULL, NULL },
	{ "draw", sbind_cmd_draw, "[--state] [--topology] [--format] [--output]",
	  "the node's topology with each job's cores in its colour, waiting and\n"
	  "suspended steps marked, memory per NUMA node: an hwloc XML for lstopo,\n"
	  "or rendered by lstopo (svg, png)",
	  draw_opts, NULL, NULL, NULL },
	{ "release", sbind_cmd_release, "--job [--step] [--state]", "drop records", release_opts,
	  NULL, NULL, NULL },
	{ "gc", sbind_cmd_gc, "[--state]",
	  "drop records of dead owners, and the rankfiles of steps that are gone", gc_opts, NULL,
	  NULL, NULL },
	{ "complete", sbind_cmd_complete, "binding|mbind|commands | options COMMAND | value COMMAND OPTION",
	  "the words the shell completes: after --binding and --mbind, the commands,\n"
	  "a command's options, an option's values (tools/sbind.bash-completion asks)",
	  no_opts, "binding|mbind|commands|options|value", NULL, NULL },
	{ "--list", sbind_cmd_list, "keys|variables|strategies|options",
	  "the plugin's tables, one entry a line: plugstack.conf keys (name,\n"
	  "form, default, help; tab separated), the variables a task gets,\n"
	  "the --binding strategies, sbind's options (command, option, help)",
	  no_opts, "keys|variables|strategies|options", NULL, NULL },
	{ "--help", cmd_help, "", "this text, and the --binding and --mbind grammars", no_opts, NULL,
	  NULL, NULL },
	{ "--version", cmd_version, "", "the version", no_opts, NULL, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

/* sbind --help: the commands from the option table (sbind_opts.c), then
 * what they share. */
static const char usage_head[] =
	"usage: sbind <command> [options]\n"
	"\n"
	"commands:\n";

static const char usage_tail[] =
"\n"
	"SRC: an hwloc synthetic description (\"pack:2 core:4 pu:2\"), an hwloc XML\n"
	"file, or a topology cache file (*.cache: the state dir's topology.cache,\n"
	"as the plugin reads it, checked for this boot); default: this machine\n"
	"(through the state dir's topology cache).\n"
	"Exit: 0 ok/bound, 1 error, 2 bad input, 3 no binding possible.\n"
	"\n"
	"examples:\n"
	"  sbind topology --topology \"pack:2 core:2\"                  -> SCCSCC\n"
	"  sbind place --topology \"pack:2 core:2\" --binding striding:2:2 --format sge\n"
	"                                                             -> ScCScC\n"
	"  sbind place --topology \"pack:2 core:4\" --binding linear:2 --tasks 4\n"
	"  sbind place --binding linear:1 --commit --job 7 --step 0\n"
	"  sbind place --topology X.xml --binding gpu:4 --tasks 2 --gpus nvml0,nvml5\n"
	"                        (the step's GPUs, by OS device name or PCI bus id)\n"
	"  sbind place --binding help                                 (the grammar)\n"
	"  sbind submit --binding linear:2 -n 4      -> --cpus-per-task=2 --threads-per-core=1\n";

int sbind_help(FILE *f)
{
	fputs(usage_head, f);
	if (sbind_cmds_usage(f))
		return SBIND_EXIT_ERROR;
	fputs(usage_tail, f);
	fprintf(f, "\n%s\n%s", bnd_request_help(), bnd_mbind_help());
	return SBIND_EXIT_OK;
}

/* sbind complete binding|mbind: the words of the tables of strategies
 * and memory policies (request.h); the rest from the option table
 * (sbind_complete_table): the completion never lists a word by hand. */
int sbind_cmd_complete(int argc, char **argv)
{
	char words[1024];
	int binding = argc == 2 && !strcmp(argv[1], "binding");
	if (argc != 2 || (!binding && strcmp(argv[1], "mbind")))
		return sbind_complete_table(argc, argv);
	if ((binding ? bnd_request_words(' ', words, sizeof(words))
		     : bnd_mbind_words(' ', words, sizeof(words))) != BND_OK) {
		fprintf(stderr, "sbind complete: the words do not fit\n");
		return SBIND_EXIT_ERROR;
	}
	printf("%s%s\n", binding ? "help " : "", words);
	return SBIND_EXIT_OK;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return sbind_help(stdout);
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("sbind (spank-binding) %s\n", BND_VERSION);
	return SBIND_EXIT_OK;
}

const struct sbind_cmd *sbind_cmd_find(const char *name)
{
	for (const struct sbind_cmd *c = sbind_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static const struct sbind_opt *opt_find(const struct sbind_cmd *c, const char *name, size_t n)
{
	for (const struct sbind_opt *o = c->opts; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n))
			return o;
	return NULL;
}

/* "--name ARG" as the usage writes it: a placeholder, and words besides. */
static int opt_text(const struct sbind_opt *o, char *buf, size_t len)
{
	const char *arg = o->arg ? o->arg : o->words;
	int n = snprintf(buf, len, "--%s%s%s%s%s", o->name, arg ? (char[]){ NBSP, 0 } : "",
			 arg ? arg : "",
			 o->arg && o->words ? "|" : "", o->arg && o->words ? o->words : "");
	return n < 0 || (size_t)n >= len ? -1 : n;
}

static int skip_name(const char *p)
{
	int n = 0;
	while ((p[n] >= 'a' && p[n] <= 'z') || p[n] == '-')
		n++;
	return n;
}

int sbind_cmd_synopsis(const struct sbind_cmd *c, char *buf, size_t len)
{
	size_t used = 0, nrows = 0;
	int seen[64] = { 0 }, bad = 0;
	while (c->opts[nrows].name)
		nrows++;
	buf[0] = '\0';
	for (const char *p = c->synopsis; *p && used + 1 < len;) {
		int n = p[0] == '-' && p[1] == '-' ? skip_name(p + 2) : 0;
		const struct sbind_opt *o = n ? opt_find(c, p + 2, (size_t)n) : NULL;
		if (!o) {
			if (n)
				fprintf(stderr, "sbind: %s's synopsis names --%.*s, which it has no row "
					"for\n", c->name, n, p + 2);
			bad |= n > 0;
			buf[used++] = *p++;
			continue;
		}
		int w = opt_text(o, buf + used, len - used);
		bad |= w < 0 || seen[o - c->opts]++;
		used += w > 0 ? (size_t)w : 0;
		p += n + 2;
	}
	buf[used < len ? used : len - 1] = '\0';
	for (size_t i = 0; i < nrows && i < 64; i++)
		if (!seen[i]) {
			fprintf(stderr, "sbind: %s's synopsis lacks --%s\n", c->name, c->opts[i].name);
			bad = 1;
		}
	return bad || nrows > 64 || used + 1 >= len ? -1 : 0;
}

/* first, then text's words, wrapped at 79 columns; later lines indented. */
static void wrapped(FILE *f, const char *first, const char *text, int indent)
{
	int col = fprintf(f, "%s", first), start = col;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (!n)
			break;
		if (col > start && col + 1 + (int)n > 79)
			col = fprintf(f, "\n%*s", indent, "") - 1;
		else if (col > start)
			col += fprintf(f, " ");
		for (size_t i = 0; i < n; i++)
			fputc(p[i] == NBSP ? ' ' : p[i], f);
		col += (int)n;
		p += n;
	}
	fputc('\n', f);
}

static void what_lines(FILE *f, const char *what, int indent)
{
	for (const char *p = what; *p;) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(f, "%*s%.*s\n", indent, "", n, p);
		p += n + (nl != NULL);
	}
}

void sbind_cmd_usage(const struct sbind_cmd *c, FILE *f)
{
	char syn[1024], first[64], opt[128];
	if (sbind_cmd_synopsis(c, syn, sizeof(syn)))
		return;
	snprintf(first, sizeof(first), "usage: sbind %s ", c->name);
	wrapped(f, first, syn, (int)strlen(first));
	what_lines(f, c->what, 2);
	if (c->opts[0].name)
		fputs("options:\n", f);
	for (const struct sbind_opt *o = c->opts; o->name; o++) {
		opt_text(o, opt, sizeof(opt));
		wrapped(f, "  ", opt, 4);
		wrapped(f, "      ", o->help, 6);
	}
	if (c->more_help)
		c->more_help(f);
}

int sbind_cmds_usage(FILE *f)
{
	char syn[1024], first[64];
	for (const struct sbind_cmd *c = sbind_cmds; c->name; c++) {
		if (sbind_cmd_synopsis(c, syn, sizeof(syn)))
			return SBIND_EXIT_ERROR;
		snprintf(first, sizeof(first), "  sbind %s%s", c->name, *syn ? " " : "");
		wrapped(f, first, syn, 8);
		what_lines(f, c->what, 6);
	}
	return SBIND_EXIT_OK;
}

int sbind_list_options(void)
{
	char opt[128], syn[1024];
	for (const struct sbind_cmd *c = sbind_cmds; c->name; c++) {
		if (sbind_cmd_synopsis(c, syn, sizeof(syn)))
			return SBIND_EXIT_ERROR;
		for (const struct sbind_opt *o = c->opts; o->name; o++) {
			opt_text(o, opt, sizeof(opt));
			for (char *p = strchr(opt, NBSP); p; p = strchr(p, NBSP))
				*p = ' ';
			printf("%s\t%s\t%s\n", c->name, opt, o->help);
		}
	}
	return SBIND_EXIT_OK;
}

/* An SA_WORDS value: one of the row's words, or said with all of them. */
static int check_words(const char *cmd, const struct sbind_opt *o, const char *arg)
{
	size_t n = strlen(arg);
	for (const char *w = o->words; *w;) {
		size_t k = strcspn(w, "|");
		if (k == n && !strncmp(w, arg, n))
			return SBIND_EXIT_OK;
		w += k + (w[k] == '|');
	}
	fprintf(stderr, "sbind %s: --%s \"%s\": expected ", cmd, o->name, arg);
	for (const char *w = o->words; *w;) {
		size_t k = strcspn(w, "|");
		const char *sep = !w[k] ? "" : strchr(w + k + 1, '|') ? ", " : " or ";
		fprintf(stderr, "%.*s%s", (int)k, w, sep);
		w += k + (w[k] == '|');
	}
	fputc('\n', stderr);
	return SBIND_EXIT_USAGE;
}

/* getopt's rows: the command's, --help, then more's. */
static struct option *long_options(const struct sbind_cmd *c, const struct option *more)
{
	size_t n = 0, m = 0;
	while (c->opts[n].name)
		n++;
	while (more && more[m].name)
		m++;
	struct option *o = calloc(n + m + 2, sizeof(*o));
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++)
		o[i] = (struct option){ c->opts[i].name,
					c->opts[i].kind ? required_argument : no_argument, NULL,
					c->opts[i].id };
	o[n] = (struct option){ "help", no_argument, NULL, SBIND_OPT_HELP };
	if (m)
		memcpy(o + n + 1, more, m * sizeof(*o));
	return o;
}

static const struct sbind_opt *opt_of_id(const struct sbind_cmd *c, int id)
{
	for (const struct sbind_opt *o = c->opts; o->name; o++)
		if (o->id == id)
			return o;
	return NULL;
}

int sbind_set_string(void *ctx, int id, const char *arg)
{
	(void)id;
	*(const char **)ctx = arg;
	return 0;
}

int sbind_getopt(const char *name, int argc, char **argv, const char *shorts,
		 const struct option *more, sbind_set_fn set, void *ctx, int *operand)
{
	const struct sbind_cmd *c = sbind_cmd_find(name);
	struct option *longs = c ? long_options(c, more) : NULL;
	int id, rc = 0;
	if (!longs)
		return SBIND_EXIT_ERROR;
	optind = 1;
	while (!rc && (id = getopt_long(argc, argv, shorts ? shorts : "", longs, NULL)) != -1) {
		const struct sbind_opt *o = opt_of_id(c, id);
		if (id == SBIND_OPT_HELP) {
			sbind_cmd_usage(c, stdout);
			rc = -1;
		} else if (id == '?' || id == ':') {
			rc = SBIND_EXIT_USAGE;
		} else if (!(o && o->kind == SA_WORDS && (rc = check_words(name, o, optarg)))) {
			rc = set(ctx, id, optarg);
		}
	}
	free(longs);
	if (!rc && optind < argc && !c->operands) {
		fprintf(stderr, "sbind %s: unexpected argument \"%s\"\n", name, argv[optind]);
		rc = SBIND_EXIT_USAGE;
	}
	if (operand)
		*operand = optind;
	return rc;
}

/* What the shell offers after --OPTION of cmd: its words, or how to
 * complete it (@file, @topology, @binding, @mbind, @text). */
static int complete_value(const struct sbind_cmd *c, const char *opt)
{
	const struct sbind_opt *o = strncmp(opt, "--", 2) ? NULL : opt_find(c, opt + 2, strlen(opt + 2));
	static const char *how[] = { [SA_TEXT] = "@text", [SA_FILE] = "@file",
				     [SA_TOPOLOGY] = "@topology", [SA_BINDING] = "@binding",
				     [SA_MBIND] = "@mbind" };
	const char *words = o ? o->words : c->more_words ? c->more_words(opt) : NULL;
	if ((!o || o->kind == SA_NONE) && !words)
		return SBIND_EXIT_OK;  /* nothing: not an option with a value */
	if (words) {
		for (const char *w = words; *w; w++)
			putchar(*w == '|' ? ' ' : *w);
		putchar('\n');
	} else {
		puts(how[o->kind]);
	}
	return SBIND_EXIT_OK;
}

static void complete_options(const struct sbind_cmd *c)
{
	const char *sep = "";
	for (const struct sbind_opt *o = c->opts; o->name; o++, sep = " ")
		printf("%s--%s", sep, o->name);
	if (c->opts[0].name)
		printf(" --help");
	if (c->operands && strchr(c->operands, '|')) {
		printf("%s", sep);
		for (const char *w = c->operands; *w; w++)
			putchar(*w == '|' ? ' ' : *w);
	}
	putchar('\n');
}

int sbind_complete_table(int argc, char **argv)
{
	const struct sbind_cmd *c = argc >= 3 ? sbind_cmd_find(argv[2]) : NULL;
	if (argc == 2 && !strcmp(argv[1], "commands")) {
		const char *sep = "";
		for (c = sbind_cmds; c->name; c++, sep = " ")
			printf("%s%s", sep, c->name);
		putchar('\n');
		return SBIND_EXIT_OK;
	}
	if (argc == 3 && c && !strcmp(argv[1], "options")) {
		complete_options(c);
		return SBIND_EXIT_OK;
	}
	if (argc == 4 && c && !strcmp(argv[1], "value"))
		return complete_value(c, argv[3]);
	fprintf(stderr, "usage: sbind complete binding|mbind|commands | options COMMAND | "
		"value COMMAND OPTION\n");
	return SBIND_EXIT_USAGE;
}
