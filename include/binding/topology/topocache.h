/* This node's flattened topology, cached on disk once per boot.
 *
 * hwloc discovery costs milliseconds (more on big nodes) and every job step
 * would pay it; the flattened arrays of topology.h read back from a small
 * binary file cost microseconds and need no hwloc at all.
 *
 * The file (DIR/topology.cache) records a format version, the kernel boot
 * id (/proc/sys/kernel/random/boot_id) and a checksum; a file that is
 * missing, truncated, corrupt, of another version or another boot, not a
 * regular file, a symlink, or writable by someone other than its owner
 * (who must be us or root) is ignored and rebuilt. Hardware does not change
 * within a boot except by CPU hotplug, which a reboot-free site must follow
 * by deleting the file.
 *
 * What is cached is the whole node, including PUs the calling process may
 * not use (a job's cgroup): Grid Engine numbering must be the same for
 * every job on the node. Offline PUs are not in the topology at all.
 */
#ifndef BINDING_TOPOCACHE_H
#define BINDING_TOPOCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "binding/topology/topology.h"

#define BND_TOPOCACHE_FILE "topology.cache"
/* 2: NUMA memory sizes, distances, cache sizes. 3: GPUs (topogpu.h). A
 * cache of another version is refused and rebuilt like a damaged one. */
#define BND_TOPOCACHE_VERSION 3

/* This machine's topology: from DIR/topology.cache when it is valid for
 * this boot, else from hwloc, after which the cache is rewritten
 * atomically (temporary file + rename, mode 0644) when DIR exists and we
 * may write there. Failing to read or write the cache is never an error;
 * only a failed discovery is. dir NULL or "" disables the cache. */
int bnd_topocache_load(struct bnd_topology **out, const char *dir,
		       char *err, size_t errlen);

/* The same, and note (may be NULL) says what happened with the cache:
 * "cache hit", or why it was not used and whether it was rewritten. */
int bnd_topocache_load_note(struct bnd_topology **out, const char *dir,
			    char *note, size_t notelen, char *err, size_t errlen);

/* The same for one source: "" this machine (discovery), a path an hwloc
 * XML file (the plugstack topology=); the cache is used only when it was
 * loaded from that source (the cache records it), else it is rebuilt
 * from the source. NULL takes whatever the cache holds (sbind, which
 * cannot know the site's topology=), discovering this machine without
 * one. A source that cannot be read is an error like a failed
 * discovery, and leaves the cache as it was. */
int bnd_topocache_load_source(struct bnd_topology **out, const char *dir, const char *source,
			      char *note, size_t notelen, char *err, size_t errlen);

/* slurmd start: creates the state dir (util/safefile.h) and builds the
 * cache in it from source (NULL or "": discovery; else an XML path), so
 * no step ever pays for discovery. Failures are only worth a log line. */
int bnd_topocache_warmup(const char *dir, const char *source, char *err, size_t errlen);

/* An explicit cache file (sbind --topology FILE). boot_id NULL = this
 * boot's. BND_ESTATE with the reason for a stale, foreign or corrupt file,
 * BND_ESYS when it cannot be opened; never reads out of bounds. */
int bnd_topocache_read(struct bnd_topology **out, const char *path,
		       const char *boot_id, char *err, size_t errlen);

/* This boot's cache in the open, trusted dir dirfd, whatever its source;
 * never discovery. Errors as bnd_topocache_read. */
int bnd_topocache_read_at(struct bnd_topology **out, int dirfd, char *err, size_t errlen);

/* On a file of an open, trusted dir (util/safefile.h does the open, the
 * trust check, the read and the atomic replace: readers see a whole file,
 * a link planted at name is replaced, never followed); the path form above
 * opens path's parent and reads through it. */
int bnd_topocache_write_at(const struct bnd_topology *t, int dirfd, const char *name,
			   const char *boot_id, char *err, size_t errlen);


#endif
