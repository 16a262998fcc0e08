/* One submission at this site (submission.h). */
#include "binding/submit/submission.h"

#include "binding/submit/numamem.h"
#include "binding/util/error.h"

int bnd_submit_at_site(const struct bnd_request *r, enum bnd_mbind mbind,
		       const struct bnd_alloc *a, const struct bnd_submit_site *site,
		       struct bnd_submit *out, char *err, size_t errlen)
{
	int rc = bnd_submit_translate(r, mbind, a, site->mode, out, err, errlen);
	if (rc != BND_OK)
		return rc;
	return bnd_submit_numamem(r, mbind, a, &site->numamem, site->mode, out, err, errlen);
}
