/* Large scratch blocks a thread uses again and again (a state's text as
 * read and as written, its record array), kept between uses, one per use.
 *
 * glibc maps every block above its mmap threshold afresh, and that
 * threshold only grows to the size of the last such block freed: a block
 * of the same size or a little larger (the state grows by a record) is
 * mapped again, every page faulted in, and unmapped with a TLB flush. At
 * 1000 records that was a third of a transaction. A thread keeps the
 * largest block of each use instead. Blocks are plain malloc memory:
 * free() is always a correct way to drop one.
 */
#ifndef BINDING_UTIL_SPARE_H
#define BINDING_UTIL_SPARE_H

#include <stddef.h>

enum bnd_spare_use {
	BND_SPARE_READ,    /* a file's text as read (safefile.h) */
	BND_SPARE_WRITE,   /* the state's text as written */
	BND_SPARE_RECORDS, /* the state's record array */
	BND_SPARE_USES
};

/* A block of at least need bytes (*cap: its real size): the thread's kept
 * one for this use when it is that large, else malloc's. NULL when memory
 * runs out. */
void *bnd_spare_alloc(enum bnd_spare_use use, size_t need, size_t *cap);

/* Gives p (cap bytes, or fewer: a lower bound is fine) back to the thread
 * for a later bnd_spare_alloc of this use, or frees it. NULL is fine. */
void bnd_spare_free(enum bnd_spare_use use, void *p, size_t cap);

#endif
