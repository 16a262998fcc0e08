#include "binding/state/statetxn.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/util/fault.h"
#include "binding/util/proc.h"
#include "binding/util/spare.h"
#include "binding/state/statedir.h"
#include "binding/util/defaults.h"
#include "binding/state/statelock.h"
#include "binding/state/statewake.h"
#include "binding/state/occupancy.h"

void bnd_state_log(const struct bnd_state_opts *o, const char *fmt, ...)
{
	if (!o || !o->log)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->log(o->log_ctx, msg);
}

/* The boot id cannot change while this process lives: read it once; so
 * is the host name (a host renamed while it runs keeps its state: the
 * name only tells hosts apart). */
static char boot_id[BND_BOOT_ID_LEN];
static char host[BND_STATE_NODE_LEN];
static int boot_rc = BND_ESYS;
static pthread_once_t boot_once = PTHREAD_ONCE_INIT;

static void boot_init(void)
{
	boot_rc = bnd_proc_boot_id(boot_id, sizeof(boot_id), NULL, 0);
	if (gethostname(host, sizeof(host) - 1) || strchr(host, ' ') || strchr(host, '\n'))
		host[0] = '\0';
}

/* How many records a transaction checks for a gone owner, in turn from
 * f.scan: kill(pid, 0) is a system call (1.7 us on these VMs), and
 * checking every record made a 1000-record transaction cost 25 bare ones.
 * A record of a dead owner is also checked where it matters (before a
 * request is declared not to fit, bnd_state_txn_reclaim_holders) and by
 * gc; until then it only holds cpus for nobody. */
#define OWNER_WINDOW 8

void bnd_state_txn_count(struct bnd_state_txn *tx, enum bnd_counter k)
{
	bnd_counts_inc(&tx->f.counts, k);
	tx->dirty = 1;
}

void bnd_state_txn_note(struct bnd_state_txn *tx, const char *verb,
			const struct bnd_state_record *r)
{
	tx->dirty = 1;
	if (!tx->o || !tx->o->journal)
		return;
	if (tx->njournal == tx->capjournal) {
		int cap = tx->capjournal ? tx->capjournal * 2 : 8;
		char **n = realloc(tx->journal, (size_t)cap * sizeof(*n));
		if (!n)
			return;
		tx->journal = n;
		tx->capjournal = cap;
	}
	char *text = bnd_state_record_text(r);
	char *line = NULL;
	if (!text || asprintf(&line, "%s %s", verb, text) < 0)
		line = NULL;
	free(text);
	if (line)
		tx->journal[tx->njournal++] = line;
}

void bnd_state_txn_drop(struct bnd_state_txn *tx, int i, const char *verb)
{
	tx->dropped_deferred |= tx->f.rec[i].status == BND_ST_DEFERRED;
	bnd_state_txn_note(tx, verb, &tx->f.rec[i]);
	bnd_statefile_remove(&tx->f, i);
}

static void describe(const struct bnd_state_record *r, char *buf, size_t len)
{
	char cpus[256] = "";
	if (r->status == BND_ST_ACTIVE && bnd_cpuset_format_list(&r->cpus, cpus, sizeof(cpus)))
		snprintf(cpus, sizeof(cpus), "(%d cpus)", bnd_cpuset_count(&r->cpus));
	snprintf(buf, len, "job %" PRIu32 " step %" PRIu32 " (owner pid %d, cpus %s)", r->job,
		 r->step, r->owner_pid, cpus[0] ? cpus : "none");
}

/* A damaged file may hold garbage that parses: never let two jobs' active
 * records claim the same cpu. The earlier record wins. */
static int drop_overlaps(struct bnd_state_txn *tx)
{
	int dropped = 0;
	for (int i = 1; i < tx->f.nrec; i++) {
		const struct bnd_state_record *r = &tx->f.rec[i];
		if (r->status != BND_ST_ACTIVE)
			continue;
		for (int j = 0; j < i; j++) {
			const struct bnd_state_record *q = &tx->f.rec[j];
			if (q->status == BND_ST_ACTIVE && q->job != r->job &&
			    bnd_cpuset_intersects(&q->cpus, &r->cpus)) {
				char d[512];
				describe(r, d, sizeof(d));
				bnd_state_log(tx->o, "state %s: dropped salvaged %s: overlaps job %" PRIu32,
					      tx->dir, d, q->job);
				bnd_state_txn_drop(tx, i--, "reclaim");
				dropped++;
				break;
			}
		}
	}
	return dropped;
}

/* A state dir two hosts write (a shared file system) would have each
 * discard the other's records as another boot's and hand the same cores
 * twice: refuse it, untouched, and say so. */
static int other_host(struct bnd_state_txn *tx, char *err, size_t errlen)
{
	if (!tx->f.node[0] || !host[0] || !strcmp(tx->f.node, host))
		return BND_OK;
	bnd_state_log(tx->o, "state %s was written by host %s, this is %s: a state dir must be "
		      "local to its node (state_dir= on a shared file system?); refused, left "
		      "untouched", tx->dir, tx->f.node, host);
	return bnd_fail(err, errlen, BND_ESTATE, "state %s/%s belongs to host %s (this is %s): "
			"state_dir= must be node-local", tx->dir, BND_STATE_FILE_NAME,
			tx->f.node, host);
}

static int load(struct bnd_state_txn *tx, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc = bnd_statedir_read(tx->dirfd, &text, &len, err, errlen);
	if (rc)
		return rc;
	if (!text) {
		bnd_statefile_init(&tx->f);
		return BND_OK;
	}
	char why[256];
	int verdict = bnd_statefile_load(text, len, &tx->f, why, sizeof(why));
	if (verdict >= 0 && (rc = other_host(tx, err, errlen))) {
		bnd_statefile_free(&tx->f);
		return rc;
	}
	if (verdict < 0)
		return bnd_fail(err, errlen, BND_ENOMEM, "reading the state: out of memory");
	if (verdict == BND_SF_NEWER) {
		bnd_statefile_free(&tx->f);
		return bnd_fail(err, errlen, BND_ESTATE, "state %s/%s refused, left untouched: %s",
				tx->dir, BND_STATE_FILE_NAME, why);
	}
	if (verdict == BND_SF_CORRUPT) {
		char aside[128];
		rc = bnd_statedir_keep_aside(tx->dirfd, aside, sizeof(aside), err, errlen);
		if (rc) {
			bnd_statefile_free(&tx->f);
			return rc;
		}
		BND_FAULT("txn.kept_aside");
		int parsed = tx->f.nrec;
		tx->dropped += drop_overlaps(tx);
		bnd_state_log(tx->o,
			      "state %s damaged (%s): kept as %s; %d record(s) parse and are "
			      "kept if their owners are alive", tx->dir, why, aside, parsed);
		tx->dirty = 1;
	}
	return BND_OK;
}

static void reclaim_window(struct bnd_state_txn *tx);

static void repair(struct bnd_state_txn *tx)
{
	if (tx->f.boot_id[0] && strcmp(tx->f.boot_id, boot_id)) {
		if (tx->f.nrec)
			bnd_state_log(tx->o, "state %s is from another boot (%s): %d record(s) discarded",
				      tx->dir, tx->f.boot_id, tx->f.nrec);
		while (tx->f.nrec) {
			bnd_state_txn_drop(tx, tx->f.nrec - 1, "discard");
			tx->dropped++;
		}
		tx->dirty = 1;
	}
	if (strcmp(tx->f.boot_id, boot_id)) {
		strcpy(tx->f.boot_id, boot_id);
		tx->dirty = 1;
	}
	if (host[0] && strcmp(tx->f.node, host)) {
		strcpy(tx->f.node, host);
		tx->dirty = 1;
	}
	reclaim_window(tx);
}

/* Is record r's owner dead: gone (cheap), or with full, also a reused pid
 * or a zombie? Drops it then, logged; returns 1. */
static int reclaim_one(struct bnd_state_txn *tx, int i, int full)
{
	if (full ? bnd_state_owner_alive_at(&tx->f, i) : !bnd_proc_gone(tx->f.rec[i].owner_pid))
		return 0;
	const struct bnd_state_record *r = &tx->f.rec[i];
	char d[512];
	describe(r, d, sizeof(d));
	bnd_state_log(tx->o, "state %s: reclaimed %s: owner is gone", tx->dir, d);
	bnd_state_txn_drop(tx, i, "reclaim");
	tx->dropped++;
	return 1;
}

/* The cheap check of OWNER_WINDOW records from f.scan on (all of them in a
 * state that small); the next transaction that writes goes on from there. */
static void reclaim_window(struct bnd_state_txn *tx)
{
	int n = tx->f.nrec < OWNER_WINDOW ? tx->f.nrec : OWNER_WINDOW;
	int i = tx->f.nrec ? (int)(tx->f.scan % (unsigned)tx->f.nrec) : 0;
	for (int k = 0; k < n && tx->f.nrec; k++) {
		if (i >= tx->f.nrec)
			i = 0;
		if (!reclaim_one(tx, i, 0))
			i++;
	}
	tx->f.scan = tx->f.nrec ? (unsigned)i % (unsigned)tx->f.nrec : 0;
}

int bnd_state_txn_reclaim_all(struct bnd_state_txn *tx)
{
	int n = 0;
	for (int i = 0; i < tx->f.nrec; i++)
		if (reclaim_one(tx, i, 1))
			n++, i--;
	return n;
}

int bnd_state_txn_reclaim_holders(struct bnd_state_txn *tx, const bnd_cpuset_t *cpus,
				  int memory)
{
	int n = 0;
	for (int i = 0; i < tx->f.nrec; i++) {
		const struct bnd_state_record *r = &tx->f.rec[i];
		int holds = (r->status == BND_ST_ACTIVE &&
			     (!cpus || bnd_cpuset_intersects(&r->cpus, cpus))) ||
			    (memory && r->parsed == BND_REC_WHOLE && r->nmem > 0 &&
			     r->status != BND_ST_DEFERRED);
		if (holds && reclaim_one(tx, i, 1))
			n++, i--;
	}
	return n;
}

int bnd_state_owner_alive(const struct bnd_state_record *r)
{
	return r->parsed == BND_REC_HEAD || bnd_proc_alive(r->owner_pid, r->owner_start);
}

int bnd_state_owner_alive_at(struct bnd_state_file *f, int i)
{
	int rc = bnd_statefile_whole(f, i);
	if (rc == BND_ESTATE)
		return 0;
	return rc != BND_OK || bnd_state_owner_alive(&f->rec[i]);
}

int bnd_state_txn_begin(struct bnd_state_txn *tx, const struct bnd_state_opts *o,
			char *err, size_t errlen)
{
	memset(tx, 0, sizeof(*tx));
	tx->o = o;
	tx->dir = o && o->dir && *o->dir ? o->dir : BND_DEFAULT_STATE_DIR;
	tx->dirfd = -1;
	pthread_once(&boot_once, boot_init);
	if (boot_rc)
		return bnd_fail(err, errlen, BND_ESYS, "cannot read this boot's id from /proc");
	int rc = bnd_safedir_open(tx->dir, 1, &tx->dirfd, err, errlen);
	if (rc)
		return rc;
	rc = bnd_statelock_acquire(tx->dirfd, BND_STATE_LOCK_NAME, o ? o->lock_timeout_ms : 0,
				   &tx->lock, err, errlen);
	if (rc == BND_ETIMEOUT && o && o->pending)
		bnd_counts_lockwait(o->pending, tx->lock.waited_ns);
	if (!rc && tx->lock.recovered)
		bnd_state_log(o, "state %s: the previous lock holder died inside a transaction; "
			      "the state it left is whole", tx->dir);
	if (!rc) {
		BND_FAULT("txn.locked");
		rc = load(tx, err, errlen);
	}
	if (rc) {
		bnd_statelock_release(&tx->lock);
		close(tx->dirfd);
		tx->dirfd = -1;
		return rc;
	}
	bnd_state_held(&tx->f, 0, &tx->held0);
	repair(tx);
	BND_FAULT("txn.loaded");
	return BND_OK;
}

static void journal_flush(struct bnd_state_txn *tx, int emit)
{
	for (int i = 0; i < tx->njournal; i++) {
		if (emit)
			tx->o->journal(tx->o->journal_ctx, tx->journal[i]);
		free(tx->journal[i]);
	}
	free(tx->journal);
	tx->journal = NULL;
	tx->njournal = tx->capjournal = 0;
}

int bnd_state_txn_commit(struct bnd_state_txn *tx, char *err, size_t errlen)
{
	struct bnd_counts *pending = tx->o ? tx->o->pending : NULL;
	if (pending && !bnd_counts_empty(pending))
		tx->dirty = 1;
	if (!tx->dirty)
		return BND_OK;
	struct bnd_counts before = tx->f.counts;
	if (pending)
		bnd_counts_add(&tx->f.counts, pending);
	bnd_counts_lockwait(&tx->f.counts, tx->lock.waited_ns);
	char *text;
	size_t len;
	int rc = bnd_statefile_format(&tx->f, &text, &len, err, errlen);
	if (rc) {
		tx->f.counts = before;
		return rc;
	}
	rc = bnd_statedir_write_temp(tx->dirfd, text, len, err, errlen);
	bnd_spare_free(BND_SPARE_WRITE, text, len + 1);
	if (!rc) {
		BND_FAULT("txn.temp_written");
		rc = bnd_statedir_commit_temp(tx->dirfd, err, errlen);
	}
	if (rc) {
		tx->f.counts = before;
		return rc;
	}
	if (pending)
		memset(pending, 0, sizeof(*pending));
	tx->dirty = 0;
	tx->committed = 1;
	journal_flush(tx, 1);
	BND_FAULT("txn.committed");
	return BND_OK;
}

/* Could the change let a waiting step in: cpus freed, or a place in the
 * queue? (Taking cpus, or a new waiting step at the queue's end, never
 * does.) */
static int lets_in(const struct bnd_state_txn *tx)
{
	bnd_cpuset_t held;
	bnd_state_held(&tx->f, 0, &held);
	return tx->dropped_deferred || !bnd_cpuset_subset(&tx->held0, &held);
}

void bnd_state_txn_end(struct bnd_state_txn *tx)
{
	journal_flush(tx, 0);
	bnd_statelock_release(&tx->lock);
	/* after the unlock: the steps woken may take the lock at once */
	if (tx->committed && tx->dirfd >= 0 && lets_in(tx))
		bnd_state_wake_ring(tx->dirfd, &tx->f, tx->o ? tx->o->topo : NULL);
	if (tx->dirfd >= 0)
		close(tx->dirfd);
	tx->dirfd = -1;
	bnd_statefile_free(&tx->f);
	if (tx->committed && tx->o && tx->o->committed)
		tx->o->committed(tx->o->committed_ctx);
	tx->committed = 0;
}
