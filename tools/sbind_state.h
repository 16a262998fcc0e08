/* sbind's state subcommands: status, release, gc. Each takes argc/argv
 * starting at the subcommand's name and returns an SBIND_EXIT_* code. */
#ifndef SBIND_STATE_H
#define SBIND_STATE_H

/* sbind status [--state DIR] [--topology SRC] [--format text|json] */
int sbind_cmd_status(int argc, char **argv);
/* sbind release --job J [--step S] [--state DIR] */
int sbind_cmd_release(int argc, char **argv);
/* sbind gc [--state DIR] */
int sbind_cmd_gc(int argc, char **argv);

#endif
