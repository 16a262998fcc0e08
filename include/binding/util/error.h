/* Error codes and the error-message convention shared by every module.
 *
 * Every fallible function returns one of these codes and, when it fails,
 * fills a caller-provided buffer with a one-line, human-readable reason.
 * The caller decides how (and whether) to report it.
 */
#ifndef BINDING_ERROR_H
#define BINDING_ERROR_H

#include <stddef.h>

enum bnd_rc {
	BND_OK = 0,
	BND_EINVAL = -1,  /* bad input: request text, topology string, argument */
	BND_ENOFIT = -2,  /* well-formed request that cannot be satisfied */
	BND_ESYS = -3,    /* system call or library failure (errno-like) */
	BND_ESTATE = -4,  /* state file refused (permissions, version, lock) */
	BND_ENOMEM = -5,
	BND_ETIMEOUT = -6,
};

/* Recommended size of an error buffer. */
#define BND_ERRLEN 512

/* snprintf into err (if err && errlen), return rc; lets callers write
 * `return bnd_fail(err, errlen, BND_EINVAL, "...", ...);`. */
int bnd_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The message alone, for notes and reasons that are not a failure. */
void bnd_format(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
