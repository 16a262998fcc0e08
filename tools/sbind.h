/* sbind: shared pieces of the command-line tool's subcommands. */
#ifndef SBIND_H
#define SBIND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "binding/util/cpuset.h"
#include "binding/memory/memplace.h"
#include "binding/placement/place.h"
#include "binding/request/request.h"
#include "binding/topology/topology.h"

/* Exit codes are part of the interface (tests and admins rely on them). */
enum { SBIND_EXIT_OK = 0, SBIND_EXIT_ERROR = 1, SBIND_EXIT_USAGE = 2, SBIND_EXIT_NOFIT = 3 };

/* The exit code of a library result (BND_*). */
int sbind_exit_of(int rc);


/* --topology SRC if given; else with a state dir its topology cache; else
 * hwloc discovery of this machine. Prints the reason and returns NULL. */
struct bnd_topology *sbind_load_topology(const char *source, const char *state_dir);

/* Parses --mask STR (either string form) into taken; prints and returns
 * SBIND_EXIT_USAGE on error. */
int sbind_parse_mask(const struct bnd_topology *t, const char *mask, bnd_cpuset_t *taken);

/* The state dir: --state, else $BINDING_STATE_DIR, else the default. */
const char *sbind_state_dir(const char *opt);

/* The state file's records, read without the lock; on failure says so on
 * stderr as "sbind WHAT: why" and returns SBIND_EXIT_ERROR. */
struct bnd_state_file;
int sbind_state_read(const char *what, const char *state_dir, struct bnd_state_file *f);
/* Adds the cpus held by records in the state dir to `held`. */
int sbind_state_held(const char *state_dir, bnd_cpuset_t *held);

/* The memory side of a request (memory/memplace.h). */
struct sbind_mem {
	uint64_t mib;                          /* the step's memory, 0: none */
	enum bnd_mbind mbind;
	const struct bnd_mem_reserve *reserve;
	struct bnd_mem_result *out;            /* what was reserved */
};

/* What sbind place asks the allocator. */
struct sbind_alloc {
	const struct bnd_request *req;
	int ntasks;
	uint32_t job, step;          /* --commit; a dry run is job 0 */
	pid_t owner;                 /* --commit: the record's owner */
	const bnd_cpuset_t *mask;    /* --mask: cpus taken besides the state's */
	const struct sbind_mem *mem;
	const struct bnd_near *near; /* --gpus: each task's GPUs, or NULL */
};

/* Both place r by the allocator's rules (state/state.h: occupancy,
 * deferred steps served first, memory per job) and return an SBIND_EXIT_*
 * code, err saying why on failure. The commit records the placement in
 * the state in one transaction; the dry run places against the records of
 * state_dir read without the lock, or against a state with no records
 * (state_dir NULL), and writes nothing. */
int sbind_state_commit(const char *state_dir, const struct bnd_topology *t,
		       const struct sbind_alloc *r, struct bnd_placement *out,
		       char *err, size_t errlen);
int sbind_state_dry_run(const char *state_dir, const struct bnd_topology *t,
			const struct sbind_alloc *r, struct bnd_placement *out,
			char *err, size_t errlen);

/* GPUs (sbind_gpu.c): the topology's list as JSON (a json_t *); --gpus
 * LIST resolved to topology GPUs; each task's GPUs by the plugin's rules
 * (masks[ntasks]); a placed task's GPUs and NUMA nodes into its JSON. */
struct json_t;
struct json_t *sbind_gpus_json(const struct bnd_topology *t);
int sbind_gpus_parse(const struct bnd_topology *t, const char *list, int *topo, int *n);
int sbind_gpus_tasks(const struct bnd_topology *t, const int *topo, int n, int ntasks,
		     const char *gpus_per_task, const char *gpu_bind, int gpu_aware,
		     uint64_t *masks, char *how, size_t howlen);
void sbind_gpus_task_json(const struct bnd_topology *t, const struct bnd_task_place *tp,
			  struct json_t *task);

/* --mem-reserve SIZE|N% into out; said on stderr (SBIND_EXIT_USAGE). */
int sbind_parse_reserve(const char *cmd, const char *arg, struct bnd_mem_reserve *out);

/* State repairs and warnings go to stderr (a bnd_state_opts log callback). */
void sbind_log_stderr(void *ctx, const char *msg);

/* Decimal job or step id; with names, also a step's name (batch, extern,
 * interactive). 0 or -1. */
int sbind_parse_id(const char *s, int names, uint32_t *out);
/* "batch" etc., or the number written into buf. */
const char *sbind_step_name(uint32_t step, char *buf, size_t len);

int sbind_cmd_topology(int argc, char **argv);
int sbind_cmd_place(int argc, char **argv);
int sbind_cmd_rankfile(int argc, char **argv);
/* --list keys|variables|strategies (sbind_list.c) */
int sbind_cmd_list(int argc, char **argv);
int sbind_cmd_submit(int argc, char **argv);
int sbind_cmd_metrics(int argc, char **argv);
int sbind_cmd_draw(int argc, char **argv);
/* gres-conf (sbind_gresconf.c): the node's numamem GRES lines */
int sbind_cmd_gres_conf(int argc, char **argv);
/* complete binding|mbind|commands|options CMD|value CMD OPT (sbind_opts.c) */
int sbind_cmd_complete(int argc, char **argv);
/* sbind --help's whole text (sbind_opts.c) */
int sbind_help(FILE *f);
/* sbind submit --help's Slurm options, after its own (sbind_submit.c) */
void sbind_submit_help(FILE *f);
/* The words a Slurm option's value may be ("a|b"), or NULL (sbind_submit.c). */
const char *sbind_submit_words(const char *option);

#endif
