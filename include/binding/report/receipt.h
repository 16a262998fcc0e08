/* A job's receipt on this node (sbind status --job N): for each of its
 * steps, what it asked for and what it got, in the spirit of OCS's
 * `qstat -j` (its binding: and exec_binding_list lines):
 *
 *   job 12 step 0 on n1: active since 0s, uid 1001, owner pid 4242
 *     binding:            set linear:2
 *     exec_binding_list:  n1=0,0:0,1:0,2:0,3
 *     mbind:              cores:strict
 *     memory:             numa 0: 512 MiB
 *     task 0:             cores 0,0 0,1 (L#0-1) cpus 0-1 (L#0-1) numa 0 gpus -
 *     task 1:             cores 0,2 0,3 (L#2-3) cpus 2-3 (L#2-3) numa 0 gpus -
 *     history:            bound 2026-11-27 13:32:10 (12s ago) on cpus 0-3
 *
 * A task is one of the record's placement groups (tasks that share a core
 * on an SMT node count once; the batch script is one). Cores are Grid
 * Engine's <socket>,<core> with hwloc's logical core index, cpus the OS's
 * (physical) ids with hwloc's logical PU index, NUMA nodes and GPUs (PCI
 * bus ids) as the topology names them. The history is the record's
 * (state/history.h): when the step was bound, deferred, suspended, bound
 * again or refused, on which cpus and why. The same as JSON for
 * collectors. From the state and the topology only: nothing is asked of
 * Slurm.
 */
#ifndef BINDING_REPORT_RECEIPT_H
#define BINDING_REPORT_RECEIPT_H

#include <stdint.h>
#include <stdio.h>

#include "binding/state/statefile.h"
#include "binding/topology/topology.h"

struct bnd_receipt_in {
	const struct bnd_state_file *f;  /* the node's records (read whole) */
	const struct bnd_topology *t;    /* NULL: cpus only (the topology is NONE) */
	const char *node;                /* this node's name */
	uint32_t job;
	long long now_ms;                /* unix ms, for ages */
};

/* The text above on out, one block per step of the job here, or "job J:
 * no record on NODE (...)" when it has none. BND_OK or BND_ENOMEM. */
int bnd_receipt_text(const struct bnd_receipt_in *in, FILE *out);

/* The same as one JSON object (compact, with a newline):
 * {"job","node","steps":[{"step","step_name","uid","owner_pid",
 * "owner_alive","status","since_ms","why","request","instance","strategy",
 * "binding","exec_binding_list","mbind","memory_mib":{node:MiB},
 * "job_memory_mib","cpus","tasks":[{"task","cores":["0,0"],
 * "cores_logical":[0],"cpus","cpus_logical","numa":[0],"gpus":["busid"]}],
 * "history":[{"event","ms","cpus","why"}],"history_total"}]}.
 * BND_OK or BND_ENOMEM. */
int bnd_receipt_json(const struct bnd_receipt_in *in, FILE *out);

/* That object (a new reference; NULL when memory runs out), and the text
 * made from such an object, this node's or another node's answer
 * (report/receipts.h): the text is always made from the JSON, so the two
 * never disagree. now_ms: unix ms, for ages. BND_OK or BND_ENOMEM. */
struct json_t;
struct json_t *bnd_receipt_node(const struct bnd_receipt_in *in);
int bnd_receipt_render(const struct json_t *node, long long now_ms, FILE *out);

#endif
