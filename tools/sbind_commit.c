/* sbind's use of the state file for `topology --state` and `place --state
 * [--commit]`: occupancy read without the lock (a whole file is always
 * there to read), records written through one allocate transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "binding/util/error.h"
#include "binding/state/state.h"
#include "sbind.h"

int sbind_state_held(const char *state_dir, bnd_cpuset_t *held)
{
	struct bnd_state_opts o = { .dir = state_dir, .log = sbind_log_stderr };
	struct bnd_state_file f;
	char err[BND_ERRLEN] = "";
	if (bnd_state_list(&o, &f, err, sizeof(err)) != BND_OK) {
		fprintf(stderr, "sbind: state: %s\n", err);
		return SBIND_EXIT_ERROR;
	}
	bnd_cpuset_t h;
	bnd_state_held(&f, 0, &h);
	bnd_cpuset_or(held, &h);
	bnd_statefile_free(&f);
	return SBIND_EXIT_OK;
}

int sbind_state_commit(const char *state_dir, const struct bnd_topology *t,
		       const struct bnd_request *req, uint32_t job, uint32_t step, int ntasks,
		       pid_t owner, const bnd_cpuset_t *extra_taken, const struct sbind_mem *mem,
		       const struct bnd_near *near, struct bnd_placement *out, char *err,
		       size_t errlen)
{
	struct bnd_state_opts o = { .dir = state_dir, .log = sbind_log_stderr };
	bnd_cpuset_t allowed = t->all_cpus;
	bnd_cpuset_andnot(&allowed, extra_taken);
	struct bnd_alloc_args a = {
		.job = job, .step = step, .ntasks = ntasks, .owner_pid = owner,
		.uid = (uint32_t)getuid(), .allowed = &allowed, .inherit_job = 1,
		.mem_mib = mem->mib, .mbind = mem->mbind, .mem_reserve = mem->reserve,
		.mem_out = mem->out, .near = near,
	};
	return sbind_exit_of(bnd_state_allocate(&o, t, req, &a, out, err, errlen));
}

int sbind_state_avail(const char *state_dir, const struct bnd_topology *t,
		      const struct bnd_mem_reserve *reserve, uint64_t *avail)
{
	uint64_t *used = calloc((size_t)t->nnuma + 1, sizeof(*used));
	if (!used)
		return SBIND_EXIT_ERROR;
	bnd_mem_capacity(t, reserve, avail);
	if (state_dir) {
		struct bnd_state_opts o = { .dir = state_dir, .log = sbind_log_stderr };
		struct bnd_state_file f;
		char err[BND_ERRLEN];
		if (bnd_state_list(&o, &f, err, sizeof(err)) != BND_OK) {
			fprintf(stderr, "sbind: %s\n", err);
			free(used);
			return SBIND_EXIT_ERROR;
		}
		int urc = bnd_state_mem_used(t, &f, 0, used);
		bnd_statefile_free(&f);
		if (urc) {
			fprintf(stderr, "sbind: out of memory\n");
			free(used);
			return SBIND_EXIT_ERROR;
		}
	}
	bnd_mem_free(t, avail, used, avail);
	free(used);
	return SBIND_EXIT_OK;
}
