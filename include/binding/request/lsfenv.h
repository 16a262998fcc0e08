/* LSF's user interface to processor binding: a job script written for LSF
 * sets LSB_USER_BIND_JOB (and LSB_USER_BIND_CPU_LIST) in its environment
 * instead of passing an option. This turns those two variables into the
 * --binding request LSF would have made, so such scripts run unchanged.
 *
 *   LSB_USER_BIND_JOB   BALANCE, PACK, ANY -> balance:/pack:/any:<amount>
 *                       Y                  -> balance:<amount> (LSF: Y is BALANCE)
 *                       USER, USER_CPU_LIST-> cpus:<LSB_USER_BIND_CPU_LIST>
 *                       N, NONE            -> no request
 *                       anything else      -> any:<amount> (as LSF documents)
 *   LSB_USER_BIND_CPU_LIST alone           -> cpus:<list>
 * Values are matched case-insensitively; <amount> is the caller's (the
 * cores holding a task's CPUs).
 */
#ifndef BINDING_LSFENV_H
#define BINDING_LSFENV_H

#include <stddef.h>

/* Whether the variables ask for anything (either set, and not N/NONE). */
int bnd_lsf_user_wanted(const char *bind_job, const char *cpu_list);

/* The request text in buf. BND_EINVAL when USER/USER_CPU_LIST comes
 * without a list, or the text does not fit; err then says why. */
int bnd_lsf_user_request(const char *bind_job, const char *cpu_list, int amount,
			 char *buf, size_t buflen, char *err, size_t errlen);

#endif
