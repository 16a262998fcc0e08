#include "binding/util/proc.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding/util/error.h"

/* Reads a small one-line /proc file whole; returns its length or -1 with
 * errno. A read that ends the line is the last: that saves the read that
 * would return 0, one syscall per record per transaction. */
static ssize_t read_small(const char *path, char *buf, size_t buflen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got + 1 < buflen) {
		ssize_t n = read(fd, buf + got, buflen - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (buf[got - 1] == '\n')
			break;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

int bnd_proc_stat_parse(const char *text, char *state, unsigned long long *start)
{
	/* The command name (field 2) may hold spaces and parentheses, so
	 * fields are counted from the last ')'. */
	const char *p = strrchr(text, ')');
	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	*state = *p;
	/* p points at field 3; starttime is field 22. */
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 10);
	if (errno || end == p)
		return -1;
	*start = v;
	return 0;
}

static int parse_stat(pid_t pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	return bnd_proc_stat_parse(buf, state, start);
}

/* This process's own start time never changes while it runs, and every
 * allocation asks for it (the owner is usually the caller): read it once per
 * pid, so a forked child reads its own. Per thread, so no lock is needed. */
static _Thread_local pid_t self_pid;
static _Thread_local unsigned long long self_start;

int bnd_proc_start_time(pid_t pid, unsigned long long *start, char *err, size_t errlen)
{
	char st;
	if (pid <= 0)
		return bnd_fail(err, errlen, BND_ESYS, "no process %d", (int)pid);
	int self = pid == getpid();
	if (self && self_pid == pid) {
		*start = self_start;
		return BND_OK;
	}
	if (parse_stat(pid, &st, start))
		return bnd_fail(err, errlen, BND_ESYS, "reading /proc/%d/stat: %s", (int)pid,
				errno ? strerror(errno) : "unexpected format");
	if (self) {
		self_pid = pid;
		self_start = *start;
	}
	return BND_OK;
}

int bnd_proc_gone(pid_t pid)
{
	return pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
}

int bnd_proc_alive(pid_t pid, unsigned long long start)
{
	char st;
	unsigned long long now;
	if (pid <= 0 || parse_stat(pid, &st, &now))
		return 0;
	/* A zombie holds no cpus: its tasks are gone, only the exit status waits. */
	if (st == 'Z' || st == 'X')
		return 0;
	return now == start;
}

int bnd_proc_boot_id(char *buf, size_t buflen, char *err, size_t errlen)
{
	char tmp[128];
	static const char path[] = "/proc/sys/kernel/random/boot_id";
	ssize_t n = read_small(path, tmp, sizeof(tmp));
	if (n < 0)
		return bnd_fail(err, errlen, BND_ESYS, "reading %s: %s", path, strerror(errno));
	tmp[strcspn(tmp, "\n")] = '\0';
	if (!tmp[0] || strlen(tmp) >= buflen || strlen(tmp) >= BND_BOOT_ID_LEN)
		return bnd_fail(err, errlen, BND_ESYS, "%s: unexpected content", path);
	memcpy(buf, tmp, strlen(tmp) + 1);
	return BND_OK;
}
