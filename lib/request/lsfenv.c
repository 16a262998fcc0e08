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

static int is_user(const char *job)
{
	return !strcasecmp(job, "USER") || !strcasecmp(job, "USER_CPU_LIST");
}

int bnd_lsf_user_wanted(const char *bind_job, const char *cpu_list)
{
	if (set(bind_job))
		return !is_none(bind_job);
	return set(cpu_list);
}

int bnd_lsf_user_request(const char *bind_job, const char *cpu_list, int amount,
			 char *buf, size_t buflen, char *err, size_t errlen)
{
	const char *policy = NULL;
	int n;
	if (!buf || !buflen)
		return bnd_fail(err, errlen, BND_EINVAL, "LSB_USER_BIND_JOB: no buffer");
	buf[0] = '\0';
	if (!bnd_lsf_user_wanted(bind_job, cpu_list))
		return BND_OK;
	if (!set(bind_job) || is_user(bind_job)) {
		if (!set(cpu_list))
			return bnd_fail(err, errlen, BND_EINVAL,
					"LSB_USER_BIND_JOB=%s needs LSB_USER_BIND_CPU_LIST (a list "
					"like 0,5,7,9-11)", bind_job);
		n = snprintf(buf, buflen, "cpus:%s", cpu_list);
	} else {
		if (!strcasecmp(bind_job, "BALANCE") || !strcasecmp(bind_job, "Y"))
			policy = "balance";
		else if (!strcasecmp(bind_job, "PACK"))
			policy = "pack";
		else
			policy = "any";
		n = snprintf(buf, buflen, "%s:%d", policy, amount < 1 ? 1 : amount);
	}
	if (n < 0 || (size_t)n >= buflen) {
		buf[0] = '\0';
		return bnd_fail(err, errlen, BND_EINVAL,
				"LSB_USER_BIND_CPU_LIST is longer than a request may be");
	}
	return BND_OK;
}
