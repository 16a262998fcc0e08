/* The Slurm API calls of the glue whose form differs between the Slurm
 * releases the plugin supports (22.05, 24.11, 26.05): the one place that
 * knows, keyed by SLURM_VERSION_NUMBER. docs/slurm-releases.md lists each
 * difference and the release that made it. Only spank_binding.c includes
 * this; lib/ has no Slurm header at all.
 */
#ifndef BND_SLURM_COMPAT_H
#define BND_SLURM_COMPAT_H

#include <stddef.h>
#include <stdint.h>

#include <slurm/slurm.h>

/* slurm_load_job for one job id (26.05 takes a slurm_step_id_t). */
int bnd_slurm_load_job(job_info_msg_t **resp, uint32_t job, uint16_t show_flags);

/* The job's GRES detail on the node named node (slurm_load_job's
 * gres_detail_str with SHOW_DETAIL, one string per node in the order of
 * the job's node list; that list is found with Slurm's hostlist, whose
 * type became a struct pointer in 24.11): a malloc'd copy, "" when the job
 * has no GRES there; NULL with err set when slurmctld does not answer or
 * the node is not the job's. */
char *bnd_slurm_job_node_gres(uint32_t job, const char *node, char *err, size_t errlen);

/* Whether a user's `srun --slurmd-debug` brings slurmstepd's log lines to
 * srun's stderr (before 24.11; since, only root's and SlurmUser's). */
int bnd_slurm_user_sees_stepd_log(void);

/* The release the plugin was built for, "22.05". */
const char *bnd_slurm_built_for(void);

#endif
