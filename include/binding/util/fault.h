/* Fault points: named places in the state path where a test build makes the
 * process die, so that crash recovery is tested at each exact point rather
 * than by killing at random moments (whose landing depends on the machine's
 * speed).
 *
 * Only builds compiled with -DBND_FAULT_POINTS (the unit-test libraries)
 * have them; in the plugin and sbind BND_FAULT() is nothing at all, so no
 * environment variable can make an installed binary die.
 *
 * In a test build, BINDING_FAULT=NAME[:ACTION][@N] makes the Nth pass (1 by
 * default) through point NAME end the process: ACTION "kill" (SIGKILL, the
 * default) or "exit" (_exit(BND_FAULT_EXIT_CODE), no cleanup either).
 */
#ifndef BINDING_FAULT_H
#define BINDING_FAULT_H

#define BND_FAULT_ENV "BINDING_FAULT"
#define BND_FAULT_EXIT_CODE 86

#ifdef BND_FAULT_POINTS
/* Every point the library has, in the order a transaction passes them,
 * NULL-terminated: tests iterate it, so a new point is tested by default. */
extern const char *const bnd_fault_points[];
/* Dies here when BINDING_FAULT names this point; aborts on a name missing
 * from bnd_fault_points, so the table cannot fall behind the code. */
void bnd_fault_point(const char *name);
/* How often this process passed point or probe name (-1: no such
 * point): tests count transactions by their txn.locked passes, without
 * timing. */
long bnd_fault_passes(const char *name);
#define BND_FAULT(name) bnd_fault_point(name)
/* Probes: named places outside the state path whose passes a test build
 * counts (bnd_fault_passes) and where a test may run a hook of its own
 * with the point's datum (a thread id about to be moved, a record about to
 * be woken): how tests reach a race or count work without timing. No
 * process dies at a probe. NULL-terminated, like bnd_fault_points. */
extern const char *const bnd_probe_points[];
void bnd_probe_point(const char *name, const void *arg);
/* fn(arg, ctx) at every later pass through probe name, in this process
 * (fn NULL: none). Set it before the code under test runs. */
void bnd_probe_hook(const char *name, void (*fn)(const void *arg, void *ctx), void *ctx);
#define BND_PROBE(name, arg) bnd_probe_point(name, arg)
#else
#define BND_FAULT(name) ((void)0)
#define BND_PROBE(name, arg) ((void)0)
#endif

#endif
