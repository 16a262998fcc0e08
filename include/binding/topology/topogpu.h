/* The node's GPUs and their locality, from hwloc's I/O discovery.
 *
 * A GPU is a PCI device of a display (0x03), processing-accelerator (0x12)
 * or co-processor (0x0b40) class, or one carrying a GPU or co-processor OS
 * device (cuda*, nvml*, rsmi*, opencl*, ze*, card*, renderD*); an OS device
 * of those kinds without a PCI device (Apple's opencl0d0) is one too, with
 * no bus id. A display controller without a compute or render device (a
 * BMC's VGA) is kept with compute = 0: a site may still name it as a GPU
 * (gpudev.h), which is how the guest node's tests place fake devices.
 *
 * Locality is hwloc's: the cpus of the device's nearest non-I/O ancestor,
 * kept as that subtree's range of cores. A GPU's NUMA nodes are the
 * nearest nodes of those cores and its own memory node, a CPU-less node
 * hwloc names GPUMemory with the GPU's PCIBusID (POWER9 + V100, Grace
 * Hopper); on an APU (MI300A) the GPU shares its package's node, which is
 * then simply the node of its cores. Nothing here reads /sys or /proc.
 */
#ifndef BINDING_TOPOGPU_H
#define BINDING_TOPOGPU_H

#include <stddef.h>

#include "binding/topology/topology.h"

struct hwloc_topology;

/* Reads the GPUs of a loaded hwloc topology (with I/O) into t, whose
 * cores and NUMA nodes are already flattened. BND_OK, BND_ENOMEM, or
 * BND_EINVAL for more than BND_MAX_GPUS GPUs. */
int bnd_topogpu_load(struct hwloc_topology *topo, struct bnd_topology *t, char *err,
		     size_t errlen);

/* Allocates and fills t->gpu_cpus and t->gpu_numa from the GPUs' core
 * ranges and memory nodes. BND_OK or BND_ENOMEM. */
int bnd_topogpu_fill_sets(struct bnd_topology *t);

/* The GPU records' invariants (ranges, indices, terminated strings): the
 * guard for records read from the cache. */
int bnd_topogpu_validate(const struct bnd_topology *t, char *err, size_t errlen);

/* A PCI bus id in the form topologies keep: lower-case
 * "dddd:bb:dd.f". Accepts "bb:dd.f" (domain 0) and the 8-digit domain
 * nvidia-smi prints ("00000000:34:00.0"). BND_EINVAL names the text. */
int bnd_gpu_busid_normalize(const char *in, char out[BND_GPU_BUSID_LEN], char *err,
			    size_t errlen);

/* Index of the GPU named by an hwloc OS device name ("cuda0", "nvml3",
 * "rsmi2", "renderD128") or a PCI bus id (any form above); -1 if none. */
int bnd_gpu_find(const struct bnd_topology *t, const char *name);

/* The GPU's name for messages, written into buf (returned): an OS device
 * name, the vendor library's first (cuda, nvml, rsmi, ze, opencl, then
 * renderD, card), else its bus id ("nvml3", "0000:00:05.0"). */
#define BND_GPU_LABEL_LEN 32
const char *bnd_gpu_label(const struct bnd_topology *t, int gpu, char *buf, size_t len);

#endif
