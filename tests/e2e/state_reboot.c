/* state_reboot: makes a node's state dir look as if it had been written in
 * another boot, for t41_restart.sh. The plugin compares the boot id in its
 * files with /proc/sys/kernel/random/boot_id; a reboot changes the
 * kernel's, this changes the files' instead, which is the same comparison
 * with no override compiled into (or honoured by) the installed plugin.
 *
 *   state_reboot STATEDIR BOOTID
 *
 * Rewrites STATEDIR/state (under the state's lock, records kept) and
 * STATEDIR/topology.cache (this machine's topology) with BOOTID. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/state/statedir.h"
#include "binding/state/statefile.h"
#include "binding/state/statelock.h"
#include "binding/util/safefile.h"
#include "binding/topology/topocache.h"
#include "binding/topology/topology.h"
#include "binding/util/error.h"
#include "../unit/testtopo.h"

static int rewrite_state(const char *dir, const char *boot, char *err, size_t errlen)
{
	int dfd, rc;
	struct bnd_statelock lk;
	if ((rc = bnd_safedir_open(dir, 0, &dfd, err, errlen)) || dfd < 0)
		return rc ? rc : bnd_fail(err, errlen, BND_ESYS, "%s: no state dir", dir);
	if ((rc = bnd_statelock_acquire(dfd, BND_STATE_LOCK_NAME, 0, &lk, err, errlen))) {
		close(dfd);
		return rc;
	}
	char *text = NULL, *out = NULL;
	size_t len = 0, outlen = 0;
	struct bnd_state_file f;
	bnd_statefile_init(&f);
	rc = bnd_statedir_read(dfd, &text, &len, err, errlen);
	if (!rc && text && bnd_statefile_parse(text, len, &f, err, errlen) != BND_SF_CLEAN)
		rc = bnd_fail(err, errlen, BND_ESTATE, "the state does not parse clean");
	if (!rc) {
		snprintf(f.boot_id, sizeof(f.boot_id), "%s", boot);
		rc = bnd_statefile_format(&f, &out, &outlen, err, errlen);
	}
	if (!rc)
		rc = bnd_statedir_write_temp(dfd, out, outlen, err, errlen);
	if (!rc)
		rc = bnd_statedir_commit_temp(dfd, err, errlen);
	free(text);
	free(out);
	bnd_statefile_free(&f);
	bnd_statelock_release(&lk);
	close(dfd);
	return rc;
}

int main(int argc, char **argv)
{
	char err[BND_ERRLEN] = "";
	if (argc != 3) {
		fprintf(stderr, "usage: %s STATEDIR BOOTID\n", argv[0]);
		return 2;
	}
	if (rewrite_state(argv[1], argv[2], err, sizeof(err))) {
		fprintf(stderr, "state_reboot: state: %s\n", err);
		return 1;
	}
	struct bnd_topology *t = NULL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", argv[1], BND_TOPOCACHE_FILE);
	if (bnd_topology_load(&t, NULL, err, sizeof(err)) ||
	    tu_cache_write(t, path, argv[2], err, sizeof(err))) {
		fprintf(stderr, "state_reboot: topology cache: %s\n", err);
		bnd_topology_free(t);
		return 1;
	}
	bnd_topology_free(t);
	return 0;
}
