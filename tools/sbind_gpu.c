/* sbind's GPUs: the topology's list (topology --format json), and a dry
 * run's --gpus LIST turned into each task's GPUs by the plugin's own rules
 * (step/stepgpu.h) and shown per task (place). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/placement/near.h"
#include "binding/step/stepgpu.h"
#include "binding/topology/topogpu.h"
#include "binding/util/error.h"
#include "sbind.h"

static json_t *os_nodes(const struct bnd_topology *t, const bnd_nodeset_t *idx)
{
	json_t *a = json_array();
	for (int k = bnd_nodeset_next(idx, -1); a && k >= 0; k = bnd_nodeset_next(idx, k))
		json_array_append_new(a, json_integer(t->numa_os[k]));
	return a;
}

static json_t *names(const char *list)
{
	json_t *a = json_array();
	char buf[BND_GPU_NAMES_LEN];
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *w = strtok_r(buf, " ", &save); a && w; w = strtok_r(NULL, " ", &save))
		json_array_append_new(a, json_string(w));
	return a;
}

json_t *sbind_gpus_json(const struct bnd_topology *t)
{
	json_t *a = json_array();
	for (int g = 0; a && g < t->ngpus; g++) {
		const struct bnd_gpu *d = &t->gpus[g];
		char cpus[BND_CPULIST_TEXT], label[BND_GPU_LABEL_LEN], id[16] = "", cls[8] = "";
		bnd_cpuset_format_list(&t->gpu_cpus[g], cpus, sizeof(cpus));
		if (d->vendor >= 0)
			snprintf(id, sizeof(id), "%04x:%04x", d->vendor & 0xffff, d->device & 0xffff);
		if (d->pci_class >= 0)
			snprintf(cls, sizeof(cls), "%04x", d->pci_class & 0xffff);
		bnd_nodeset_t host;
		bnd_near_host_numa(t, 1ull << g, &host);
		json_array_append_new(a, json_pack(
			"{s:i, s:s, s:s, s:o, s:s, s:s, s:b, s:s, s:o, s:i}", "gpu", g,
			"label", bnd_gpu_label(t, g, label, sizeof(label)), "busid", d->busid,
			"osdev", names(d->names), "pci_id", id, "pci_class", cls,
			"compute", d->compute, "cpus", cpus, "numa_nodes", os_nodes(t, &host),
			"memory_node", d->mem_numa >= 0 ? t->numa_os[d->mem_numa] : -1));
	}
	return a;
}

/* --gpus LIST: the step's GPUs in task order, by OS device name or bus id. */
int sbind_gpus_parse(const struct bnd_topology *t, const char *list, int *topo, int *n)
{
	char buf[4096];
	*n = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int g = bnd_gpu_find(t, w);
		if (g < 0 || *n >= BND_MAX_GPUS) {
			char all[2048] = "";
			bnd_near_labels(t, t->ngpus >= 64 ? ~0ull : (1ull << t->ngpus) - 1, all,
					sizeof(all));
			fprintf(stderr, "sbind place: --gpus: \"%s\" is %s (expected OS device names or "
				"PCI bus ids of this topology's GPUs: %s)\n", w,
				g < 0 ? "no GPU of this topology" : "one too many", all[0] ? all : "none");
			return SBIND_EXIT_USAGE;
		}
		topo[(*n)++] = g;
	}
	if (!*n) {
		fprintf(stderr, "sbind place: --gpus: empty list\n");
		return SBIND_EXIT_USAGE;
	}
	return SBIND_EXIT_OK;
}

/* Each task's GPUs as the plugin would learn them for a step with these
 * GPUs (and --gpus-per-task / --gpu-bind), as masks of topology GPUs;
 * *how says by which rule. */
int sbind_gpus_tasks(const struct bnd_topology *t, const int *topo, int n, int ntasks,
		     const char *gpus_per_task, const char *gpu_bind, int gpu_aware,
		     uint64_t *masks, char *how, size_t howlen)
{
	char idx[512] = "";
	for (int i = 0; i < n; i++)
		snprintf(idx + strlen(idx), sizeof(idx) - strlen(idx), "%s%d", i ? "," : "", i);
	struct bnd_step_gpu_in in = { idx, gpu_bind, gpus_per_task, NULL };
	struct bnd_step_gpu_ctx ctx = { .t = t, .may_split = gpu_aware, .topo_of_gres = topo,
					.ntopo_of_gres = n };
	struct bnd_step_gpus g;
	if (bnd_step_gpus_learn(&in, &ctx, ntasks, &g) != BND_OK)
		return SBIND_EXIT_ERROR;
	for (int p = 0; p < ntasks; p++)
		masks[p] = bnd_step_gpus_mask(&g, bnd_step_gpus_of_task(&g, p, 0));
	snprintf(how, howlen, "%s", g.how);
	bnd_step_gpus_free(&g);
	return SBIND_EXIT_OK;
}

/* A task's GPUs (labels), its NUMA nodes and its GPUs' for the JSON. */
void sbind_gpus_task_json(const struct bnd_topology *t, const struct bnd_task_place *tp,
			  json_t *task)
{
	bnd_nodeset_t mine, gpu;
	bnd_topology_numa_of_cpus(t, &tp->cpus, &mine);
	json_t *numa = json_array(), *gpus = json_array(), *bus = json_array();
	for (int k = bnd_nodeset_next(&mine, -1); numa && k >= 0; k = bnd_nodeset_next(&mine, k))
		json_array_append_new(numa, json_integer(k));
	for (int g = 0; g < t->ngpus && gpus && bus; g++)
		if ((tp->gpus >> g) & 1) {
			char l[BND_GPU_LABEL_LEN];
			json_array_append_new(gpus, json_string(bnd_gpu_label(t, g, l, sizeof(l))));
			json_array_append_new(bus, json_string(t->gpus[g].busid));
		}
	bnd_near_host_numa(t, tp->gpus, &gpu);
	json_object_set_new(task, "numa_nodes", numa);
	json_object_set_new(task, "gpus", gpus);
	json_object_set_new(task, "gpu_busids", bus);
	json_object_set_new(task, "gpu_numa_nodes", os_nodes(t, &gpu));
	json_object_set_new(task, "local_cores", json_integer(tp->nlocal));
}
