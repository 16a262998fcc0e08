/* Shared by the submit layer's unit tests (tests/unit/submit/). */
#ifndef BINDING_TESTS_SUBMITTEST_H
#define BINDING_TESTS_SUBMITTEST_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "binding/submit/allocopt.h"
#include "binding/util/error.h"

/* A test row's user options ("ntasks=2 cpus_per_task=4"), each set as
 * cli_filter would, through bnd_alloc_set. */
static inline void st_set_user(struct bnd_alloc *a, const char *user)
{
	char buf[256], err[BND_ERRLEN];
	snprintf(buf, sizeof(buf), "%s", user);
	char *save = NULL;
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		ck_assert_ptr_nonnull(eq);
		*eq = '\0';
		ck_assert_msg(bnd_alloc_set(a, tok, eq + 1, err, sizeof(err)) == BND_OK, "%s=%s: %s",
			      tok, eq + 1, err);
	}
}

#endif
