#include "binding/task/apply.h"

#include <errno.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "binding/util/error.h"

/* Node masks as the kernel wants them: an unsigned long bitmap. Sized like
 * a cpuset (4096 bits), far above any kernel's MAX_NUMNODES in use, so
 * get_mempolicy never refuses the buffer as too small. */
#define NODE_BITS BND_MAX_CPUS
#define LBITS (8 * sizeof(unsigned long))
#define NODE_WORDS (NODE_BITS / LBITS)

#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY 5
#endif
#ifndef MPOL_LOCAL
#define MPOL_LOCAL 4
#endif

int bnd_apply_affinity(pid_t pid, const bnd_cpuset_t *cpus, char *err, size_t errlen)
{
	if (!cpus || bnd_cpuset_empty(cpus))
		return bnd_fail(err, errlen, BND_EINVAL, "affinity: empty cpu set");
	int max = -1;
	for (int c = bnd_cpuset_next(cpus, -1); c >= 0; c = bnd_cpuset_next(cpus, c))
		max = c;
	cpu_set_t *set = CPU_ALLOC((size_t)max + 1);
	if (!set)
		return bnd_fail(err, errlen, BND_ENOMEM, "affinity: out of memory");
	size_t sz = CPU_ALLOC_SIZE((size_t)max + 1);
	CPU_ZERO_S(sz, set);
	for (int c = bnd_cpuset_next(cpus, -1); c >= 0; c = bnd_cpuset_next(cpus, c))
		CPU_SET_S((size_t)c, sz, set);
	int rc = sched_setaffinity(pid, sz, set);
	int e = errno;
	CPU_FREE(set);
	if (rc) {
		char list[256] = "";
		bnd_cpuset_format_list(cpus, list, sizeof(list));
		return bnd_fail(err, errlen, BND_ESYS, "sched_setaffinity(cpus %s): %s%s", list,
				strerror(e),
				e == EINVAL ? " (cpus outside the task's cpuset?)" : "");
	}
	return BND_OK;
}

int bnd_affinity_get(pid_t pid, bnd_cpuset_t *out, char *err, size_t errlen)
{
	/* Sized for the library's limit, not glibc's 1024-CPU cpu_set_t: the
	 * kernel refuses a mask smaller than its possible CPUs. */
	cpu_set_t *set = CPU_ALLOC(BND_MAX_CPUS);
	size_t sz = CPU_ALLOC_SIZE(BND_MAX_CPUS);
	bnd_cpuset_zero(out);
	if (!set)
		return bnd_fail(err, errlen, BND_ENOMEM, "affinity: out of memory");
	CPU_ZERO_S(sz, set);
	if (sched_getaffinity(pid, sz, set)) {
		int e = errno;
		CPU_FREE(set);
		return bnd_fail(err, errlen, BND_ESYS, "sched_getaffinity: %s", strerror(e));
	}
	for (int c = 0; c < BND_MAX_CPUS; c++)
		if (CPU_ISSET_S((size_t)c, sz, set))
			bnd_cpuset_set(out, c);
	CPU_FREE(set);
	return BND_OK;
}

static void to_mask(const bnd_nodeset_t *nodes, unsigned long *mask)
{
	memset(mask, 0, NODE_WORDS * sizeof(*mask));
	for (int n = bnd_nodeset_next(nodes, -1); n >= 0; n = bnd_nodeset_next(nodes, n))
		mask[(size_t)n / LBITS] |= 1UL << ((size_t)n % LBITS);
}

static void from_mask(const unsigned long *mask, bnd_nodeset_t *nodes)
{
	bnd_nodeset_zero(nodes);
	for (size_t n = 0; n < NODE_BITS; n++)
		if (mask[n / LBITS] & (1UL << (n % LBITS)))
			bnd_nodeset_set(nodes, (int)n);
}

static void describe(char *desc, size_t desclen, const char *mode, const bnd_nodeset_t *nodes)
{
	char list[256] = "";
	if (!desc || !desclen)
		return;
	if (nodes && bnd_nodeset_format_list(nodes, list, sizeof(list)) != BND_OK)
		snprintf(list, sizeof(list), "...");
	if (nodes)
		snprintf(desc, desclen, "%s:%s", mode, list);
	else
		snprintf(desc, desclen, "%s", mode);
}

static int set_policy(int mode, const bnd_nodeset_t *nodes)
{
	unsigned long mask[NODE_WORDS];
	to_mask(nodes, mask);
	return (int)set_mempolicy(mode, mask, NODE_BITS + 1);
}

int bnd_apply_mempolicy(const struct bnd_topology *t, enum bnd_mbind mbind,
			const bnd_cpuset_t *cpus, char *desc, size_t desclen,
			char *err, size_t errlen)
{
	bnd_nodeset_t nodes;
	unsigned long mask[NODE_WORDS];

	if (desc && desclen)
		desc[0] = '\0';
	switch (mbind) {
	case BND_M_NONE:
		describe(desc, desclen, "default", NULL);
		return BND_OK;
	case BND_M_NLOCAL:
	case BND_M_GPU:
		return bnd_fail(err, errlen, BND_EINVAL,
				"--mbind=%s: the nodes are chosen at placement "
				"(bnd_apply_mempolicy_nodes)", bnd_mbind_name(mbind));
	case BND_M_ROUND_ROBIN:
		/* The nodes this task may use are its cpuset's mems: interleaving
		 * over nodes outside it would be refused by the kernel. */
		if (get_mempolicy(NULL, mask, NODE_BITS + 1, NULL, MPOL_F_MEMS_ALLOWED))
			return bnd_fail(err, errlen, BND_ESYS,
					"get_mempolicy(MEMS_ALLOWED): %s", strerror(errno));
		from_mask(mask, &nodes);
		if (bnd_nodeset_empty(&nodes))
			return bnd_fail(err, errlen, BND_ESYS, "mbind round_robin: no memory node allowed");
		if (set_policy(MPOL_INTERLEAVE, &nodes))
			return bnd_fail(err, errlen, BND_ESYS, "set_mempolicy(interleave): %s",
					strerror(errno));
		describe(desc, desclen, "interleave", &nodes);
		return BND_OK;
	case BND_M_CORES:
	case BND_M_CORES_STRICT:
		break;
	default:
		return bnd_fail(err, errlen, BND_EINVAL, "mbind: unknown policy %d", (int)mbind);
	}

	if (!t || !cpus || bnd_cpuset_empty(cpus))
		return bnd_fail(err, errlen, BND_EINVAL,
				"--mbind=%s needs the task's cores (the task is not bound)",
				bnd_mbind_name(mbind));
	bnd_topology_numa_of_cpus(t, cpus, &nodes);
	if (bnd_nodeset_empty(&nodes))
		return bnd_fail(err, errlen, BND_EINVAL,
				"--mbind=%s: no NUMA node is local to the task's cpus",
				bnd_mbind_name(mbind));

	return bnd_apply_mempolicy_nodes(&nodes, mbind == BND_M_CORES_STRICT, desc, desclen,
					 err, errlen);
}

int bnd_apply_mempolicy_interleave(const bnd_nodeset_t *os_nodes, char *desc, size_t desclen,
				   char *err, size_t errlen)
{
	if (desc && desclen)
		desc[0] = '\0';
	if (bnd_nodeset_empty(os_nodes))
		return bnd_fail(err, errlen, BND_EINVAL, "memory policy: no NUMA node given");
	if (set_policy(MPOL_INTERLEAVE, os_nodes))
		return bnd_fail(err, errlen, BND_ESYS, "set_mempolicy(interleave): %s",
				strerror(errno));
	describe(desc, desclen, "interleave", os_nodes);
	return BND_OK;
}

int bnd_apply_mempolicy_nodes(const bnd_nodeset_t *os_nodes, int bind, char *desc,
			      size_t desclen, char *err, size_t errlen)
{
	bnd_nodeset_t nodes = *os_nodes;
	if (desc && desclen)
		desc[0] = '\0';
	if (bnd_nodeset_empty(&nodes))
		return bnd_fail(err, errlen, BND_EINVAL, "memory policy: no NUMA node given");
	if (bind) {
		if (set_policy(MPOL_BIND, &nodes))
			return bnd_fail(err, errlen, BND_ESYS, "set_mempolicy(bind): %s",
					strerror(errno));
		describe(desc, desclen, "bind", &nodes);
		return BND_OK;
	}
	if (bnd_nodeset_count(&nodes) > 1) {
		if (set_policy(MPOL_PREFERRED_MANY, &nodes) == 0) {
			describe(desc, desclen, "preferred_many", &nodes);
			return BND_OK;
		}
		if (errno != EINVAL)
			return bnd_fail(err, errlen, BND_ESYS, "set_mempolicy(preferred_many): %s",
					strerror(errno));
		/* Kernels before 5.15 know only one preferred node. */
		int first = bnd_nodeset_next(&nodes, -1);
		bnd_nodeset_zero(&nodes);
		bnd_nodeset_set(&nodes, first);
	}
	if (set_policy(MPOL_PREFERRED, &nodes))
		return bnd_fail(err, errlen, BND_ESYS, "set_mempolicy(preferred): %s",
				strerror(errno));
	describe(desc, desclen, "preferred", &nodes);
	return BND_OK;
}

int bnd_mempolicy_describe(char *desc, size_t desclen, char *err, size_t errlen)
{
	unsigned long mask[NODE_WORDS];
	int mode = 0;
	bnd_nodeset_t nodes;

	memset(mask, 0, sizeof(mask));
	if (get_mempolicy(&mode, mask, NODE_BITS + 1, NULL, 0))
		return bnd_fail(err, errlen, BND_ESYS, "get_mempolicy: %s", strerror(errno));
	/* Mode flags (static/relative nodes, NUMA balancing) live in high bits. */
	mode &= 0xff;
	from_mask(mask, &nodes);
	switch (mode) {
	case MPOL_DEFAULT:
		describe(desc, desclen, "default", NULL);
		break;
	case MPOL_LOCAL:
		describe(desc, desclen, "local", NULL);
		break;
	case MPOL_PREFERRED:
		/* An empty preferred mask is the old spelling of "local". */
		describe(desc, desclen, bnd_nodeset_empty(&nodes) ? "local" : "preferred",
			 bnd_nodeset_empty(&nodes) ? NULL : &nodes);
		break;
	case MPOL_BIND:
		describe(desc, desclen, "bind", &nodes);
		break;
	case MPOL_INTERLEAVE:
		describe(desc, desclen, "interleave", &nodes);
		break;
	case MPOL_PREFERRED_MANY:
		describe(desc, desclen, "preferred_many", &nodes);
		break;
	default:
		if (desc && desclen)
			snprintf(desc, desclen, "mode%d", mode);
		break;
	}
	return BND_OK;
}

int bnd_apply_migrate_pages(pid_t pid, const bnd_nodeset_t *from, const bnd_nodeset_t *to,
			    long *left, char *err, size_t errlen)
{
	unsigned long old_mask[NODE_WORDS], new_mask[NODE_WORDS];
	if (left)
		*left = 0;
	if (pid <= 0 || !from || !to || bnd_nodeset_empty(from) || bnd_nodeset_empty(to))
		return bnd_fail(err, errlen, BND_EINVAL, "migrate pages: need a pid and nodes");
	to_mask(from, old_mask);
	to_mask(to, new_mask);
	long n = migrate_pages(pid, NODE_BITS + 1, old_mask, new_mask);
	if (n < 0) {
		int e = errno;
		bnd_fail(err, errlen, BND_ESYS, "migrate_pages(pid %d): %s", (int)pid, strerror(e));
		errno = e; /* callers tell a process that ended (ESRCH) apart */
		return BND_ESYS;
	}
	if (left)
		*left = n;
	return BND_OK;
}
