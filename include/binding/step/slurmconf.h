/* What Slurm's node configuration says about GPUs, read the way slurmd
 * reads it (Slurm 22.05), without Slurm's headers:
 *
 *   gres.conf   the node's GPU device files in GRES index order: the
 *               Name=gpu lines that apply to this node (no NodeName=, or
 *               one whose host list names it), File= expanded ("/dev/
 *               nvidia[0-3]", "a,b"), then ordered as slurmd orders them:
 *               by file name in natural order ("nvidia2" before
 *               "nvidia10"), or, when every GPU has Links=, by the place
 *               of -1 in its links (NVML's enumeration, PCI bus order).
 *               AutoDetect=nvml|rsmi|oneapi without File= lines: no files;
 *               the GPUs are then that vendor's, in PCI bus order (step
 *               GPUs, stepgpu.h, maps them through the topology);
 *   cgroup.conf ConstrainDevices=yes: Slurm then numbers --gpu-bind=map_gpu
 *               and mask_gpu values within the step's GPUs.
 */
#ifndef BINDING_SLURMCONF_H
#define BINDING_SLURMCONF_H

#include <stddef.h>

#include "binding/topology/gpudev.h"
#include "binding/topology/topology.h"

struct bnd_gres_gpus {
	int n;                                        /* device files found */
	char file[BND_MAX_GPUS][BND_GPU_DEVPATH_LEN]; /* in GRES index order */
	char autodetect[16];                          /* "nvml", "rsmi", "oneapi", "" */
};

/* gres.conf text -> the GPUs of node `node`. BND_EINVAL names a bad line
 * (more than BND_MAX_GPUS files, a File= that does not expand). */
int bnd_gresconf_parse(const char *text, const char *node, struct bnd_gres_gpus *out,
		       char *err, size_t errlen);

/* The same from a file; a missing file is no GPU and no error. */
int bnd_gresconf_read(const char *path, const char *node, struct bnd_gres_gpus *out,
		      char *err, size_t errlen);

/* cgroup.conf's ConstrainDevices (0 when the file or the key is absent). */
int bnd_cgroupconf_constrain_devices(const char *path);

/* The directory of Slurm's config files: dirname of slurm_conf (the
 * daemon's SLURM_CONF), else /etc/slurm. */
void bnd_slurmconf_dir(const char *slurm_conf, char *buf, size_t len);

#endif
