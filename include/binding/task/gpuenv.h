/* A task's GPUs in its environment and in its device cgroup.
 *
 * Slurm's gres/gpu sets SLURM_STEP_GPUS, CUDA_VISIBLE_DEVICES,
 * GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES and ZE_AFFINITY_MASK in every
 * task, each a list with one entry per GPU of the step, in the step's order
 * (the node's GRES indices, or 0, 1, ... under ConstrainDevices=yes). When
 * the plugin splits the step's GPUs among its tasks (step/stepgpu.h), a
 * task keeps the entries of its own GPUs, as --gpus-per-task would have set
 * them: "2,3" becomes "3" for the step's second GPU. A variable that is
 * unset, or whose list has not one entry per step GPU (the user changed
 * it), is left alone.
 *
 * Under ConstrainDevices=yes the task's device cgroup is the truth about
 * which GPUs it has: a device it may not open fails access(2) with EPERM
 * (the device controller answers permission checks, not only open), so
 * nothing is opened to ask.
 */
#ifndef BINDING_GPUENV_H
#define BINDING_GPUENV_H

#include <stdint.h>

#define BND_GPU_ENV_VARS 5
extern const char *const bnd_gpuenv_names[BND_GPU_ENV_VARS];

/* value narrowed to the entries whose bits are set in positions; *out is
 * malloc'd, or NULL when the variable is left alone. BND_OK or BND_ENOMEM. */
int bnd_gpuenv_narrow(const char *value, int nstep, uint64_t positions, char **out);

/* Of the n device files (bit j: files[j]; "" unknown), those the calling
 * process's device cgroup denies (EPERM from access(2)); *known gets the
 * files that could be asked at all. */
uint64_t bnd_gpuenv_denied(const char *const *files, int n, uint64_t *known);

#endif
