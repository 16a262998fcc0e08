/* Helpers shared by the Check unit tests. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <sys/types.h>

#include <stddef.h>

#include "binding/util/cpuset.h"
#include "binding/request/option.h"
#include "binding/placement/place.h"
#include "binding/task/taskenv.h"
#include "binding/topology/topology.h"

/* Loads a topology or fails the test with hwloc's message. */
struct bnd_topology *tu_topo(const char *source);

/* Folder of the real machines' XMLs the project carries: $BINDING_TOPOLOGIES
 * (the Makefile sets tests/topologies), else TU_TOPOLOGIES_DEFAULT relative to
 * the checkout, where the tests run. An absent folder fails the test. */
#define TU_TOPOLOGIES_DEFAULT "tests/topologies"
const char *tu_topologies_dir(void);

/* Path of one XML of that folder (free it); the test fails when it is
 * absent. */
char *tu_topology_xml(const char *name);

/* NULL-terminated, sorted list of the *.xml paths in that folder (at least
 * one, else the test fails); free with tu_free_list. */
char **tu_topology_xmls(void);
void tu_free_list(char **list);

/* Places `text` for ntasks tasks with `taken` (OS cpus, may be NULL) held by
 * others. Returns the cores as "s,c" in the strategy's order, tasks
 * separated by " | ", or "ENOFIT"/"EINVAL" with the reason in err. cpus
 * (optional) receives the union. The result lives until the next call. */
const char *tu_place(const struct bnd_topology *t, const bnd_cpuset_t *taken, const char *text,
		     int ntasks, bnd_cpuset_t *cpus, char *err, size_t errlen);

/* A placement of one core per task for as many tasks as the node has
 * cores: each task one core, no core or cpu twice, every cpu used. */
void tu_assert_each_core_once(const struct bnd_topology *t, const struct bnd_placement *p,
			      const char *what);

/* Value of a name in a task's environment list, NULL when absent or
 * unset (the plugin only copies the list; tests look names up). */
const char *tu_taskenv_get(const struct bnd_taskenv *e, const char *name);

/* A child process that only waits for signals (a task to bind, stop,
 * kill); the caller kills and reaps it. */
pid_t tu_sleeper(void);

/* The Cpus_allowed_list of /proc/PID/status: what the kernel really
 * applied. The text lives until the next call. */
const char *tu_affinity_of(pid_t pid);

/* The k-th request (from 0) strategy s documents: the words of its row's
 * example (strategies.def) that are requests, not the options beside one
 * (--mbind=gpu), or its bare word for none. Into buf; 0 past the last. */
int tu_strategy_example(enum bnd_strategy s, int k, char *buf, size_t len);

/* An option's value as the plugin's option callback keeps it (option.h):
 * text and its one parse, for bnd_step_in's binding and mbind; NULL for a
 * NULL text. The values live until tu_options_free (a step points at
 * them): call it in teardown, after the steps are freed. */
const struct bnd_option_value *tu_option(enum bnd_option which, const char *text);
void tu_options_free(void);

/* A step started as the plugin's init_post_opt starts it: bnd_step_prepare,
 * then bnd_step_place with the same in. The first rc that is not BND_OK
 * (place is not called then), else BND_OK. */
struct bnd_step;
struct bnd_step_in;
int tu_step_start(struct bnd_step *s, const struct bnd_step_in *in);

/* Run a suite, print Check's summary line, return the process exit code. */
int tu_run(Suite *s);

#endif
