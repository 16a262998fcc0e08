/* One state transaction, the building block of state.h's calls (state.h
 * includes this header, never the other way round):
 * begin (lock, read, repair), change tx->f through the helpers, commit
 * (write temp, rename, journal), end (unlock). Internal to the state
 * modules; users call state.h.
 */
#ifndef BINDING_STATETXN_H
#define BINDING_STATETXN_H

#include <stddef.h>

#include "binding/state/counters.h"
#include "binding/state/statefile.h"
#include "binding/util/cpuset.h"
#include "binding/state/statelock.h"
#include "binding/topology/topology.h"


struct bnd_state_opts {
	const char *dir;       /* NULL or "": BND_DEFAULT_STATE_DIR */
	int lock_timeout_ms;   /* <= 0: BND_DEFAULT_LOCK_TIMEOUT_MS (10 s) */
	/* Repairs (reclaimed stale records, recovered corruption, records of
	 * another boot): one line each, no newline. May be NULL. */
	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
	/* Every committed change, one line each, called while the lock is still
	 * held, in commit order: "<verb> <record as in the file>" with verb
	 * grant, release, reclaim, discard, status, suspend, resume or defer
	 * (transition.h). For audit trails and for
	 * tests that replay the history. May be NULL. */
	void (*journal)(void *ctx, const char *line);
	void *journal_ctx;
	/* Counts of what happened outside a transaction (a lock timeout, a
	 * rankfile written after its placement): the next transaction made
	 * with these options adds them to the state's counters (counters.h)
	 * and, once committed, zeroes them; a timed-out wait for the lock goes
	 * into their histogram. NULL: none. */
	struct bnd_counts *pending;
	/* Called after a transaction that wrote the state, once the lock is
	 * released (a metrics file kept current, report/metrics.h). NULL:
	 * none. */
	void (*committed)(void *ctx);
	void *committed_ctx;
	/* The node's topology when the caller has it (a step): a transaction
	 * that writes wakes the deferred steps it lets in, placed with it
	 * (statewake.h); NULL: the state dir's topology cache is read. */
	const struct bnd_topology *topo;
};

/* Is the record's owner still the process that made it? r whole (its
 * owner's start time read): a record bnd_statefile_load left at its head
 * counts as alive, never reclaimed on a start time nobody read. */
int bnd_state_owner_alive(const struct bnd_state_record *r);
/* The same for record i of a loaded file, made whole first; one whose
 * rest does not parse is not anyone's (the strict parse drops it too). */
int bnd_state_owner_alive_at(struct bnd_state_file *f, int i);

struct bnd_state_txn {
	const struct bnd_state_opts *o;
	const char *dir;
	int dirfd;
	struct bnd_statelock lock;
	struct bnd_state_file f;
	int dirty;         /* f differs from the file on disk */
	int committed;     /* f was written: wake whom it lets in at the end, and
	                      call o->committed */
	/* What could let a waiting step in: cpus held when the state was read
	 * (before repairs), and whether a deferred record was dropped. A
	 * change that frees neither wakes nobody and reads nothing more. */
	bnd_cpuset_t held0;
	int dropped_deferred;
	int dropped;       /* records removed by repairs in begin */
	int njournal, capjournal;
	char **journal;    /* lines for o->journal once committed */
};

/* Locks and loads the state, repairing it (corruption, other boot, and
 * records whose owner pid is gone: kill(pid, 0) for a bounded window of
 * records in turn, statetxn.c). A state written by another host (a state
 * dir on a shared file system) is refused with BND_ESTATE and a log line,
 * left untouched. On failure nothing is held and tx needs no
 * bnd_state_txn_end. */
int bnd_state_txn_begin(struct bnd_state_txn *tx, const struct bnd_state_opts *o,
			char *err, size_t errlen);

/* The full owner check (/proc start time: a reused pid, a zombie) of every
 * record, dropping the dead ones; returns how many. Run where a dead owner
 * would cost something: before a request is declared not to fit, and by
 * gc. Begin's cheap check catches every owner that is simply gone. */
int bnd_state_txn_reclaim_all(struct bnd_state_txn *tx);
/* The same full check for the records that matter to a placement in cpus
 * (NULL: anywhere): the active ones holding some of them, and with memory
 * the ones holding memory (whole records: the caller parsed them to count
 * it). Before a request is declared not to fit. */
int bnd_state_txn_reclaim_holders(struct bnd_state_txn *tx, const bnd_cpuset_t *cpus,
				  int memory);

/* Counts one k in the state's counters and marks tx dirty: counted once
 * committed, never when the transaction is not. */
void bnd_state_txn_count(struct bnd_state_txn *tx, enum bnd_counter k);

/* Records a change for the journal ("<verb> <record>") and marks tx dirty. */
void bnd_state_txn_note(struct bnd_state_txn *tx, const char *verb,
			const struct bnd_state_record *r);
/* Removes record i, noting it under verb. */
void bnd_state_txn_drop(struct bnd_state_txn *tx, int i, const char *verb);

/* Writes the state if anything changed (or o->pending holds counts), with
 * this transaction's wait for the lock in the counters' histogram, then
 * feeds the journal. A transaction that writes nothing counts nothing: a
 * write wakes every deferred step's watcher (docs/plugin.md). */
int bnd_state_txn_commit(struct bnd_state_txn *tx, char *err, size_t errlen);
/* Unlocks, then, when the transaction wrote the state, rings the doorbells
 * of the deferred steps it lets in (statewake.h), and frees; safe after a
 * failed commit. */
void bnd_state_txn_end(struct bnd_state_txn *tx);

/* printf into o->log, if any. */
void bnd_state_log(const struct bnd_state_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
