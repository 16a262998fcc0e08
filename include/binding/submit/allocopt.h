/* The allocation options a user gave srun, sbatch or salloc, as data:
 * what the submit translation (translate.h) must respect and never
 * silently override. Names are Slurm's long option names, the ones a
 * cli_filter reads (options["cpus-per-task"], slurm.json_cli_options);
 * one table (bnd_alloc_keys) holds them, and the sbind options, the
 * cli_filter's list of names to pass on and the man page come from it.
 */
#ifndef BINDING_SUBMIT_ALLOCOPT_H
#define BINDING_SUBMIT_ALLOCOPT_H

#include <stddef.h>
#include <stdint.h>

enum bnd_submit_cmd { BND_CMD_SRUN = 0, BND_CMD_SBATCH, BND_CMD_SALLOC };

/* The largest count an allocation option takes (tasks, nodes, CPUs per
 * task, ...), the user's or one the translation adds: a request that needs
 * more is refused, never handed to Slurm as a wrapped number. */
#define BND_ALLOC_MAX_COUNT 1000000

/* --exclusive and --oversubscribe, as given. */
enum bnd_excl {
	BND_EXCL_UNSET = 0,
	BND_EXCL_NODE,     /* --exclusive: whole nodes */
	BND_EXCL_USER,     /* --exclusive=user: shared with the user's own jobs */
	BND_EXCL_MCS,      /* --exclusive=mcs */
	BND_EXCL_SHARED,   /* --oversubscribe (-s) */
};

/* 0 (or "" / BND_EXCL_UNSET) means "not given" everywhere. */
struct bnd_alloc {
	enum bnd_submit_cmd cmd;
	int in_job;          /* srun inside an allocation: it asks for a step */
	int ntasks;
	int nodes_min, nodes_max;
	int cpus_per_task;
	int ntasks_per_node, ntasks_per_socket, ntasks_per_core;
	int threads_per_core;
	int sockets_per_node, cores_per_socket;
	char hint[32];
	/* -B given (it sets the three fields above), --cpu-bind given with a
	 * binding (not only verbose/quiet): either makes Slurm drop --hint. */
	int extra_node_info, cpu_bind;
	enum bnd_excl exclusive;
	int exact, overcommit;
	int has_mem, has_mem_per_cpu;
	uint64_t mem_mib, mem_per_cpu_mib;
	char mem_bind[64];
	/* --gres, its entries without the "gres:" (22.05) or "gres/" (24.11)
	 * prefix a cli_filter shows them with: "gpu:2,numamem:n1:400M". */
	char gres[192];
};

enum bnd_alloc_arg { BND_ARG_NONE = 0, BND_ARG_REQUIRED, BND_ARG_OPTIONAL };

struct bnd_alloc_key {
	const char *name;     /* Slurm's long option name */
	char short_opt;       /* srun's letter, 0 for none */
	enum bnd_alloc_arg arg;
	const char *value;    /* the value's form, for help: "N", "N[-M]"; words "a|b" */
	int (*set)(struct bnd_alloc *a, const char *value, char *err, size_t errlen);
};

/* The table, ending with a NULL name. */
extern const struct bnd_alloc_key bnd_alloc_keys[];

void bnd_alloc_init(struct bnd_alloc *a, enum bnd_submit_cmd cmd);

/* Records one option by its Slurm name; value as Slurm's cli_filter
 * shows it ("set" for a flag, "4096" or "4G" for memory). BND_EINVAL
 * naming the option and the accepted form for an unknown name or a bad
 * value. */
int bnd_alloc_set(struct bnd_alloc *a, const char *name, const char *value, char *err,
		  size_t errlen);

/* "srun", "sbatch", "salloc"; and back (BND_EINVAL for another word). */
const char *bnd_submit_cmd_name(enum bnd_submit_cmd c);
int bnd_submit_cmd_parse(const char *s, enum bnd_submit_cmd *c, char *err, size_t errlen);

#endif
