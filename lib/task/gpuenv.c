/* The visible-device variables of a task, and its device cgroup
 * (gpuenv.h). */
#include "binding/task/gpuenv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/util/error.h"

const char *const bnd_gpuenv_names[BND_GPU_ENV_VARS] = {
	"SLURM_STEP_GPUS", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
	"ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
};

static int entries(const char *v)
{
	int n = 1;
	for (const char *p = v; *p; p++)
		n += *p == ',';
	return n;
}

int bnd_gpuenv_narrow(const char *value, int nstep, uint64_t positions, char **out)
{
	*out = NULL;
	if (!value || !*value || nstep < 1 || nstep > 64 || entries(value) != nstep)
		return BND_OK;
	/* Not a list Slurm wrote (a value too long to read comes as a marker). */
	for (const char *p = value; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == ' ')
			return BND_OK;
	char *buf = malloc(strlen(value) + 1);
	if (!buf)
		return BND_ENOMEM;
	size_t used = 0;
	const char *p = value;
	for (int j = 0; j < nstep; j++) {
		size_t n = strcspn(p, ",");
		if ((positions >> j) & 1) {
			if (used)
				buf[used++] = ',';
			memcpy(buf + used, p, n);
			used += n;
		}
		p += n + (p[n] == ',');
	}
	buf[used] = '\0';
	*out = buf;
	return BND_OK;
}

uint64_t bnd_gpuenv_denied(const char *const *files, int n, uint64_t *known)
{
	uint64_t denied = 0;
	*known = 0;
	for (int j = 0; j < n && j < 64; j++) {
		if (!files[j] || !files[j][0])
			continue;
		if (access(files[j], R_OK | W_OK) == 0) {
			*known |= 1ull << j;
		} else if (errno == EPERM) {
			*known |= 1ull << j;
			denied |= 1ull << j;
		}
	}
	return denied;
}
