/* See slurm_compat.h. Each #if here names the release that changed the call. */
#include "slurm_compat.h"

#include <dlfcn.h>
#include <stdio.h>

#include <slurm/spank.h>

#define BND_SLURM_AT_LEAST(a, b) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, 0))

int bnd_slurm_load_job(job_info_msg_t **resp, uint32_t job, uint16_t show_flags)
{
#if BND_SLURM_AT_LEAST(26, 5)
	/* 26.05: jobs are named by a slurm_step_id_t (job id, or a SLUID). */
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;
	id.job_id = job;
	return slurm_load_job(resp, id, show_flags);
#else
	return slurm_load_job(resp, job, show_flags);
#endif
}

int bnd_slurm_user_sees_stepd_log(void)
{
	/* 24.11: "Use of --slurmd-debug is allowed only for root and SlurmUser". */
	return !BND_SLURM_AT_LEAST(24, 11);
}

const char *bnd_slurm_built_for(void)
{
	static char v[16];
	if (!v[0])
		snprintf(v, sizeof(v), "%u.%02u", (unsigned)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
			 (unsigned)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
	return v;
}

/* A plugin runs only in the release it was built for: Slurm refuses any
 * other after dlopen, naming the plugin's release but not the cure
 * ("Incompatible Slurm plugin ... version (22.05.8)"). This runs at dlopen,
 * before that check, and says what to do. The running release's libslurm
 * API (slurm_api_version(), whose major is libslurm's soname) is compared
 * with the one the build linked against (BND_SLURM_API, from the Makefile);
 * 0 when the build could not tell. */
#ifndef BND_SLURM_API
#define BND_SLURM_API 0
#endif

__attribute__((constructor)) static void bnd_slurm_check_release(void)
{
	long (*api)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "slurm_api_version");
	if (!api || !BND_SLURM_API)
		return;
	long running = (api() >> 16) & 0xff;
	if (running == BND_SLURM_API)
		return;
	slurm_error("spank-binding: built for Slurm %s (libslurm API %d), but this Slurm's API is %ld: "
		    "rebuild spank-binding with this release's libslurm-dev, or install its package "
		    "built for this release", bnd_slurm_built_for(), BND_SLURM_API, running);
}
