#include "binding/util/error.h"

#include <stdarg.h>
#include <stdio.h>

int bnd_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

const char *bnd_rc_name(int rc)
{
	switch (rc) {
	case BND_OK: return "ok";
	case BND_EINVAL: return "invalid input";
	case BND_ENOFIT: return "no binding possible";
	case BND_ESYS: return "system error";
	case BND_ESTATE: return "state refused";
	case BND_ENOMEM: return "out of memory";
	case BND_ETIMEOUT: return "timed out";
	default: return "unknown error";
	}
}
