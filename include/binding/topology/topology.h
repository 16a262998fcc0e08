/* The node's topology, flattened into what placement needs.
 *
 * hwloc is used once to discover (or to load a synthetic description or an
 * XML file); the result is copied into plain arrays so placement is a pure
 * function of this struct and can be cached on disk (topocache.h) without
 * paying for hwloc discovery at every job step.
 *
 * The units form a tree stored in document (depth-first, pre-order) order,
 * which is exactly the order of letters in the OCS topology string. PUs and
 * cores are numbered in the same order, so every unit's PUs and cores are a
 * contiguous range.
 *
 * NUMA nodes: hwloc attaches them to a parent object; here an N unit wraps
 * that parent (N precedes the unit its memory is attached to, so a 2-socket
 * machine with one node per socket reads NSXC..NSXC..). Several nodes
 * attached to the same parent (KNL flat: DDR + MCDRAM) nest in a chain.
 * A machine without packages gets one synthetic socket so Grid Engine
 * numbering (<socket>,<core>) always exists. In a chain the node without a
 * special subtype (DRAM, not HBM/MCDRAM) is innermost, so it is the cores'
 * nearest node. NUMA nodes without CPUs (HBM, PMEM, kmem) still get their N:
 * wrapping the cores they sit next to, or, when hwloc attaches them to an
 * object without CPUs (POWER9 GPU memory, hwloc 1.x XML, CXL expanders), as
 * a leaf N with no children. A node is the local node of exactly the cores
 * whose nearest node it is (numa_cpus); a CPU-less node has none.
 *
 * Memory: each node's size (hwloc local_memory) and, when hwloc has one, the
 * NUMA distance matrix (relative, 10 = local, as in the ACPI SLIT).
 *
 * Caches: only unified or data L3 (X) and L2 (Y); L1, L4, memory-side
 * caches, groups and dies are not units (their children are flattened into
 * the parent). A PU without a Core above it becomes a one-PU core.
 *
 * Kinds: with two or more ranked hwloc cpukinds, the top kind is power (C)
 * and the lowest efficiency (E); with three or more, kinds are split at the
 * largest relative step of LinuxCapacity or FrequencyMaxMHz (NVIDIA GB10
 * reports five kinds: 10 A725 + 10 X925 cores). Unranked kinds: all C.
 *
 * The whole node is loaded, including PUs the calling process's cgroup
 * excludes, so numbering does not depend on who looks; offline PUs are not
 * part of the topology.
 *
 * GPUs (topogpu.h): hwloc's I/O discovery gives each PCI device its
 * locality, the cpus of its nearest non-I/O ancestor (a package, a NUMA
 * node, an L3 on AMD); the GPUs keep that as a range of cores (a subtree
 * is a contiguous core range), their PCI bus id, the names of their hwloc
 * OS devices (cuda0 nvml0 rsmi0 opencl0d0 card0 renderD128 ...) and their
 * own CPU-less memory node when hwloc has one (NVIDIA's GPU memory on
 * POWER9 or Grace Hopper: a GPUMemory node whose PCIBusID names the GPU).
 */
#ifndef BINDING_TOPOLOGY_H
#define BINDING_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "binding/util/cpuset.h"
#include "binding/util/nodeset.h"

enum bnd_unit_type {
	BND_U_MACHINE = 0, /* root, no letter */
	BND_U_NUMA,        /* N */
	BND_U_SOCKET,      /* S */
	BND_U_L3,          /* X */
	BND_U_L2,          /* Y */
	BND_U_CORE,        /* C (power) or E (efficiency) */
	BND_U_PU,          /* T, printed only for cores with more than one PU */
};

enum bnd_core_kind { BND_KIND_POWER = 0, BND_KIND_EFFICIENCY = 1 };

struct bnd_unit {
	uint8_t type;       /* enum bnd_unit_type */
	uint8_t kind;       /* cores and PUs: enum bnd_core_kind */
	int parent;         /* unit index, -1 for the root */
	int depth;          /* root 0 */
	int nchildren;
	int first_child;    /* unit index of the first child, -1 if none;
	                       children follow their parent's subtree order,
	                       use next_sibling to walk them */
	int next_sibling;   /* -1 at the end */
	int index;          /* index among units of its type: socket number,
	                       core number (global), PU number, numa number... */
	int os_index;       /* PU: OS cpu id; NUMA: OS node id; else -1 */
	int pu_first, pu_count;     /* PU index range of the subtree */
	int core_first, core_count; /* core index range of the subtree;
	                               a PU: its core, count 0 */
};

struct bnd_core {
	int socket;          /* Grid Engine socket number */
	int core;            /* Grid Engine core number within its socket */
	uint8_t kind;        /* enum bnd_core_kind */
	int unit;            /* its unit index */
	int pu_first, npus;  /* PU index range */
	int numa;            /* NUMA index of the nearest enclosing N unit, -1 */
	int l3, l2;          /* enclosing cache indices, -1 if none */
};

/* At most this many GPUs per node (a task's GPUs are a 64-bit mask). */
#define BND_MAX_GPUS 64
/* "0000:34:00.0" and its NUL, rounded up to whole words for the cache. */
#define BND_GPU_BUSID_LEN 16
/* The OS device names, space separated ("renderD128 card0 nvml0"). */
#define BND_GPU_NAMES_LEN 96

struct bnd_gpu {
	char busid[BND_GPU_BUSID_LEN]; /* lower-case domain:bus:dev.fn, "" when
	                                  hwloc has no PCI device for it */
	char names[BND_GPU_NAMES_LEN];
	int vendor, device, pci_class; /* PCI ids, -1 without a PCI device */
	int compute;                   /* has a compute or render OS device
	                                  (not only a display: a BMC's VGA) */
	int core_first, core_count;    /* the cores local to it */
	int mem_numa;                  /* NUMA index of its own memory node, -1 */
};

struct bnd_topology {
	int nunits, nsockets, ncores, npus, nnuma, nl3, nl2;
	struct bnd_unit *units;     /* units[0] is the machine */
	struct bnd_core *cores;     /* global core order (socket-major) */
	int *pu_os;                 /* OS cpu id of PU index i */
	int *pu_core;               /* core index of PU index i */
	int *socket_first_core;     /* [nsockets] */
	int *socket_ncores;         /* [nsockets] */
	int *numa_os;               /* [nnuma] OS node id */
	bnd_cpuset_t *numa_cpus;    /* [nnuma] OS cpus whose nearest node it is
	                               (empty for a CPU-less node) */
	uint64_t *numa_mem;         /* [nnuma] bytes of memory (0 = unknown) */
	int *numa_dist;             /* [nnuma * nnuma] row-major by NUMA index,
	                               all 0 when hwloc has no matrix */
	int has_dist;               /* numa_dist holds a matrix */
	uint64_t cache_size[4];     /* bytes of one L1d/L2/L3 cache ([1]..[3]),
	                               0 when absent */
	bnd_cpuset_t all_cpus;      /* every OS cpu of the topology */
	int has_kinds;              /* hwloc reported more than one kind */
	int ngpus;                  /* <= BND_MAX_GPUS, sorted by bus id */
	struct bnd_gpu *gpus;       /* [ngpus], NULL when none */
	bnd_cpuset_t *gpu_cpus;     /* [ngpus] OS cpus of its local cores */
	bnd_nodeset_t *gpu_numa;    /* [ngpus] NUMA indices local to it: the
	                               nearest nodes of its cores, and its own */
	char source[256];           /* what it was loaded from, for messages */
};

/* Source forms:
 *   NULL or ""           this machine (hwloc discovery)
 *   "pack:2 core:4 pu:2" hwloc synthetic description (anything containing ':'
 *                        or a space and not naming an existing file); " pu:1"
 *                        is appended when the last level is not pu
 *                        ("pack:2 core:2" = 4 single-thread cores)
 *   "/path/file.xml"     hwloc XML export (CRLF line ends accepted)
 * PCI devices and OS devices are read for the GPUs (topogpu.h); misc
 * objects and bridges are filtered out. BND_EINVAL names the source. */
int bnd_topology_load(struct bnd_topology **out, const char *source,
		      char *err, size_t errlen);
void bnd_topology_free(struct bnd_topology *t);

/* Core index for Grid Engine <socket>,<core>, or -1 if it does not exist. */
int bnd_topology_core_at(const struct bnd_topology *t, int socket, int core);
/* OS cpus of a core. */
void bnd_topology_core_cpus(const struct bnd_topology *t, int core, bnd_cpuset_t *out);
/* Core index holding OS cpu id, -1 if none. */
int bnd_topology_core_of_cpu(const struct bnd_topology *t, int os_cpu);
/* OS NUMA node ids local to the given cpus: the nearest node
 * (bnd_core.numa) of each core holding one of the cpus, so HBM/PMEM nodes
 * wrapped around a DRAM node are not included. */
void bnd_topology_numa_of_cpus(const struct bnd_topology *t, const bnd_cpuset_t *cpus,
			       bnd_nodeset_t *nodes);

/* Distance between NUMA indices a and b: the matrix value, else 10 for
 * a == b and 20 otherwise (the kernel's default SLIT). */
int bnd_topology_numa_distance(const struct bnd_topology *t, int a, int b);
/* NUMA index of OS node id, -1 if none. */
int bnd_topology_numa_index(const struct bnd_topology *t, int os_node);

/* For flattened arrays that did not come from hwloc (the cache reader):
 * checks every index and range so no consumer can read out of bounds, and
 * the tree invariants above (pre-order, contiguous PU and core ranges,
 * cores contiguous per socket). BND_EINVAL names the first problem. */
int bnd_topology_validate(const struct bnd_topology *t, char *err, size_t errlen);
/* Recomputes numa_cpus (from each core's nearest node), all_cpus, and the
 * GPUs' gpu_cpus and gpu_numa from cores and pu_os (allocates them).
 * BND_ENOMEM on failure. */
int bnd_topology_fill_cpusets(struct bnd_topology *t);

#endif
