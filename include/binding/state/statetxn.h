/* One state transaction, the building block of state.h's calls:
 * begin (lock, read, repair), change tx->f through the helpers, commit
 * (write temp, rename, journal), end (unlock). Internal to the state
 * modules; users call state.h.
 */
#ifndef BINDING_STATETXN_H
#define BINDING_STATETXN_H

#include <stddef.h>

#include "binding/state/state.h"
#include "binding/state/statefile.h"
#include "binding/state/statelock.h"

struct bnd_state_txn {
	const struct bnd_state_opts *o;
	const char *dir;
	int dirfd;
	struct bnd_statelock lock;
	struct bnd_state_file f;
	int dirty;         /* f differs from the file on disk */
	int dropped;       /* records removed by repairs in begin */
	int njournal, capjournal;
	char **journal;    /* lines for o->journal once committed */
};

/* Locks and loads the state, repairing it (stale owners, corruption, other
 * boot). On failure nothing is held and tx needs no bnd_state_txn_end. */
int bnd_state_txn_begin(struct bnd_state_txn *tx, const struct bnd_state_opts *o,
			char *err, size_t errlen);

/* Records a change for the journal ("<verb> <record>") and marks tx dirty. */
void bnd_state_txn_note(struct bnd_state_txn *tx, const char *verb,
			const struct bnd_state_record *r);
/* Removes record i, noting it under verb. */
void bnd_state_txn_drop(struct bnd_state_txn *tx, int i, const char *verb);

/* Writes the state if anything changed, then feeds the journal. */
int bnd_state_txn_commit(struct bnd_state_txn *tx, char *err, size_t errlen);
/* Unlocks and frees; safe after a failed commit. */
void bnd_state_txn_end(struct bnd_state_txn *tx);

/* state.c's occupancy rule for (a->job, a->step) on f: the cpus it must
 * not take (other jobs', its sibling steps', and the script's unless
 * a->inherit_job). And its placement rule, as bnd_state_allocate places. */
void bnd_state_taken(const struct bnd_state_file *f, const struct bnd_alloc_args *a,
		     bnd_cpuset_t *taken);
int bnd_state_place(const struct bnd_topology *t, const struct bnd_state_file *f,
		    const struct bnd_request *r, const struct bnd_alloc_args *a,
		    struct bnd_placement *out, char *err, size_t errlen);

/* printf into o->log, if any. */
void bnd_state_log(const struct bnd_state_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
