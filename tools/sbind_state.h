/* sbind's state subcommands: status, release, gc. Each takes argc/argv
 * starting at the subcommand's name and returns an SBIND_EXIT_* code. */
#ifndef SBIND_STATE_H
#define SBIND_STATE_H

#include <stdint.h>

/* sbind status [--state DIR] [--topology SRC] [--format text|json] */
int sbind_cmd_status(int argc, char **argv);
/* sbind status --job J --all-nodes: the job's receipt from each of its
 * nodes (sbind_receipts.c); json: --format json. */
int sbind_status_all_nodes(uint32_t job, int json, const char *state, const char *topology);
/* sbind release --job J [--step S] [--state DIR] */
int sbind_cmd_release(int argc, char **argv);
/* sbind gc [--state DIR] */
int sbind_cmd_gc(int argc, char **argv);

#endif
