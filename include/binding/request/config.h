/* The plugin's plugstack.conf arguments.
 *
 * Slurm hands a SPANK plugin the words after its path in plugstack.conf;
 * this module turns them into a struct. A bad word never stops the plugin:
 * it is reported and the setting keeps its safe default, because a typo in
 * a site config must not make every job on the node fail.
 */
#ifndef BINDING_CONFIG_H
#define BINDING_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "binding/request/request.h"
#include "binding/topology/gpudev.h"
#include "binding/util/defaults.h"
#include "binding/util/memsize.h"

#define BND_CONFIG_PATH_MAX 1024
#define BND_DEFAULT_UNIT "C"
/* Deferred steps one user may have waiting on a node (defer_max=). */
#define BND_DEFAULT_DEFER_MAX 64

enum bnd_on_failure {
	BND_ONFAIL_UNBOUND = 0, /* task runs unbound, says why */
	BND_ONFAIL_FAIL,        /* task fails in task_init */
	/* The default. A set binding whose cores other steps hold runs unbound
	 * (inside Slurm's cpus) as a deferred record, and is bound as soon as
	 * a fitting placement frees up (lib/suspend). env/pe instances cannot
	 * be changed once the task runs: for them it is unbound. */
	BND_ONFAIL_DEFER,
};

/* submit=: what the cli_filter does with a request at submission
 * (lib/submit): add the Slurm options the binding needs, only refuse what
 * cannot hold (naming the options to add), or nothing. */
enum bnd_submit_mode { BND_SUBMIT_TRANSLATE = 0, BND_SUBMIT_REFUSE, BND_SUBMIT_OFF };

/* filter=: what the site keeps from every job. first_core: the first core
 * of the first socket is left to the system; its cpus are taken for every
 * placement. */
enum bnd_filter { BND_FILTER_NONE = 0, BND_FILTER_FIRST_CORE };

/* numamem=yes: the GRES a site books NUMA memory as, one type n<OS node>
 * per NUMA node (`sbind gres-conf` writes them, docs/memory.md). */
#define BND_NUMAMEM_GRES "numamem"

/* submit_error=: what the cli_filter does when the translation itself
 * fails (the module or sbind missing, crashed or answering an error):
 * submit the job as given, untranslated (the default: the plugin on the
 * node still binds or says why), or refuse the submission. */
enum bnd_submit_error { BND_SUBMIT_ERROR_CONTINUE = 0, BND_SUBMIT_ERROR_REFUSE };

struct bnd_config {
	char state_dir[BND_CONFIG_PATH_MAX];
	bool enabled;
	/* Binding for jobs that give no --binding; "" means none. default_req
	 * is that text parsed (once, here: the step takes it as it is; owned,
	 * bnd_config_clear frees it); NULL when default_spec is "". */
	char default_spec[BND_MAX_REQUEST_TEXT];
	struct bnd_request *default_req;
	enum bnd_on_failure on_failure;
	int lock_timeout_ms;
	bool verbose;
	enum bnd_filter filter;
	/* implicit=yes: a job without --binding (and without default=) gets
	 * packed:<its cpus per task in default_unit units>:unit=<default_unit>. */
	bool implicit;
	char default_unit[3];   /* a packed unit= value; "C" */
	/* mem_reserve=2G|5%: memory per NUMA node left to the OS, not
	 * handed to jobs' reservations (memory/memacct.h); default none. */
	struct bnd_mem_reserve mem_reserve;
	/* defer_max=N: a user's steps may wait deferred on a node up to N at
	 * a time; a step past it runs unbound and says why (0: no limit).
	 * Every waiting step costs a lock-free check of the state at each of
	 * its changes: the limit bounds what one user can make a node do. */
	int defer_max;
	/* GPUs (step/stepgpu.h): gpu_devices=PATH=BUSID,... names the PCI bus
	 * id of device files whose driver does not say (topology/gpudev.h);
	 * gres_conf=PATH is Slurm's gres.conf ("": the one beside slurmstepd's
	 * slurm.conf), cgroup.conf is read from the same directory. */
	struct bnd_gpu_devmap gpu_devices;
	char gres_conf[BND_CONFIG_PATH_MAX];
	/* private_files=yes: the state and the rankfiles are unreadable to
	 * other users (state dir 0711, state 0600, a rankfile 0600 and its
	 * job user's: util/safefile.h); default no. */
	bool private_files;
	/* on_any_host=yes|no (OCS's binding_params on_any_host): on a node
	 * whose topology cannot be read (reported as NONE), a step with a
	 * binding request runs unbound and says so (yes, the default) or
	 * fails with the reason (no). */
	bool on_any_host;
	/* topology=/path.xml: this node's topology from an hwloc XML export
	 * instead of discovery (a node whose discovery is wrong); "" for
	 * discovery. A file that cannot be read is a node without topology. */
	char topology[256];
	enum bnd_submit_mode submit;   /* read by the submit host's cli_filter */
	enum bnd_submit_error submit_error; /* the same */
	/* metrics_file=/path.prom: after every transaction that changed the
	 * state, the step writes the node's metrics there (report/metrics.h);
	 * "" for none (the package's timer runs sbind metrics instead). */
	char metrics_file[BND_CONFIG_PATH_MAX];
	/* numamem=yes: Slurm books each job's memory per NUMA node as the
	 * GRES numamem (one type n<os node> per NUMA node, `sbind gres-conf`):
	 * the cli_filter adds the request a --mbind needs (submit/numamem.h)
	 * and the plugin binds each task's memory where Slurm booked it
	 * (memory/booking.h). no (the default): nothing changes. */
	bool numamem;
};

/* Every setting from its key's default (bnd_config_key_info's def); what c
 * held is overwritten, not freed (bnd_config_clear). */
void bnd_config_defaults(struct bnd_config *c);

/* Frees what parsing allocated (default='s request); c keeps the rest. */
void bnd_config_clear(struct bnd_config *c);

/* Parses plugstack.conf arguments into c (which starts from the defaults):
 * each word is KEY=VALUE, or a flag's bare KEY (verbose); the keys, their
 * forms and defaults are one table in config.c (bnd_config_key_info lists
 * it: `sbind --list keys`, spank-binding(8)). A later word wins.
 * Returns BND_OK, or BND_EINVAL when at least one argument was unknown or
 * malformed: err then lists every bad one ("; "-separated), each naming
 * the word and the accepted form, and each of them kept its value; the
 * good ones are applied.
 * default= together with implicit=yes is a conflict reported the same way:
 * default= wins (the admin wrote that binding out in full) and implicit
 * keeps its default, no. */
int bnd_config_parse(struct bnd_config *c, int argc, char *const argv[],
		     char *err, size_t errlen);

/* "translate", "refuse", "off" (submit='s words); and back (BND_EINVAL,
 * naming the accepted form, for another word). */
const char *bnd_submit_mode_name(enum bnd_submit_mode m);
/* "continue", "refuse" (submit_error='s words). */
const char *bnd_submit_error_name(enum bnd_submit_error e);
int bnd_submit_mode_parse(const char *s, enum bnd_submit_mode *m, char *err, size_t errlen);

/* One line describing the effective settings, for the log: every key in
 * the table's order, KEY=VALUE, space separated. BND_EINVAL when it does
 * not fit buflen (buf then holds a terminated prefix). */
int bnd_config_describe(const struct bnd_config *c, char *buf, size_t buflen);

/* One plugstack key, as the table has it (for sbind, the man-page check). */
struct bnd_config_key_info {
	const char *name;
	/* How the word is written: "on_failure=defer|unbound|fail",
	 * "state_dir=<path>", "verbose[=yes|no]". */
	char usage[160];
	/* The default, as the key's value is written, or the word the
	 * settings line shows for "not set" (default=none, topology=discovery). */
	const char *def;
	const char *help; /* one line */
};

/* The i-th key (0 up) into out; BND_EINVAL past the last one. */
int bnd_config_key_info(size_t i, struct bnd_config_key_info *out);

#endif
