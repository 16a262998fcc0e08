/* The node's OpenMPI rankfile for `pe` requests, in the state dir: root
 * writes it in slurmstepd before the tasks start, the tasks only read it
 * (its path is SLURM_BINDING_RANKFILE), and the step's end removes it.
 * The text is bnd_rankfile_format's (taskenv.h). */
#ifndef BINDING_RANKFILE_H
#define BINDING_RANKFILE_H

#include <stddef.h>
#include <stdint.h>

#define BND_RANKFILE_PREFIX "rankfile."

/* Writes text as DIR/rankfile.<job>.<step name>.<nodeid>, a fresh file
 * made through the state dir's safe-file layer (root's, 0644; in a private
 * dir root's 0600 with a read-only ACL entry for uid, the job's user, who
 * can neither write, grow nor touch it: util/safefile.h), and puts
 * that path in path; on failure path is "". Anything already under the
 * name is removed, never opened, and note (may be NULL) says what it was
 * for the admin's log ("" when there was nothing). */
int bnd_rankfile_write(const char *dir, uint32_t job, const char *step_name, uint32_t nodeid,
		       uint32_t uid, const char *text, char *path, size_t pathlen, char *note,
		       size_t notelen, char *err, size_t errlen);

/* Removes the file bnd_rankfile_write wrote (path "" : nothing). */
void bnd_rankfile_remove(const char *path);

/* sbind gc: removes the rankfiles whose step is gone (a slurmstepd killed
 * with SIGKILL never ran its exit callback) from o->dir, one log line each
 * through o->log; *removed counts them. A rankfile goes when its (job,
 * step) has no record in the state and it is older than that version of
 * the state. A step writes its rankfile after the transaction that records
 * it, so a rankfile newer than the state that was read may belong to a
 * record that read missed: it stays until the next gc. A writer's
 * temporary file (.new.<pid>) goes once that pid is gone. Run it after
 * bnd_state_gc, so the records of dead owners are reclaimed first. No state
 * file: nothing is removed. */
struct bnd_state_opts;
int bnd_rankfile_gc(const struct bnd_state_opts *o, int *removed, char *err, size_t errlen);

#endif
