/* sbind: a node's topology, its current bindings, and what a request would
 * get. Its interface (commands, options, output formats, exit codes) is
 * relied on by tests and admins: keep it stable. */
#include <stdio.h>
#include <string.h>

#include "binding/request/request.h"
#include "binding/util/error.h"
#include "sbind.h"
#include "sbind_state.h"

static const char usage[] =
	"usage: sbind <command> [options]\n"
	"\n"
	"commands:\n"
	"  sbind topology [--topology SRC] [--mask STR] [--state DIR]\n"
	"        [--mem-reserve SIZE|N%] [--format sge|ocs|numa|uge|json]\n"
	"      the node's topology string; taken units (mask or state) in lower case;\n"
	"      json also lists the GPUs with their cpus and NUMA nodes;\n"
	"      uge: UGE's load values as qhost -F lists them (hl:m_topology=...)\n"
	"  sbind place --binding SPEC|--mbind SPEC [--mem SIZE [--mem-reserve SIZE|N%]]\n"
	"        [--tasks N] [--gpus LIST [--gpus-per-task N] [--gpu-bind SPEC]]\n"
	"        [--topology SRC] [--mask STR]\n"
	"        [--state DIR [--commit --job J --step S [--owner-pid PID]]]\n"
	"        [--format text|sge|ocs|json|rankfile [--host NAME] [--first-rank N]]\n"
	"      what a request would get (dry run), or record it with --commit\n"
	"  sbind rankfile [--output FILE] FILE...|-\n"
	"      one Open MPI rankfile from the nodes' rankfiles (- reads stdin;\n"
	"      every rank from 0 exactly once)\n"
	"  sbind submit [--binding SPEC] [--mbind SPEC] [--command srun|sbatch|salloc]\n"
	"        [--mode translate|refuse|off] [--slurm-conf PATH] [--format text|json]\n"
	"        [-n N] [-c N] ... | --list-options | --site\n"
	"      the Slurm options a request needs from the allocation, given the\n"
	"      user's (sbind submit --help lists them), or why it is refused;\n"
	"      --list-options: the Slurm option names it reads, one a line;\n"
	"      --site: the site's submit= and submit_error=\n"
	"  sbind gres-conf [--topology SRC] [--mem-reserve SIZE|N%] [--node-name NAME]\n"
	"        [--slurm-conf PATH] [--format gres|node-line]\n"
	"      this node's NUMA memory as Slurm's GRES numamem (plugstack numamem=yes):\n"
	"      its gres.conf lines, each NUMA node's memory less mem_reserve= with its\n"
	"      cores, and the node line's Gres= part\n"
	"  sbind status [--state DIR] [--topology SRC] [--format text|json]\n"
	"        [--job J [--node NAME | --all-nodes]]\n"
	"      current bindings on this node (suspended/deferred: since when, why);\n"
	"      --job: the job's receipt here, each step's request, binding, tasks and\n"
	"      history (NAME in it: the host's name by default); --all-nodes: from\n"
	"      every node the running job J has, by one srun step of the job that\n"
	"      asks for no binding (run as the job's owner), in the job's node order\n"
	"  sbind metrics [--state DIR] [--topology SRC] [--mem-reserve SIZE|N%] [--output FILE]\n"
	"      the node's binding state for Prometheus (text format): cores, threads and\n"
	"      memory held and free, steps by status, the counters; --output writes\n"
	"      node_exporter's textfile atomically\n"
	"  sbind draw [--state DIR] [--topology SRC] [--format xml|svg|png] [--output FILE]\n"
	"      the node's topology with each job's cores in its colour, waiting and\n"
	"      suspended steps marked, memory per NUMA node: an hwloc XML for lstopo,\n"
	"      or rendered by lstopo (svg, png)\n"
	"  sbind release --job J [--step S|batch|extern|interactive] [--state DIR]\n"
	"      drop records\n"
	"  sbind gc [--state DIR]\n"
	"      drop records of dead owners, and the rankfiles of steps that are gone\n"
	"  sbind complete binding|mbind\n"
	"      the words the shell completes after --binding and --mbind\n"
	"      (tools/sbind.bash-completion asks)\n"
	"  sbind --list keys|variables|strategies\n"
	"      the plugin's tables, one entry a line: plugstack.conf keys (name,\n"
	"      form, default, help; tab separated), the variables a task gets,\n"
	"      the --binding strategies\n"
	"  sbind --version\n"
	"      the version\n"
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

/* sbind complete binding|mbind: the words of the tables of strategies
 * and memory policies (request.h), so the completion never lists a word by
 * hand. */
static int cmd_complete(int argc, char **argv)
{
	char words[1024];
	int binding = argc == 2 && !strcmp(argv[1], "binding");
	if (argc != 2 || (!binding && strcmp(argv[1], "mbind"))) {
		fprintf(stderr, "usage: sbind complete binding|mbind\n");
		return SBIND_EXIT_USAGE;
	}
	if ((binding ? bnd_request_words(' ', words, sizeof(words))
		     : bnd_mbind_words(' ', words, sizeof(words))) != BND_OK) {
		fprintf(stderr, "sbind complete: the words do not fit\n");
		return SBIND_EXIT_ERROR;
	}
	printf("%s%s\n", binding ? "help " : "", words);
	return SBIND_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return SBIND_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		printf("\n%s\n%s", bnd_request_help(), bnd_mbind_help());
		return SBIND_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("sbind (spank-binding) %s\n", BND_VERSION);
		return SBIND_EXIT_OK;
	}
	if (!strcmp(cmd, "--list"))
		return sbind_cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "topology"))
		return sbind_cmd_topology(argc - 1, argv + 1);
	if (!strcmp(cmd, "place"))
		return sbind_cmd_place(argc - 1, argv + 1);
	if (!strcmp(cmd, "status"))
		return sbind_cmd_status(argc - 1, argv + 1);
	if (!strcmp(cmd, "release"))
		return sbind_cmd_release(argc - 1, argv + 1);
	if (!strcmp(cmd, "gc"))
		return sbind_cmd_gc(argc - 1, argv + 1);
	if (!strcmp(cmd, "rankfile"))
		return sbind_cmd_rankfile(argc - 1, argv + 1);
	if (!strcmp(cmd, "complete"))
		return cmd_complete(argc - 1, argv + 1);
	if (!strcmp(cmd, "submit"))
		return sbind_cmd_submit(argc - 1, argv + 1);
	if (!strcmp(cmd, "gres-conf"))
		return sbind_cmd_gres_conf(argc - 1, argv + 1);
	if (!strcmp(cmd, "metrics"))
		return sbind_cmd_metrics(argc - 1, argv + 1);
	if (!strcmp(cmd, "draw"))
		return sbind_cmd_draw(argc - 1, argv + 1);
	fprintf(stderr, "sbind: unknown command \"%s\" (expected topology, place, submit, gres-conf, rankfile, status, metrics, draw, release, gc or complete)\n", cmd);
	return SBIND_EXIT_USAGE;
}
