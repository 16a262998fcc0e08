/* The state file's format: records in memory, text on disk.
 *
 * Plain text so an admin can read it with cat:
 *
 *   spank-binding-state 1
 *   boot 6f1c...-...
 *   rec job=12 step=0 pid=4242 start=981234 uid=1001 status=active created=1717171717 cpus=0-3 tasks=0-1;2-3 mem= req=linear:2
 *   rec job=13 step=0 pid=4250 start=981300 uid=1001 status=suspended created=1717171720 cpus= tasks= mem= since=1717171725123 why=slurm-suspend req=linear:2
 *   end 1 crc32=1a2b3c4d
 *
 * The first line carries the format version; the last line repeats the
 * record count and holds a CRC-32 of every byte before it, so a truncated or
 * damaged file is recognised. Fields of a record are in this fixed order;
 * `tasks` lists each task's cpus (';' between tasks), `mem` is
 * <os node>:<MiB> pairs (',' between), `req` runs to the end of the line.
 * `since` (unix time in ms) and `why` (one word, bnd_state_why_clean) are
 * written for suspended and deferred records only, and may be absent: a
 * record without them reads as since=0 why="".
 * No I/O here: see statedir.h for reading and writing the file.
 */
#ifndef BINDING_STATEFILE_H
#define BINDING_STATEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "binding/util/cpuset.h"
#include "binding/util/proc.h"
#include "binding/request/request.h"

#define BND_STATE_VERSION 1
#define BND_STATE_MAX_MEM 64      /* NUMA nodes with a reservation per record */
#define BND_STATE_MAX_TASKS 4096
#define BND_STATE_WHY_LEN 128     /* why= text, NUL included */

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
	struct bnd_state_mem mem[BND_STATE_MAX_MEM];
	/* Suspended/deferred: when it became so (unix ms) and a one-word
	 * reason ("slurm-suspend", "held-by-job:12,13"). */
	long long since_ms;
	char why[BND_STATE_WHY_LEN];
	char request[BND_MAX_REQUEST_TEXT];
};

/* Copies text into why as one word the file can hold: characters other
 * than [A-Za-z0-9._:,=+-] become '-'; cut to BND_STATE_WHY_LEN - 1. */
void bnd_state_why_clean(char *why, const char *text);

struct bnd_state_file {
	int version;
	char boot_id[BND_BOOT_ID_LEN];  /* "" when the file had no readable one */
	int nrec, cap;
	struct bnd_state_record *rec;
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
/* Deep copy (tasks included); BND_OK or BND_ENOMEM. */
int bnd_state_record_copy(struct bnd_state_record *dst, const struct bnd_state_record *src);
/* Appends a deep copy of r; BND_OK or BND_ENOMEM. */
int bnd_statefile_add(struct bnd_state_file *f, const struct bnd_state_record *r);
/* Index of (job, step)'s record in f, -1 when it has none. */
int bnd_statefile_find(const struct bnd_state_file *f, uint32_t job, uint32_t step);
/* Drops record i (freeing it), keeping the others' order. */
void bnd_statefile_remove(struct bnd_state_file *f, int i);

/* The whole file as text: *out is malloc'd and NUL-terminated, *outlen its
 * length. BND_OK, BND_ENOMEM or BND_EINVAL (a record that cannot be written). */
int bnd_statefile_format(const struct bnd_state_file *f, char **out, size_t *outlen,
			 char *err, size_t errlen);

/* One record as in the file, without "rec " and newline: malloc'd, NULL
 * when memory runs out. */
char *bnd_state_record_text(const struct bnd_state_record *r);

/* Parses text of len bytes (need not be NUL-terminated) into f (which it
 * initialises). Returns the verdict; for BND_SF_CORRUPT and BND_SF_NEWER
 * `why` says what is wrong ("truncated: no end line", "bad checksum", ...).
 * Returns -1 only when memory runs out. */
int bnd_statefile_parse(const char *text, size_t len, struct bnd_state_file *f,
			char *why, size_t whylen);

/* CRC-32 (IEEE 802.3), as in the end line. */
uint32_t bnd_crc32(const void *data, size_t len);

#endif
