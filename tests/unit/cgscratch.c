#include "cgscratch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_at(const char *dir, const char *name, const char *text)
{
	char path[800];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int e = errno;
	close(fd);
	errno = e; /* the write's, for the caller's message */
	return n == (ssize_t)len ? 0 : -1;
}

int cg_scratch_make(struct cg_scratch *cg, const char *prefix, char *why, size_t whylen)
{
	char dev[256], type[64];
	memset(cg, 0, sizeof(*cg));
	FILE *m = fopen("/proc/self/mounts", "r");
	while (m && !*cg->mnt &&
	       fscanf(m, "%255s %255s %63s %*[^\n]", dev, cg->mnt, type) == 3)
		if (strcmp(type, "cgroup2"))
			*cg->mnt = '\0';
	if (m)
		fclose(m);
	if (geteuid() != 0 || !*cg->mnt) {
		snprintf(why, whylen, "needs root and a cgroup2 mount (%s)",
			 *cg->mnt ? cg->mnt : "none");
		return -1;
	}
	snprintf(cg->dir, sizeof(cg->dir), "%s/%s-%d", cg->mnt, prefix, (int)getpid());
	if (mkdir(cg->dir, 0755)) {
		snprintf(why, whylen, "mkdir %s: %s", cg->dir, strerror(errno));
		return -1;
	}
	return 0;
}

int cg_scratch_write(const struct cg_scratch *cg, const char *name, const char *text)
{
	return write_at(cg->dir, name, text);
}

int cg_scratch_move(const struct cg_scratch *cg, pid_t pid)
{
	char num[32];
	snprintf(num, sizeof(num), "%d", (int)pid);
	return write_at(cg->dir, "cgroup.procs", num);
}

int cg_scratch_remove(const struct cg_scratch *cg, pid_t pid, int guard_s)
{
	if (pid > 0) {
		char num[32];
		snprintf(num, sizeof(num), "%d", (int)pid);
		write_at(cg->mnt, "cgroup.procs", num); /* fails once it is gone: fine */
	}
	for (int i = 0; rmdir(cg->dir) && errno == EBUSY && i < guard_s * 100; i++)
		usleep(10000);
	return access(cg->dir, F_OK) ? 0 : -1;
}
