/* sbind's use of the state file for `topology --state` and `place --state
 * [--commit]`: occupancy read without the lock (a whole file is always
 * there to read), records written through one allocate transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/state/state.h"
#include "sbind.h"

int sbind_state_read(const char *what, const char *state_dir, struct bnd_state_file *f)
{
	struct bnd_state_opts o = { .dir = state_dir, .log = sbind_log_stderr };
	char err[BND_ERRLEN] = "";
	if (bnd_state_list(&o, f, err, sizeof(err)) != BND_OK) {
		fprintf(stderr, "sbind %s: %s\n", what, err);
		return SBIND_EXIT_ERROR;
	}
	return SBIND_EXIT_OK;
}

int sbind_state_held(const char *state_dir, bnd_cpuset_t *held)
{
	struct bnd_state_file f;
	if (sbind_state_read("state", state_dir, &f) != SBIND_EXIT_OK)
		return SBIND_EXIT_ERROR;
	bnd_cpuset_t h;
	bnd_state_held(&f, 0, &h);
	bnd_cpuset_or(held, &h);
	bnd_statefile_free(&f);
	return SBIND_EXIT_OK;
}

/* The allocator's arguments for r, the same for a commit and a dry run. */
static struct bnd_alloc_args alloc_args(const struct sbind_alloc *r)
{
	return (struct bnd_alloc_args){
		.job = r->job, .step = r->step, .ntasks = r->ntasks, .owner_pid = r->owner,
		.uid = (uint32_t)getuid(), .inherit_job = 1, .near = r->near,
		.mem_mib = r->mem->mib, .mbind = r->mem->mbind, .mem_reserve = r->mem->reserve,
		.mem_out = r->mem->out,
	};
}

int sbind_state_commit(const char *state_dir, const struct bnd_topology *t,
		       const struct sbind_alloc *r, struct bnd_placement *out, char *err,
		       size_t errlen)
{
	struct bnd_state_opts o = { .dir = state_dir, .log = sbind_log_stderr };
	bnd_cpuset_t allowed = t->all_cpus;
	bnd_cpuset_andnot(&allowed, r->mask);
	struct bnd_alloc_args a = alloc_args(r);
	a.allowed = &allowed;
	return sbind_exit_of(bnd_state_allocate(&o, t, r->req, &a, out, err, errlen));
}

int sbind_state_dry_run(const char *state_dir, const struct bnd_topology *t,
			const struct sbind_alloc *r, struct bnd_placement *out, char *err,
			size_t errlen)
{
	struct bnd_state_opts o = { .dir = state_dir, .log = sbind_log_stderr };
	/* --mask holds its cpus as another job would: the domain stays the
	 * node, so a GPU note says "held", not "outside". */
	struct bnd_alloc_args a = alloc_args(r);
	a.held_elsewhere = r->mask;
	int rc = bnd_state_preview(state_dir ? &o : NULL, t, r->req, &a, out, err, errlen);
	if (rc == BND_ESTATE || rc == BND_ESYS) {
		/* the state could not be read: said as sbind always said it */
		fprintf(stderr, "sbind: state: %s\n", err);
		err[0] = '\0';
	}
	return sbind_exit_of(rc);
}
