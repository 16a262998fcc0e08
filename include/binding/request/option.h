/* The user's options, checked where they are typed (srun, sbatch, salloc)
 * so a bad one stops the submission, and the help text for each. */
#ifndef BINDING_OPTION_H
#define BINDING_OPTION_H

#include <stddef.h>

/* BND_OK or BND_EINVAL with the parser's message naming the bad token.
 * BND_OK with a non-empty err is a warning to show (--mbind=nlocal:
 * accepted, not supported yet). */
enum bnd_option { BND_OPT_BINDING = 1, BND_OPT_MBIND = 2 };
int bnd_option_check(enum bnd_option which, const char *text, char *err, size_t errlen);

/* The grammar printed for --binding=help / --mbind=help. */
const char *bnd_option_help(enum bnd_option which);

#endif
