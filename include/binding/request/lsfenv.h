/* LSF's user interface to processor binding: a job script written for LSF
 * sets LSB_USER_BIND_JOB (or LSB_USER_BIND_CPU_LIST) in its environment
 * instead of passing an option. This turns those two variables into the
 * --binding request LSF would have made, so such scripts run unchanged.
 *
 * In LSF the admin's BIND_JOB decides which of the two is read: USER reads
 * LSB_USER_BIND_JOB, USER_CPU_LIST reads the list. Here both are read, as
 * if the admin allowed both, and a list, when given, wins (it is the more
 * precise request):
 *   LSB_USER_BIND_CPU_LIST set            -> cpus:<list>
 *   else LSB_USER_BIND_JOB
 *     BALANCE, Y                          -> balance:<amount> (LSF: Y is BALANCE)
 *     PACK, ANY                           -> pack:/any:<amount>
 *     N, NONE                             -> no request
 *     anything else (USER, USER_CPU_LIST) -> any:<amount> ("any other value
 *                                            is ANY", as LSF documents; those
 *                                            two are the admin's values)
 * Values are matched case-insensitively; <amount> is the caller's (the
 * cores holding a task's CPUs).
 */
#ifndef BINDING_LSFENV_H
#define BINDING_LSFENV_H

#include <stddef.h>

/* Whether the variables ask for anything (a list, or LSB_USER_BIND_JOB
 * set and not N/NONE). */
int bnd_lsf_user_wanted(const char *bind_job, const char *cpu_list);

/* The request text in buf (empty when nothing is asked). BND_EINVAL when
 * the text does not fit; err then says why. */
int bnd_lsf_user_request(const char *bind_job, const char *cpu_list, int amount,
			 char *buf, size_t buflen, char *err, size_t errlen);

#endif
