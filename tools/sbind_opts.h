/* sbind's one option table: every command, its options, their arguments
 * and help (sbind_opts.c). getopt's table, `sbind CMD --help`, `sbind
 * --help`'s command list (sbind(1)'s SYNOPSIS, man/build.sh), sbind(1)'s
 * OPTIONS (`sbind --list options`) and the bash completion (`sbind
 * complete`) are all made from it, so none of them can name an option the
 * command does not take. */
#ifndef SBIND_OPTS_H
#define SBIND_OPTS_H

#include <getopt.h>
#include <stdio.h>

/* What an option's value is, for the usage and the shell's completion. */
enum sbind_arg {
	SA_NONE = 0, /* a flag */
	SA_TEXT,     /* a number, a name, a size; with words, those offered (the command checks) */
	SA_WORDS,    /* one of the row's words, checked before the command sees it */
	SA_FILE,     /* a path */
	SA_TOPOLOGY, /* an hwloc XML, a *.cache, or a synthetic description */
	SA_BINDING,  /* --binding's grammar (sbind complete binding) */
	SA_MBIND,    /* --mbind's policies (sbind complete mbind) */
};

struct sbind_opt {
	const char *name;    /* the long option, without -- */
	int id;              /* what the command's setter is given */
	enum sbind_arg kind;
	const char *arg;     /* its placeholder in the usage ("DIR"); NULL for SA_WORDS */
	const char *words;   /* "a|b|c": SA_WORDS' values; else names the value may also be */
	const char *help;    /* one sentence, for --help and sbind(1)'s OPTIONS */
};

/* sbind submit's ids: its Slurm options (lib/submit/allocopt.h) add their
 * short letters to getopt, so its own ids stay out of their way. */
enum {
	SO_BINDING = 1000, SO_MBIND, SO_COMMAND, SO_MODE, SO_FORMAT, SO_SLURM_CONF, SO_LIST,
	SO_SITE, SO_NUMAMEM_GRES, SO_CLI_JSON, SO_KEY0 = 1100,
};
/* --help, which every command takes. */
#define SBIND_OPT_HELP 2000

struct sbind_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	/* The usage after "sbind NAME": the options as --name only, grouped
	 * with [ ] and |; each --name is written out with its argument from
	 * the rows (sbind_cmd_synopsis), and every row appears exactly once. */
	const char *synopsis;
	const char *what;                 /* for sbind --help, lines of up to 72 */
	const struct sbind_opt *opts;     /* ends with a NULL name */
	const char *operands;             /* "FILE..." or "binding|mbind": words taken; NULL: none */
	void (*more_help)(FILE *f);       /* after the options in CMD --help */
	/* The words of a value of an option beyond the rows (submit's Slurm
	 * options), "a|b"; NULL for none. */
	const char *(*more_words)(const char *option);
};

/* Every command, in sbind --help's order; ends with a NULL name. */
extern const struct sbind_cmd sbind_cmds[];

const struct sbind_cmd *sbind_cmd_find(const char *name);

/* The synopsis with each option's argument ("--state DIR"), into buf; -1
 * when the rows and the synopsis disagree (an option missing, twice, or
 * unknown; named on stderr). */
int sbind_cmd_synopsis(const struct sbind_cmd *c, char *buf, size_t len);

/* Parses argv (argv[0] the command's name) by the command's rows and
 * more (NULL, or extra getopt rows with their short letters in shorts):
 * set(ctx, id, optarg) for each option, an SA_WORDS value checked first.
 * Returns 0 with *operand (when not NULL) the first operand's index (an operand where the
 * command takes none is refused), -1 after --help (printed), else the
 * setter's code or SBIND_EXIT_USAGE (said on stderr). */
typedef int (*sbind_set_fn)(void *ctx, int id, const char *arg);
int sbind_getopt(const char *name, int argc, char **argv, const char *shorts,
		 const struct option *more, sbind_set_fn set, void *ctx, int *operand);
/* A setter for a command whose one option is a string: ctx is its const char *. */
int sbind_set_string(void *ctx, int id, const char *arg);

/* `sbind CMD --help`'s usage and options. */
void sbind_cmd_usage(const struct sbind_cmd *c, FILE *f);
/* `sbind --help`'s commands: each one's synopsis and what. */
int sbind_cmds_usage(FILE *f);

/* sbind --list options: command, option with its argument, help; tab separated. */
int sbind_list_options(void);
/* sbind complete commands | options CMD | value CMD --OPTION. */
int sbind_complete_table(int argc, char **argv);

#endif
