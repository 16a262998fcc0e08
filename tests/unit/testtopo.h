/* Topology helpers of the test programs (unit tests, fuzz targets, bench,
 * the e2e reboot helper), header-only so each program compiles its own. */
#ifndef BINDING_TEST_TESTTOPO_H
#define BINDING_TEST_TESTTOPO_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binding/topology/topocache.h"
#include "binding/topology/topology.h"
#include "binding/util/cpuset.h"
#include "binding/util/error.h"

/* The OS cpus under one unit of the flattened topology (the library walks
 * units by PU index and never needs the set). */
static inline void tu_unit_cpus(const struct bnd_topology *t, int unit, bnd_cpuset_t *out)
{
	bnd_cpuset_zero(out);
	if (unit < 0 || unit >= t->nunits)
		return;
	const struct bnd_unit *u = &t->units[unit];
	for (int p = u->pu_first; p < u->pu_first + u->pu_count; p++)
		bnd_cpuset_set(out, t->pu_os[p]);
}

/* Writes the cache file at path (the library writes through a trusted
 * dir fd: bnd_topocache_write_at). */
static inline int tu_cache_write(const struct bnd_topology *t, const char *path,
				 const char *boot_id, char *err, size_t errlen)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return bnd_fail(err, errlen, BND_ESYS, "%s: cannot open", dir);
	int rc = bnd_topocache_write_at(t, dfd, slash ? slash + 1 : path, boot_id, err, errlen);
	close(dfd);
	return rc;
}

#endif
