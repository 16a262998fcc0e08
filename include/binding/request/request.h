/* Binding and memory-policy requests: the text users write after
 * --binding= and --mbind=, parsed into a plain struct.
 *
 * Grammar (one --binding value):
 *   none
 *   [set|env|pe:]linear:<amount>[:<socket>,<core>]
 *   [set|env|pe:]striding:<amount>:<step>[:<socket>,<core>]
 *   [set|env|pe:]explicit:<socket>,<core>[:<socket>,<core>...]
 *   [set|env|pe:]packed:<amount>[:<key>=<value>...]      (OCS/GCS 9.1)
 *       keys: unit= type= sort= start= stop= filter=
 *   [set|env|pe:]balance|pack|any:<n>[:level=socket|core|thread]   (LSF)
 *   [set|env|pe:]cpus:<list>[:level=...]                            (LSF)
 *   [set|env|pe:]gpu:<amount>[:visible=task|all]     cores next to the GPUs
 *       (packed takes the same preference as its key near=gpu)
 * --mbind: none | cores | cores:strict | round_robin | nlocal | gpu
 */
#ifndef BINDING_REQUEST_H
#define BINDING_REQUEST_H

#include <stddef.h>

#include "binding/util/cpuset.h"

enum bnd_strategy {
	BND_S_NONE = 0,
	BND_S_LINEAR,
	BND_S_STRIDING,
	BND_S_EXPLICIT,
	BND_S_PACKED,      /* OCS/GCS packed model */
	BND_S_LSF_BALANCE,
	BND_S_LSF_PACK,
	BND_S_LSF_ANY,
	BND_S_LSF_CPUS,
	BND_S_GPU,         /* whole cores next to each task's GPUs (docs/gpu.md) */
	BND_S_COUNT        /* not a strategy: how many there are */
};

enum bnd_instance { BND_I_SET = 0, BND_I_ENV, BND_I_PE };

enum bnd_mbind {
	BND_M_NONE = 0,
	BND_M_CORES,        /* prefer the task's cores' NUMA node(s) */
	BND_M_CORES_STRICT, /* bind memory to them */
	BND_M_ROUND_ROBIN,  /* interleave over allowed nodes */
	BND_M_NLOCAL,
	BND_M_GPU,          /* prefer the NUMA node(s) of the task's GPUs */
};

/* Which GPUs a task sees when the plugin splits the step's GPUs among its
 * tasks: its own (the visible-device variables narrowed), or all of the
 * step's (CUDA IPC, NCCL within a node). */
enum bnd_visible { BND_VIS_TASK = 0, BND_VIS_ALL };

/* LSF level. */
enum bnd_level { BND_L_CORE = 0, BND_L_SOCKET, BND_L_THREAD };

/* OCS packed "type": units per task or for the whole node. */
enum bnd_ptype { BND_PT_TASK = 0, BND_PT_NODE };

#define BND_MAX_EXPLICIT 1024
#define BND_MAX_SORT 16
#define BND_MAX_FILTER 8192
#define BND_MAX_REQUEST_TEXT 256
/* Largest number accepted anywhere in a request (amounts, steps, socket
 * and core numbers, cpu ids); bigger ones are rejected as overflow. */
#define BND_MAX_NUMBER 1000000

struct bnd_pair {
	int socket, core;
};

struct bnd_request {
	enum bnd_strategy strategy;
	enum bnd_instance instance;
	int amount;                 /* linear/striding/packed/LSF n */
	int step;                   /* striding */
	int has_start;              /* linear/striding <socket>,<core> given */
	struct bnd_pair start;
	int nexplicit;
	struct bnd_pair explicit_pairs[BND_MAX_EXPLICIT];
	/* packed */
	char unit[3];               /* "C" "E" "T" "CT" "ET" "S" "CS" "ES" "X" "CX"
	                               "EX" "Y" "CY" "EY" "N" "CN" "EN", canonical
	                               single/2-letter form as given */
	enum bnd_ptype ptype;
	char sort[BND_MAX_SORT + 1];
	char start_letter, stop_letter; /* 0 when not given */
	char filter[BND_MAX_FILTER + 1];
	/* GPUs: gpu:<amount>, or packed's near=gpu: each task's cores next to
	 * its own GPUs (placement/near.h) */
	int near_gpu;
	enum bnd_visible visible;
	/* LSF */
	enum bnd_level level;
	bnd_cpuset_t cpus;          /* cpus: list */
	int ncpus_listed;           /* how many ids were listed (incl. invalid) */
	char text[BND_MAX_REQUEST_TEXT]; /* the request as given (truncated) */
};

/* Parse a --binding value. On error: BND_EINVAL, and err names the bad
 * token and the accepted form, e.g.
 * --binding: "linear:0": amount must be >= 1 (expected linear:<amount>[:<socket>,<core>])
 * "help" is not a request: callers check for it before (bnd_request_help). */
int bnd_request_parse(struct bnd_request *r, const char *text, char *err, size_t errlen);

/* The request "packed:<amount>:unit=<unit>" built as data (the implicit
 * binding), equal to what bnd_request_parse makes of that text; r->text
 * holds the text for messages. BND_EINVAL for a bad amount (1 and up: packed:0
 * is no request at all) or unit. */
int bnd_request_packed(struct bnd_request *r, int amount, const char *unit, char *err,
		       size_t errlen);

int bnd_mbind_parse(enum bnd_mbind *m, const char *text, char *err, size_t errlen);
const char *bnd_mbind_name(enum bnd_mbind m);

/* Whether a step with request r (NULL: none) and memory policy m places
 * cores, and so records them with its memory: a strategy other than none
 * (packed:0 is none), or --mbind=nlocal, which brings its own binding
 * (memplace.h). Otherwise the step is unbound and records nothing. The
 * plugin and sbind place both ask this. */
int bnd_request_places(const struct bnd_request *r, enum bnd_mbind m);

/* The request whose cores a placing step takes: r itself, or, when r names
 * no strategy (--mbind=nlocal alone, which brings its own binding),
 * linear:1 per task, built in *lin. */
const struct bnd_request *bnd_request_cores(const struct bnd_request *r, struct bnd_request *lin);

/* Memory policy m for a task without cores of its own: BND_OK when it
 * applies without them (none; round_robin over the nodes the task may
 * use; nlocal and gpu, which choose their nodes), else BND_EINVAL and err
 * says why, as the plugin and sbind say it: "--mbind=cores:strict not
 * applied: it needs cores bound by --binding" when the request binds
 * none (binding_asked 0), "... the task is not bound" when a binding was
 * asked and not met. */
int bnd_mbind_unbound(enum bnd_mbind m, int binding_asked, char *err, size_t errlen);
const char *bnd_instance_name(enum bnd_instance i);
const char *bnd_strategy_name(enum bnd_strategy s);

/* The grammar, for --binding=help, sbind --help and the man pages: built
 * from the tables of strategies and policies (request.c) by
 * requesthelp.c. */
const char *bnd_request_help(void);
const char *bnd_mbind_help(void);
/* One line each, what srun --help shows beside --binding and --mbind. */
const char *bnd_request_usage(void);
const char *bnd_mbind_usage(void);

/* ---- the table of strategies ----------------------------------------- */

/* How a strategy's units are shared out among the step's tasks. */
enum bnd_share {
	BND_SHARE_NONE = 0, /* binds nothing */
	BND_SHARE_AMOUNT,   /* <amount> units per task (packed type=node: all
	                       the node's tasks share <amount>) */
	BND_SHARE_PAIRS,    /* the explicit list, split evenly among the tasks */
	BND_SHARE_LISTED,   /* the listed cpus that exist, shared by all tasks */
};

/* The documents a strategy comes from: its block of --binding=help. */
enum bnd_family { BND_F_GE = 0, BND_F_OCS, BND_F_LSF, BND_F_GPU, BND_F_COUNT };

/* One row of the table: what the grammar, its help, the completion and
 * placement's split of units need to know of a strategy (its parser is
 * the row's private part, in request.c). */
struct bnd_strategy_def {
	const char *word;           /* as typed: "linear" */
	enum bnd_strategy strategy;
	enum bnd_family family;
	enum bnd_share share;
	const char *form;           /* the accepted form, for messages */
	const char *help;           /* its lines of --binding=help */
	const char *example;        /* "e.g." words (valid requests), or NULL */
};

/* The row of s, or NULL for a value that is no strategy; the i-th row
 * (from 0, in the table's order), NULL past the last. */
const struct bnd_strategy_def *bnd_strategy_def(enum bnd_strategy s);
const struct bnd_strategy_def *bnd_strategy_def_at(size_t i);

/* One memory policy: its word, whether it follows the task's cores (and
 * so needs them), and its lines of --mbind=help. */
struct bnd_mbind_def {
	const char *word;
	enum bnd_mbind m;
	int follows_cores;
	const char *help;
};
const struct bnd_mbind_def *bnd_mbind_def_at(size_t i);

/* The words completion offers after --binding= (strategies and
 * instances: "none linear: ... set: env: pe:") and after --mbind=,
 * separated by sep, NUL-terminated. BND_OK, or BND_EINVAL when buf is too
 * small. */
int bnd_request_words(char sep, char *buf, size_t len);
int bnd_mbind_words(char sep, char *buf, size_t len);

/* Units per task and whether all tasks share them, by r's share rule
 * (BND_SHARE_*): BND_ENOFIT when an explicit list cannot be shared out
 * evenly among ntasks (err says why), BND_EINVAL for no strategy. */
int bnd_request_split(const struct bnd_request *r, int ntasks, int *per_task, int *shared,
		      char *err, size_t errlen);

#endif
