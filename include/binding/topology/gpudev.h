/* Which GPU a device file is: its PCI bus id, from the site's word or the
 * driver's own record, never from an index.
 *
 * Slurm hands out GPUs as device files (gres.conf File=, /dev/nvidia3,
 * /dev/dri/renderD130); the topology knows GPUs by PCI bus id
 * (topogpu.h). The bus id of a device file comes from, in this order:
 *   1. the site's map (plugstack.conf gpu_devices=PATH=BUSID,...), for
 *      hardware whose driver does not say, and for tests' fake devices;
 *      a path matches by name or by being the same character device;
 *   2. NVIDIA (character major 195): the driver's record of each GPU,
 *      /proc/driver/nvidia/gpus/<bus id>/information, whose "Device
 *      Minor:" is the file's minor number;
 *   3. any other character device with a PCI device behind it (DRM card*
 *      and renderD*, accel): the sysfs link /sys/dev/char/<maj>:<min>/device,
 *      whose target is the PCI device's directory, named by its bus id.
 * These are the drivers' records of which device a minor number is, not
 * topology: locality still comes from hwloc alone.
 */
#ifndef BINDING_GPUDEV_H
#define BINDING_GPUDEV_H

#include <stddef.h>

#include "binding/topology/topology.h"

#define BND_GPU_DEVPATH_LEN 192

struct bnd_gpu_devmap {
	int n;
	struct {
		char path[BND_GPU_DEVPATH_LEN];
		char busid[BND_GPU_BUSID_LEN];
	} e[BND_MAX_GPUS];
};

/* Adds "PATH=BUSID[,PATH=BUSID...]" (absolute paths without ',', bus ids
 * as topogpu.h accepts them) to m. BND_EINVAL names the bad entry; m is
 * then unchanged. */
int bnd_gpu_devmap_add(struct bnd_gpu_devmap *m, const char *text, char *err, size_t errlen);

/* "PATH=BUSID,..." of m, for the settings line. */
int bnd_gpu_devmap_text(const struct bnd_gpu_devmap *m, char *buf, size_t buflen);

/* Where the drivers' records live: "/proc" and "/sys" (tests give trees
 * of their own). */
struct bnd_gpudev_roots {
	const char *proc, *sys;
};

/* The bus id of the device file at path (rules above). how (may be NULL)
 * says which rule answered ("site map", "NVIDIA driver", "sysfs").
 * BND_EINVAL when no rule knows the file, with what was tried. */
int bnd_gpudev_busid(const struct bnd_gpu_devmap *m, const struct bnd_gpudev_roots *roots,
		     const char *path, char busid[BND_GPU_BUSID_LEN], const char **how, char *err,
		     size_t errlen);

#endif
