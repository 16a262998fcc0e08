/* The state file's format: records in memory (statefile.c), text on disk
 * (written by stateformat.c, read by stateparse.c).
 *
 * Plain text so an admin can read it with cat:
 *
 *   spank-binding-state 4
 *   boot 6f1c...-...
 *   node n17
 *   scan 0
 *   count placements.linear=7 refusals.held_by_other_jobs=1 fallbacks.deferred=1 lock_wait.10us=9 lock_wait.sum_ns=24150 lock_wait.count=9
 *   rec job=12 step=0 pid=4242 start=981234 uid=1001 status=active created=1717171717 cpus=0-3 tasks=0-1;2-3 mem=0:512 jobmem=2048 mbind=cores:strict hist=1/bound@1717171717123=0-3 req=linear:2
 *   rec job=13 step=0 pid=4250 start=981300 uid=1001 status=deferred created=1717171720 cpus= since=1717171725123 why=held-by-job:12 groups=2 need=4 want=4-7 tasks= mem= hist=1/deferred@1717171725123:held-by-job:12 req=linear:2
 *   end 2 crc32=1a2b3c4d
 *
 * The first line carries the format version; the last line repeats the
 * record count and holds a CRC-32 of every byte before it, so a truncated or
 * damaged file is recognised. `node` names the host that wrote it (a state
 * dir shared by two hosts is refused, never merged: statetxn.h); `scan` is
 * where the next bounded owner check starts (statetxn.c); `count` holds the
 * node's counters that are not 0 (counters.h: changed only inside
 * transactions; absent when all are 0; a key this code does not know is
 * dropped, a counter reset to Prometheus).
 * Fields of a record are in this fixed order; `tasks` lists each task's
 * cpus (';' between tasks), `mem` is <os node>:<MiB> pairs (',' between),
 * `req` runs to the end of the line. Optional, in this order:
 * `jobmem` (the job's memory on this node, MiB; absent when unknown),
 * `groups`, `need` and `want` (a deferred step's placement groups, the
 * cpus its placement takes on an idle node, and the cpus it may use: what
 * anyone needs to place it, so deferred steps are served oldest first,
 * statequeue.h), `since` (unix time in ms) and `why` (one word,
 * bnd_state_why_clean), written for suspended, deferred and unbound
 * records; from version 3 `mbind` (the step's --mbind policy, absent for
 * none), `gpus` (each placement group's GPUs as indices of the topology's
 * GPU list, ',' between GPUs and ';' between groups, for a GPU-aware step)
 * and `hist` (its history, history.h); from version 4 `booked`
 * (numamem=yes: the job's memory Slurm booked on this node, <os
 * node>:<MiB> pairs, memory/booking.h) and `split` (how many of the step's
 * tasks have their memory on more than one node, when any). A record
 * without them reads as 0 / none / since=0 why="". Version 1 to 3 files
 * are read and rewritten as 4 (version 1: no node, scan, jobmem, groups,
 * want; version 2: no count, mbind, gpus, hist, no unbound records;
 * version 3: no booked, split); a file of a newer version is refused
 * whole, so an older plugin never drops what it cannot read.
 *
 * A transaction parses only what it needs: bnd_statefile_load keeps the
 * file's text and parses what every transaction reads of each record (job,
 * step, owner pid, uid, status, an active record's cpus) when the file is
 * whole; the rest (the owner's start time, created, since, why, want,
 * tasks on) is parsed on demand (bnd_statefile_whole: the deferred queue,
 * the full check of an owner and every edit ask for it) and an
 * unchanged record is written back as the bytes it was read from. Only
 * active records hold cpus: until bnd_statefile_whole, a loaded record
 * that is not active has its cpus unset (read status first). At 1000 records a whole
 * parse and format cost 20 times a bare read-and-replace of the file.
 * No I/O here: see statedir.h for reading and writing the file.
 */
#ifndef BINDING_STATEFILE_H
#define BINDING_STATEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "binding/util/cpuset.h"
#include "binding/util/crc32.h"
#include "binding/util/proc.h"
#include "binding/request/request.h"
#include "binding/state/counters.h"

#define BND_STATE_VERSION 4
#define BND_STATE_MAX_MEM 64      /* NUMA nodes with a reservation per record */
#define BND_STATE_MAX_TASKS 4096
#define BND_STATE_WHY_LEN 128     /* why= text, NUL included */
#define BND_STATE_NODE_LEN 256    /* node name, NUL included (as gethostname) */

/* Slurm's special step ids (the only definitions: the plugin and sbind
 * use these), printed by name. */
#define BND_STEP_BATCH 0xFFFFFFFBu
#define BND_STEP_EXTERN 0xFFFFFFFCu
#define BND_STEP_INTERACTIVE 0xFFFFFFFAu

/* "batch", "extern", "interactive" for those ids, else the number written
 * into buf (which is returned). For sbind's output and rankfile names. */
const char *bnd_step_name(uint32_t step, char *buf, size_t len);
/* The id of one of those names: BND_OK, or BND_EINVAL for another word. */
int bnd_step_by_name(const char *name, uint32_t *step);

enum bnd_state_status {
	BND_ST_ACTIVE = 0,  /* holds its cpus */
	BND_ST_SUSPENDED,   /* kept, but its cpus are free for others (gang) */
	BND_ST_DEFERRED,    /* kept, waiting for cpus; holds none */
	BND_ST_UNBOUND,     /* a step whose request was refused: it runs
	                       unbound (or its tasks fail); holds nothing,
	                       kept for sbind status and the metrics */
};

/* How much of a record read by bnd_statefile_load is parsed. */
enum bnd_rec_parsed {
	BND_REC_WHOLE = 0, /* every field (records built in memory, strict parses) */
	BND_REC_HEAD,      /* job, step, pid, uid, status, an active record's cpus;
			    * the rest waits for bnd_statefile_whole */
};

struct bnd_state_mem {
	int node;          /* OS NUMA node id */
	uint64_t mib;
};

struct bnd_state_record {
	uint32_t job, step;
	int owner_pid;
	unsigned long long owner_start; /* /proc/PID/stat starttime of owner_pid */
	uint32_t uid;
	enum bnd_state_status status;
	long long created;              /* unix time, seconds */
	bnd_cpuset_t cpus;              /* union of the tasks' cpus */
	int ntasks;
	bnd_cpuset_t *tasks;            /* [ntasks], owned by the record */
	int nmem;
	struct bnd_state_mem *mem;      /* [nmem], owned by the record */
	/* Suspended/deferred: when it became so (unix ms) and a one-word
	 * reason ("slurm-suspend", "held-by-job:12,13"). */
	long long since_ms;
	char why[BND_STATE_WHY_LEN];
	char request[BND_MAX_REQUEST_TEXT];
	/* The job's memory on this node (MiB): Slurm's job allocation, which
	 * its steps share; 0 when unknown. */
	uint64_t job_mem_mib;
	/* numamem: the job's memory Slurm booked on this node per NUMA node
	 * (owned; NULL and 0 for jobs without a booking), and how many of the
	 * step's tasks Slurm's booking split over several nodes. */
	int nbooked;
	struct bnd_state_mem *booked;
	int split;
	/* Deferred: its placement groups, the cpus its placement takes on an
	 * idle node, and the cpus it may use (owned; NULL and 0 otherwise). */
	int want_groups, want_need;
	bnd_cpuset_t *want;
	/* What the step asked beside its cores, for receipts: its --mbind,
	 * each placement group's GPUs (masks of the topology's GPU indices,
	 * owned; NULL and 0 for a step that is not GPU-aware); and its
	 * history (history.h; owned, NULL for none). */
	enum bnd_mbind mbind;
	int ngpus;
	uint64_t *gpus;
	char *hist;
	/* Read by bnd_statefile_load and not changed since: raw is its text in
	 * the file's buffer (without "rec " and the newline), written back as
	 * is; tail the offset of what follows cpus= in it. NULL for records built or
	 * edited in memory (bnd_statefile_edit). */
	enum bnd_rec_parsed parsed;
	const char *raw;
	size_t rawlen, tail;
};

/* Copies text into why as one word the file can hold: characters other
 * than [A-Za-z0-9._:,=+-] become '-'; cut to BND_STATE_WHY_LEN - 1. */
void bnd_state_why_clean(char *why, const char *text);

struct bnd_state_file {
	int version;
	char boot_id[BND_BOOT_ID_LEN];  /* "" when the file had no readable one */
	char node[BND_STATE_NODE_LEN];  /* "" when it had none (version 1) */
	unsigned scan;                  /* next record of the bounded owner check */
	struct bnd_counts counts;       /* the node's counters (counters.h) */
	int nrec, cap;
	struct bnd_state_record *rec;
	char *text;                     /* the loaded text the raw records point into */
	size_t textcap;                 /* its size (a spare block: util/spare.h) */
};

/* What bnd_statefile_parse found. */
enum bnd_parse_verdict {
	BND_SF_CLEAN = 0,  /* whole and valid */
	BND_SF_CORRUPT,    /* damaged: f holds the records that still parse */
	BND_SF_NEWER,      /* a format version this code does not know: f empty */
};

const char *bnd_state_status_name(enum bnd_state_status s);
/* BND_OK or BND_EINVAL for a name that is not a status. */
int bnd_state_status_parse(const char *name, enum bnd_state_status *s);

void bnd_statefile_init(struct bnd_state_file *f);
void bnd_statefile_free(struct bnd_state_file *f);
void bnd_state_record_free(struct bnd_state_record *r);
/* Sets the record's per-group GPU masks (copied; n 0: none). BND_OK or
 * BND_ENOMEM. */
int bnd_state_record_gpus(struct bnd_state_record *r, const uint64_t *masks, int n);
/* Room for n memory shares in r->mem (nmem = n, zeroed; 0 frees them).
 * BND_OK, BND_ENOMEM, or BND_EINVAL above BND_STATE_MAX_MEM. */
int bnd_state_record_mem(struct bnd_state_record *r, int n);
/* Room for n booked shares in r->booked (nbooked = n, zeroed; 0 frees
 * them). Same returns. */
int bnd_state_record_booked(struct bnd_state_record *r, int n);
/* Sets the record's want, groups and need (want NULL: none). BND_OK or
 * BND_ENOMEM. */
int bnd_state_record_want(struct bnd_state_record *r, const bnd_cpuset_t *want, int groups,
			  int need);
/* The file's first word, before its version (stateformat.c writes it,
 * stateparse.c checks it). */
#define BND_STATE_MAGIC "spank-binding-state "
/* Room for cap records in f->rec (0, or -1 out of memory), and the next
 * free record (NULL out of memory; f->nrec is the caller's to raise): for
 * the parser, which fills records in place. */
int bnd_statefile_reserve(struct bnd_state_file *f, int cap);
struct bnd_state_record *bnd_statefile_slot(struct bnd_state_file *f);
/* Appends a deep copy of r; BND_OK or BND_ENOMEM. */
int bnd_statefile_add(struct bnd_state_file *f, const struct bnd_state_record *r);
/* Index of (job, step)'s record in f, -1 when it has none. */
int bnd_statefile_find(const struct bnd_state_file *f, uint32_t job, uint32_t step);
/* Drops record i (freeing it), keeping the others' order. */
void bnd_statefile_remove(struct bnd_state_file *f, int i);

/* Parses the tail of record i when only its head was: BND_OK, BND_ENOMEM,
 * or BND_ESTATE when the tail does not parse (the record stays HEAD). */
int bnd_statefile_whole(struct bnd_state_file *f, int i);
/* Makes record i whole and detaches it from the file's text, so that it
 * can be changed and is formatted anew. Same returns. */
int bnd_statefile_edit(struct bnd_state_file *f, int i);

/* The whole file as text: *out is malloc'd and NUL-terminated, *outlen its
 * length. BND_OK, BND_ENOMEM or BND_EINVAL (a record that cannot be written). */
int bnd_statefile_format(const struct bnd_state_file *f, char **out, size_t *outlen,
			 char *err, size_t errlen);

/* One record as in the file, without "rec " and newline: malloc'd, NULL
 * when memory runs out. */
char *bnd_state_record_text(const struct bnd_state_record *r);

/* Parses text of len bytes (need not be NUL-terminated) into f (which it
 * initialises), every field of every record. Returns the verdict; for
 * BND_SF_CORRUPT and BND_SF_NEWER `why` says what is wrong ("truncated: no
 * end line", "bad checksum", ...). Returns -1 only when memory runs out. */
int bnd_statefile_parse(const char *text, size_t len, struct bnd_state_file *f,
			char *why, size_t whylen);

/* The same verdicts for a transaction: takes text (malloc'd, len bytes
 * and a NUL) over, whatever it returns. A whole file of the current version is
 * parsed to the records' heads and kept as f->text; anything else goes
 * through bnd_statefile_parse. */
int bnd_statefile_load(char *text, size_t len, struct bnd_state_file *f, char *why,
		       size_t whylen);

#endif
