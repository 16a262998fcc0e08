/* What a step's GPUs come from: the user's step environment
 * (SLURM_STEP_GPUS, SLURM_GPU_BIND, SLURM_GPUS_PER_TASK,
 * SLURM_NTASKS_PER_GPU), the task's visible-device variables, the site's
 * gpu_devices= map and gres.conf.
 *
 * The first input byte: bits 0-2 the number of tasks - 1, bit 3
 * ConstrainDevices, bit 4 a GPU-aware request; the rest is lines: the four
 * variables, a visible-device value, a gpu_devices= value, then gres.conf.
 * Properties: no crash or undefined behaviour; every task's GPUs are among
 * the step's; texts are terminated; a narrowed variable keeps only entries
 * of the value, in order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding/step/slurmconf.h"
#include "binding/step/stepgpu.h"
#include "binding/task/gpuenv.h"
#include "binding/topology/gpudev.h"
#include "binding/topology/topogpu.h"
#include "binding/util/error.h"
#include "fuzz.h"

static struct bnd_topology *topo;

/* Four GPUs, one per package, as hwloc reports an APU node's. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_seed_dir()) {
		static const char s1[] = "\x11" "0,2\nper_task:1\n\n\n0,2\n/x/fakegpu0=0000:02:00.0\n"
					 "Name=gpu File=/x/fakegpu[0-3]\n";
		static const char s2[] = "\x0b" "0-3\nmap_gpu:1*2,0,3\n1\n\n0,1,2,3\n\nAutoDetect=rsmi\n";
		fuzz_write_seed(fuzz_seed_dir(), "s1", s1, sizeof(s1) - 1);
		fuzz_write_seed(fuzz_seed_dir(), "s2", s2, sizeof(s2) - 1);
		exit(0);
	}
	topo = fuzz_topology("pack:4 core:4 pu:2");
	topo->gpus = calloc(4, sizeof(*topo->gpus));
	FUZZ_CHECK(topo->gpus, "out of memory");
	for (int g = 0; g < 4; g++) {
		struct bnd_gpu *d = &topo->gpus[g];
		snprintf(d->busid, sizeof(d->busid), "%04x:02:00.0", g);
		snprintf(d->names, sizeof(d->names), "rsmi%d renderD%d", g, 128 + g);
		d->vendor = 0x1002;
		d->device = 0x74a0;
		d->pci_class = 0x1200;
		d->compute = 1;
		d->core_first = 4 * g;
		d->core_count = 4;
		d->mem_numa = -1;
	}
	topo->ngpus = 4;
	FUZZ_CHECK(bnd_topogpu_fill_sets(topo) == BND_OK, "gpu sets");
	return 0;
}

/* The next line of *p (NUL-terminated, modified in place), "" at the end. */
static char *line(char **p)
{
	char *s = *p, *nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

static void narrowed(const char *value, int n, uint64_t pos)
{
	char *out = NULL;
	FUZZ_CHECK(bnd_gpuenv_narrow(value, n, pos, &out) == BND_OK, "narrow");
	if (!out)
		return;
	/* Every entry kept is an entry of the value. */
	char *save = NULL, *copy = strdup(out);
	for (char *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save))
		FUZZ_CHECK(strstr(value, e), "\"%s\" is not in \"%s\"", e, value);
	free(copy);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	char *text = fuzz_cstr(data + 1, size - 1), *p = text, err[BND_ERRLEN] = "";
	struct bnd_step_gpu_in in;
	in.step_gpus = line(&p);
	in.gpu_bind = line(&p);
	in.gpus_per_task = line(&p);
	in.ntasks_per_gpu = line(&p);
	const char *visible = line(&p), *devices = line(&p);
	struct bnd_gpu_devmap map;
	memset(&map, 0, sizeof(map));
	if (bnd_gpu_devmap_add(&map, devices, err, sizeof(err)) != BND_OK)
		fuzz_check_err(err, sizeof(err), "gpu_devices");
	struct bnd_gres_gpus *gres = calloc(1, sizeof(*gres));
	FUZZ_CHECK(gres, "out of memory");
	if (bnd_gresconf_parse(p, "n1", gres, err, sizeof(err)) != BND_OK)
		fuzz_check_err(err, sizeof(err), "gres.conf");
	FUZZ_CHECK(gres->n >= 0 && gres->n <= BND_MAX_GPUS, "gres %d files", gres->n);
	struct bnd_step_gpu_ctx ctx = { .t = topo, .gres = gres, .map = &map,
					.constrain_devices = (data[0] >> 3) & 1,
					.may_split = (data[0] >> 4) & 1 };
	int ntasks = 1 + (data[0] & 7);
	struct bnd_step_gpus g;
	FUZZ_CHECK(bnd_step_gpus_learn(&in, &ctx, ntasks, &g) == BND_OK, "learn");
	FUZZ_CHECK(g.n >= 0 && g.n <= BND_MAX_GPUS, "%d GPUs", g.n);
	FUZZ_CHECK(strnlen(g.how, sizeof(g.how)) < sizeof(g.how) &&
		   strnlen(g.problem, sizeof(g.problem)) < sizeof(g.problem), "texts");
	uint64_t all = g.n >= 64 ? ~0ull : (1ull << g.n) - 1;
	for (int t = 0; t < ntasks; t++) {
		uint64_t pos = bnd_step_gpus_of_task(&g, t, 0);
		FUZZ_CHECK(!(pos & ~all), "task %d has a GPU the step has not", t);
		FUZZ_CHECK(!(bnd_step_gpus_mask(&g, pos) & ~0xfull), "a GPU the node has not");
		char list[256];
		bnd_step_gpus_list(&g, topo, pos, list, sizeof(list));
		FUZZ_CHECK(strnlen(list, sizeof(list)) < sizeof(list), "list");
		narrowed(visible, g.n, pos);
	}
	bnd_step_gpus_free(&g);
	free(gres);
	free(text);
	return 0;
}
