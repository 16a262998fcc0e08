/* See slurm_compat.h. Each #if here names the release that changed the call. */
#include "slurm_compat.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#if BND_SLURM_AT_LEAST(24, 11)
typedef hostlist_t *bnd_hostlist;   /* 24.11: hostlist_t is the struct */
#else
typedef hostlist_t bnd_hostlist;    /* 22.05: hostlist_t is a pointer */
#endif

/* Index of node in the job's node list, -1 when it is not there. */
static int node_index(const char *nodes, const char *node)
{
	bnd_hostlist hl = nodes ? slurm_hostlist_create(nodes) : NULL;
	if (!hl)
		return -1;
	int i = slurm_hostlist_find(hl, node);
	slurm_hostlist_destroy(hl);
	return i;
}

char *bnd_slurm_job_node_gres(uint32_t job, const char *node, char *err, size_t errlen)
{
	job_info_msg_t *m = NULL;
	char *out = NULL;
	if (bnd_slurm_load_job(&m, job, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS || !m) {
		snprintf(err, errlen, "slurm_load_job(%u): %s", job, slurm_strerror(errno));
		return NULL;
	}
	for (uint32_t r = 0; r < m->record_count && !out; r++) {
		const slurm_job_info_t *j = &m->job_array[r];
		int i = j->job_id == job ? node_index(j->nodes, node) : -1;
		if (i < 0)
			continue;
		const char *d = (uint32_t)i < j->gres_detail_cnt && j->gres_detail_str
				? j->gres_detail_str[i] : NULL;
		out = strdup(d ? d : "");
	}
	if (!out)
		snprintf(err, errlen, "job %u has no node %s (or out of memory)", job, node);
	slurm_free_job_info_msg(m);
	return out;
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
