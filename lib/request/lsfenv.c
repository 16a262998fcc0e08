#include "binding/request/lsfenv.h"

#include <stdio.h>
#include <strings.h>

#include "binding/util/error.h"

static int set(const char *v)
{
	return v && *v;
}

static int is_none(const char *job)
{
	return !strcasecmp(job, "N") || !strcasecmp(job, "NONE");
}

int bnd_lsf_user_wanted(const char *bind_job, const char *cpu_list)
{
	return set(cpu_list) || (set(bind_job) && !is_none(bind_job));
}

/* LSB_USER_BIND_JOB's policy: the LSF document's values, any other one
 * (USER and USER_CPU_LIST too: the admin's values) is ANY. */
static const char *policy_of(const char *job)
{
	if (!strcasecmp(job, "BALANCE") || !strcasecmp(job, "Y"))
		return "balance";
	if (!strcasecmp(job, "PACK"))
		return "pack";
	return "any";
}

int bnd_lsf_user_request(const char *bind_job, const char *cpu_list, int amount,
			 char *buf, size_t buflen, char *err, size_t errlen)
{
	int n;
	if (!buf || !buflen)
		return bnd_fail(err, errlen, BND_EINVAL, "LSB_USER_BIND_JOB: no buffer");
	buf[0] = '\0';
	if (!bnd_lsf_user_wanted(bind_job, cpu_list))
		return BND_OK;
	if (set(cpu_list))
		n = snprintf(buf, buflen, "cpus:%s", cpu_list);
	else
		n = snprintf(buf, buflen, "%s:%d", policy_of(bind_job), amount < 1 ? 1 : amount);
	if (n < 0 || (size_t)n >= buflen) {
		buf[0] = '\0';
		return bnd_fail(err, errlen, BND_EINVAL,
				"LSB_USER_BIND_CPU_LIST is longer than a request may be");
	}
	return BND_OK;
}
