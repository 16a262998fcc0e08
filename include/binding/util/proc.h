/* Facts about processes and this boot, read from /proc.
 *
 * State records name their owner by pid plus the pid's start time, so a pid
 * recycled by the kernel is not mistaken for the original owner; the boot id
 * tells a state written before a reboot from the current one.
 */
#ifndef BINDING_PROC_H
#define BINDING_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Length of a boot id as the kernel prints it (a UUID), plus NUL. */
#define BND_BOOT_ID_LEN 37

/* Start time of pid in clock ticks after boot (/proc/PID/stat field 22).
 * BND_OK; BND_ESYS when the process does not exist or stat is unreadable. */
int bnd_proc_start_time(pid_t pid, unsigned long long *start, char *err, size_t errlen);

/* A /proc/PID/stat text's state letter (field 3) and start time (field
 * 22, clock ticks after boot). 0, or -1 when the text is not one. */
int bnd_proc_stat_parse(const char *text, char *state, unsigned long long *start);

/* 1 when pid exists, is not a zombie, and started at `start`; 0 otherwise
 * (no such process, another process with the same pid, or already dead
 * waiting to be reaped). */
int bnd_proc_alive(pid_t pid, unsigned long long start);

/* 1 when pid surely does not exist (kill(pid, 0) says ESRCH): one system
 * call, no /proc read. 0 says nothing about a reused pid or a zombie;
 * bnd_proc_alive does. */
int bnd_proc_gone(pid_t pid);

/* /proc/sys/kernel/random/boot_id without the newline. buflen must be at
 * least BND_BOOT_ID_LEN. */
int bnd_proc_boot_id(char *buf, size_t buflen, char *err, size_t errlen);

#endif
